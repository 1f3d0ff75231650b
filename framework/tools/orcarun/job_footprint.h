// What a planned job costs the host orcarun runs on (launch::JobFootprint),
// for the check that refuses a job this host cannot hold.
#ifndef ORCA_TOOLS_ORCARUN_JOB_FOOTPRINT_H
#define ORCA_TOOLS_ORCARUN_JOB_FOOTPRINT_H

#include "job_launch.h"

#include "launch/job_limits.h"

#include <string>

namespace orca::orcarun {

/* Whether a node of the job is this host: its name, "localhost", or one
 * of the simulated nodes made of it (NAME#i, local_nodes). */
bool is_this_host(const std::string& node, const std::string& hostname);

launch::JobFootprint footprint_here(const JobPlan& plan);

/* The job's footprint here against what the kernel allows now
 * (launch::check_job_fits; its error), and the open-file limit raised to
 * what it needs. Before anything starts; again once a map made from the
 * daemons' processors (--map-by ppr:N:core) knows its ranks. */
Status check_fits_here(const JobPlan& plan);

}  // namespace orca::orcarun

#endif
