// TreeNode: the decisions orcarun's JobMachine and orcad's DaemonMachine
// share, from either end of the tree. The tree is radix 2 over 6 daemons:
// 0 -> {1, 2}, 1 -> {3, 4}, 2 -> {5, 6}.
#include "launch/tree_node.h"

#include "framework/launch/machine_fixtures.h"

#include <gtest/gtest.h>

namespace orca::launch {
namespace {

using test::radix_tree;

using Vpids = std::vector<std::uint32_t>;

class TreeNodeTest : public ::testing::Test {
 protected:
  routed::RoutingTree tree = radix_tree(2, 6);
};

TEST_F(TreeNodeTest, OnlyAChildsOwnHelloIsWelcomed) {
  const TreeNode orcarun(tree, 0);
  EXPECT_TRUE(orcarun.is_childs_hello(1, 1));
  EXPECT_TRUE(orcarun.is_childs_hello(2, 2));
  EXPECT_FALSE(orcarun.is_childs_hello(1, 2));  // speaking for another
  EXPECT_FALSE(orcarun.is_childs_hello(3, 3));  // a grandchild says hello to its parent
  EXPECT_FALSE(orcarun.is_childs_hello(0, 0));
  EXPECT_FALSE(orcarun.is_childs_hello(7, 7));  // out of range
  const TreeNode daemon1(tree, 1);
  EXPECT_TRUE(daemon1.is_childs_hello(3, 3));
  EXPECT_FALSE(daemon1.is_childs_hello(5, 5));  // 2's child
  EXPECT_FALSE(daemon1.is_childs_hello(0, 0));  // the parent
  EXPECT_FALSE(daemon1.is_childs_hello(1, 1));  // itself
}

TEST_F(TreeNodeTest, ALostPeerIsTheParentOrBelowOrAStranger) {
  const TreeNode orcarun(tree, 0);
  EXPECT_EQ(orcarun.role_of(1), PeerRole::Below);
  EXPECT_EQ(orcarun.role_of(6), PeerRole::Below);  // orcarun answers for every daemon
  EXPECT_EQ(orcarun.role_of(0), PeerRole::Stranger);
  EXPECT_EQ(orcarun.role_of(7), PeerRole::Stranger);
  const TreeNode daemon1(tree, 1);
  EXPECT_EQ(daemon1.role_of(0), PeerRole::Parent);
  EXPECT_EQ(daemon1.role_of(3), PeerRole::Below);
  EXPECT_EQ(daemon1.role_of(2), PeerRole::Stranger);  // a sibling
  EXPECT_EQ(daemon1.role_of(5), PeerRole::Stranger);
  EXPECT_EQ(daemon1.role_of(1), PeerRole::Stranger);
  const TreeNode daemon3(tree, 3);
  EXPECT_EQ(daemon3.role_of(1), PeerRole::Parent);
  EXPECT_EQ(daemon3.role_of(0), PeerRole::Stranger);
}

TEST_F(TreeNodeTest, ALostDaemonsAgentEndsOnlyWhereItWasLaunched) {
  TreeNode orcarun(tree, 0);
  for (std::uint32_t v : {1u, 3u, 4u}) orcarun.launched(v);
  const LostDaemonAgents lost1 = orcarun.lost(1);
  EXPECT_TRUE(lost1.end_its_agent);
  EXPECT_EQ(lost1.below, (Vpids{3, 4}));  // lost their parent: SIGTERM
  const LostDaemonAgents lost2 = orcarun.lost(2);  // never launched here
  EXPECT_FALSE(lost2.end_its_agent);
  EXPECT_TRUE(lost2.below.empty());
  EXPECT_FALSE(orcarun.lost(9).end_its_agent);
}

TEST_F(TreeNodeTest, WithTreeSpawnADaemonEndsOnlyItsChildsAgent) {
  TreeNode daemon1(tree, 1);
  daemon1.launched(3);
  daemon1.launched(4);
  const LostDaemonAgents lost = daemon1.lost(3);
  EXPECT_TRUE(lost.end_its_agent);
  EXPECT_TRUE(lost.below.empty());
}

TEST_F(TreeNodeTest, TheTeardownIsRelayedToChildrenThatSaidHelloAndSignalledToTheRest) {
  TreeNode orcarun(tree, 0);
  for (std::uint32_t v = 1; v <= 6; ++v) orcarun.launched(v);  // without tree spawn: every agent
  orcarun.hello(1);
  orcarun.up(1);
  orcarun.up(3);  // reported: 1 knows it
  const TeardownReach reach = orcarun.teardown();
  EXPECT_EQ(reach.relayed, (Vpids{1}));
  // 2 never said hello; 4, 5 and 6 never reported.
  EXPECT_EQ(reach.unreached, (Vpids{2, 4, 5, 6}));
}

TEST_F(TreeNodeTest, ADaemonBelowAnotherIsReachedByItsReportNotAHello) {
  TreeNode orcarun(tree, 0);
  orcarun.launched(3);
  orcarun.hello(3);  // a hello to orcarun from a grandchild reaches nothing
  EXPECT_EQ(orcarun.teardown().unreached, (Vpids{3}));
  orcarun.up(3);
  EXPECT_TRUE(orcarun.teardown().unreached.empty());
}

TEST_F(TreeNodeTest, ADaemonsTeardownReachesItsOwnChildrenOnly) {
  TreeNode daemon1(tree, 1);
  daemon1.launched(3);
  daemon1.launched(4);
  daemon1.hello(4);
  const TeardownReach reach = daemon1.teardown();
  EXPECT_EQ(reach.relayed, (Vpids{4}));
  EXPECT_EQ(reach.unreached, (Vpids{3}));
}

TEST_F(TreeNodeTest, ChildrenNotLaunchedHereAreNeverSignalled) {
  TreeNode daemon1(tree, 1);  // orcarun started 3 and 4 (no tree spawn)
  daemon1.hello(3);
  const TeardownReach reach = daemon1.teardown();
  EXPECT_EQ(reach.relayed, (Vpids{3}));
  EXPECT_TRUE(reach.unreached.empty());
}

TEST_F(TreeNodeTest, VpidsOutOfRangeAreIgnored) {
  TreeNode orcarun(tree, 0);
  orcarun.launched(0);
  orcarun.launched(7);
  orcarun.hello(7);
  orcarun.up(7);
  EXPECT_FALSE(orcarun.is_launched(7));
  EXPECT_FALSE(orcarun.said_hello(7));
  EXPECT_FALSE(orcarun.is_up(0));
  EXPECT_TRUE(orcarun.teardown().unreached.empty());
}

}  // namespace
}  // namespace orca::launch
