// srun_help: what `srun --help` prints, to learn which options this
// Slurm's srun has (srun_features). Runs srun once, bounded in time.
#ifndef ORCA_COMPONENTS_PLM_SLURM_SRUN_PROBE_H
#define ORCA_COMPONENTS_PLM_SLURM_SRUN_PROBE_H

#include <orca/result.h>

#include <string>
#include <vector>

namespace orca::plm::slurm {

/* Errors (why): srun cannot be run (not on PATH: named with the PATH
 * searched), it did not end within 5 s, or it failed. */
Result<std::string> srun_help(const std::vector<std::string>& srun);

}  // namespace orca::plm::slurm

#endif
