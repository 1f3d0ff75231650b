// RoutingTree (routed_base.cc) over fake C modules: a tree in any child
// order routes correctly, and every way a module can be wrong (a parent
// cycle, a parent out of range, children that disagree with the parents,
// counts that lie, a missing function, too many daemons) is an error value
// naming the vpid, never a crash or a loop. And the oob router on top.
#include <orca/routed.h>

#include "lib/result_assertions.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace orca::routed {
namespace {

using test::FailedWith;
using test::Succeeded;

// A module answering from tables, each of which a test may spoil.
struct FakeShape {
  std::vector<std::uint32_t> parents;                 // per vpid
  std::vector<std::vector<std::uint32_t>> children;   // per vpid
  std::optional<std::uint32_t> count_of_one;          // child_count(1) lies
  std::optional<std::uint32_t> returned_by_zero;      // children(0) returns this

  /* Children derived from the parents, in ascending order. */
  static FakeShape from_parents(std::vector<std::uint32_t> parents) {
    FakeShape s;
    s.children.resize(parents.size());
    for (std::uint32_t v = 1; v < parents.size(); ++v) {
      if (parents[v] < parents.size()) s.children[parents[v]].push_back(v);
    }
    s.parents = std::move(parents);
    return s;
  }
  std::uint32_t daemons() const { return static_cast<std::uint32_t>(parents.size() - 1); }

