// The plan of a run, made before anything starts: every mistake of the
// command line, the hosts and the settings is reported here, while nothing
// needs undoing.
#ifndef ORCA_TOOLS_ORCARUN_JOB_PLANNING_H
#define ORCA_TOOLS_ORCARUN_JOB_PLANNING_H

#include "job_launch.h"
#include "orcarun_options.h"

#include "runtime/runtime.h"

namespace orca::orcarun {

/* orcarun's job: hosts (--host, --hostfile, the batch allocation, else
 * this host), the rank map, the plm module, the routing tree, the ranks'
 * variables and programs, and what each daemon starts for them. */
Status make_plan(Runtime& rt, const Options& options, JobPlan& plan);

/* A job for a running DVM (orcarun --dvm), whose controller maps it: its
 * forwarded variables, directory and programs (plan.environment,
 * working_directory, apps), and the PMI servers its programs do not need
 * (pmi_left_out: as make_plan decides what the daemons start, from
 * orcarun_pmix_server, orcarun_pmi_simple_server and what each program
 * links), and whether they may read torch's MASTER_ADDR and MASTER_PORT
 * (torch_master: orcarun_data_plane_round's word). Errors: make_plan's
 * for those. */
Status make_dvm_job_plan(Runtime& rt, const Options& options, JobPlan& plan);

/* Daemons that will run jobs not known yet (orcadvm start): the same
 * hosts, plm module, tree and settings, no ranks, and every PMI server the
 * settings allow (no program to read). */
Status make_daemon_plan(Runtime& rt, const Options& options, JobPlan& plan);

}  // namespace orca::orcarun

#endif
