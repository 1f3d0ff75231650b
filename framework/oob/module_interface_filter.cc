// A module's interface lists, read by the host.
#include "oob/module_interface_filter.h"

namespace orca::oob {

namespace {

net::InterfaceList list_of(const orca_oob_interface_list& list, const mca::Registry& registry) {
  net::InterfaceList out;
  out.variable = list.variable != nullptr ? list.variable : "";
  const mca::Variable* v = registry.find(out.variable);
  out.source = v != nullptr ? v->source().describe() : "given by the component";
  for (size_t i = 0; list.entries != nullptr && i < list.n_entries; ++i) {
    if (list.entries[i] != nullptr) out.entries.emplace_back(list.entries[i]);
  }
  return out;
}

}  // namespace

Result<net::InterfaceFilter> module_interface_filter(const orca_oob_interface_filter* filter,
                                                     const mca::Registry& registry) {
  if (filter == nullptr) return net::InterfaceFilter{};
  return net::interface_filter_of(list_of(filter->include, registry), list_of(filter->exclude, registry));
}

}  // namespace orca::oob
