// routed/radix through the base, for many job sizes and fan-outs: the
// tree is the k-ary heap over the vpids, its depth is the expected
// logarithm, children cover every daemon once, subtrees add up, and a
// message walked hop by hop arrives within depth(a) + depth(b) hops.
#include "routed/radix/radix_tree.h"

#include <orca/routed.h>

#include "lib/result_assertions.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace orca::routed::radix {
namespace {

using test::Succeeded;

// The least d with 1 + k + ... + k^d > n: the depth of a k-ary heap
// holding vpids 0..n.
std::uint32_t expected_depth(std::uint64_t n, std::uint64_t k) {
  std::uint32_t d = 0;
  for (std::uint64_t level = 1, total = 1; total < n + 1; ++d) {
    level *= k;
    total += level;
  }
  return d;
}

TEST(RadixTree, ExpectedDepthMatchesKnownValues) {
  EXPECT_EQ(expected_depth(0, 64), 0u);
  EXPECT_EQ(expected_depth(64, 64), 1u);
  EXPECT_EQ(expected_depth(65, 64), 2u);
  EXPECT_EQ(expected_depth(4160, 64), 2u);
  EXPECT_EQ(expected_depth(4161, 64), 3u);
  EXPECT_EQ(expected_depth(7, 2), 3u);
  EXPECT_EQ(expected_depth(6, 2), 2u);
  EXPECT_EQ(expected_depth(100000, 3), 11u);
  EXPECT_EQ(expected_depth(1000, 1), 1000u);
}

// Walks from a to b one next hop at a time; every hop is to a neighbour.
void expect_walk(const RoutingTree& t, std::uint32_t a, std::uint32_t b) {
  const std::uint32_t bound = t.depth(a) + t.depth(b);
  std::uint32_t at = a, hops = 0;
  while (at != b) {
    const std::optional<std::uint32_t> next = t.next_hop(at, b);
    ASSERT_TRUE(next.has_value());
    ASSERT_TRUE(t.parent(at) == *next || t.parent(*next) == at) << at << " -> " << *next << " is no edge";
    at = *next;
    ASSERT_LE(++hops, bound) << a << " -> " << b;
  }
}

void check_tree(std::uint32_t n, std::uint32_t k) {
  RadixTree shape(k);
  auto built = RoutingTree::build(shape.module(), n, "radix");
  ASSERT_TRUE(Succeeded(built));
  const RoutingTree& t = built.value();
  ASSERT_EQ(t.daemons(), n);
  EXPECT_EQ(t.depth(), expected_depth(n, k));

  std::vector<int> listed(std::size_t{n} + 1, 0);
  std::uint32_t deepest = 0;
  for (std::uint32_t v = 0; v <= n; ++v) {
    if (v != 0) {
      ASSERT_EQ(t.parent(v), (v - 1) / k);
      ASSERT_EQ(t.depth(v), t.depth(t.parent(v)) + 1);  // so every chain reaches 0
    }
    deepest = std::max(deepest, t.depth(v));
    const auto kids = t.children(v);
    std::uint64_t expected = std::uint64_t{k} * v + 1;
    std::size_t below = 1;
    for (std::uint32_t c : kids) {
      ASSERT_EQ(c, expected++);
      ++listed[c];
      below += t.subtree(c).size();
    }
    // Exactly k*v+1 .. min(k*v+k, n).
    const std::uint64_t first = std::uint64_t{k} * v + 1;
    ASSERT_EQ(kids.size(), first > n ? 0 : std::min<std::uint64_t>(k, n - first + 1)) << "children of " << v;
    ASSERT_EQ(t.subtree(v).size(), below) << "subtree of " << v;
    ASSERT_EQ(t.subtree(v).front(), v);
  }
  EXPECT_EQ(deepest, t.depth());
  EXPECT_EQ(listed[0], 0);
  for (std::uint32_t v = 1; v <= n; ++v) ASSERT_EQ(listed[v], 1) << "vpid " << v;
  EXPECT_EQ(t.subtree(0).size(), std::size_t{n} + 1);

  // Walks: the far ends, then random pairs (fewer where paths are long).
  const std::uint32_t ends[] = {0, std::min(1u, n), n / 2, n};
  for (std::uint32_t a : ends) {
    for (std::uint32_t b : ends) expect_walk(t, a, b);
  }
  std::mt19937 random(n * 131u + k);
  std::uniform_int_distribution<std::uint32_t> pick(0, n);
  const int pairs = t.depth() > 1000 ? 40 : 400;
  for (int i = 0; i < pairs && !::testing::Test::HasFatalFailure(); ++i) expect_walk(t, pick(random), pick(random));
}

TEST(RadixTree, IsTheKaryHeapForEverySizeAndFanOut) {
  for (std::uint32_t k : {1u, 2u, 3u, 32u, 64u}) {
    for (std::uint32_t n : {0u, 1u, 2u, 7u, 63u, 64u, 65u, 1000u, 100000u}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " k=" + std::to_string(k));
      check_tree(n, k);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST(RadixTree, FanOutOneIsAChain) {
  RadixTree shape(1);
  auto t = RoutingTree::build(shape.module(), 100000, "radix");
  ASSERT_TRUE(Succeeded(t));
  EXPECT_EQ(t->depth(), 100000u);
  EXPECT_EQ(t->depth(100000), 100000u);
  EXPECT_EQ(t->next_hop(0, 100000), 1u);
  EXPECT_EQ(t->next_hop(100000, 0), 99999u);
  EXPECT_EQ(t->next_hop(500, 400), 499u);
  EXPECT_EQ(t->next_hop(400, 500), 401u);
  EXPECT_EQ(t->subtree(99990).size(), 11u);
}

TEST(RadixTree, TheLauncherAloneWorks) {
  RadixTree shape(64);
  auto t = RoutingTree::build(shape.module(), 0, "radix");
  ASSERT_TRUE(Succeeded(t));
  EXPECT_EQ(t->depth(), 0u);
  EXPECT_EQ(t->next_hop(0, 0), 0u);
}

TEST(RadixTree, WideFanOutsDoNotWrap) {
  // k*v+1 exceeds 32 bits for these: no children, not wrapped ones.
  RadixTree shape(65536);
  EXPECT_EQ(shape.child_count(kMaxDaemons, 70000), 0u);
  EXPECT_EQ(shape.child_count(kMaxDaemons, 0), 65536u);
  EXPECT_EQ(shape.child_count(kMaxDaemons, 1), 65536u);
  EXPECT_EQ(shape.child_count(kMaxDaemons, 15), 65536u);
  EXPECT_EQ(shape.child_count(kMaxDaemons, 16), 0u);  // 16*65536+1 > 2^20
  EXPECT_EQ(RadixTree(0).radix(), 1u);
  auto t = RoutingTree::build(shape.module(), kMaxDaemons, "radix");
  ASSERT_TRUE(Succeeded(t));
  EXPECT_EQ(t->depth(), 2u);
}

TEST(RadixTree, ChildrenWritesNoMoreThanAsked) {
  RadixTree shape(4);
  std::uint32_t out[3] = {0, 0, 0};
  EXPECT_EQ(shape.children(100, 2, out, 2), 4u);
  EXPECT_EQ(out[0], 9u);
  EXPECT_EQ(out[1], 10u);
  EXPECT_EQ(out[2], 0u);
  EXPECT_EQ(shape.children(10, 2, out, 3), 2u);  // 9 and 10 only
}

}  // namespace
}  // namespace orca::routed::radix
