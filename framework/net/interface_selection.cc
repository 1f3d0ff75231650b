// The interface selection policy and its two variables.
#include <orca/interface_selection.h>

#include "mca/var/text.h"

#include <algorithm>

namespace orca::net {

namespace {
const orca_mca_var_decl kSelectionDecls[] = {
    {.name = "if_include",
     .type = ORCA_MCA_VAR_STRING_LIST,
     .default_value = "",
     .level = 1,
     .description = "Use only these interfaces: names (eth0) and IPv4/IPv6 CIDRs (10.0.0.0/8, fd00::/8), "
                    "comma-separated. Loopback stays for peers on the same host. Mutually exclusive with if_exclude"},
    {.name = "if_exclude",
     .type = ORCA_MCA_VAR_STRING_LIST,
     .default_value = "",
     .level = 1,
     .description = "Never use these interfaces: names and IPv4/IPv6 CIDRs, comma-separated (naming lo removes "
                    "loopback too). Mutually exclusive with if_include"},
};
}  // namespace

std::span<const orca_mca_var_decl> interface_selection_decls() { return kSelectionDecls; }

Status declare_interface_selection_vars(mca::Registry& registry, const std::string& framework,
                                        const std::string& component) {
  for (const auto& d : kSelectionDecls) {
    mca::VarSpec s;
    s.framework = framework;
    s.component = component;
    s.name = d.name;
    s.type = static_cast<mca::VarType>(d.type);
    s.default_text = d.default_value;
    s.level = d.level;
    s.description = d.description;
    if (auto r = registry.declare(s); !r) return r.error();
  }
  return {};
}

std::vector<std::string> interface_selecting_prefixes(const mca::Registry& registry) {
  std::vector<std::string> out;
  constexpr std::string_view kInclude = "if_include";
  for (const mca::Variable* v : registry.variables()) {
    const std::string& n = v->name();
    if (n.size() <= kInclude.size() || n.compare(n.size() - kInclude.size(), kInclude.size(), kInclude) != 0) continue;
    const std::string prefix = n.substr(0, n.size() - kInclude.size());
    if (registry.find(prefix + "if_exclude") != nullptr) out.push_back(prefix);
  }
  return out;
}

bool FilterEntry::matches(const InterfaceAddress& entry) const {
  return is_prefix ? prefix.contains(entry.address) : entry.link.name == text;
}

namespace {

// Interface names: what the kernel allows, minus the characters that make
// an entry look like an address.
bool plausible_name(const std::string& s) {
  return !s.empty() && s.size() < 16 && std::none_of(s.begin(), s.end(), [](char c) {
    return c == '/' || c == ':' || c == ' ' || c == ',';
  });
}

bool looks_like_address(const std::string& s) {
  if (s.find('/') != std::string::npos || s.find(':') != std::string::npos) return true;
  // Dotted digits: 10.0.0.1 or a typo of it.
  return std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
}

}  // namespace

Result<std::vector<FilterEntry>> parse_filter_entries(const std::vector<std::string>& items,
                                                      const std::string& variable, const std::string& source) {
  std::vector<FilterEntry> out;
  for (const auto& item : items) {
    FilterEntry e;
    e.text = item;
    if (looks_like_address(item)) {
      std::string why;
      auto prefix = IpPrefix::parse(item, &why);
      if (!prefix) {
        return Message("net", "if-bad-entry",
                       {{"variable", variable}, {"source", source}, {"entry", item}, {"why", why}});
      }
      e.is_prefix = true;
      e.prefix = *prefix;
    } else if (!plausible_name(item)) {
      return Message("net", "if-bad-entry",
                     {{"variable", variable}, {"source", source}, {"entry", item},
                      {"why", "it is neither an interface name nor an IPv4/IPv6 CIDR"}});
    }
    out.push_back(std::move(e));
  }
  return out;
}

Result<InterfaceFilter> interface_filter_of(const InterfaceList& include, const InterfaceList& exclude) {
  InterfaceFilter filter;
  filter.include_variable = include.variable;
  filter.exclude_variable = exclude.variable;
  if (!include.entries.empty() && !exclude.entries.empty()) {
    return Message("net", "if-both-set",
                   {{"include_variable", include.variable}, {"exclude_variable", exclude.variable},
                    {"include", mca::join(include.entries, ",")}, {"include_source", include.source},
                    {"exclude", mca::join(exclude.entries, ",")}, {"exclude_source", exclude.source}});
  }
  const InterfaceList* set = !include.entries.empty() ? &include : !exclude.entries.empty() ? &exclude : nullptr;
  if (set == nullptr) return filter;
  filter.mode = set == &include ? InterfaceFilter::Mode::Include : InterfaceFilter::Mode::Exclude;
  filter.variable = set->variable;
  filter.source = set->source;
  auto entries = parse_filter_entries(set->entries, filter.variable, filter.source);
  if (!entries) return entries.error();
  filter.entries = std::move(entries.value());
  return filter;
}

Result<InterfaceFilter> interface_filter_from(const mca::Registry& registry, std::string_view prefix) {
  const std::string include_name = std::string(prefix) + "if_include";
  const std::string exclude_name = std::string(prefix) + "if_exclude";
  const mca::Variable* inc = registry.find(include_name);
  const mca::Variable* exc = registry.find(exclude_name);
  if (inc == nullptr || exc == nullptr) {
    return Message("mca-var", "bad-declaration", {{"name", include_name}, {"why", "not declared before use"}});
  }
  return interface_filter_of(InterfaceList{include_name, inc->source().describe(), inc->as_list()},
                             InterfaceList{exclude_name, exc->source().describe(), exc->as_list()});
}

Result<std::vector<InterfaceDecision>> select_interfaces(const InterfaceInventory& inventory,
                                                         const InterfaceFilter& filter) {
  const auto& all = inventory.entries();
  // An entry that matches nothing is almost always a typo or the wrong host.
  for (const auto& f : filter.entries) {
    const bool hit = std::any_of(all.begin(), all.end(), [&](const InterfaceAddress& e) { return f.matches(e); }) ||
                     (!f.is_prefix && std::any_of(inventory.links().begin(), inventory.links().end(),
                                                  [&](const LinkInfo& l) { return l.name == f.text; }));
    if (!hit) {
      return Message("net", "if-no-match",
                     {{"variable", filter.variable}, {"source", filter.source}, {"entry", f.text},
                      {"interfaces", inventory.describe()}});
    }
  }
  std::vector<InterfaceDecision> out;
  out.reserve(all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    const InterfaceAddress& e = all[i];
    InterfaceDecision d{i, false, {}};
    const FilterEntry* match = nullptr;
    for (const auto& f : filter.entries) {
      if (f.matches(e)) {
        match = &f;
        break;
      }
    }
    if (filter.mode == InterfaceFilter::Mode::Exclude && match != nullptr) {
      d.rule = "excluded by " + filter.variable + " entry '" + match->text + "' (" + filter.source + ")";
    } else if (!e.link.up) {
      d.rule = "interface is down";
    } else if (e.tentative) {
      d.rule = "address not usable yet (IPv6 duplicate address detection pending or failed)";
    } else if (e.link.loopback) {
      d.selected = true;
      d.rule = filter.mode == InterfaceFilter::Mode::Include && match == nullptr
                   ? "loopback, kept for peers on this host although " + filter.variable +
                         " does not name it; to remove it, use " + filter.exclude_variable + " instead"
                   : "loopback, used only for peers on this host";
    } else if (filter.mode == InterfaceFilter::Mode::Include && match == nullptr) {
      d.rule = "not in " + filter.variable + " (" + filter.source + ")";
    } else {
      d.selected = true;
      d.rule = match != nullptr ? "included by " + filter.variable + " entry '" + match->text + "'"
                                : filter.include_variable.empty()
                                      ? std::string("up with an address")
                                      : "up with an address; no " + filter.include_variable + "/" +
                                            filter.exclude_variable + " set";
      if (!e.link.running) d.rule += " (no carrier: nothing may be attached)";
    }
    out.push_back(std::move(d));
  }
  return out;
}

Result<std::vector<InterfaceDecision>> select_interfaces(const InterfaceInventory& inventory,
                                                         const mca::Registry& registry, std::string_view prefix) {
  if (prefix.empty()) return select_interfaces(inventory, InterfaceFilter{});
  auto filter = interface_filter_from(registry, prefix);
  if (!filter) return filter.error();
  return select_interfaces(inventory, filter.value());
}

}  // namespace orca::net
