/*
 * The host summary of `orcarun --report-topology`: what hwloc counts of
 * the processors and memory, and where each network interface sits.
 *
 * One line of counts ("2 packages, 16 cores, 32 PUs, 2 NUMA nodes"), then
 * one line per network interface but loopback, in kernel order:
 *   NIC eth0 (PCI 0000:3b:00.0) on NUMA node 1
 *   NIC eth2 (PCI 0000:5e:00.0), not local to one NUMA node
 *   NIC eth3: no PCI locality (hwloc does not see it)
 *   NIC virbr0: no PCI locality (virtual: bridge)
 * and, when no interface has a PCI locality (a VM or container whose NICs
 * hwloc cannot place), a last line saying so, so the report never looks
 * as if the NIC lines were forgotten. A host where hwloc cannot load a
 * topology gets a line saying that instead of the counts: the report is
 * for people, and the interfaces are still worth showing.
 */
#ifndef ORCA_NET_HOST_TOPOLOGY_H
#define ORCA_NET_HOST_TOPOLOGY_H

#include "net/nic_locality.h"

#include <orca/export.h>
#include <orca/interfaces.h>
#include <orca/result.h>

#include <optional>
#include <string>
#include <vector>

namespace orca::net {

/* This host's summary: scans the interfaces, loads hwloc's topology once
 * for both the counts and the NICs' locality. Errors: the interfaces
 * cannot be read (netlink). */
ORCA_EXPORT Result<std::vector<std::string>> topology_summary();

/* The lines for `counts` (nullopt: hwloc could not load a topology) and an
 * inventory whose links NicLocality::annotate has placed. */
ORCA_EXPORT std::vector<std::string> summary_lines(const std::optional<MachineCounts>& counts,
                                                   const InterfaceInventory& inventory);

}  // namespace orca::net

#endif  // ORCA_NET_HOST_TOPOLOGY_H
