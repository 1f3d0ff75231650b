// The nodes of a job when no ras module offers any (no host named, not
// in a batch allocation): this host, or the simulated nodes plm/local
// makes of it.
#ifndef ORCA_TOOLS_ORCARUN_JOB_NODES_H
#define ORCA_TOOLS_ORCARUN_JOB_NODES_H

#include <orca/host_list.h>
#include <orca/result.h>

#include <string>
#include <vector>

namespace orca::orcarun {

/* This host as `count` nodes: one named after the host, or NAME#1 ..
 * NAME#count (simulated nodes). Each gets the cores of this host divided
 * among the nodes, at least one. */
std::vector<launch::HostSlots> local_nodes(unsigned count);

}  // namespace orca::orcarun

#endif
