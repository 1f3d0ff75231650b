// Checks shared by the host list targets: what every accepted host name
// and every parsed host must look like (orca/host_list.h).
#ifndef ORCA_TEST_FUZZ_HOSTLIST_CHECK_H
#define ORCA_TEST_FUZZ_HOSTLIST_CHECK_H

#include <orca/host_list.h>

#include "launch/host_word.h"

#include "fuzz_input.h"

#include <arpa/inet.h>

#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace orca::fuzz {

inline bool host_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
         c == '_';
}

inline bool is_ipv6(const std::string& text) {
  in6_addr parsed{};
  return ::inet_pton(AF_INET6, text.c_str(), &parsed) == 1;
}

/* NAME of A-Z a-z 0-9 . - _, or an IPv6 address; in a host list of
 * --host or a hostfile (`with_user`), after an optional USER@ of those
 * characters too. */
inline void check_host_name(const std::string& name, bool with_user = false) {
  std::string host = name;
  if (const size_t at = name.find('@'); with_user && at != std::string::npos) {
    fuzz_require(at >= 1 && at <= launch::kMaxUserNameLength, "a user name of a bad length");
    for (size_t i = 0; i < at; ++i) fuzz_require(host_char(name[i]), "a user name with a character outside A-Z a-z 0-9 . - _");
    host = name.substr(at + 1);
  }
  fuzz_require(!host.empty() && host.size() <= launch::kMaxHostNameLength, "a host name of a bad length");
  if (with_user && host.find(':') != std::string::npos) {
    fuzz_require(is_ipv6(host), "a host name with ':' that is no IPv6 address");
    return;
  }
  for (char c : host) fuzz_require(host_char(c), "a host name with a character outside A-Z a-z 0-9 . - _");
}

inline void check_names(const std::vector<std::string>& names) {
  fuzz_require(!names.empty() && names.size() <= launch::kMaxHostNames, "a list of a bad size");
  std::size_t chars = 0;
  for (const std::string& n : names) {
    check_host_name(n);
    chars += n.size();
  }
  fuzz_require(chars <= launch::kMaxHostListChars, "a list of more characters than kMaxHostListChars");
}

/* Merged hosts: each name once, slots within bounds. */
inline void check_hosts(const std::vector<launch::HostSlots>& hosts) {
  fuzz_require(!hosts.empty() && hosts.size() <= launch::kMaxHostNames, "a host list of a bad size");
  // Views, not copies: a million hosts are allowed, and the check must
  // not double what the code under test spends.
  std::unordered_set<std::string_view> seen;
  seen.reserve(hosts.size());
  std::size_t chars = 0;
  for (const launch::HostSlots& h : hosts) {
    check_host_name(h.name, true);
    chars += h.name.size();
    fuzz_require(seen.insert(h.name).second, "a host appears twice after merging");
    fuzz_require(h.slots >= 1 && h.slots <= launch::kMaxSlotsPerHost, "slots out of bounds");
  }
  fuzz_require(chars <= launch::kMaxHostListChars, "hosts of more characters than kMaxHostListChars");
}

}  // namespace orca::fuzz

#endif
