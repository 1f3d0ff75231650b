// TreeNode: the decisions every node of the daemon tree shares (tree_node.h).
#include "tree_node.h"

#include <algorithm>

namespace orca::launch {

TreeNode::TreeNode(const routed::RoutingTree& tree, std::uint32_t self)
    : tree_(&tree), self_(self), state_(tree.daemons() + 1) {}

bool TreeNode::is_childs_hello(std::uint32_t from, std::uint32_t claimed) const noexcept {
  return from == claimed && known(from) && tree_->parent(from) == self_ && from != self_;
}

PeerRole TreeNode::role_of(std::uint32_t peer) const noexcept {
  if (self_ != 0 && peer == tree_->parent(self_)) return PeerRole::Parent;
  if (known(peer) && peer != self_ && tree_->in_subtree(self_, peer)) return PeerRole::Below;
  return PeerRole::Stranger;
}

void TreeNode::launched(std::uint32_t vpid) {
  if (known(vpid)) state_[vpid].launched = true;
}

void TreeNode::hello(std::uint32_t vpid) {
  if (known(vpid)) state_[vpid].hello = true;
}

void TreeNode::up(std::uint32_t vpid) {
  if (known(vpid)) state_[vpid].up = true;
}

// A child hears what this node relays once its hello was welcomed; a
// daemon further down, once its report came up (its parent knew it then).
bool TreeNode::reached(std::uint32_t vpid) const noexcept {
  return tree_->parent(vpid) == self_ ? state_[vpid].hello : state_[vpid].up;
}

LostDaemonAgents TreeNode::lost(std::uint32_t vpid) const {
  LostDaemonAgents out;
  if (!known(vpid)) return out;
  out.end_its_agent = state_[vpid].launched;
  for (std::uint32_t v : tree_->subtree(vpid)) {
    if (v != vpid && state_[v].launched) out.below.push_back(v);
  }
  return out;
}

TeardownReach TreeNode::teardown() const {
  TeardownReach out;
  for (std::uint32_t c : tree_->children(self_)) {
    if (state_[c].hello) out.relayed.push_back(c);
  }
  for (std::uint32_t v : tree_->subtree(self_)) {
    if (v != self_ && state_[v].launched && !reached(v)) out.unreached.push_back(v);
  }
  std::sort(out.unreached.begin(), out.unreached.end());  // by vpid, as logs read best
  return out;
}

}  // namespace orca::launch
