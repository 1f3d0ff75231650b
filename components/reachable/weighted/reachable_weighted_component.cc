// reachable/weighted: the component descriptor. Works everywhere (no
// system calls), so it is the fallback when netlink cannot run.
#include "weighted_ranker.h"

#include <orca/mca_component.h>
#include <orca/reachable.h>

namespace {

constexpr int kPriority = 20;

orca_mca_rc compute(void* /*self*/, const orca_reach_query* query, orca_reach_verdict* verdicts) {
  try {
    return orca::reach::weighted::rank(*query, verdicts);
  } catch (...) {
    return ORCA_MCA_FAILED;  // nothing may unwind across the C boundary
  }
}

// Stateless: one constant module serves every query.
const orca_reachable_module kModule{nullptr, compute};

orca_mca_rc weighted_query(void* /*state*/, void** out, int* priority, orca_mca_reason* /*why*/) {
  *out = const_cast<orca_reachable_module*>(&kModule);
  *priority = kPriority;
  return ORCA_MCA_OK;
}

}  // namespace

extern "C" ORCA_COMPONENT_EXPORT const orca_mca_component mca_reachable_weighted_component = {
    ORCA_MCA_COMPONENT_ABI_VERSION, "reachable", ORCA_REACHABLE_INTERFACE_VERSION, "weighted", 1, 0, 0,
    "Ranks address pairs by rules: subnet, private/public, link kind and speed", nullptr, nullptr, weighted_query, nullptr};
