// The nodes of a job: from --host and --hostfile, or, when neither is
// given, this host (or the simulated nodes plm/local makes of it).
#ifndef ORCA_TOOLS_ORCARUN_JOB_NODES_H
#define ORCA_TOOLS_ORCARUN_JOB_NODES_H

#include <orca/host_list.h>
#include <orca/result.h>

#include <string>
#include <vector>

namespace orca::orcarun {

/* The hosts the user named, in order, duplicates merged; empty when no
 * --host or --hostfile was given. Errors: those of the host-list parsers. */
Result<std::vector<launch::HostSlots>> named_hosts(const std::vector<std::string>& host_options,
                                                   const std::vector<std::string>& hostfiles);

/* This host as `count` nodes: one named after the host, or NAME#1 ..
 * NAME#count (simulated nodes). Each gets the cores of this host divided
 * among the nodes, at least one. */
std::vector<launch::HostSlots> local_nodes(unsigned count);

}  // namespace orca::orcarun

#endif
