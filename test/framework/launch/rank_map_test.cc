// map_ranks: --map-by slot|node, with and without --oversubscribe, a
// hostfile's max_slots caps, --rank-by, and the errors for -n too large,
// -n 0 and no nodes.
#include "launch/rank_map.h"

#include "lib/expect_text.h"
#include "lib/result_assertions.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace orca::launch {
namespace {

using Hosts = std::vector<HostSlots>;
using test::FailedWith;
using test::Succeeded;

Hosts nodes(std::initializer_list<unsigned> slots) {
  Hosts out;
  for (unsigned s : slots) out.push_back(HostSlots{"n" + std::to_string(out.size()), s, true});
  return out;
}

// The node of each rank, in rank order.
std::vector<size_t> node_of(const RankMap& map) {
  std::vector<size_t> out;
  for (const Placement& p : map.placements) out.push_back(p.node);
  return out;
}

std::vector<unsigned> local_of(const RankMap& map) {
  std::vector<unsigned> out;
  for (const Placement& p : map.placements) out.push_back(p.local_rank);
  return out;
}

RankMap mapped(const Hosts& hosts, std::optional<unsigned> n, MapBy by, bool oversubscribe = false) {
  auto r = map_ranks(hosts, n, by, oversubscribe);
  EXPECT_TRUE(Succeeded(r));
  if (!r.ok()) return RankMap{};
  // Invariants of every map.
  for (size_t i = 0; i < r->placements.size(); ++i) EXPECT_EQ(r->placements[i].rank, i);
  EXPECT_EQ(r->local_sizes.size(), hosts.size());
  return r.value();
}

using V = std::vector<size_t>;
using U = std::vector<unsigned>;

TEST(MapRanks, BySlotFillsNodeZeroFirst) {
  const RankMap m = mapped(nodes({2, 2}), 4, MapBy::Slot);
  EXPECT_EQ(node_of(m), (V{0, 0, 1, 1}));
  EXPECT_EQ(local_of(m), (U{0, 1, 0, 1}));
  EXPECT_EQ(m.local_sizes, (U{2, 2}));
  EXPECT_FALSE(m.oversubscribed);
}

TEST(MapRanks, BySlotFewerThanSlots) {
  const RankMap m = mapped(nodes({4, 4}), 3, MapBy::Slot);
  EXPECT_EQ(node_of(m), (V{0, 0, 0}));
  EXPECT_EQ(m.local_sizes, (U{3, 0}));
}

TEST(MapRanks, ByNodeRoundRobins) {
  const RankMap m = mapped(nodes({2, 2}), 4, MapBy::Node);
  EXPECT_EQ(node_of(m), (V{0, 1, 0, 1}));
  EXPECT_EQ(local_of(m), (U{0, 0, 1, 1}));
  EXPECT_EQ(m.local_sizes, (U{2, 2}));
}

TEST(MapRanks, ByNodeSkipsAFullNode) {
  const RankMap m = mapped(nodes({1, 3, 2}), std::nullopt, MapBy::Node);
  EXPECT_EQ(node_of(m), (V{0, 1, 2, 1, 2, 1}));
  EXPECT_EQ(local_of(m), (U{0, 0, 0, 1, 1, 2}));
  EXPECT_EQ(m.local_sizes, (U{1, 3, 2}));
}

TEST(MapRanks, WithoutNOnePerSlot) {
  const RankMap m = mapped(nodes({3, 1}), std::nullopt, MapBy::Slot);
  EXPECT_EQ(node_of(m), (V{0, 0, 0, 1}));
  EXPECT_EQ(m.local_sizes, (U{3, 1}));
}

TEST(MapRanks, BySlotOversubscribedRepeatsTheFill) {
  // 2 + 1 slots, 7 ranks: two full passes (4 and 2), then 1 more on node 0.
  const RankMap m = mapped(nodes({2, 1}), 7, MapBy::Slot, true);
  EXPECT_EQ(node_of(m), (V{0, 0, 0, 0, 0, 1, 1}));
  EXPECT_EQ(local_of(m), (U{0, 1, 2, 3, 4, 0, 1}));
  EXPECT_EQ(m.local_sizes, (U{5, 2}));
  EXPECT_TRUE(m.oversubscribed);
}

TEST(MapRanks, ByNodeOversubscribedWraps) {
  const RankMap m = mapped(nodes({2, 1}), 6, MapBy::Node, true);
  // Within the slots: 0 1 0; then round-robin over all: 0 1 0.
  EXPECT_EQ(node_of(m), (V{0, 1, 0, 0, 1, 0}));
  EXPECT_EQ(local_of(m), (U{0, 0, 1, 2, 1, 3}));
  EXPECT_EQ(m.local_sizes, (U{4, 2}));
  EXPECT_TRUE(m.oversubscribed);
}

TEST(MapRanks, OversubscribeAllowedButNotNeeded) {
  const RankMap m = mapped(nodes({2, 2}), 3, MapBy::Node, true);
  EXPECT_EQ(node_of(m), (V{0, 1, 0}));
  EXPECT_FALSE(m.oversubscribed);
}

TEST(MapRanks, NodesWithoutSlots) {
  // A 0-slot node gets nothing within the slots...
  EXPECT_EQ(node_of(mapped(nodes({0, 2}), std::nullopt, MapBy::Node)), (V{1, 1}));
  EXPECT_EQ(node_of(mapped(nodes({0, 2}), std::nullopt, MapBy::Slot)), (V{1, 1}));
  // ...and its share when oversubscribed.
  EXPECT_EQ(node_of(mapped(nodes({0, 0}), 3, MapBy::Slot, true)), (V{0, 0, 1}));
  EXPECT_EQ(node_of(mapped(nodes({0, 0}), 3, MapBy::Node, true)), (V{0, 1, 0}));
  auto r = map_ranks(nodes({0, 0}), std::nullopt, MapBy::Slot, true);
  ASSERT_TRUE(FailedWith(r, "launch", "map-no-slots"));
  EXPECT_EQ(r.error().arg("nodes"), "2");
}

TEST(MapRanks, TooManyWithoutOversubscribe) {
  for (MapBy by : {MapBy::Slot, MapBy::Node}) {
    auto r = map_ranks(nodes({2, 2}), 5, by, false);
    ASSERT_TRUE(FailedWith(r, "launch", "map-too-many"));
    EXPECT_EQ(r.error().arg("n"), "5");
    EXPECT_EQ(r.error().arg("slots"), "4");
    EXPECT_EQ(r.error().arg("nodes"), "2");
  }
}

TEST(MapRanks, ZeroProcessesIsAnError) {
  EXPECT_TRUE(FailedWith(map_ranks(nodes({2}), 0u, MapBy::Slot, false), "launch", "map-zero-processes"));
  EXPECT_TRUE(FailedWith(map_ranks(nodes({2}), 0u, MapBy::Node, true), "launch", "map-zero-processes"));
}

TEST(MapRanks, NoNodesIsAnError) {
  EXPECT_TRUE(FailedWith(map_ranks({}, std::nullopt, MapBy::Slot, false), "launch", "map-no-nodes"));
  EXPECT_TRUE(FailedWith(map_ranks({}, 4u, MapBy::Node, true), "launch", "map-no-nodes"));
}

TEST(MapRanks, TooLargeAJob) {
  auto r = map_ranks(nodes({1}), kMaxRanks + 1, MapBy::Slot, true);
  ASSERT_TRUE(FailedWith(r, "launch", "map-too-large"));
  EXPECT_EQ(r.error().arg("from"), "-n");
  Hosts big(5, HostSlots{"x", kMaxSlotsPerHost, true});
  EXPECT_TRUE(FailedWith(map_ranks(big, std::nullopt, MapBy::Node, false), "launch", "map-too-large"));
}

TEST(MapRanks, ManyNodesByNodeStaysLinear) {
  // 100000 nodes of 1..4 slots: one pass per slot level, not per rank.
  Hosts many;
  for (unsigned i = 0; i < 100000; ++i) many.push_back(HostSlots{"n" + std::to_string(i), 1 + i % 4, true});
  const RankMap m = mapped(many, std::nullopt, MapBy::Node);
  EXPECT_EQ(m.placements.size(), 250000u);
  for (size_t i = 0; i < many.size(); ++i) ASSERT_EQ(m.local_sizes[i], many[i].slots);
}

TEST(ParseMapBy, SlotAndNode) {
  EXPECT_EQ(parse_map_by("slot").value(), MapBy::Slot);
  EXPECT_EQ(parse_map_by("node").value(), MapBy::Node);
  EXPECT_EQ(parse_map_by("NODE").value(), MapBy::Node);
  auto r = parse_map_by("socket");
  ASSERT_TRUE(FailedWith(r, "launch", "map-by-unknown"));
  EXPECT_EQ(r.error().arg("value"), "socket");
  EXPECT_TRUE(FailedWith(parse_map_by(""), "launch", "map-by-unknown"));
}

}  // namespace
}  // namespace orca::launch

