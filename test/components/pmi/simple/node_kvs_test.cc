// NodeKvs: pmi/simple's job KVS on one daemon and this node's barriers,
// without I/O: when the node's part is complete, what it leaves out, and
// the job's bound on the data, which names the rank whose puts pass it.
#include "pmi/simple/node_kvs.h"

#include <gtest/gtest.h>

#include <string>
#include <variant>

namespace orca::pmi {
namespace {

/* The node's part, or a failure naming what came instead. */
::testing::AssertionResult IsPart(const NodeKvs::Entered& e, std::uint64_t epoch, const Kvs& puts) {
  const auto* part = std::get_if<NodeKvs::Part>(&e);
  if (part == nullptr) {
    return ::testing::AssertionFailure() << (std::holds_alternative<NodeKvs::Waiting>(e) ? "still waiting" : "over the bound");
  }
  if (part->epoch != epoch) return ::testing::AssertionFailure() << "part of epoch " << part->epoch;
  if (part->puts != puts) return ::testing::AssertionFailure() << part->puts.size() << " keys, not the expected";
  return ::testing::AssertionSuccess();
}

bool IsWaiting(const NodeKvs::Entered& e) { return std::holds_alternative<NodeKvs::Waiting>(e); }

TEST(NodeKvs, ThePartIsCompleteWhenEveryRankIsIn) {
  NodeKvs kvs(2, {});
  EXPECT_TRUE(IsWaiting(kvs.enter(0, 0, {{"a", "1"}})));
  EXPECT_TRUE(IsPart(kvs.enter(0, 1, {{"b", "2"}}), 0, {{"a", "1"}, {"b", "2"}}));
  // Nothing is in the KVS before the release.
  EXPECT_TRUE(kvs.kvs()->empty());
  kvs.release({{"a", "1"}, {"b", "2"}, {"far", "3"}});
  EXPECT_EQ(*kvs.kvs(), (Kvs{{"a", "1"}, {"b", "2"}, {"far", "3"}}));
  EXPECT_EQ(kvs.size(), (DataSize{.keys = 3, .bytes = 8}));
}

TEST(NodeKvs, TheKvsGrowsInPlaceAndKeepsTheFirstValue) {
  NodeKvs kvs(1, {});
  const auto shared = kvs.kvs();  // as a session holds it
  kvs.release({{"a", "1"}});
  kvs.release({{"a", "changed"}, {"b", "2"}});
  EXPECT_EQ(shared.get(), kvs.kvs().get());
  EXPECT_EQ(*shared, (Kvs{{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(kvs.size(), (DataSize{.keys = 2, .bytes = 4})) << "a key it held already adds nothing";
}

TEST(NodeKvs, KeysTheJobHoldsAlreadyAreLeftOutOfThePart) {
  NodeKvs kvs(1, {});
  kvs.release({{"bc-0", "old"}});
  EXPECT_TRUE(IsPart(kvs.enter(0, 0, {{"bc-0", "new"}, {"bc-1", "x"}}), 0, {{"bc-1", "x"}}));
}

// The flood: one rank's puts, each barrier within the cap, grow
// the job's KVS until its next puts would pass the bound.
TEST(NodeKvs, ARankWhosePutsWouldPassTheBoundIsNamed) {
  NodeKvs kvs(2, {.keys = 1000, .bytes = 25});
  const std::string value(8, 'v');
  for (std::uint64_t e = 0; e < 2; ++e) {
    const std::string key = "k" + std::to_string(e);
    EXPECT_TRUE(IsWaiting(kvs.enter(e, 1, {})));
    auto entered = kvs.enter(e, 0, {{key, value}});
    ASSERT_TRUE(IsPart(entered, e, {{key, value}}));
    kvs.release(std::get<NodeKvs::Part>(entered).puts);
  }
  ASSERT_EQ(kvs.size().bytes, 20u);
  EXPECT_TRUE(IsWaiting(kvs.enter(2, 1, {})));
  const auto entered = kvs.enter(2, 0, {{"k2", value}});
  const auto* over = std::get_if<NodeKvs::OverBound>(&entered);
  ASSERT_NE(over, nullptr);
  EXPECT_EQ(over->rank, 0u);
  EXPECT_EQ(over->which, ORCA_PMI_BOUND_BYTES);
  EXPECT_EQ(over->total, 30u) << "20 held and 10 more";
  EXPECT_EQ(kvs.size().bytes, 20u) << "its puts went nowhere";
}

TEST(NodeKvs, TwoRanksThatPassTheBoundTogetherNameTheSecond) {
  NodeKvs kvs(3, {.keys = 3});
  EXPECT_TRUE(IsWaiting(kvs.enter(0, 2, {{"a", ""}, {"b", ""}})));
  // "b" again adds nothing; "c" and "d" are one key too many.
  const auto entered = kvs.enter(0, 1, {{"b", ""}, {"c", ""}, {"d", ""}});
  const auto* over = std::get_if<NodeKvs::OverBound>(&entered);
  ASSERT_NE(over, nullptr);
  EXPECT_EQ(over->rank, 1u);
  EXPECT_EQ(over->which, ORCA_PMI_BOUND_KEYS);
  EXPECT_EQ(over->total, 4u);
  // The barrier still waits for ranks 0 and 1; within the bound it goes on.
  EXPECT_TRUE(IsWaiting(kvs.enter(0, 1, {{"c", ""}})));
  EXPECT_TRUE(IsPart(kvs.enter(0, 0, {}), 0, {{"a", ""}, {"b", ""}, {"c", ""}}));
}

TEST(NodeKvs, ARankThatNeverStartedIsNotWaitedFor) {
  NodeKvs kvs(3, {});
  EXPECT_TRUE(IsWaiting(kvs.enter(0, 0, {{"a", "1"}})));
  EXPECT_TRUE(IsWaiting(kvs.enter(0, 1, {})));
  const auto parts = kvs.leave();
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].epoch, 0u);
  EXPECT_EQ(parts[0].puts, (Kvs{{"a", "1"}}));
  EXPECT_EQ(kvs.ranks(), 2u);
  EXPECT_TRUE(kvs.leave().empty());
}

}  // namespace
}  // namespace orca::pmi
