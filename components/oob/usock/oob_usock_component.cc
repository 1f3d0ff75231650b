// oob/usock: the component descriptor. The module's C table comes from
// OobModuleGlue; everything behind it is C++.
#include "usock_module.h"

#include <orca/component_glue.h>
#include <orca/mca_component.h>
#include <orca/oob.h>
#include <orca/oob_module_glue.h>

#include <cstdint>
#include <iterator>
#include <memory>
#include <string>

namespace {

using orca::oob::usock::UsockModule;
using Glue = orca::oob::OobModuleGlue<UsockModule>;

orca_mca_rc usock_register(orca_mca_registrar* registrar) {
  // The stream engine's variables, as oob_usock_*.
  const auto engine = orca::oob::engine_variable_decls();
  return orca_mca_declare_vars(registrar, engine.data(), engine.size());
}

orca_mca_rc usock_open(const orca_mca_context* context, void** state, orca_mca_reason* why) {
  return Glue::guarded(why, [&] {
    auto config = orca::oob::read_engine_config(*context, "oob_usock_");
    if (!config) return Glue::report(config.error(), why);
    return Glue::keep(std::make_unique<UsockModule>(std::move(config.value())), state);
  });
}

}  // namespace

extern "C" ORCA_COMPONENT_EXPORT const orca_mca_component mca_oob_usock_component =
    orca::mca::ComponentGlue<UsockModule>::descriptor(
        "oob", ORCA_OOB_INTERFACE_VERSION, "usock",
        "Unix-domain streams for peers on this host, authenticated and reliable",
        usock_register, usock_open);
