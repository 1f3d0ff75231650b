/*
 * This host's processors as hwloc sees them, for placing and binding
 * ranks (launch/cpu_topology.h). Loads hwloc (dlopen, no I/O devices):
 * a daemon calls it only when the job maps or binds by resource.
 *
 * The PUs listed are those the process may use: hwloc's default view
 * already leaves out what the cgroup cpuset disallows, and the process's
 * own affinity mask (taskset, a Slurm task's binding) narrows it further.
 */
#ifndef ORCA_NET_CPU_PROBE_H
#define ORCA_NET_CPU_PROBE_H

#include "launch/cpu_topology.h"

#include <orca/export.h>
#include <orca/result.h>

#include <string>

namespace orca::net {

/* This host's usable processors. Errors (net/...): hwloc cannot be
 * opened (hwloc-unavailable) or cannot load a topology, or the affinity
 * mask leaves no PU (cpu-probe-failed). */
ORCA_EXPORT Result<launch::CpuTopology> probe_cpus();

/* The processors of an hwloc synthetic description ("package:2 numa:2
 * core:4 pu:2"), all usable: for tests of placement over machines this
 * host is not. Errors: as probe_cpus, and a description hwloc refuses. */
ORCA_EXPORT Result<launch::CpuTopology> synthetic_cpus(const std::string& description);

}  // namespace orca::net

#endif  // ORCA_NET_CPU_PROBE_H
