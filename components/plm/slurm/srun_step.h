// SrunStep: the one srun job step that starts orcad on every node of a
// job inside a Slurm allocation, and, in each orcad, which node of the job
// it is. Pure: the environment comes from a lookup function, srun's
// capabilities from the text of `srun --help`.
#ifndef ORCA_COMPONENTS_PLM_SLURM_SRUN_STEP_H
#define ORCA_COMPONENTS_PLM_SLURM_SRUN_STEP_H

#include <orca/result.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace orca::plm::slurm {

/* A variable's value, or nullptr when it is not set. */
using Lookup = std::function<const char*(const char*)>;

/* The options of this srun that the step uses when they exist: --overlap
 * (Slurm 20.11 and later: the daemons' step shares the allocation's CPUs
 * with the user's own steps instead of holding one per node) and
 * --external-launcher (23.11 and later: Slurm treats the step as an MPI
 * launcher's). */
struct SrunFeatures {
  bool overlap = false;
  bool external_launcher = false;
};
SrunFeatures srun_features(std::string_view help_text);

/* The allocation's node names (SLURM_JOB_NODELIST, or SLURM_NODELIST, in
 * hostlist syntax). Errors (why): neither set, or not a host list (the
 * value quoted, with expand_hostlist's reason). */
Result<std::vector<std::string>> allocation_nodes(const Lookup& lookup);

/* The words: srun, then --nodes=K --ntasks=K --ntasks-per-node=1
 * --nodelist=HOSTS --kill-on-bad-exit --cpu-bind=none --mpi=none
 * --input=all (every daemon reads the standard input, and its end)
 * --export=ALL (the bootstrap and settings ride in the environment, even
 * where a site's SLURM_EXPORT_ENV=NONE would leave it out), the features
 * srun has, `extra` (plm_slurm_args), then the daemon's words.
 * Errors (why): no host, a host srun would misread (empty, starting with
 * '-', holding ',' or whitespace). */
Result<std::vector<std::string>> srun_command(const std::vector<std::string>& srun, const SrunFeatures& features,
                                              const std::vector<std::string>& hosts,
                                              const std::vector<std::string>& extra,
                                              const std::vector<std::string>& daemon);

/* In an orcad of such a step: its vpid, i.e. 1 + the index in `hosts`
 * (the job's hosts in its order) of the node this task runs on: node
 * SLURM_NODEID of SLURM_STEP_NODELIST (Slurm numbers a step's nodes in
 * its own order, not the --nodelist order). Errors (why): a variable
 * missing or malformed (quoted), a node that is not one of `hosts`. */
Result<std::uint32_t> step_vpid(const Lookup& lookup, const std::vector<std::string>& hosts);

/* Where a rank runs, as orcad knows it (orca_plm_rank_place). */
struct RankPlace {
  std::uint32_t rank = 0;
  std::uint32_t local_rank = 0;
  std::uint32_t size = 0;
  std::vector<std::uint32_t> node_ranks;        // the ranks on this node, ascending
  std::vector<std::uint32_t> ranks_per_daemon;  // [v - 1]: daemon v's
};

/* The words (NAME=VALUE to set, NAME to remove) that make a rank's
 * environment, inherited from its orcad, describe the rank the way srun
 * describes its tasks: SLURM_PROCID (the rank), SLURM_LOCALID,
 * SLURM_NTASKS, SLURM_NPROCS and SLURM_STEP_NUM_TASKS (the job's size),
 * SLURM_GTIDS (the ranks on this node), SLURM_STEP_TASKS_PER_NODE and
 * SLURM_TASKS_PER_NODE (ranks per node, "2(x3),1", in the step's node
 * order, when SLURM_STEP_NODELIST names the job's hosts); SLURM_TASK_PID
 * (orcad's pid) is removed. */
std::vector<std::string> rank_variables(const Lookup& lookup, const std::vector<std::string>& hosts,
                                        const RankPlace& place);

/* Counts in SLURM_TASKS_PER_NODE's syntax: {2, 2, 2, 1} -> "2(x3),1". */
std::string tasks_per_node_text(const std::vector<std::uint32_t>& counts);

/* The node of a task end srun reports on its standard error, as it
 * prints them: "srun: error: NODE: task N: Killed" (or "Exited with exit
 * code 1", "Terminated", ...); "" for any other line. */
std::string ended_node(std::string_view line);

/* Whitespace-separated words (plm_slurm_args; no quoting). */
std::vector<std::string> split_words(std::string_view text);

}  // namespace orca::plm::slurm

#endif