namespace orca::launch {
namespace {

Hosts unnamed_slots(size_t count) {
  Hosts out;
  for (size_t i = 0; i < count; ++i) out.push_back(HostSlots{"h" + std::to_string(i), 1, false});
  return out;
}

// -N / ppr:N:node against a table of expected placements.
TEST(MapRanksPerNode, EachNodeGetsItsRanksConsecutively) {
  struct Case {
    Hosts hosts;
    unsigned per_node;
    std::optional<unsigned> n;
    bool oversubscribe;
    std::vector<size_t> nodes;
    std::vector<unsigned> locals;
  };
  const Case cases[] = {
      {nodes({2, 2}), 2, std::nullopt, false, {0, 0, 1, 1}, {0, 1, 0, 1}},
      {nodes({4, 4, 4}), 1, std::nullopt, false, {0, 1, 2}, {0, 0, 0}},
      {nodes({4, 4}), 3, 4, false, {0, 0, 0, 1}, {0, 1, 2, 0}},
      // Hosts named without a count take -N as their slots (Hydra's -ppn).
      {unnamed_slots(2), 3, std::nullopt, false, {0, 0, 0, 1, 1, 1}, {0, 1, 2, 0, 1, 2}},
      {nodes({1, 1}), 2, std::nullopt, true, {0, 0, 1, 1}, {0, 1, 0, 1}},
  };
  for (const Case& c : cases) {
    auto r = map_ranks_per_node(c.hosts, c.per_node, c.n, c.oversubscribe);
    ASSERT_TRUE(Succeeded(r)) << c.per_node;
    EXPECT_EQ(node_of(r.value()), c.nodes) << "-N " << c.per_node;
    EXPECT_EQ(local_of(r.value()), c.locals) << "-N " << c.per_node;
    for (size_t i = 0; i < r->placements.size(); ++i) EXPECT_EQ(r->placements[i].rank, i);
  }
  auto over = map_ranks_per_node(nodes({1, 1}), 2, std::nullopt, true);
  EXPECT_TRUE(over->oversubscribed);
  EXPECT_EQ(over->local_sizes, (std::vector<unsigned>{2, 2}));
  EXPECT_FALSE(map_ranks_per_node(unnamed_slots(2), 3, std::nullopt, false)->oversubscribed);
}

TEST(MapRanksPerNode, MapsThatCannotBeMetNameWhy) {
  auto slots = map_ranks_per_node(nodes({4, 2}), 3, std::nullopt, false);
  ASSERT_TRUE(FailedWith(slots, "launch", "map-per-node-slots"));
  EXPECT_EQ(slots.error().arg("host"), "n1");
  EXPECT_EQ(slots.error().arg("slots"), "2");
  auto few = map_ranks_per_node(nodes({4, 4}), 2, 5, false);
  ASSERT_TRUE(FailedWith(few, "launch", "map-per-node-too-few"));
  EXPECT_EQ(few.error().arg("most"), "4");
  EXPECT_TRUE(FailedWith(map_ranks_per_node(nodes({4}), 0, std::nullopt, false), "launch", "map-per-node-range"));
  EXPECT_TRUE(FailedWith(map_ranks_per_node(nodes({4}), kMaxPerNode + 1, std::nullopt, true), "launch",
                         "map-per-node-range"));
  EXPECT_TRUE(FailedWith(map_ranks_per_node({}, 1, std::nullopt, false), "launch", "map-no-nodes"));
  EXPECT_TRUE(FailedWith(map_ranks_per_node(nodes({4}), 1, 0, false), "launch", "map-zero-processes"));
  EXPECT_TRUE(FailedWith(map_ranks_per_node(unnamed_slots(8), kMaxPerNode, std::nullopt, true), "launch",
                         "map-too-large"));
}

// nodes() with max_slots caps (0: none).
Hosts capped(std::initializer_list<unsigned> slots, std::initializer_list<unsigned> caps) {
  Hosts out = nodes(slots);
  size_t i = 0;
  for (unsigned c : caps) out[i++].max_slots = c;
  return out;
}

TEST(MapRanksMaxSlots, OversubscribedPassesStopAtEachNodesCap) {
  struct Case {
    Hosts hosts;
    unsigned n;
    MapBy by;
    std::vector<size_t> nodes;
  };
  const Case cases[] = {
      // By slot: the fill repeats (2+1 a pass) until n0 reaches 3; then n1 alone.
      {capped({2, 1}, {3, 0}), 7, MapBy::Slot, {0, 0, 0, 1, 1, 1, 1}},
      // A pass n0 cannot take whole gives it its room (1 of 2), n1 its 1.
      {capped({2, 1}, {3, 4}), 5, MapBy::Slot, {0, 0, 0, 1, 1}},
      // Uncapped as before: passes of 2+1, the last partial in node order.
      {capped({2, 1}, {0, 0}), 7, MapBy::Slot, {0, 0, 0, 0, 0, 1, 1}},
      // By node: round-robin beyond the slots skips a node at its cap.
      {capped({1, 1, 1}, {1, 3, 2}), 6, MapBy::Node, {0, 1, 2, 1, 2, 1}},
      {capped({1, 1}, {2, 0}), 5, MapBy::Node, {0, 1, 0, 1, 1}},
  };
  for (const Case& c : cases) {
    const RankMap m = mapped(c.hosts, c.n, c.by, true);
    EXPECT_EQ(node_of(m), c.nodes) << c.n;
    EXPECT_TRUE(m.oversubscribed);
  }
  // Caps do not allow oversubscription by themselves.
  EXPECT_TRUE(FailedWith(map_ranks(capped({1, 1}, {4, 4}), 3, MapBy::Slot, false), "launch", "map-too-many"));
}

TEST(MapRanksMaxSlots, MoreThanTheCapsAllowIsRefused) {
  auto r = map_ranks(capped({1, 2}, {2, 3}), 6, MapBy::Slot, true);
  ASSERT_TRUE(FailedWith(r, "launch", "map-max-slots"));
  EXPECT_EQ(r.error().arg("most"), "5");
  EXPECT_EQ(r.error().arg("n"), "6");
  EXPECT_TRUE(Succeeded(map_ranks(capped({1, 2}, {2, 3}), 5, MapBy::Node, true)));
  // One node without a cap takes any number, wherever it is in the list.
  EXPECT_TRUE(Succeeded(map_ranks(capped({1, 1, 1}, {0, 1, 1}), 50, MapBy::Slot, true)));
  EXPECT_TRUE(Succeeded(map_ranks(capped({1, 1, 1}, {1, 0, 1}), 50, MapBy::Node, true)));
  // -N beyond a host's cap, even oversubscribed.
  auto per_node = map_ranks_per_node(capped({1, 1}, {2, 4}), 3, std::nullopt, true);
  ASSERT_TRUE(FailedWith(per_node, "launch", "map-per-node-max-slots"));
  EXPECT_EQ(per_node.error().arg("host"), "n0");
  EXPECT_EQ(per_node.error().arg("max_slots"), "2");
  EXPECT_TRUE(Succeeded(map_ranks_per_node(capped({1, 1}, {2, 4}), 2, std::nullopt, true)));
}

TEST(RankRanks, RenumbersKeepingEachNodesCount) {
  struct Case {
    RankMap map;
    RankBy by;
    std::vector<size_t> nodes;
    std::vector<unsigned> locals;
  };
  const Case cases[] = {
      // -N 2 on 3 nodes, ranked by node: round-robin.
      {(map_ranks_per_node(nodes({2, 2, 2}), 2, std::nullopt, false)).value(), RankBy::Node, {0, 1, 2, 0, 1, 2},
       {0, 0, 0, 1, 1, 1}},
      // --map-by node ranked by slot: each node's ranks consecutive.
      {(map_ranks(nodes({2, 2}), 4, MapBy::Node, false)).value(), RankBy::Slot, {0, 0, 1, 1}, {0, 1, 0, 1}},
      // Uneven counts: a node that runs out leaves the rotation.
      {(map_ranks(nodes({3, 1, 2}), 6, MapBy::Slot, false)).value(), RankBy::Node, {0, 1, 2, 0, 2, 0},
       {0, 0, 0, 1, 1, 2}},
      // A node without ranks is skipped either way.
      {(map_ranks(nodes({0, 2, 1}), 3, MapBy::Slot, false)).value(), RankBy::Node, {1, 2, 1}, {0, 0, 1}},
      {(map_ranks(nodes({0, 2, 1}), 3, MapBy::Node, false)).value(), RankBy::Slot, {1, 1, 2}, {0, 1, 0}},
  };
  for (const Case& c : cases) {
    const RankMap m = rank_ranks(c.map, c.by);
    EXPECT_EQ(node_of(m), c.nodes);
    EXPECT_EQ(local_of(m), c.locals);
    EXPECT_EQ(m.local_sizes, c.map.local_sizes);
    for (size_t i = 0; i < m.placements.size(); ++i) EXPECT_EQ(m.placements[i].rank, i);
  }
  auto over = map_ranks(nodes({1, 1}), 4, MapBy::Slot, true);
  EXPECT_TRUE(rank_ranks(over.value(), RankBy::Node).oversubscribed);
}

TEST(ParseRankBy, SlotAndNodeInAnyCase) {
  EXPECT_EQ(parse_rank_by("slot").value(), RankBy::Slot);
  EXPECT_EQ(parse_rank_by(" NODE ").value(), RankBy::Node);
  for (const char* bad : {"core", "", "node:span", "fill"}) {
    auto r = parse_rank_by(bad);
    ASSERT_TRUE(FailedWith(r, "launch", "rank-by-unknown")) << bad;
  }
}

TEST(MapText, OneLinePerHostThatRunsRanksWithRanges) {
  Hosts hosts = nodes({2, 2, 1});
  hosts[2].name = "gpu\x1b[31m";
  auto by_node = map_ranks(hosts, 5, MapBy::Node, false);
  ASSERT_TRUE(Succeeded(by_node));
  EXPECT_EQ(map_text(hosts, by_node.value(), "--map-by node"),
            "map of 5 ranks on 3 hosts (--map-by node):\n"
            "  n0 (2 slots): ranks 0,3\n"
            "  n1 (2 slots): ranks 1,4\n"
            "  gpu\\x1b[31m (1 slot): rank 2\n");
  auto one = map_ranks(nodes({4, 4}), 3, MapBy::Slot, false);
  EXPECT_EQ(map_text(nodes({4, 4}), one.value(), "--map-by slot"),
            "map of 3 ranks on 1 host (--map-by slot):\n"
            "  n0 (4 slots): ranks 0-2\n");
  auto over = map_ranks_per_node(nodes({1}), 1, std::nullopt, false);
  EXPECT_EQ(map_text(nodes({1}), over.value(), "-N 1"), "map of 1 rank on 1 host (-N 1):\n  n0 (1 slot): rank 0\n");
  const Hosts caps = capped({1, 2}, {3, 0});
  auto with_cap = map_ranks(caps, 4, MapBy::Slot, true);
  EXPECT_EQ(map_text(caps, with_cap.value(), "--map-by slot"),
            "map of 4 ranks on 2 hosts (--map-by slot, oversubscribed):\n"
            "  n0 (1 slot, at most 3): ranks 0-1\n"
            "  n1 (2 slots): ranks 2-3\n");
}

TEST(RankPlacements, NodeIsDaemonVpidPlusOneAndRanksKeepTheirOrder) {
  const RankMap map = mapped(nodes({2, 2}), 3, MapBy::Node);
  const auto p = rank_placements(map);
  ASSERT_EQ(p.size(), 3u);
  for (std::size_t r = 0; r < p.size(); ++r) {
    EXPECT_EQ(p[r].rank, r);
    EXPECT_EQ(p[r].daemon, map.placements[r].node + 1);
    EXPECT_EQ(p[r].local_rank, map.placements[r].local_rank);
  }
  EXPECT_EQ(p[1].daemon, 2u);  // by node: rank 1 on b
}

}  // namespace
}  // namespace orca::launch
