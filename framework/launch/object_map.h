/*
 * --map-by ppr:N:RESOURCE: N ranks on every core, hardware thread, NUMA
 * node or package of every node. How many ranks a node runs depends on
 * its processors, so this map is made once the daemons have reported
 * them (each daemon's CpuTopology: the CPUs it may use), where -N's is
 * made before any daemon starts.
 *
 * A node runs N times its objects of RESOURCE, as consecutive ranks,
 * nodes in order (with -n: the first n of those places); its slots and
 * max_slots are checked as for -N. Within the node, place_cpus puts
 * local ranks 0..N-1 on its first object, N..2N-1 on the second, and so
 * on (CpuPolicy::per_object).
 */
#ifndef ORCA_LAUNCH_OBJECT_MAP_H
#define ORCA_LAUNCH_OBJECT_MAP_H

#include "launch/cpu_topology.h"
#include "launch/rank_map.h"

#include <orca/export.h>
#include <orca/host_list.h>
#include <orca/result.h>

#include <optional>
#include <vector>

namespace orca::launch {

/* How many objects of `r` the node's usable processors span. */
ORCA_EXPORT unsigned count_objects(const CpuTopology& topology, Resource r);

/* The map of ppr:`per_object`:`r` over `nodes`, whose processors are
 * `topologies` (one per node, in order). Errors (launch/...): per_object
 * 0 or above kMaxPerNode (map-per-node-range); a node that reported no
 * processor (map-cpus-none); those of map_counts, naming the policy
 * ("--map-by ppr:2:core") and what it puts on the host ("4 ranks, 2 on
 * each of its 2 cores"). */
ORCA_EXPORT Result<RankMap> map_ranks_per_object(const std::vector<HostSlots>& nodes,
                                                 const std::vector<CpuTopology>& topologies, unsigned per_object,
                                                 Resource r, std::optional<unsigned> n, bool oversubscribe);

}  // namespace orca::launch

#endif  // ORCA_LAUNCH_OBJECT_MAP_H
