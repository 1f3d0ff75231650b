// oob/tcp: the component descriptor. The module's C table comes from
// OobModuleGlue; everything behind it is C++.
#include "tcp_module.h"

#include <orca/component_glue.h>
#include <orca/mca_component.h>
#include <orca/interface_selection.h>
#include <orca/oob.h>
#include <orca/oob_module_glue.h>

#include <memory>

namespace {

using orca::oob::tcp::TcpModule;
using Glue = orca::oob::OobModuleGlue<TcpModule>;

orca_mca_rc tcp_register(orca_mca_registrar* registrar) {
  // Its own variables, and the interface lists liborca's selection reads
  // under this component's names (oob_tcp_if_include / _exclude).
  const auto selection = orca::net::interface_selection_decls();
  const auto& own = orca::oob::tcp::variables();
  if (orca_mca_declare_vars(registrar, own.data(), own.size()) != ORCA_MCA_OK)
    return ORCA_MCA_FAILED;
  return orca_mca_declare_vars(registrar, selection.data(), selection.size());
}

orca_mca_rc tcp_open(const orca_mca_context* context, void** state, orca_mca_reason* why) {
  return Glue::guarded(why, [&] {
    auto config = orca::oob::tcp::read_config(*context);
    if (!config) return Glue::report(config.error(), why);
    return Glue::keep(std::make_unique<TcpModule>(std::move(config.value())), state);
  });
}

}  // namespace

extern "C" ORCA_COMPONENT_EXPORT const orca_mca_component mca_oob_tcp_component =
    orca::mca::ComponentGlue<TcpModule>::descriptor(
        "oob", ORCA_OOB_INTERFACE_VERSION, "tcp",
        "TCP streams over every selected interface, raced connects, authenticated and reliable",
        tcp_register, tcp_open);
