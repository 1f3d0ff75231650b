// FenceCollective: one process's part of a pmi collective (counting each
// epoch's parts, merging them), and the entry <-> Kvs conversions of the
// C interface.
#include <orca/pmi.h>

#include "lib/result_assertions.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace orca::pmi {
namespace {

using orca::test::FailedWith;

using Added = Result<std::optional<FenceCollective::Complete>>;

/* The part is in and the epoch is not complete yet. */
::testing::AssertionResult Waiting(const Added& r) {
  if (!r.ok()) return ::testing::AssertionFailure() << "failed with " << r.error().summary();
  if (r.value()) return ::testing::AssertionFailure() << "completed epoch " << r.value()->epoch;
  return ::testing::AssertionSuccess();
}

/* The part completed `epoch`. */
::testing::AssertionResult Completed(const Added& r, std::uint64_t epoch) {
  if (!r.ok()) return ::testing::AssertionFailure() << "failed with " << r.error().summary();
  if (!r.value()) return ::testing::AssertionFailure() << "still waiting, expected epoch " << epoch << " complete";
  if (r.value()->epoch != epoch) {
    return ::testing::AssertionFailure() << "completed epoch " << r.value()->epoch << ", expected " << epoch;
  }
  return ::testing::AssertionSuccess();
}

TEST(FenceCollective, CompletesOnlyWhenEveryPartIsIn) {
  FenceCollective f(3);
  EXPECT_EQ(f.contributors(), 3u);
  EXPECT_EQ(f.pending(), 0u);
  EXPECT_TRUE(Waiting(f.add(0, 10, {{"a", "1"}})));
  EXPECT_EQ(f.pending(), 1u);
  EXPECT_TRUE(Waiting(f.add(0, 20, {{"b", "2"}})));
  EXPECT_EQ(f.pending(), 1u);
  auto done = f.add(0, 30, {});
  ASSERT_TRUE(Completed(done, 0));
  EXPECT_EQ(done.value()->merged, (Kvs{{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(f.pending(), 0u);
  // The next epoch starts from nothing.
  EXPECT_TRUE(Waiting(f.add(1, 30, {{"c", "3"}})));
  EXPECT_TRUE(Waiting(f.add(1, 10, {})));
  auto next = f.add(1, 20, {});
  ASSERT_TRUE(Completed(next, 1));
  EXPECT_EQ(next.value()->merged, (Kvs{{"c", "3"}}));
}

TEST(FenceCollective, OneContributorCompletesAtOnce) {
  FenceCollective f(1);
  for (std::uint64_t epoch = 0; epoch < 3; ++epoch) {
    auto done = f.add(epoch, 7, {{"k" + std::to_string(epoch), "v"}});
    ASSERT_TRUE(Completed(done, epoch));
    EXPECT_EQ(done.value()->merged, (Kvs{{"k" + std::to_string(epoch), "v"}}));
    EXPECT_EQ(f.pending(), 0u);
  }
}

/* The union of the parts; with parts that agree on the keys they share, the
 * same whatever order they arrive in. */
TEST(FenceCollective, MergeIsTheUnionInEitherOrder) {
  const Kvs a = {{"shared", "same"}, {"a-only", "1"}, {std::string("bin\0key", 7), std::string("\0\1\2", 3)}};
  const Kvs b = {{"shared", "same"}, {"b-only", "2"}};
  const Kvs expected = {{"shared", "same"},
                        {"a-only", "1"},
                        {"b-only", "2"},
                        {std::string("bin\0key", 7), std::string("\0\1\2", 3)}};
  FenceCollective ab(2);
  EXPECT_TRUE(Waiting(ab.add(0, 0, a)));
  auto ab_done = ab.add(0, 1, b);
  ASSERT_TRUE(Completed(ab_done, 0));
  FenceCollective ba(2);
  EXPECT_TRUE(Waiting(ba.add(0, 1, b)));
  auto ba_done = ba.add(0, 0, a);
  ASSERT_TRUE(Completed(ba_done, 0));
  EXPECT_EQ(ab_done.value()->merged, expected);
  EXPECT_EQ(ba_done.value()->merged, expected);
}

/* Two parts that disagree on a key: the value that arrived first stays
 * (orca/pmi.h: "the first value of a key kept"), whichever contributor
 * sent it. */
TEST(FenceCollective, TheFirstValueOfAKeyIsKept) {
  for (const bool low_first : {true, false}) {
    FenceCollective f(2);
    const std::uint32_t first = low_first ? 0 : 1;
    const std::uint32_t second = low_first ? 1 : 0;
    EXPECT_TRUE(Waiting(f.add(0, first, {{"key", "first"}, {"x", "1"}})));
    auto done = f.add(0, second, {{"key", "second"}, {"y", "2"}});
    ASSERT_TRUE(Completed(done, 0)) << "low_first " << low_first;
    EXPECT_EQ(done.value()->merged, (Kvs{{"key", "first"}, {"x", "1"}, {"y", "2"}})) << "low_first " << low_first;
  }
}

/* A contributor fast enough to enter epoch 1 before epoch 0 is complete
 * here: the two are counted apart and complete in order. */
TEST(FenceCollective, OverlappingEpochsCompleteIndependentlyInOrder) {
  FenceCollective f(2);
  EXPECT_TRUE(Waiting(f.add(0, 0, {{"e0-from0", "a"}})));
  EXPECT_TRUE(Waiting(f.add(1, 0, {{"e1-from0", "b"}})));
  EXPECT_EQ(f.pending(), 2u);
  auto zero = f.add(0, 1, {{"e0-from1", "c"}});
  ASSERT_TRUE(Completed(zero, 0));
  EXPECT_EQ(zero.value()->merged, (Kvs{{"e0-from0", "a"}, {"e0-from1", "c"}}));
  EXPECT_EQ(f.pending(), 1u);
  // Contributor 0 is in epoch 1 already; epoch 2 may open too.
  EXPECT_TRUE(Waiting(f.add(2, 0, {})));
  EXPECT_EQ(f.pending(), 2u);
  auto one = f.add(1, 1, {{"e1-from1", "d"}});
  ASSERT_TRUE(Completed(one, 1));
  EXPECT_EQ(one.value()->merged, (Kvs{{"e1-from0", "b"}, {"e1-from1", "d"}}));
  EXPECT_EQ(f.pending(), 1u);
  ASSERT_TRUE(Completed(f.add(2, 1, {}), 2));
  EXPECT_EQ(f.pending(), 0u);
}

TEST(FenceCollective, ARepeatedPartOfAnOpenEpochIsAnError) {
  FenceCollective f(2);
  EXPECT_TRUE(Waiting(f.add(0, 5, {{"a", "1"}})));
  auto again = f.add(0, 5, {{"a", "2"}});
  ASSERT_TRUE(FailedWith(again, "pmi", "fence-repeated"));
  EXPECT_EQ(again.error().arg("epoch"), "0");
  EXPECT_EQ(again.error().arg("from"), "5");
  // The repeat changed nothing: the epoch still waits for the other part,
  // with the first value.
  EXPECT_EQ(f.pending(), 1u);
  auto done = f.add(0, 6, {});
  ASSERT_TRUE(Completed(done, 0));
  EXPECT_EQ(done.value()->merged, (Kvs{{"a", "1"}}));
}

TEST(FenceCollective, APartOfACompleteEpochIsAnError) {
  FenceCollective f(2);
  EXPECT_TRUE(Waiting(f.add(0, 0, {})));
  ASSERT_TRUE(Completed(f.add(0, 1, {}), 0));
  // From a contributor that sent it already, and from one unknown so far.
  for (const std::uint32_t from : {0u, 1u, 9u}) {
    auto late = f.add(0, from, {{"late", "x"}});
    ASSERT_TRUE(FailedWith(late, "pmi", "fence-repeated")) << "from " << from;
    EXPECT_EQ(late.error().arg("epoch"), "0");
    EXPECT_EQ(late.error().arg("from"), std::to_string(from));
  }
  // The refusal opened nothing.
  EXPECT_EQ(f.pending(), 0u);
  EXPECT_TRUE(Waiting(f.add(1, 0, {})));
  ASSERT_TRUE(Completed(f.add(1, 1, {}), 1));
}

TEST(FenceCollective, PendingCountsEpochsStartedAndNotComplete) {
  FenceCollective f(2);
  EXPECT_EQ(f.pending(), 0u);
  EXPECT_TRUE(Waiting(f.add(0, 0, {})));
  EXPECT_TRUE(Waiting(f.add(1, 0, {})));
  EXPECT_TRUE(Waiting(f.add(2, 0, {})));
  EXPECT_EQ(f.pending(), 3u);
  // A refused part counts nothing.
  EXPECT_FALSE(f.add(1, 0, {}).ok());
  EXPECT_EQ(f.pending(), 3u);
  ASSERT_TRUE(Completed(f.add(0, 1, {}), 0));
  EXPECT_EQ(f.pending(), 2u);
  ASSERT_TRUE(Completed(f.add(1, 1, {}), 1));
  ASSERT_TRUE(Completed(f.add(2, 1, {}), 2));
  EXPECT_EQ(f.pending(), 0u);
}

TEST(PmiEntries, RoundTripBinaryValues) {
  const Kvs kvs = {{"plain", "text"},
                   {"empty", ""},
                   {std::string("k\0ey", 4), "v"},
                   {"nul", std::string("a\0b\0\0c", 6)},
                   {"high", std::string("\xff\xfe\x80\x00", 4)}};
  const std::vector<orca_pmi_entry> entries = entries_of(kvs);
  ASSERT_EQ(entries.size(), kvs.size());
  // Lengths, not NUL terminators, carry the sizes.
  bool saw_nul_value = false;
  for (const orca_pmi_entry& e : entries) {
    const std::string key(e.key, e.key_length);
    auto it = kvs.find(key);
    ASSERT_NE(it, kvs.end()) << key;
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(e.value), e.value_length), it->second);
    if (key == "nul") {
      EXPECT_EQ(e.value_length, 6u);
      saw_nul_value = true;
    }
  }
  EXPECT_TRUE(saw_nul_value);
  EXPECT_EQ(kvs_of(entries.data(), entries.size()), kvs);
  EXPECT_TRUE(entries_of(Kvs{}).empty());
  EXPECT_TRUE(kvs_of(nullptr, 0).empty());
}

TEST(PmiEntries, ARepeatedKeyKeepsTheFirstValue) {
  const std::string k = "key";
  const std::string first("first\0", 6);
  const std::string second = "second";
  const std::string other = "o";
  const auto bytes = [](const std::string& s) { return reinterpret_cast<const std::uint8_t*>(s.data()); };
  const orca_pmi_entry entries[] = {
      {.key = k.data(), .key_length = k.size(), .value = bytes(first), .value_length = first.size()},
      {.key = other.data(), .key_length = other.size(), .value = bytes(other), .value_length = other.size()},
      {.key = k.data(), .key_length = k.size(), .value = bytes(second), .value_length = second.size()},
  };
  EXPECT_EQ(kvs_of(entries, 3), (Kvs{{"key", first}, {"o", "o"}}));
}

}  // namespace
}  // namespace orca::pmi
