// FenceRoot: orcarun's last merge of each collective, over a radix-2
// routing tree of 6 daemons (1, 2 below orcarun; 3, 4 below 1; 5, 6
// below 2).
#include "orcarun/fence_root.h"
#include "routed/radix/radix_tree.h"

#include "lib/result_assertions.h"

#include <gtest/gtest.h>

namespace orca::orcarun {
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

}  // namespace
}  // namespace orca::orcarun
