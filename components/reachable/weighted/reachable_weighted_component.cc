// reachable/weighted: the component descriptor and its variables. Works
// everywhere (no system calls), so it is the fallback when netlink cannot
// run.
#include "weighted_ranker.h"

#include <orca/component_glue.h>
#include <orca/mca_component.h>
#include <orca/reachable.h>

#include <cstdio>
#include <iterator>

namespace {

const orca_mca_var_decl kVars[] = {
    {.name = "priority",
     .type = ORCA_MCA_VAR_INT,
     .default_value = "20",
     .level = 6,
     .description = "Selection priority of reachable/weighted (the highest-priority reachable component is used)",
     .min_value = "-1000",
     .max_value = "1000"},
};

orca_mca_rc weighted_compute(void* /*self*/, const orca_reach_query* query, orca_reach_verdict* verdicts) {
  try {
    return orca::reach::weighted::rank(*query, verdicts);
  } catch (...) {
    return ORCA_MCA_FAILED;  // nothing may unwind across the C boundary
  }
}

using Glue = orca::mca::PriorityOnly<orca_reachable_module>;

orca_mca_rc weighted_register(orca_mca_registrar* registrar) {
  return orca_mca_declare_vars(registrar, kVars, std::size(kVars));
}

orca_mca_rc weighted_open(const orca_mca_context* context, void** state, orca_mca_reason* why) {
  return Glue::open(context, state, why, "reachable_weighted_", orca_reachable_module{nullptr, &weighted_compute});
}

}  // namespace

extern "C" ORCA_COMPONENT_EXPORT const orca_mca_component mca_reachable_weighted_component =
    orca::mca::ComponentGlue<Glue::State>::descriptor(
        "reachable", ORCA_REACHABLE_INTERFACE_VERSION, "weighted",
        "Ranks address pairs by rules: subnet, private/public, link kind and speed",
        weighted_register, weighted_open);
