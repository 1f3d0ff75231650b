/*
 * Host lists: the hosts a job may run on, as the user or the resource
 * manager wrote them.
 *
 * One syntax wherever a list of hosts is read (--host, hostfiles, Slurm's
 * SLURM_JOB_NODELIST), the hostlist syntax of Slurm and pdsh:
 *
 *   node1,node2               items separated by commas
 *   node[01-04,07]            a bracket group of numbers and ranges
 *   linux[0000-1023]          zero padding kept: the low bound's width
 *   rack[0-1]_blade[0-3]      several groups: every combination, the
 *                             last group varying fastest
 *
 * Order is kept. expand_hostlist() returns names as written, duplicates
 * included; the parsers that attach slots (--host, hostfiles) merge a
 * repeated host into its first appearance, adding the slots.
 *
 * Everything here except read_hostfile() is a pure function of its
 * arguments; read_hostfile() reads one file and parses it. Errors are
 * Messages of area "launch" (help-launch.txt) naming where the text came
 * from and the offending part. Input of any size and content is safe: the
 * expansion is counted before anything is allocated and refused beyond
 * the limits below.
 */
#ifndef ORCA_HOST_LIST_H
#define ORCA_HOST_LIST_H

#include <orca/export.h>
#include <orca/result.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace orca::launch {

/* At most this many names from one list, one --host or one hostfile (a
 * range of ten million is refused before it is expanded). */
inline constexpr std::size_t kMaxHostNames = 1'000'000;
/* The longest host name (DNS: 253 characters). */
inline constexpr std::size_t kMaxHostNameLength = 253;
/* At most this many characters of host names from one list, one --host
 * or one hostfile: a million names of 16 characters. Without it a short
 * list of long names (a 240-character name with a range of a million)
 * would cost gigabytes before anything could refuse it. */
inline constexpr std::size_t kMaxHostListChars = std::size_t{16} << 20;
/* The most digits of one number in a bracket group. */
inline constexpr std::size_t kMaxRangeDigits = 9;
/* The most slots of one host, after duplicates are added up. */
inline constexpr unsigned kMaxSlotsPerHost = 1u << 20;  // 1,048,576
/* The largest hostfile read_hostfile() reads. */
inline constexpr std::size_t kMaxHostfileSize = std::size_t{1} << 20;  // 1 MiB

/* Expands hostlist `text` into host names, in order, duplicates kept.
 * Host names use the characters A-Z a-z 0-9 . - _; a bracket group holds
 * numbers and low-high ranges separated by commas, and every number is
 * printed with at least the width of its range's low bound (node[08-10]:
 * node08 node09 node10). Surrounding whitespace is ignored.
 * `source` says where the text came from, for messages ("--host",
 * "hostfile /etc/hosts.orca:3", "SLURM_JOB_NODELIST").
 * Errors (launch/hostlist-syntax unless said): an empty list
 * (launch/hostlist-empty) or empty item, a character outside the set, an
 * unclosed, nested or unopened bracket, an empty group or range, a
 * reversed range (node[5-3]), a number of more than kMaxRangeDigits
 * digits, a name longer than kMaxHostNameLength, more than kMaxHostNames
 * names in all (launch/hostlist-too-large), more than kMaxHostListChars
 * characters of names in all (launch/hostlist-too-long). Each error's
 * "problem" argument says it in a few words ("it is empty", "at \"n[1-\":
 * ..."), for a caller that quotes it in a message of its own. */
ORCA_EXPORT Result<std::vector<std::string>> expand_hostlist(std::string_view text, std::string_view source);

/* A host and how many processes it takes without oversubscription. */
struct ORCA_EXPORT HostSlots {
  std::string name;
  unsigned slots = 1;
  bool slots_given = false;  // false: the default of 1, not the user's word
  unsigned max_slots = 0;    // a hostfile's max_slots=N: the most processes even when oversubscribed; 0: no cap
  bool operator==(const HostSlots&) const = default;
};

/* Merges repeated names into their first appearance, adding the slots
 * (slots_given if any of them gave slots) and the caps (max_slots, when
 * every one of them gave one; else no cap). Order of first appearance is
 * kept. Error: a host's slots add up to more than kMaxSlotsPerHost
 * (launch/host-bad-slots, naming `source`). */
ORCA_EXPORT Result<std::vector<HostSlots>> merge_duplicate_hosts(std::vector<HostSlots> hosts,
                                                                 std::string_view source);

/* The value of --host: comma-separated items, each a host or a hostlist
 * with an optional ":SLOTS" (a whole number from 1 to kMaxSlotsPerHost)
 * applying to every host it names:  h1:4,node[1-3]:2,h2.
 * A host without slots has 1. Duplicates are merged with their slots
 * added. Errors: those of expand_hostlist() with source "--host"; bad
 * slots (launch/host-bad-slots). */
ORCA_EXPORT Result<std::vector<HostSlots>> parse_host_option(std::string_view text);

/* The text of a hostfile: one host or hostlist per line, optionally
 * followed by "slots=N" (spaces around '=' allowed); '#' starts a comment;
 * blank lines are skipped. Duplicates are merged with their slots added.
 * `max_slots=M` (Open MPI's per-host cap, at least the host's slots) is
 * the most processes the host runs when the job is oversubscribed; it
 * does not itself allow oversubscription. Without slots= the host has 1.
 * Errors name "file:line": an unknown or repeated key, a bad slots or
 * max_slots value, max_slots below slots (launch/hostfile-syntax), the
 * errors of expand_hostlist() with source "hostfile FILE:LINE", and a
 * file that names no host (launch/hostfile-empty). */
ORCA_EXPORT Result<std::vector<HostSlots>> parse_hostfile_text(std::string_view text, std::string_view file_name);

/* Reads and parses hostfile `path`. Only a regular file of at most
 * kMaxHostfileSize bytes is read (a FIFO does not block the caller: it
 * is refused). Errors: launch/hostfile-unreadable naming the file and why
 * (missing, a directory, too large, ...); those of parse_hostfile_text(). */
ORCA_EXPORT Result<std::vector<HostSlots>> read_hostfile(const std::string& path);

/* Slurm's SLURM_TASKS_PER_NODE: comma-separated counts, each "N" or
 * "N(xR)" for R nodes of N tasks:  "2(x3),5" is {2, 2, 2, 5}. Counts are
 * from 1 to kMaxSlotsPerHost, at most kMaxHostNames in all. Errors
 * (launch/tasks-per-node-syntax, naming `source` and the item). */
ORCA_EXPORT Result<std::vector<unsigned>> parse_tasks_per_node(std::string_view text,
                                                               std::string_view source = "SLURM_TASKS_PER_NODE");

/* Pairs node names with their counts (SLURM_JOB_NODELIST with
 * SLURM_TASKS_PER_NODE), in order, each count given; duplicates merged.
 * Error: the two lists differ in length (launch/tasks-per-node-mismatch). */
ORCA_EXPORT Result<std::vector<HostSlots>> hosts_with_counts(const std::vector<std::string>& names,
                                                             const std::vector<unsigned>& counts,
                                                             std::string_view names_source,
                                                             std::string_view counts_source);

}  // namespace orca::launch

#endif  // ORCA_HOST_LIST_H
