// map_ranks: --map-by slot|node, with and without --oversubscribe, and
// the errors for -n too large, -n 0 and no nodes.
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
