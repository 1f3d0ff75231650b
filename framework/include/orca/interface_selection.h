/*
 * Interface selection: which inventory entries the oob may use, each with
 * the rule that decided it.
 *
 * Policy (DESIGN.md, principle 1): no interface is dropped by a heuristic.
 * Without oob_tcp_if_include / oob_tcp_if_exclude every up interface with
 * a usable address is selected. The lists take interface names and IPv4 /
 * IPv6 CIDRs; setting both is an error, as is an entry that matches
 * nothing on this host (the message lists the host's interfaces) or a
 * malformed entry. Loopback is kept for same-host peers even when an
 * include list does not name it (principle 2); only naming it in the
 * exclude list removes it. Which selected address pairs with which peer
 * address is the reachable framework's decision.
 *
 * Everything here is a pure function of its inputs, so the policy is
 * tested on synthetic inventories.
 */
#ifndef ORCA_INTERFACE_SELECTION_H
#define ORCA_INTERFACE_SELECTION_H

#include <orca/export.h>
#include <orca/interfaces.h>
#include <orca/ip_address.h>
#include <orca/mca_var.h>
#include <orca/result.h>

#include <string>
#include <vector>

namespace orca::net {

inline constexpr const char* kIfIncludeVar = "oob_tcp_if_include";
inline constexpr const char* kIfExcludeVar = "oob_tcp_if_exclude";

/* Declares oob_tcp_if_include and oob_tcp_if_exclude (string lists). They
 * live in liborca so that orca_info and the oob/tcp component apply one
 * policy. */
ORCA_EXPORT Status declare_interface_selection_vars(mca::Registry& registry);

struct ORCA_EXPORT FilterEntry {
  std::string text;         // as the user wrote it
  bool is_prefix = false;   // CIDR (or a bare address) rather than a name
  IpPrefix prefix;
  bool matches(const InterfaceAddress& entry) const;
};

struct ORCA_EXPORT InterfaceFilter {
  enum class Mode { None, Include, Exclude };
  Mode mode = Mode::None;
  std::string variable;       // which variable set it
  std::string source;         // where its value came from
  std::vector<FilterEntry> entries;
};

/* Parses the two variables. Errors: both set; a malformed entry (names the
 * variable, its source and the entry). */
ORCA_EXPORT Result<InterfaceFilter> interface_filter_from(const mca::Registry& registry);

/* Parses one list; `variable` and `source` are for messages. */
ORCA_EXPORT Result<std::vector<FilterEntry>> parse_filter_entries(const std::vector<std::string>& items,
                                                                  const std::string& variable,
                                                                  const std::string& source);

struct ORCA_EXPORT InterfaceDecision {
  size_t entry = 0;       // index into inventory.entries()
  bool selected = false;
  std::string rule;       // why, in words, naming the variable that changes it
};

/* Decides every entry. Errors: a filter entry that matches nothing here. */
ORCA_EXPORT Result<std::vector<InterfaceDecision>> select_interfaces(const InterfaceInventory& inventory,
                                                                     const InterfaceFilter& filter);

}  // namespace orca::net

#endif  // ORCA_INTERFACE_SELECTION_H
