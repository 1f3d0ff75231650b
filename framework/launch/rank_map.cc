// Rank mapping: --map-by slot|node over the job's nodes.
#include "rank_map.h"

#include "launch/launch_text.h"
#include "mca/var/text.h"

#include <algorithm>
#include <cstdint>

namespace orca::launch {

namespace {

// The most processes node `node` may run: its max_slots, or no cap.
std::uint64_t cap_of(const HostSlots& node) {
  return node.max_slots != 0 ? node.max_slots : UINT64_MAX;
}

// By slot: how many ranks each node runs. Full passes give every node its
// slots; the last, partial pass fills nodes in order. Nodes without slots
// count as one slot each when no node has any (oversubscribed only). A
// node at its max_slots leaves the passes; a pass it cannot take whole
// gives it what room it has. Each round ends the job or caps a node, so
// the work is the nodes squared at worst, never the ranks.
std::vector<unsigned> counts_by_slot(const std::vector<HostSlots>& nodes, std::uint64_t total, std::uint64_t want) {
  const bool even = total == 0;
  std::vector<std::uint64_t> counts(nodes.size(), 0);
  auto weight = [&](size_t i) -> std::uint64_t { return even ? 1 : nodes[i].slots; };
  auto room = [&](size_t i) { return cap_of(nodes[i]) - counts[i]; };
  std::uint64_t rest = want;
  while (rest > 0) {
    std::uint64_t per_pass = 0;
    std::uint64_t passes = UINT64_MAX;
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (weight(i) == 0 || room(i) == 0) continue;
      per_pass += weight(i);
      passes = std::min(passes, room(i) / weight(i));
    }
    if (per_pass == 0) break;  // no room left: map_ranks checked the caps
    passes = std::min(passes, rest / per_pass);
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (weight(i) == 0 || room(i) == 0) continue;
      const std::uint64_t take = passes > 0 ? passes * weight(i) : std::min({weight(i), room(i), rest});
      counts[i] += take;
      rest -= take;
    }
  }
  return {counts.begin(), counts.end()};
}

// Deals ranks round-robin over the nodes for which has_room(i) holds, one
// a node in turn, until `want` are placed (place(i) puts the next rank on
// node i and moves `next` on). A node leaves the rotation once it has no
// room, so the work is the ranks plus the nodes.
template <typename HasRoom, typename Place>
void deal_round_robin(std::size_t node_count, std::uint64_t want, const unsigned& next, HasRoom has_room, Place place) {
  std::vector<size_t> active;
  for (size_t i = 0; i < node_count; ++i) {
    if (has_room(i)) active.push_back(i);
  }
  while (next < want && !active.empty()) {
    std::vector<size_t> still;
    for (size_t i : active) {
      if (next == want) break;
      place(i);
      if (has_room(i)) still.push_back(i);
    }
    active.swap(still);
  }
}

}  // namespace

Message too_many_ranks(std::uint64_t want, std::string_view from) {
  return Message("launch", "map-too-large",
                 {{"n", std::to_string(want)}, {"limit", std::to_string(kMaxRanks)}, {"from", std::string(from)}});
}

Result<MapBy> parse_map_by(std::string_view text) {
  const std::string value = mca::lower(mca::trim(text));
  if (value == "slot") return MapBy::Slot;
  if (value == "node") return MapBy::Node;
  return Message("launch", "map-by-unknown", {{"value", excerpt(text)}});
}

Result<RankBy> parse_rank_by(std::string_view text) {
  const std::string value = mca::lower(mca::trim(text));
  if (value == "slot") return RankBy::Slot;
  if (value == "node") return RankBy::Node;
  return Message("launch", "rank-by-unknown", {{"value", excerpt(text)}});
}

RankMap rank_ranks(const RankMap& map, RankBy by) {
  RankMap out;
  out.oversubscribed = map.oversubscribed;
  out.local_sizes.assign(map.local_sizes.size(), 0);
  out.placements.resize(map.placements.size());
  unsigned next = 0;
  auto place = [&](size_t node) {
    out.placements[next] = Placement{next, node, out.local_sizes[node]++};
    ++next;
  };
  if (by == RankBy::Slot) {
    for (size_t i = 0; i < map.local_sizes.size(); ++i) {
      for (unsigned k = 0; k < map.local_sizes[i]; ++k) place(i);
    }
    return out;
  }
  // Round-robin over the nodes with processes left to number.
  deal_round_robin(
      map.local_sizes.size(), map.placements.size(), next,
      [&](size_t i) { return out.local_sizes[i] < map.local_sizes[i]; }, place);
  return out;
}

