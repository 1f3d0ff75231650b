// FenceRoot: orcarun's last merge of each collective, over a radix-2
// routing tree of 6 daemons (1, 2 below orcarun; 3, 4 below 1; 5, 6
// below 2).
#include "pmi/fence_root.h"
#include "routed/radix/radix_tree.h"

#include "lib/result_assertions.h"

#include <gtest/gtest.h>

namespace orca::pmi {
namespace {

using test::Succeeded;

routed::RoutingTree tree6() {
  routed::radix::RadixTree shape(2);
  auto t = routed::RoutingTree::build(shape.module(), 6, "radix");
  EXPECT_TRUE(Succeeded(t));
  return std::move(t.value());
}

launch::FenceData part(std::uint32_t from, std::uint64_t epoch, std::vector<launch::KeyValue> entries) {
  return launch::FenceData{.component = "simple", .epoch = epoch, .from = from, .ranks = 1, .entries = std::move(entries)};
}

TEST(FenceRoot, WaitsForEveryChildWithRanksAndMergesTheirParts) {
  const auto t = tree6();
  // Ranks on daemons 3 and 5 only: both children of orcarun take part.
  FenceRoot root(t, {0, 0, 0, 1, 0, 1, 0});
  EXPECT_EQ(root.depth(), 2u);
  const auto now = FenceRoot::Clock::now();
  auto first = root.add(1, part(1, 0, {{"a", "1"}}), now);
  ASSERT_TRUE(Succeeded(first));
  EXPECT_FALSE(first.value().has_value());
  auto second = root.add(2, part(2, 0, {{"b", std::string("\0x", 2)}}), now + std::chrono::milliseconds(3));
  ASSERT_TRUE(Succeeded(second));
  ASSERT_TRUE(second.value().has_value());
  const launch::FenceRelease& r = *second.value();
  EXPECT_EQ(r.component, "simple");
  EXPECT_EQ(r.epoch, 0u);
  ASSERT_EQ(r.entries.size(), 2u);
  EXPECT_EQ(r.entries[0].key, "a");
  EXPECT_EQ(r.entries[1].value, std::string("\0x", 2));
  ASSERT_EQ(root.records().size(), 1u);
  EXPECT_EQ(root.records()[0].keys, 2u);
  EXPECT_EQ(root.records()[0].bytes, 5u);
  EXPECT_EQ(root.records()[0].complete - root.records()[0].first_part, std::chrono::milliseconds(3));
  EXPECT_EQ(root.completed(), 1u);
}

TEST(FenceRoot, AChildWithoutRanksBelowTakesNoPart) {
  const auto t = tree6();
  FenceRoot root(t, {0, 0, 0, 2, 1, 0, 0});  // ranks below daemon 1 only
  auto done = root.add(1, part(1, 0, {}), FenceRoot::Clock::now());
  ASSERT_TRUE(Succeeded(done));
  EXPECT_TRUE(done.value().has_value()) << "daemon 1 is the only part";
  EXPECT_FALSE(root.add(2, part(2, 1, {}), FenceRoot::Clock::now()).ok()) << "daemon 2 has no ranks below it";
}

TEST(FenceRoot, RefusesStrangersForgedSendersAndRepeats) {
  const auto t = tree6();
  FenceRoot root(t, {0, 0, 0, 1, 0, 1, 0});
  const auto now = FenceRoot::Clock::now();
  EXPECT_FALSE(root.add(3, part(3, 0, {}), now).ok()) << "daemon 3 is below daemon 1, not orcarun";
  EXPECT_FALSE(root.add(1, part(2, 0, {}), now).ok()) << "a part naming another sender";
  ASSERT_TRUE(root.add(1, part(1, 0, {}), now).ok());
  auto again = root.add(1, part(1, 0, {}), now);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().topic(), "fence-repeated");
}

TEST(FenceRoot, ComponentsCollectSeparately) {
  const auto t = tree6();
  FenceRoot root(t, {0, 1, 0, 0, 0, 0, 0});  // one daemon with ranks: each part completes at once
  auto a = root.add(1, part(1, 0, {}), FenceRoot::Clock::now());
  launch::FenceData p = part(1, 0, {});
  p.component = "pmix";
  auto b = root.add(1, p, FenceRoot::Clock::now());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(a.value().has_value());
  ASSERT_TRUE(b.value().has_value());
  EXPECT_EQ(b.value()->component, "pmix");
  EXPECT_EQ(root.completed(), 2u);
}

// The flood at the root: one daemon's parts, each within the
// bound, add up past it over the job's collectives; orcarun ends the job
// naming the host, and another component's data is counted apart.
TEST(FenceRoot, TheJobsDataOverEveryCollectiveIsHeldToTheBound) {
  const auto t = tree6();
  const std::vector<std::string> hosts = {"", "n1", "n2", "n3", "n4", "n5", "n6"};
  FenceRoot root(t, {0, 0, 0, 1, 0, 1, 0}, {.keys = 100, .bytes = 25}, hosts);
  const auto now = FenceRoot::Clock::now();
  const std::string nine(9, 'v');  // 11 bytes a part with its key
  for (std::uint64_t e = 0; e < 2; ++e) {
    ASSERT_TRUE(Succeeded(root.add(1, part(1, e, {{"a" + std::to_string(e), nine}}), now)));
    auto done = root.add(2, part(2, e, {}), now);
    ASSERT_TRUE(Succeeded(done));
    ASSERT_TRUE(done.value().has_value());
  }
  // 22 bytes released so far; daemon 2's next 11 would make 33.
  auto over = root.add(2, part(2, 2, {{"b2", nine}}), now);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().topic(), "job-data-bound");
  EXPECT_EQ(over.error().arg("component"), "simple");
  EXPECT_EQ(over.error().arg("source"), "the data from the daemon on n2 and the daemons below it");
  EXPECT_EQ(over.error().arg("total"), "33");
  EXPECT_EQ(over.error().arg("bound"), "25");
  // pmix's data has a bound of its own.
  launch::FenceData other = part(1, 0, {{"node-0", std::string(16, 'x')}});
  other.component = "pmix";
  EXPECT_TRUE(Succeeded(root.add(1, other, now)));
}

TEST(FenceRoot, ADaemonWithOnlyItsOwnRanksIsNamedAlone) {
  const auto t = tree6();
  FenceRoot root(t, {0, 1, 0, 0, 0, 0, 0}, {.keys = 1}, {"", "n1", "n2", "n3", "n4", "n5", "n6"});
  auto over = root.add(1, part(1, 0, {{"a", ""}, {"b", ""}}), FenceRoot::Clock::now());
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().arg("source"), "the data from the daemon on n1");
  EXPECT_EQ(over.error().arg("unit"), "keys");
}

}  // namespace
}  // namespace orca::pmi
