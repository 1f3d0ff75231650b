// HostWord: one host as --host and hostfile lines write it, split into
// the name (a host list to expand, or an IPv6 address taken as it is)
// and the slots that follow a ':' (Open MPI's and Hydra's host:N).
#ifndef ORCA_LAUNCH_HOST_WORD_H
#define ORCA_LAUNCH_HOST_WORD_H

#include <orca/result.h>

#include <optional>
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

}  // namespace orca::launch

#endif  // ORCA_LAUNCH_HOST_WORD_H
