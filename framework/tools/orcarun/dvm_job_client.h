// orcarun --dvm (or --dvm-uri FILE, or ORCA_DVM): the job runs on a
// running DVM's daemons instead of daemons of its own. orcarun makes the
// job's programs and variables as for a standalone run, submits them to
// the DVM's controller (which maps the ranks on its hosts, and starts them
// once their slots are free, in submission order), prints the ranks'
// output as it comes (crediting it back, so a reader that stops holds the
// ranks up rather than the DVM's memory), passes SIGINT and SIGTERM on to
// its own job alone, and exits with the job's status, as a standalone run
// would.
#ifndef ORCA_TOOLS_ORCARUN_DVM_JOB_CLIENT_H
#define ORCA_TOOLS_ORCARUN_DVM_JOB_CLIENT_H

#include "job_launch.h"
#include "orcarun_options.h"

#include "runtime/process.h"

namespace orca::orcarun {

/* Whether `o` runs on a DVM: --dvm, --dvm-uri, or ORCA_DVM set. */
bool runs_on_dvm(const Options& o);

/* Runs the job of `options`, whose programs `plan` holds
 * (make_dvm_job_plan), on the DVM; returns orcarun's exit status. */
int run_on_dvm(Process& process, const Options& options, const JobPlan& plan);

}  // namespace orca::orcarun

#endif
