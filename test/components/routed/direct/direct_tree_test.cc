// routed/direct through the base: the launcher is every daemon's parent,
// and a message between two daemons goes through it.
#include "routed/direct/direct_tree.h"

#include <orca/routed.h>

#include "lib/result_assertions.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace orca::routed::direct {
namespace {

using test::Succeeded;

TEST(DirectTree, EveryDaemonIsAChildOfTheLauncher) {
  for (std::uint32_t n : {0u, 1u, 2u, 7u, 1000u, 100000u}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    auto t = RoutingTree::build(module(), n, "direct");
    ASSERT_TRUE(Succeeded(t));
    EXPECT_EQ(t->depth(), n == 0 ? 0u : 1u);
    ASSERT_EQ(t->children(0).size(), n);
    for (std::uint32_t v = 1; v <= n; ++v) {
      ASSERT_EQ(t->parent(v), 0u);
      ASSERT_EQ(t->children(0)[v - 1], v);
      ASSERT_TRUE(t->children(v).empty());
      ASSERT_EQ(t->subtree(v).size(), 1u);
    }
    EXPECT_EQ(t->subtree(0).size(), std::size_t{n} + 1);
  }
}

TEST(DirectTree, NextHopIsTheTargetFromTheLauncherAndTheLauncherFromADaemon) {
  const std::uint32_t n = 50;
  auto t = RoutingTree::build(module(), n, "direct");
  ASSERT_TRUE(Succeeded(t));
  for (std::uint32_t a = 0; a <= n; ++a) {
    for (std::uint32_t b = 0; b <= n; ++b) {
      const std::uint32_t expected = a == b ? b : a == 0 ? b : 0;
      ASSERT_EQ(t->next_hop(a, b), expected) << a << " -> " << b;
    }
  }
}

TEST(DirectTree, ChildrenWritesNoMoreThanAsked) {
  const orca_routed_module m = module();
  std::uint32_t out[3] = {0, 0, 0};
  EXPECT_EQ(m.children(m.self, 10, 0, out, 2), 10u);
  EXPECT_EQ(out[0], 1u);
  EXPECT_EQ(out[1], 2u);
  EXPECT_EQ(out[2], 0u);
  EXPECT_EQ(m.children(m.self, 10, 0, nullptr, 0), 10u);
  EXPECT_EQ(m.child_count(m.self, 10, 3), 0u);
}

}  // namespace
}  // namespace orca::routed::direct
