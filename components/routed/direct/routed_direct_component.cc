// routed/direct: the component descriptor and its variable. Every daemon
// talks to the launcher itself; simple, and fine for small jobs, but the
// launcher holds n connections. Chosen with --mca routed direct.
#include "direct_tree.h"

#include <orca/component_glue.h>
#include <orca/mca_component.h>
#include <orca/routed.h>

#include <cstdio>
#include <iterator>

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

using Glue = orca::mca::PriorityOnly<orca_routed_module>;

orca_mca_rc direct_register(orca_mca_registrar* registrar) {
  return orca_mca_declare_vars(registrar, kVars, std::size(kVars));
}

orca_mca_rc direct_open(const orca_mca_context* context, void** state, orca_mca_reason* why) {
  return Glue::open(context, state, why, "routed_direct_", orca::routed::direct::module());
}

}  // namespace

extern "C" ORCA_COMPONENT_EXPORT const orca_mca_component mca_routed_direct_component =
    orca::mca::ComponentGlue<Glue::State>::descriptor("routed", ORCA_ROUTED_INTERFACE_VERSION, "direct",
                                                "Every daemon's parent is the launcher (a tree of depth one)",
                                                direct_register, direct_open);