  orca_routed_module module() {
    return orca_routed_module{
        .self = this,
        .parent = [](void* self, uint32_t, uint32_t vpid) { return static_cast<FakeShape*>(self)->parents.at(vpid); },
        .child_count =
            [](void* self, uint32_t, uint32_t vpid) {
              const auto* s = static_cast<FakeShape*>(self);
              if (vpid == 1 && s->count_of_one) return *s->count_of_one;
              return static_cast<uint32_t>(s->children.at(vpid).size());
            },
        .children =
            [](void* self, uint32_t, uint32_t vpid, uint32_t* out, uint32_t cap) {
              const auto* s = static_cast<FakeShape*>(self);
              const auto& kids = s->children.at(vpid);
              for (uint32_t i = 0; i < kids.size() && i < cap; ++i) out[i] = kids[i];
              if (vpid == 0 && s->returned_by_zero) return *s->returned_by_zero;
              return static_cast<uint32_t>(kids.size());
            }};
  }
};

Result<RoutingTree> build(FakeShape& shape) { return RoutingTree::build(shape.module(), shape.daemons(), "fake"); }

// 0 -> {3, 1}, 1 -> {5, 2}, 3 -> {4}: children deliberately not ascending.
FakeShape sample() {
  FakeShape s;
  s.parents = {0, 0, 1, 0, 3, 1};
  s.children = {{3, 1}, {5, 2}, {}, {4}, {}, {}};
  return s;
}

TEST(RoutingTree, KeepsTheModulesShapeAndOrder) {
  FakeShape s = sample();
  auto t = build(s);
  ASSERT_TRUE(Succeeded(t));
  EXPECT_EQ(t->daemons(), 5u);
  EXPECT_EQ(t->parent(0), 0u);
  EXPECT_EQ(t->parent(5), 1u);
  EXPECT_EQ(std::vector<std::uint32_t>(t->children(0).begin(), t->children(0).end()),
            (std::vector<std::uint32_t>{3, 1}));
  EXPECT_TRUE(t->children(4).empty());
  EXPECT_EQ(t->depth(0), 0u);
  EXPECT_EQ(t->depth(4), 2u);
  EXPECT_EQ(t->depth(), 2u);
  // Preorder in the module's order of children.
  EXPECT_EQ(std::vector<std::uint32_t>(t->subtree(0).begin(), t->subtree(0).end()),
            (std::vector<std::uint32_t>{0, 3, 4, 1, 5, 2}));
  EXPECT_EQ(std::vector<std::uint32_t>(t->subtree(1).begin(), t->subtree(1).end()),
            (std::vector<std::uint32_t>{1, 5, 2}));
  EXPECT_TRUE(t->in_subtree(1, 2));
  EXPECT_FALSE(t->in_subtree(3, 2));
  EXPECT_FALSE(t->in_subtree(1, 6));
}

TEST(RoutingTree, NextHopGoesDownTowardsTheSubtreeElseUp) {
  FakeShape s = sample();
  auto t = build(s);
  ASSERT_TRUE(Succeeded(t));
  EXPECT_EQ(t->next_hop(0, 4), 3u);
  EXPECT_EQ(t->next_hop(0, 2), 1u);
  EXPECT_EQ(t->next_hop(0, 1), 1u);
  EXPECT_EQ(t->next_hop(1, 2), 2u);
  EXPECT_EQ(t->next_hop(1, 5), 5u);
  EXPECT_EQ(t->next_hop(2, 5), 1u);  // sibling: via the parent
  EXPECT_EQ(t->next_hop(4, 2), 3u);  // up, up, down, down
  EXPECT_EQ(t->next_hop(4, 0), 3u);
  EXPECT_EQ(t->next_hop(3, 3), 3u);
  EXPECT_EQ(t->next_hop(0, 6), std::nullopt);
  EXPECT_EQ(t->next_hop(6, 0), std::nullopt);
  EXPECT_EQ(t->next_hop(UINT32_MAX, UINT32_MAX), std::nullopt);
}

TEST(RoutingTree, TheLauncherAloneIsATree) {
  FakeShape s = FakeShape::from_parents({0});
  auto t = build(s);
  ASSERT_TRUE(Succeeded(t));
  EXPECT_EQ(t->daemons(), 0u);
  EXPECT_EQ(t->depth(), 0u);
  EXPECT_TRUE(t->children(0).empty());
  EXPECT_EQ(t->subtree(0).size(), 1u);
  EXPECT_EQ(t->next_hop(0, 0), 0u);
  EXPECT_EQ(t->next_hop(0, 1), std::nullopt);
}

TEST(RoutingTreeRejects, AParentCycle) {
  FakeShape s = FakeShape::from_parents({0, 0, 3, 4, 2, 1});  // 2 -> 3 -> 4 -> 2
  auto t = build(s);
  ASSERT_TRUE(FailedWith(t, "routed", "parent-cycle"));
  EXPECT_EQ(t.error().arg("component"), "fake");
  EXPECT_EQ(t.error().arg("daemons"), "5");
  EXPECT_EQ(t.error().arg("vpid"), "2");
  EXPECT_EQ(t.error().arg("cycle"), "2 -> 3 -> 4 -> 2");
}

TEST(RoutingTreeRejects, ATwoCycleReachedFromAnotherVpid) {
  FakeShape s = FakeShape::from_parents({0, 2, 3, 2});  // 1 -> 2 -> 3 -> 2
  auto t = build(s);
  ASSERT_TRUE(FailedWith(t, "routed", "parent-cycle"));
  EXPECT_EQ(t.error().arg("cycle"), "2 -> 3 -> 2");
}

TEST(RoutingTreeRejects, ADaemonThatIsItsOwnParent) {
  FakeShape s = FakeShape::from_parents({0, 0, 2});
  auto t = build(s);
  ASSERT_TRUE(FailedWith(t, "routed", "bad-parent"));
  EXPECT_EQ(t.error().arg("vpid"), "2");
}

TEST(RoutingTreeRejects, ALauncherWithAParent) {
  FakeShape s = FakeShape::from_parents({1, 0});
  auto t = build(s);
  ASSERT_TRUE(FailedWith(t, "routed", "bad-parent"));
  EXPECT_EQ(t.error().arg("vpid"), "0");
  EXPECT_EQ(t.error().arg("parent"), "1");
}

TEST(RoutingTreeRejects, AParentOutOfRange) {
  FakeShape s = FakeShape::from_parents({0, 0, 99, 0});
  auto t = build(s);
  ASSERT_TRUE(FailedWith(t, "routed", "bad-parent"));
  EXPECT_EQ(t.error().arg("vpid"), "2");
  EXPECT_EQ(t.error().arg("parent"), "99");
  s.parents[2] = UINT32_MAX;
  EXPECT_TRUE(FailedWith(build(s), "routed", "bad-parent"));
}

TEST(RoutingTreeRejects, ChildrenThatDisagreeWithTheParents) {
  // Parents of a chain 0 -> 1 -> 2 -> 3, children of a star.
  FakeShape s;
  s.parents = {0, 0, 1, 2};
  s.children = {{1, 2, 3}, {}, {}, {}};
  auto t = build(s);
  ASSERT_TRUE(FailedWith(t, "routed", "bad-children"));
  EXPECT_EQ(t.error().arg("vpid"), "0");
  EXPECT_NE(t.error().arg("why").find("lists 2, whose parent is 1"), std::string::npos) << t.error().summary();
}

TEST(RoutingTreeRejects, AChildOutOfRangeOrTheLauncher) {
  FakeShape s = FakeShape::from_parents({0, 0, 1});
  s.children[1] = {7};
  auto t = build(s);
  ASSERT_TRUE(FailedWith(t, "routed", "bad-children"));
  EXPECT_NE(t.error().arg("why").find("lists 7, which is no daemon"), std::string::npos) << t.error().summary();
  s = FakeShape::from_parents({0, 0, 1});
  s.children[1] = {0};
  t = build(s);
  ASSERT_TRUE(FailedWith(t, "routed", "bad-children"));
  EXPECT_EQ(t.error().arg("vpid"), "1");
  EXPECT_NE(t.error().arg("why").find("lists 0, which is no daemon"), std::string::npos) << t.error().summary();
}

TEST(RoutingTreeRejects, AChildListedTwice) {
  FakeShape s = FakeShape::from_parents({0, 0, 0});
  s.children[0] = {1, 1};
  auto t = build(s);
  ASSERT_TRUE(FailedWith(t, "routed", "bad-children"));
  EXPECT_NE(t.error().arg("why").find("lists 1 twice"), std::string::npos) << t.error().summary();
}

TEST(RoutingTreeRejects, AChildInNoList) {
  FakeShape s = FakeShape::from_parents({0, 0, 1, 1});
  s.children[1] = {2};
  auto t = build(s);
  ASSERT_TRUE(FailedWith(t, "routed", "bad-children"));
  EXPECT_EQ(t.error().arg("vpid"), "1");
  EXPECT_NE(t.error().arg("why").find("leave out 3"), std::string::npos) << t.error().summary();
}

TEST(RoutingTreeRejects, CountsThatLie) {
  FakeShape s = FakeShape::from_parents({0, 0, 1});
  s.returned_by_zero = 5;
  auto t = build(s);
  ASSERT_TRUE(FailedWith(t, "routed", "bad-children"));
  EXPECT_EQ(t.error().arg("vpid"), "0");
  EXPECT_NE(t.error().arg("why").find("child_count says 1 but children says 5"), std::string::npos);
  // A count that cannot be true is refused before anything is allocated.
  s = FakeShape::from_parents({0, 0, 1});
  s.count_of_one = UINT32_MAX;
  t = build(s);
  ASSERT_TRUE(FailedWith(t, "routed", "bad-children"));
  EXPECT_EQ(t.error().arg("vpid"), "1");
}

TEST(RoutingTreeRejects, AModuleWithoutAFunction) {
  FakeShape s = FakeShape::from_parents({0, 0});
  orca_routed_module m = s.module();
  m.children = nullptr;
  auto t = RoutingTree::build(m, 1, "fake");
  ASSERT_TRUE(FailedWith(t, "routed", "incomplete-module"));
  EXPECT_EQ(t.error().arg("function"), "children");
  m = s.module();
  m.parent = nullptr;
  EXPECT_TRUE(FailedWith(RoutingTree::build(m, 1, "fake"), "routed", "incomplete-module"));
}

TEST(RoutingTreeRejects, MoreDaemonsThanTheLimit) {
  FakeShape s = FakeShape::from_parents({0});  // never asked
  for (std::uint32_t n : {kMaxDaemons + 1, UINT32_MAX}) {
    auto t = RoutingTree::build(s.module(), n, "fake");
    ASSERT_TRUE(FailedWith(t, "routed", "too-many-daemons"));
    EXPECT_EQ(t.error().arg("max"), std::to_string(kMaxDaemons));
  }
}

// --------------------------------------------------------------- make_router

TEST(Router, AnswersInSelfsJobAndNothingElse) {
  FakeShape s = sample();
  auto t = build(s);
  ASSERT_TRUE(Succeeded(t));
  auto at4 = make_router(t.value(), ProcessName{7, 4});
  EXPECT_EQ(at4(ProcessName{7, 2}), (ProcessName{7, 3}));
  EXPECT_EQ(at4(ProcessName{7, 0}), (ProcessName{7, 3}));
  EXPECT_EQ(at4(ProcessName{7, 4}), std::nullopt);  // itself
  EXPECT_EQ(at4(ProcessName{8, 2}), std::nullopt);  // another job
  EXPECT_EQ(at4(ProcessName{7, 6}), std::nullopt);  // not in the tree
  auto at0 = make_router(t.value(), ProcessName{7, 0});
  EXPECT_EQ(at0(ProcessName{7, 5}), (ProcessName{7, 1}));
  auto outside = make_router(std::move(t.value()), ProcessName{7, 9});
  EXPECT_EQ(outside(ProcessName{7, 1}), std::nullopt);
}

}  // namespace
}  // namespace orca::routed
