// FenceCollective: one process's part of a pmi collective (counting each
// epoch's parts, merging them, holding them to the job's bound on its
// data), and the entry <-> Kvs conversions of the C interface.
#include "help/help.h"
#include <orca/pmi.h>

#include "lib/expect_text.h"
#include "lib/result_assertions.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace orca::pmi {
namespace {

using orca::test::FailedWith;
using orca::test::Succeeded;

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

/* A collective of `contributors` under `bound`, naming contributor c "host c". */
FenceCollective bounded(std::uint32_t contributors, DataBound bound) {
  return FenceCollective(contributors, {.component = "simple", .bound = bound, .source = [](std::uint32_t c) {
                                          return "host " + std::to_string(c);
                                        }});
}

TEST(FenceCollectiveBound, APartPastTheKeyBoundIsRefusedNamingItsSource) {
  FenceCollective f = bounded(2, {.keys = 3});
  EXPECT_TRUE(Waiting(f.add(0, 10, {{"a", "1"}, {"b", "2"}})));
  auto over = f.add(0, 20, {{"c", "3"}, {"d", "4"}});
  ASSERT_TRUE(FailedWith(over, "pmi", "job-data-bound"));
  const Message& m = over.error();
  EXPECT_EQ(m.arg("component"), "simple");
  EXPECT_EQ(m.arg("source"), "host 20");
  EXPECT_EQ(m.arg("total"), "4");
  EXPECT_EQ(m.arg("bound"), "3");
  EXPECT_EQ(m.arg("unit"), "keys");
  EXPECT_EQ(m.arg("variable"), "pmi_base_max_job_keys");
  EXPECT_EQ(m.arg("larger"), "12");
  // Its data was dropped: a part within the bound still completes the epoch.
  auto done = f.add(0, 20, {{"c", "3"}});
  ASSERT_TRUE(Completed(done, 0));
  EXPECT_EQ(done.value()->merged, (Kvs{{"a", "1"}, {"b", "2"}, {"c", "3"}}));
}

TEST(FenceCollectiveBound, BytesCountKeysAndValues) {
  FenceCollective f = bounded(1, {.bytes = 10});
  ASSERT_TRUE(Completed(f.add(0, 1, {{"ab", "cdefghij"}}), 0)) << "10 bytes: at the bound, not past it";
  FenceCollective g = bounded(1, {.bytes = 10});
  auto over = g.add(0, 1, {{"ab", "cdefghijk"}});
  ASSERT_TRUE(FailedWith(over, "pmi", "job-data-bound"));
  EXPECT_EQ(over.error().arg("unit"), "bytes");
  EXPECT_EQ(over.error().arg("total"), "11");
  EXPECT_EQ(over.error().arg("variable"), "pmi_base_max_job_bytes");
}

TEST(FenceCollectiveBound, AKeyTwoPartsShareCountsOnce) {
  FenceCollective f = bounded(2, {.keys = 2, .bytes = 4});
  EXPECT_TRUE(Waiting(f.add(0, 1, {{"a", "1"}, {"b", "2"}})));
  // The first value stays: "a" adds nothing.
  auto done = f.add(0, 2, {{"a", "longer than the bound"}});
  ASSERT_TRUE(Completed(done, 0));
  EXPECT_EQ(done.value()->merged, (Kvs{{"a", "1"}, {"b", "2"}}));
}

// The flood of the issue: each epoch within the bound, their sum past it.
TEST(FenceCollectiveBound, WhatIsHeldCountsAgainstEveryLaterEpoch) {
  FenceCollective f = bounded(1, {.keys = 5});
  for (std::uint64_t e = 0; e < 2; ++e) {
    auto done = f.add(e, 1, {{"k" + std::to_string(e) + "a", "v"}, {"k" + std::to_string(e) + "b", "v"}});
    ASSERT_TRUE(Completed(done, e));
    ASSERT_TRUE(Succeeded(f.hold(DataSize::of(done.value()->merged), "a release")));
  }
  EXPECT_EQ(f.held(), (DataSize{.keys = 4, .bytes = 16}));
  auto over = f.add(2, 1, {{"k2a", "v"}, {"k2b", "v"}});
  ASSERT_TRUE(FailedWith(over, "pmi", "job-data-bound"));
  EXPECT_EQ(over.error().arg("total"), "6");
  EXPECT_EQ(f.pending(), 0u) << "the refused part opened nothing";
  EXPECT_TRUE(Completed(f.add(2, 1, {{"k2a", "v"}}), 2));
}

TEST(FenceCollectiveBound, AHoldPastTheBoundFailsNamingItsSource) {
  FenceCollective f = bounded(2, {.bytes = 100});
  EXPECT_TRUE(Waiting(f.add(0, 1, {{"key", std::string(40, 'x')}})));
  EXPECT_TRUE(Succeeded(f.hold({.keys = 0, .bytes = 50}, "the direct modex data from n2")));
  // 43 merging and 50 held: 8 more is past 100.
  auto over = f.hold({.keys = 0, .bytes = 8}, "the direct modex data from n3");
  ASSERT_TRUE(FailedWith(over, "pmi", "job-data-bound"));
  EXPECT_EQ(over.error().arg("source"), "the direct modex data from n3");
  EXPECT_EQ(over.error().arg("total"), "101");
  EXPECT_EQ(f.held().bytes, 58u) << "counted all the same";
  EXPECT_FALSE(f.add(0, 2, {}).ok()) << "nothing more fits";
}

TEST(FenceCollectiveBound, WithoutABoundNothingIsRefused) {
  FenceCollective f(1);
  ASSERT_TRUE(Completed(f.add(0, 1, {{std::string(1000, 'k'), std::string(100000, 'v')}}), 0));
  EXPECT_TRUE(Succeeded(f.hold({.keys = UINT32_MAX, .bytes = UINT32_MAX}, "x")));
}

TEST(PmiBound, OrcaPmiJobsZeroMeansNone) {
  orca_pmi_job job{};
  const DataBound none = DataBound::of(job);
  EXPECT_EQ(none.keys, UINT64_MAX);
  EXPECT_EQ(none.bytes, UINT64_MAX);
  job.max_keys = 7;
  job.max_bytes = 9;
  const DataBound some = DataBound::of(job);
  EXPECT_EQ(some.keys, 7u);
  EXPECT_EQ(some.bytes, 9u);
  EXPECT_FALSE(some.exceeded_by({.keys = 7, .bytes = 9}).has_value());
  EXPECT_EQ(some.exceeded_by({.keys = 8, .bytes = 10}), ORCA_PMI_BOUND_KEYS) << "keys are checked first";
  EXPECT_EQ(some.exceeded_by({.keys = 1, .bytes = 10}), ORCA_PMI_BOUND_BYTES);
}

TEST(PmiBound, TheMessageSaysWhatPassedWhichBoundAndWhatToSet) {
  HelpCatalog help("orcarun", {ORCA_TEST_HELP_DIR});
  const std::string text =
      help.render(over_bound("simple", "the puts of rank 3 on n1", ORCA_PMI_BOUND_BYTES, {.keys = 9, .bytes = 1000},
                             {.keys = 2, .bytes = 1001}));
  EXPECT_TRUE(test::LacksText(text, "{"));
  EXPECT_TRUE(test::LacksText(text, "not found in:"));
  const std::string flat = [&] {
    std::string t = text;
    for (char& c : t) c = c == '\n' ? ' ' : c;
    return t;
  }();
  EXPECT_TRUE(test::Contains(flat, "orcarun: the job's pmi/simple data would reach 1001 bytes with the puts of rank "
                                   "3 on n1, over the bound of 1000 bytes (pmi_base_max_job_bytes)"));
  EXPECT_TRUE(test::Contains(flat, "`orcarun --mca pmi_base_max_job_bytes 4000 ...`"));
  const Message keys = over_bound("pmix", "x", ORCA_PMI_BOUND_KEYS, {.keys = 9, .bytes = 1000}, {.keys = 10});
  EXPECT_EQ(keys.arg("variable"), "pmi_base_max_job_keys");
  EXPECT_EQ(keys.arg("total"), "10");
  EXPECT_EQ(keys.arg("bound"), "9");
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
