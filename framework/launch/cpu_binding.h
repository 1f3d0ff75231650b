/*
 * CPU placement and binding of each rank within its node: which of the
 * node's processors (CpuTopology) a rank is given, for --map-by
 * core|hwthread|numa|package, :pe=N / --cpus-per-rank and --bind-to.
 *
 * Which node a rank runs on is rank_map.h's (by slot, node or -N); this
 * places the ranks of each node on that node's processors, in local-rank
 * order, with no I/O. A rank takes `pe` CPUs: cores, or hardware threads
 * with --map-by hwthread. With --map-by RES the node's ranks go
 * round-robin over its RES objects (local rank 0 on the first NUMA node,
 * 1 on the second, ...), each taking the next free CPUs of one object;
 * without it they take the node's free cores in order. Then --bind-to
 * widens or narrows those CPUs to whole objects:
 *
 *   hwthread  the first hardware thread of each CPU it was given
 *   core      every hardware thread of those cores
 *   numa      every processor of their NUMA nodes
 *   package   every processor of their packages
 *   none      nothing: the rank may run on every processor of its daemon
 *
 * Without --bind-to, a --map-by RES binds to RES (or to its CPUs with
 * pe above 1), and pe above 1 alone binds to its cores, as mpirun does;
 * else nothing is bound, as with mpiexec:
 * simulated nodes share one host's cores, so a default binding would
 * pile each node's first rank onto CPU 0.
 *
 * With ppr:N:RES (per_object) each object takes N ranks in turn instead.
 *
 * A node without enough free CPUs for its ranks is an error naming the
 * host, the resource and the counts, unless oversubscribe: then a second
 * pass over the same CPUs begins.
 */
#ifndef ORCA_LAUNCH_CPU_BINDING_H
#define ORCA_LAUNCH_CPU_BINDING_H

#include "launch/cpu_topology.h"
#include "launch/rank_map.h"

#include <orca/export.h>
#include <orca/host_list.h>
#include <orca/result.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orca::launch {

enum class BindTo { None, Hwthread, Core, Numa, Package };

/* "none", "hwthread", "core", "numa", "package" ("socket"). Error:
 * launch/bind-to-unknown. */
ORCA_EXPORT Result<BindTo> parse_bind_to(std::string_view text);
ORCA_EXPORT const char* bind_to_name(BindTo b);

/* The most CPUs one rank may take (pe=N, --cpus-per-rank). */
inline constexpr unsigned kMaxPe = 4096;

struct ORCA_EXPORT CpuPolicy {
  std::optional<Resource> map_by;  // --map-by RES; none: --map-by slot|node or -N
  unsigned pe = 1;                 // CPUs per rank (:pe=N, --cpus-per-rank)
  std::optional<BindTo> bind;      // --bind-to; none given: see above
  bool oversubscribe = false;
  /* ppr:N:RES (object_map.h): N ranks on each object of map_by, local
   * ranks filling the objects in order (0..N-1 on the first), never
   * moving to another object when one is full; a rank's pe units are
   * hardware threads when RES is core or hwthread (two ranks a core share
   * it), cores otherwise. 0: round-robin over the objects, as above. */
  unsigned per_object = 0;

  /* Whether placing needs each node's topology (only then does a daemon
   * load hwloc): a resource map, pe above 1, or a binding. */
  bool needs_topology() const { return map_by.has_value() || pe > 1 || (bind && *bind != BindTo::None); }
  /* The binding in effect (the default resolved). */
  BindTo binding() const;
};

struct ORCA_EXPORT RankCpus {
  std::vector<unsigned> cpus;   // OS CPU numbers it is bound to; empty: not bound
  std::vector<std::size_t> given;  // indices into its node's CpuTopology::pus of the CPUs it was given
  bool operator==(const RankCpus&) const = default;
};

/* Each rank's CPUs ([rank]), placing the ranks of `map` on `topologies`
 * (one per node of `nodes`, in order). Errors (launch/...): pe 0 or above
 * kMaxPe (cpus-per-rank-range); a node with fewer free CPUs than its
 * ranks need without oversubscribe (map-cpus-short: host, resource,
 * ranks, pe, CPUs), including pe above what one object of the resource
 * holds. */
ORCA_EXPORT Result<std::vector<RankCpus>> place_cpus(const std::vector<HostSlots>& nodes,
                                                     const std::vector<CpuTopology>& topologies, const RankMap& map,
                                                     const CpuPolicy& policy);

/* One rank's line of --report-bindings, in the form mpirun users know:
 * "bound to core 0-1 (CPUs 0,2): [BB/BB/../..][../../../..]", one bracket
 * per package, '/' between cores, B for each hardware thread it may use;
 * or "not bound (CPUs 0-3)". */
ORCA_EXPORT std::string binding_text(const CpuTopology& topology, const RankCpus& rank, BindTo bind);

}  // namespace orca::launch

#endif  // ORCA_LAUNCH_CPU_BINDING_H
