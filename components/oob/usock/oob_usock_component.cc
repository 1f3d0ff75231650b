// oob/usock: the component descriptor. The module's C table comes from
// OobModuleGlue; everything behind it is C++.
#include "usock_module.h"

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

constexpr int kPriority = 30;  // above tcp: a peer on this host goes over usock

const orca_mca_var_decl kVars[] = {
    {.name = "max_msg_size",
     .type = ORCA_MCA_VAR_SIZE,
     .default_value = "64M",
     .level = 4,
     .description =
         "Largest message accepted; a frame announcing more closes its connection before anything is allocated",
     .min_value = "1k",
     .max_value = "1G"},
    {.name = "heartbeat",
     .type = ORCA_MCA_VAR_INT,
     .default_value = "500",
     .level = 5,
     .description = "Milliseconds between application heartbeats on an idle connection; 0 disables them",
     .min_value = "0",
     .max_value = "3600000"},
};

orca_mca_rc usock_register(orca_mca_registrar* registrar) {
  return orca_mca_declare_vars(registrar, kVars, std::size(kVars));
}

// A failed read is an error naming the variable, never a silent default.
orca::Status read_int(const orca_mca_context* context, const char* name, std::int64_t& value) {
  if (context->get_int(context, name, &value) == ORCA_MCA_OK) return {};
  const std::string full = std::string("oob_usock_") + name;
  return orca::Message("mca-var", "unusable-var",
                       {{"name", full},
                        {"why", full + " cannot be read as a number (no such variable, or its value is above 2^63-1)"}});
}

orca_mca_rc usock_open(const orca_mca_context* context, void** state, orca_mca_reason* why) {
  return Glue::guarded(why, [&] {
    orca::oob::EngineConfig config;
    config.variable_prefix = "oob_usock_";
    std::int64_t max_msg_size = 0, heartbeat = 0;
    if (orca::Status st = read_int(context, "max_msg_size", max_msg_size); !st) return Glue::report(st, why);
    if (orca::Status st = read_int(context, "heartbeat", heartbeat); !st) return Glue::report(st, why);
    // The declared ranges keep both non-negative.
    config.max_message_size = static_cast<std::uint64_t>(max_msg_size);
    config.heartbeat = std::chrono::milliseconds(heartbeat);
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
