/*
 * Rank mapping: which node each process of a job runs on.
 *
 * A pure function of the node list (host_list.h), the process count and
 * the policy of --map-by:
 *
 *   slot  consecutive ranks share a node: node 0's slots are filled first,
 *         then node 1's, and so on. 2 nodes of 2 slots, 4 ranks:
 *         node 0 = {0, 1}, node 1 = {2, 3}.
 *   node  ranks go round-robin over the nodes, one at a time, skipping a
 *         node whose slots are all taken: node 0 = {0, 2}, node 1 = {1, 3}.
 *
 * Without -n there is one process per slot. More processes than slots is
 * an error unless oversubscription is allowed; then
 *   slot  repeats the fill: every further pass gives each node as many
 *         ranks as it has slots, until all are placed; each node's ranks
 *         stay consecutive (ranks are numbered node by node);
 *   node  once every slot is taken, keeps going round-robin over all nodes.
 * Local ranks count a node's processes from 0 in rank order.
 */
#ifndef ORCA_LAUNCH_RANK_MAP_H
#define ORCA_LAUNCH_RANK_MAP_H

#include "launch_wire.h"

#include <orca/export.h>
#include <orca/host_list.h>
#include <orca/result.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orca::launch {

/* The most processes of one job. */
inline constexpr unsigned kMaxRanks = 1u << 22;  // 4,194,304

/* The refusal of a job of `want` processes, more than kMaxRanks, counted
 * from `from` (-n, the hosts' slots, a policy): launch/map-too-large. */
ORCA_EXPORT Message too_many_ranks(std::uint64_t want, std::string_view from);

enum class MapBy { Slot, Node };

/* "slot" or "node" (the value of --map-by; case is ignored). Error:
 * launch/map-by-unknown. */
ORCA_EXPORT Result<MapBy> parse_map_by(std::string_view text);

struct ORCA_EXPORT Placement {
  unsigned rank = 0;
  std::size_t node = 0;  // index into the node list
  unsigned local_rank = 0;
  bool operator==(const Placement&) const = default;
};

struct ORCA_EXPORT RankMap {
  std::vector<Placement> placements;  // by rank: placements[r].rank == r
  std::vector<unsigned> local_sizes;  // per node: how many processes it runs
  bool oversubscribed = false;        // some node runs more than its slots
};

/* The map as a LaunchCommand carries it: node i's daemon is vpid i + 1
 * (vpid 0 is the launcher, which runs no rank). */
ORCA_EXPORT std::vector<RankPlacement> rank_placements(const RankMap& map);

/* Maps the ranks of a job. `n`: the value of -n, or nullopt when not
 * given (then one per slot). Errors (launch/...): no nodes (map-no-nodes);
 * -n 0 (map-zero-processes); more processes than slots without
 * `oversubscribe` (map-too-many, naming n, the slot total and
 * --oversubscribe); more than kMaxRanks processes (map-too-large); no -n
 * and no slot on any node (map-no-slots). Nodes with 0 slots are allowed:
 * they get processes only when oversubscribed (and, by slot, only when no
 * node has a slot: then every node counts as one). */
ORCA_EXPORT Result<RankMap> map_ranks(const std::vector<HostSlots>& nodes, std::optional<unsigned> n, MapBy by,
                                      bool oversubscribe);

/* The most ranks per node -N and ppr:N:node take. */
inline constexpr unsigned kMaxPerNode = 1u << 20;

/* Maps `per_node` ranks to every node (mpirun's -N and ppr:N:node,
 * Hydra's -ppn), each node's consecutive, nodes in order: per_node times
 * the nodes in all, or the first `n` of those. A node whose slots were
 * given (host:4, slots=4) must have per_node of them unless
 * `oversubscribe`; one named without a count takes per_node as its slots.
 * Errors (launch/...): no nodes; per_node 0 or above kMaxPerNode
 * (map-per-node-range); -n above per_node times the nodes
 * (map-per-node-too-few); a node with fewer slots (map-per-node-slots,
 * naming the host, its slots and --oversubscribe); more than kMaxRanks. */
ORCA_EXPORT Result<RankMap> map_ranks_per_node(const std::vector<HostSlots>& nodes, unsigned per_node,
                                               std::optional<unsigned> n, bool oversubscribe);

/* What -N and ppr:N:RES share once each node's count is known: counts[i]
 * consecutive ranks on node i, nodes in order; with `n`, the first n of
 * those places. `policy` names the option in messages ("-N 2"), what(i)
 * what it puts on node i ("-N 2 puts 2 ranks"). Errors: those of
 * map_ranks_per_node but the range. */
Result<RankMap> map_counts(const std::vector<HostSlots>& nodes, const std::vector<std::uint64_t>& counts,
                           std::optional<unsigned> n, bool oversubscribe, const std::string& policy,
                           const std::function<std::string(std::size_t)>& what);

/* How --rank-by numbers the processes a map put on each node. */
enum class RankBy { Slot, Node };

/* "slot" or "node" (case is ignored). Error: launch/rank-by-unknown,
 * which says that within a host ranks follow --map-by's order (a resource
 * such as core or numa is not a ranking of its own here). */
ORCA_EXPORT Result<RankBy> parse_rank_by(std::string_view text);

/* Renumbers the ranks of `map`, keeping how many processes each node runs
 * (local_sizes) and whether it is oversubscribed:
 *   slot  node 0's processes are ranks 0..k-1, node 1's the next, ...;
 *   node  ranks go round-robin over the nodes that have processes left.
 * Local ranks count each node's processes in rank order. Without
 * --rank-by the map's own order stands (slot for --map-by slot and -N,
 * node for --map-by node). */
ORCA_EXPORT RankMap rank_ranks(const RankMap& map, RankBy by);

/* The map as --display-map prints it: a heading, then one line per node
 * that runs ranks, "  HOST (S slots): ranks 0-3,8" (ranges where ranks
 * are consecutive; names printable). */
ORCA_EXPORT std::string map_text(const std::vector<HostSlots>& nodes, const RankMap& map, std::string_view policy);

}  // namespace orca::launch

#endif  // ORCA_LAUNCH_RANK_MAP_H
