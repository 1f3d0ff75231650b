// The environment a rank starts with, from everything that decides it, as
// one pure function: orcad gathers the inputs (its own environment, the
// launch command, what the plm module that started the daemons and the
// pmi modules say for this rank) and applies nothing else.
//
// Layers, each over the ones before:
//   1. the daemon's own environment (what the agent gave it);
//   2. the variables orcarun forwards (-x, the user's MCA settings);
//   3. ORCA_RANK, ORCA_SIZE, ORCA_LOCAL_RANK, ORCA_LOCAL_SIZE, ORCA_NODE,
//      ORCA_APPNUM and the torch identity (rank_identity_variables);
//   4. the data-plane variables of each family, where the environment so
//      far leaves the family to Orca (network_variables);
//   5. the launcher's words for the rank (plm/slurm: the Slurm task
//      variables; "NAME" alone unsets);
//   6. no PMI_* or PMIX_* (but PMIX_MCA_*, which tune libpmix) from any
//      layer above: an outer job's PMI server is not the ranks'; then the
//      pmi modules' settings.
#ifndef ORCA_LAUNCH_RANK_ENVIRONMENT_H
#define ORCA_LAUNCH_RANK_ENVIRONMENT_H

#include "rank_network_env.h"

#include <orca/export.h>

#include <string>
#include <vector>

namespace orca::launch {

struct RankEnvironmentInput {
  std::vector<std::string> inherited;     // NAME=VALUE: the daemon's environment
  std::vector<std::string> forwarded;     // NAME=VALUE from orcarun (the job's, then its program's);
                                          // a word without '=' is ignored
  RankIdentity identity;                  // node: the daemon's index (vpid - 1)
  RankLink link;                          // this host's data-plane link (empty: none)
  TorchMaster master;
  std::vector<std::string> families;      // the data-plane families to set
  std::vector<std::string> launcher;      // NAME=VALUE to set, NAME to unset
  std::vector<EnvironmentSetting> pmi;    // the pmi modules' settings, in order
};

/* NAME=VALUE words, each name once, in first-set order. */
ORCA_EXPORT std::vector<std::string> rank_environment(const RankEnvironmentInput& in);

}  // namespace orca::launch

#endif
