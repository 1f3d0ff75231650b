// routed/direct: the component descriptor and its variable. Every daemon
// talks to the launcher itself; simple, and fine for small jobs, but the
// launcher holds n connections. Chosen with --mca routed direct.
#include "direct_tree.h"

#include <orca/component_glue.h>
#include <orca/mca_component.h>
#include <orca/mca_context_reader.h>
#include <orca/routed.h>

#include <cstdio>
#include <iterator>
#include <memory>

namespace {

const orca_mca_var_decl kVars[] = {
    {.name = "priority",
     .type = ORCA_MCA_VAR_INT,
     .default_value = "10",
     .level = 6,
     .description = "Selection priority of routed/direct (the highest-priority routed component is used)",
     .min_value = "-1000",
     .max_value = "1000"},
};

struct State {
  int priority_value = 0;
  orca_routed_module module = orca::routed::direct::module();
  // For ComponentGlue.
  void* handle() noexcept { return &module; }
  int priority() const noexcept { return priority_value; }
};

orca_mca_rc direct_register(orca_mca_registrar* registrar) {
  return orca_mca_declare_vars(registrar, kVars, std::size(kVars));
}

orca_mca_rc direct_open(const orca_mca_context* context, void** state, orca_mca_reason* why) {
  return orca::mca::guarded(why, [&] {
    auto s = std::make_unique<State>();
    const orca::mca::ContextReader reader(*context, "routed_direct_");
    if (orca::mca::all_read({reader.read("priority", s->priority_value)}, why) != ORCA_MCA_OK) return ORCA_MCA_FAILED;
    return orca::mca::ComponentGlue<State>::keep(std::move(s), state);
  });
}

}  // namespace

extern "C" ORCA_COMPONENT_EXPORT const orca_mca_component mca_routed_direct_component =
    orca::mca::ComponentGlue<State>::descriptor("routed", ORCA_ROUTED_INTERFACE_VERSION, "direct",
                                                "Every daemon's parent is the launcher (a tree of depth one)",
                                                direct_register, direct_open);
