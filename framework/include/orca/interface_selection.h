/*
 * Interface selection: which inventory entries the oob may use, each with
 * the rule that decided it.
 *
 * Policy (DESIGN.md, principle 1): no interface is dropped by a heuristic.
 * Without an include or exclude list every up interface with a usable
 * address is selected. The lists take interface names and IPv4 /
 * IPv6 CIDRs; setting both is an error, as is an entry that matches
 * nothing on this host (the message lists the host's interfaces) or a
 * malformed entry. Loopback is kept for same-host peers even when an
 * include list does not name it (principle 2); only naming it in the
 * exclude list removes it. Which selected address pairs with which peer
 * address is the reachable framework's decision.
 *
 * The lists belong to the component that selects interfaces: it declares
 * `if_include` and `if_exclude` under its own names (oob/tcp:
 * oob_tcp_if_include, oob_tcp_if_exclude) from the declarations below, and
 * every message and rule names those variables. liborca names no
 * component's variable.
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

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace orca::net {

/* The two variables, as rows for a component's variable table: declare
 * them in register_vars beside the component's own (short names
 * "if_include" and "if_exclude"; the full names get its prefix). */
ORCA_EXPORT std::span<const orca_mca_var_decl> interface_selection_decls();

/* Declares both for <framework>_<component>_ in `registry`, from the same
 * rows (for tests and tools that stand in for a component). */
ORCA_EXPORT Status declare_interface_selection_vars(mca::Registry& registry, const std::string& framework,
                                                   const std::string& component);

struct ORCA_EXPORT FilterEntry {
  std::string text;         // as the user wrote it
  bool is_prefix = false;   // CIDR (or a bare address) rather than a name
  IpPrefix prefix;
  bool matches(const InterfaceAddress& entry) const;
};

struct ORCA_EXPORT InterfaceFilter {
  enum class Mode { None, Include, Exclude };
  Mode mode = Mode::None;
  std::string variable;          // which variable set it
  std::string source;            // where its value came from
  std::string include_variable;  // both names, for the rules' advice
  std::string exclude_variable;
  std::vector<FilterEntry> entries;
};

/* One of a component's two lists as set: the variable that holds it,
 * where its value came from (for messages), its entries as written. */
struct ORCA_EXPORT InterfaceList {
  std::string variable;
  std::string source;
  std::vector<std::string> entries;
};

/* The filter a component's include and exclude lists make. Errors: both
 * set; a malformed entry (names the variable, its source and the entry). */
ORCA_EXPORT Result<InterfaceFilter> interface_filter_of(const InterfaceList& include, const InterfaceList& exclude);

/* Parses <prefix>if_include and <prefix>if_exclude (prefix "oob_tcp_").
 * Errors: they are not declared, and those of interface_filter_of. */
ORCA_EXPORT Result<InterfaceFilter> interface_filter_from(const mca::Registry& registry, std::string_view prefix);

/* The prefixes of every component in `registry` that declares both lists
 * ("oob_tcp_", ...), in declaration order. */
ORCA_EXPORT std::vector<std::string> interface_selecting_prefixes(const mca::Registry& registry);

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

/* The whole chain a component's lists make of an inventory: parse
 * <prefix>if_include / <prefix>if_exclude from `registry` and decide every
 * entry; an empty prefix applies no lists. Errors: those of
 * interface_filter_from and select_interfaces. */
ORCA_EXPORT Result<std::vector<InterfaceDecision>> select_interfaces(const InterfaceInventory& inventory,
                                                                     const mca::Registry& registry,
                                                                     std::string_view prefix);

}  // namespace orca::net

#endif  // ORCA_INTERFACE_SELECTION_H
