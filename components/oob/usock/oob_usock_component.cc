// oob/usock: the component descriptor. The module's C table comes from
// OobModuleGlue; everything behind it is C++.
#include "usock_module.h"

#include <orca/mca_component.h>
#include <orca/oob.h>
#include <orca/oob_module_glue.h>

#include <iterator>
#include <memory>

namespace {

using orca::oob::usock::UsockModule;
using Glue = orca::oob::OobModuleGlue<UsockModule>;

constexpr int kPriority = 30;  // above tcp: a peer on this host goes over usock

const orca_mca_var_decl kVars[] = {
    {"max_msg_size", ORCA_MCA_VAR_SIZE, "64M", 4,
     "Largest message accepted; a frame announcing more closes its connection before anything is allocated", nullptr,
     nullptr, 0},
    {"heartbeat", ORCA_MCA_VAR_INT, "2000", 5,
     "Milliseconds between application heartbeats on an idle connection; 0 disables them", nullptr, nullptr, 0},
};

orca_mca_rc usock_register(orca_mca_registrar* registrar) {
  return orca_mca_declare_vars(registrar, kVars, std::size(kVars));
}

orca_mca_rc usock_open(const orca_mca_context* context, void** state, orca_mca_reason* why) {
  return Glue::guarded(why, [&] {
    orca::oob::EngineConfig config;
    config.variable_prefix = "oob_usock_";
    std::int64_t v = 0;
    if (context->get_int(context, "max_msg_size", &v) == ORCA_MCA_OK) config.max_message_size = static_cast<std::uint64_t>(v);
    if (context->get_int(context, "heartbeat", &v) == ORCA_MCA_OK) config.heartbeat = std::chrono::milliseconds(v);
    auto module = std::make_unique<UsockModule>(std::move(config));
    *module->c_module() = Glue::table(module.get());
    *state = module.release();  // owned by the framework until close()
    return ORCA_MCA_OK;
  });
}

orca_mca_rc usock_query(void* state, void** module, int* priority, orca_mca_reason* /*why*/) {
  *module = static_cast<UsockModule*>(state)->c_module();
  *priority = kPriority;
  return ORCA_MCA_OK;
}

void usock_close(void* state) { std::unique_ptr<UsockModule>(static_cast<UsockModule*>(state)); }

}  // namespace

extern "C" ORCA_COMPONENT_EXPORT const orca_mca_component mca_oob_usock_component = {
    ORCA_MCA_COMPONENT_ABI_VERSION, "oob", ORCA_OOB_INTERFACE_VERSION, "usock", 1, 0, 0,
    "Unix-domain streams for peers on this host, authenticated and reliable",
    usock_register, usock_open, usock_query, usock_close};
