// ras/slurm: inside a Slurm allocation, with no host named, the job runs
// on the allocation's nodes with their tasks as slots.
#include "slurm_allocation.h"

#include <orca/component_glue.h>
#include <orca/mca_component.h>
#include <orca/ras.h>

#include <cstdio>
#include <cstdlib>
#include <iterator>

namespace {

const orca_mca_var_decl kVars[] = {
    {.name = "priority",
     .type = ORCA_MCA_VAR_INT,
     .default_value = "50",
     .level = 6,
     .description = "Selection priority of ras/slurm (it offers the allocation's nodes only inside one, "
                    "SLURM_JOB_ID set, and only when no --host or --hostfile is given)",
     .min_value = "-1000",
     .max_value = "1000"},
};

using Glue = orca::mca::PriorityOnly<orca_ras_module>;

orca_mca_rc slurm_allocate(void*, const orca_ras_request* request, const orca_ras_nodes* out, orca_mca_reason* why) {
  return orca::mca::guarded(why, [&] {
    if (request->host_count > 0 || request->hostfile_count > 0) {
      std::snprintf(why->text, sizeof why->text, "--host or --hostfile names the hosts (ras/hostfile reads them)");
      return ORCA_MCA_DECLINED;
    }
    auto nodes = orca::ras::slurm::slurm_allocation([](const char* name) { return std::getenv(name); });
    if (!nodes) return orca::ras::report_failure(*out, nodes.error());
    if (!nodes.value()) {
      std::snprintf(why->text, sizeof why->text, "not inside a Slurm allocation (SLURM_JOB_ID is not set)");
      return ORCA_MCA_DECLINED;
    }
    for (const auto& h : *nodes.value()) out->add(out->context, h.name.c_str(), h.slots, 1, 0);
    return ORCA_MCA_OK;
  });
}

orca_mca_rc slurm_register(orca_mca_registrar* registrar) {
  return orca_mca_declare_vars(registrar, kVars, std::size(kVars));
}

orca_mca_rc slurm_open(const orca_mca_context* context, void** out, orca_mca_reason* why) {
  return Glue::open(context, out, why, "ras_slurm_", orca_ras_module{.self = nullptr, .allocate = &slurm_allocate});
}

}  // namespace

extern "C" ORCA_COMPONENT_EXPORT const orca_mca_component mca_ras_slurm_component =
    orca::mca::ComponentGlue<Glue::State>::descriptor("ras", ORCA_RAS_INTERFACE_VERSION, "slurm",
                                                "The nodes and tasks of the Slurm allocation orcarun runs in "
                                                "(SLURM_JOB_NODELIST, SLURM_TASKS_PER_NODE)",
                                                slurm_register, slurm_open);