Result<RankMap> map_ranks(const std::vector<HostSlots>& nodes, std::optional<unsigned> n, MapBy by,
                          bool oversubscribe) {
  if (nodes.empty()) return Message("launch", "map-no-nodes", {});
  if (n && *n == 0) return Message("launch", "map-zero-processes", {});
  std::uint64_t total = 0;
  for (const HostSlots& node : nodes) total += node.slots;
  if (!n && total == 0) return Message("launch", "map-no-slots", {{"nodes", std::to_string(nodes.size())}});
  const std::uint64_t want = n ? *n : total;
  if (want > kMaxRanks) return too_many_ranks(want, n ? "-n" : "the slots of the hosts");
  if (want > total && !oversubscribe) {
    return Message("launch", "map-too-many",
                   {{"n", std::to_string(want)}, {"slots", std::to_string(total)},
                    {"nodes", std::to_string(nodes.size())}});
  }
  std::uint64_t most = 0;  // what the caps allow; a node without one allows any number
  for (const HostSlots& node : nodes) {
    if (most != UINT64_MAX) most = node.max_slots == 0 ? UINT64_MAX : most + node.max_slots;
  }
  if (want > most) {
    return Message("launch", "map-max-slots",
                   {{"n", std::to_string(want)}, {"most", std::to_string(most)}, {"nodes", std::to_string(nodes.size())}});
  }

  RankMap map;
  map.placements.resize(static_cast<size_t>(want));
  map.local_sizes.assign(nodes.size(), 0);
  unsigned next = 0;
  auto place = [&](size_t node) {
    map.placements[next] = Placement{next, node, map.local_sizes[node]++};
    ++next;
  };

  if (by == MapBy::Slot) {
    const std::vector<unsigned> counts = counts_by_slot(nodes, total, want);
    for (size_t i = 0; i < nodes.size(); ++i) {
      for (unsigned k = 0; k < counts[i]; ++k) place(i);
    }
  } else {
    // Round-robin over the nodes with a free slot; then, oversubscribed,
    // over every node below its cap.
    deal_round_robin(
        nodes.size(), std::min(want, total), next, [&](size_t i) { return map.local_sizes[i] < nodes[i].slots; }, place);
    deal_round_robin(
        nodes.size(), want, next, [&](size_t i) { return map.local_sizes[i] < cap_of(nodes[i]); }, place);
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (map.local_sizes[i] > nodes[i].slots) map.oversubscribed = true;
  }
  return map;
}

Result<RankMap> map_counts(const std::vector<HostSlots>& nodes, const std::vector<std::uint64_t>& counts,
                           std::optional<unsigned> n, bool oversubscribe, const std::string& policy,
                           const std::function<std::string(std::size_t)>& what) {
  if (nodes.empty()) return Message("launch", "map-no-nodes", {});
  if (n && *n == 0) return Message("launch", "map-zero-processes", {});
  std::uint64_t full = 0;
  for (std::uint64_t c : counts) full += c;
  const std::uint64_t want = n ? *n : full;
  if (want > kMaxRanks) return too_many_ranks(want, policy);
  if (want > full) {
    return Message("launch", "map-per-node-too-few",
                   {{"n", std::to_string(want)}, {"policy", policy}, {"nodes", std::to_string(nodes.size())},
                    {"most", std::to_string(full)}});
  }
  RankMap map;
  map.placements.resize(static_cast<size_t>(want));
  map.local_sizes.assign(nodes.size(), 0);
  unsigned next = 0;
  for (size_t i = 0; i < nodes.size() && next < want; ++i) {
    const HostSlots& node = nodes[i];
    const unsigned here = static_cast<unsigned>(std::min<std::uint64_t>(counts[i], want - next));
    if (node.max_slots != 0 && here > node.max_slots) {
      return Message("launch", "map-per-node-max-slots",
                     {{"what", what(i)}, {"host", excerpt(node.name)}, {"max_slots", std::to_string(node.max_slots)}});
    }
    if (node.slots_given && here > node.slots) {
      if (!oversubscribe) {
        return Message("launch", "map-per-node-slots",
                       {{"what", what(i)}, {"host", excerpt(node.name)}, {"slots", std::to_string(node.slots)},
                        {"count", std::to_string(here)}});
      }
      map.oversubscribed = true;
    }
    for (unsigned k = 0; k < here; ++k) {
      map.placements[next] = Placement{next, i, map.local_sizes[i]++};
      ++next;
    }
  }
  return map;
}

Result<RankMap> map_ranks_per_node(const std::vector<HostSlots>& nodes, unsigned per_node, std::optional<unsigned> n,
                                   bool oversubscribe) {
  if (per_node == 0 || per_node > kMaxPerNode) {
    return Message("launch", "map-per-node-range",
                   {{"per_node", std::to_string(per_node)}, {"limit", std::to_string(kMaxPerNode)}});
  }
  const std::string policy = "-N " + std::to_string(per_node);
  return map_counts(nodes, std::vector<std::uint64_t>(nodes.size(), per_node), n, oversubscribe, policy,
                    [&](std::size_t) { return policy + " puts " + std::to_string(per_node) + " ranks"; });
}

namespace {

// "0-3,8,10-11" of ascending ranks.
std::string rank_ranges(const std::vector<unsigned>& ranks) {
  std::string out;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(ranks[i]);
    if (j > i) out += "-" + std::to_string(ranks[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace

std::string map_text(const std::vector<HostSlots>& nodes, const RankMap& map, std::string_view policy) {
  std::vector<std::vector<unsigned>> on(nodes.size());
  for (const Placement& p : map.placements) on[p.node].push_back(p.rank);
  size_t used = 0;
  for (const auto& ranks : on) used += ranks.empty() ? 0 : 1;
  std::string text = "map of " + std::to_string(map.placements.size()) + " rank" +
                     (map.placements.size() == 1 ? "" : "s") + " on " + std::to_string(used) + " host" +
                     (used == 1 ? "" : "s") + " (" + std::string(policy) + (map.oversubscribed ? ", oversubscribed" : "") +
                     "):\n";
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (on[i].empty()) continue;
    const std::string cap = nodes[i].max_slots != 0 ? ", at most " + std::to_string(nodes[i].max_slots) : "";
    text += "  " + printable(nodes[i].name) + " (" + std::to_string(nodes[i].slots) + " slot" +
            (nodes[i].slots == 1 ? "" : "s") + cap + "): rank" + (on[i].size() == 1 ? " " : "s ") + rank_ranges(on[i]) + "\n";
  }
  return text;
}

std::vector<RankPlacement> rank_placements(const RankMap& map) {
  std::vector<RankPlacement> placements;
  placements.reserve(map.placements.size());
  for (const auto& p : map.placements) {
    placements.push_back({.rank = p.rank, .daemon = static_cast<std::uint32_t>(p.node + 1), .local_rank = p.local_rank});
  }
  return placements;
}

}  // namespace orca::launch
