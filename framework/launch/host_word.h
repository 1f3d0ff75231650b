// HostWord: one host as --host and hostfile lines write it, split into
// the name (a host list to expand, or an IPv6 address taken as it is)
// and the slots that follow a ':' (Open MPI's and Hydra's host:N).
#ifndef ORCA_LAUNCH_HOST_WORD_H
#define ORCA_LAUNCH_HOST_WORD_H

#include <orca/result.h>

#include "launch/hostlist_expand.h"

#include <optional>
#include <vector>
#include <string>
#include <string_view>

namespace orca::launch {

struct HostWord {
  std::string user;                         // USER@: given to the agent with each host ("" : none)
  std::string_view hostlist;                // a host list to expand (node[1-4]); empty for an address
  std::string address;                      // an IPv6 address, not expanded; empty for a host list
  std::optional<std::string_view> slots;    // the text after NAME: or [ADDRESS]:, unchecked
};

/* Splits NAME, NAME:SLOTS, [IPV6], [IPV6]:SLOTS or a bare IPv6 address
 * (which cannot carry slots: "fe80::1:2" would read two ways), each after
 * an optional USER@ (letters, digits, '.', '-', '_'). Errors
 * (launch/hostlist-syntax, naming `source`): an unclosed or empty
 * bracketed address, one that is no IPv6 address, anything after it but
 * :SLOTS, several ':' that are no IPv6 address, nothing before the ':',
 * an empty or malformed user. */
Result<HostWord> split_host_word(std::string_view word, std::string_view source);

/* The names of `word`: its address, or its host list expanded, each
 * charged to `budget` (launch/hostlist-too-large, -too-long past it). */
Status host_word_names(const HostWord& word, std::string_view source, std::vector<std::string>& names,
                       HostlistBudget& budget);

/* The longest USER@ (LOGIN_NAME_MAX of useradd). */
inline constexpr std::size_t kMaxUserNameLength = 32;

/* Puts USER@ before each of `names`, charging the characters to `budget`
 * as the names were (launch/hostlist-too-long past it; `word` and
 * `source` name the host word). Nothing changes on an error. */
Status add_user(const std::string& user, std::vector<std::string>& names, std::string_view word,
                std::string_view source, HostlistBudget& budget);

}  // namespace orca::launch

#endif  // ORCA_LAUNCH_HOST_WORD_H
