// SlurmAllocation: three variables, checked and paired.
#include "slurm_allocation.h"

namespace orca::ras::slurm {

namespace {
// The first of `names` that is set, with its name.
std::optional<std::pair<std::string, std::string>> first_set(const Lookup& lookup, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (const char* v = lookup(name); v != nullptr) return std::make_pair(std::string(name), std::string(v));
  }
  return std::nullopt;
}
}  // namespace

Result<std::optional<std::vector<launch::HostSlots>>> slurm_allocation(const Lookup& lookup) {
  const char* job = lookup("SLURM_JOB_ID");
  if (job == nullptr || *job == '\0') return std::optional<std::vector<launch::HostSlots>>();
  auto list = first_set(lookup, {"SLURM_JOB_NODELIST", "SLURM_NODELIST"});
  if (!list) return Message("ras", "slurm-variable-missing", {{"variable", "SLURM_JOB_NODELIST"}, {"job", printable(job)}});
  // Inside a job step (srun --pty bash, or a batch script's srun of
  // orcarun), srun has set SLURM_TASKS_PER_NODE to the step's own tasks;
  // the allocation's slots are then its CPUs on each node.
  const char* step = lookup("SLURM_STEP_ID");
  const char* counts_name = step != nullptr && *step != '\0' ? "SLURM_JOB_CPUS_PER_NODE" : "SLURM_TASKS_PER_NODE";
  auto tasks = first_set(lookup, {counts_name});
  if (!tasks) return Message("ras", "slurm-variable-missing", {{"variable", counts_name}, {"job", printable(job)}});
  auto names = launch::expand_hostlist(list->second, list->first + "=" + printable(list->second));
  if (!names) return names.error();
  auto counts = launch::parse_tasks_per_node(tasks->second, tasks->first);
  if (!counts) return counts.error();
  auto nodes = launch::hosts_with_counts(names.value(), counts.value(), list->first, tasks->first);
  if (!nodes) return nodes.error();
  return std::optional<std::vector<launch::HostSlots>>(std::move(nodes.value()));
}

}  // namespace orca::ras::slurm
