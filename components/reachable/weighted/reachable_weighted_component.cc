// reachable/weighted: the component descriptor and its variables. Works
// everywhere (no system calls), so it is the fallback when netlink cannot
// run.
#include "weighted_ranker.h"

#include <orca/mca_component.h>
#include <orca/reachable.h>

#include <iterator>
#include <memory>

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

struct State {
  int priority = 0;
  orca_reachable_module module{nullptr, &State::compute};
  static orca_mca_rc compute(void* /*self*/, const orca_reach_query* query, orca_reach_verdict* verdicts) {
    try {
      return orca::reach::weighted::rank(*query, verdicts);
    } catch (...) {
      return ORCA_MCA_FAILED;  // nothing may unwind across the C boundary
    }
  }
};

orca_mca_rc weighted_register(orca_mca_registrar* registrar) {
  return orca_mca_declare_vars(registrar, kVars, std::size(kVars));
}

orca_mca_rc weighted_open(const orca_mca_context* context, void** state, orca_mca_reason* /*why*/) {
  auto s = std::make_unique<State>();
  int64_t priority = 0;
  if (context->get_int(context, "priority", &priority) != ORCA_MCA_OK) return ORCA_MCA_FAILED;
  s->priority = static_cast<int>(priority);
  *state = s.release();  // owned by the framework until close()
  return ORCA_MCA_OK;
}

orca_mca_rc weighted_query(void* state, void** module, int* priority, orca_mca_reason* /*why*/) {
  auto* s = static_cast<State*>(state);
  *module = &s->module;
  *priority = s->priority;
  return ORCA_MCA_OK;
}

void weighted_close(void* state) { std::unique_ptr<State>(static_cast<State*>(state)); }

}  // namespace

extern "C" ORCA_COMPONENT_EXPORT const orca_mca_component mca_reachable_weighted_component = {
    ORCA_MCA_COMPONENT_ABI_VERSION, "reachable", ORCA_REACHABLE_INTERFACE_VERSION, "weighted", 1, 0, 0,
    "Ranks address pairs by rules: subnet, private/public, link kind and speed",
    weighted_register, weighted_open, weighted_query, weighted_close};
