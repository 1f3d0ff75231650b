// SlurmAllocation: the nodes of the Slurm allocation a process runs in,
// from the variables Slurm sets in it: SLURM_JOB_ID (inside at all),
// SLURM_JOB_NODELIST (or the older SLURM_NODELIST; hostlist syntax) and
// SLURM_TASKS_PER_NODE ("2(x3),5"), parsed here, without scontrol. Inside
// a job step (SLURM_STEP_ID set: orcarun in `srun --pty bash`, or run by
// srun), SLURM_TASKS_PER_NODE describes the step, so the slots are the
// allocation's CPUs per node instead, SLURM_JOB_CPUS_PER_NODE. Pure: the
// variables come from a lookup function.
#ifndef ORCA_COMPONENTS_RAS_SLURM_SLURM_ALLOCATION_H
#define ORCA_COMPONENTS_RAS_SLURM_SLURM_ALLOCATION_H

#include <orca/host_list.h>
#include <orca/result.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace orca::ras::slurm {

/* A variable's value, or nullptr when it is not set. */
using Lookup = std::function<const char*(const char*)>;

/* nullopt: not inside an allocation (SLURM_JOB_ID unset or empty).
 * Otherwise the nodes in Slurm's order, each with its tasks as slots.
 * Errors: ras/slurm-variable-missing naming the variable; the errors of
 * expand_hostlist, parse_tasks_per_node and hosts_with_counts, each
 * quoting the variable's value. */
Result<std::optional<std::vector<launch::HostSlots>>> slurm_allocation(const Lookup& lookup);

}  // namespace orca::ras::slurm

#endif
