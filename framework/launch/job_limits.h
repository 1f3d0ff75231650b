/*
 * Job limits: whether a job fits this host before anything of it starts.
 *
 * A job far too big for the host (orcarun --mca plm_local_num_nodes 65536,
 * or a hostfile of thousands of hosts from one launcher) must be refused
 * at once, naming the limit, not found out when fork(), pipe() or malloc()
 * fail half way through a launch of thousands of processes (a failure
 * that is slow, partial, and hard to clean up after).
 *
 * What orcarun itself costs on this host for a job: the processes it
 * starts here (plm/local's daemons, and an agent per daemon for plm/rsh
 * without tree spawn), each daemon's threads (the PMIx server's) and its
 * keeper process, the
 * ranks of the daemons on this host, a few descriptors per child process
 * and per oob connection, and memory per daemon. JobFootprint holds those
 * counts; HostLimits what the kernel allows now; check_job_fits compares
 * them with the per-item costs below, measured on Linux (a daemon with
 * its PMIx server and its keeper is 4 tasks and about 3.5 MiB of private
 * memory; orcarun keeps 3 descriptors per child it started; a daemon keeps
 * about 30 of its own and 2 per rank, its stdout and stderr pipes, and 3
 * are counted for a PMI connection). The daemons on this host inherit
 * orcarun's RLIMIT_NOFILE, which orcarun raises for both. They err on the
 * side of starting: a job refused here would surely have failed.
 */
#ifndef ORCA_LAUNCH_JOB_LIMITS_H
#define ORCA_LAUNCH_JOB_LIMITS_H

#include "cgroup_task_limit.h"

#include <orca/export.h>
#include <orca/result.h>

#include <cstdint>
#include <optional>

namespace orca::launch {

/* Per-item costs (see above). */
inline constexpr std::uint64_t kTasksPerLocalDaemon = 4;
inline constexpr std::uint64_t kFilesPerChild = 3;      // stdin, stdout and stderr pipes of a process orcarun started
inline constexpr std::uint64_t kFilesPerConnection = 1;
inline constexpr std::uint64_t kFilesBase = 64;         // orcarun's own: listeners, netlink, loop, libraries
inline constexpr std::uint64_t kDaemonFilesBase = 64;   // a daemon's own (its PMIx server's included)
inline constexpr std::uint64_t kDaemonFilesPerRank = 3; // a rank's stdout and stderr pipes and its PMI connection
inline constexpr std::uint64_t kMemoryPerLocalDaemon = 4u << 20;
inline constexpr std::uint64_t kMemoryPerDaemon = 256u << 10;  // orcarun's state per daemon, its queues included

struct JobFootprint {
  std::uint64_t local_daemons = 0;  // orcads on this host
  std::uint64_t local_ranks = 0;    // ranks of those daemons
  std::uint64_t most_local_ranks = 0;  // ranks of the busiest of them
  std::uint64_t children = 0;       // processes orcarun starts itself (daemons or their agents)
  std::uint64_t connections = 0;    // oob connections orcarun holds (its children in the routing tree)
  std::uint64_t daemons = 0;        // of the whole job
};

struct HostLimits {
  std::uint64_t open_files = 0;                // RLIMIT_NOFILE, soft
  std::uint64_t open_files_hard = 0;           // RLIMIT_NOFILE, hard (the soft limit may be raised to it)
  std::optional<std::uint64_t> processes;      // RLIMIT_NPROC, when it applies (not for root, not unlimited)
  std::uint64_t processes_in_use = 0;          // tasks of this user now (counted only when `processes` is set)
  std::uint64_t pid_max = 0;                   // kernel.pid_max: task ids of the whole machine
  std::uint64_t threads_max = 0;               // kernel.threads-max
  std::uint64_t tasks_in_use = 0;              // tasks of the machine now (/proc/loadavg)
  std::optional<std::uint64_t> memory_available;  // MemAvailable, bytes
  std::optional<CgroupTaskLimit> cgroup_tasks;    // the tightest pids.max of this process's cgroups, if any
};

/* The limits of this host now; what cannot be read is left at a value
 * that never refuses (0 open files means unknown, and so on). */
ORCA_EXPORT HostLimits read_host_limits();

/* Descriptors orcarun needs for `job`. */
ORCA_EXPORT std::uint64_t files_needed(const JobFootprint& job) noexcept;
/* Descriptors the busiest daemon on this host needs for its ranks. */
ORCA_EXPORT std::uint64_t daemon_files_needed(const JobFootprint& job) noexcept;

/* Whether `job` fits `limits`. Errors (area "launch", topic
 * job-exceeds-limit): the first limit it exceeds, with what it needs, what
 * the host allows, and what to change (a job with no daemons of its own,
 * on a DVM's running ones, is told of its ranks, and to run fewer). A soft RLIMIT_NOFILE below the
 * need but a hard one above it is no error: the caller raises it
 * (raise_open_files). */
ORCA_EXPORT Status check_job_fits(const JobFootprint& job, const HostLimits& limits);

/* Raises this process's soft RLIMIT_NOFILE to `needed` (at most the hard
 * limit); true if it is at least `needed` now. */
ORCA_EXPORT bool raise_open_files(std::uint64_t needed);

}  // namespace orca::launch

#endif  // ORCA_LAUNCH_JOB_LIMITS_H
