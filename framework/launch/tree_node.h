// TreeNode: what every node of the daemon tree decides the same way,
// orcarun (vpid 0) and each orcad: whose hello to welcome, who a lost peer
// is, which agents go when a daemon is lost, and which daemons a teardown
// reaches by relay and which only through their agents.
//
// A node relays control messages to its children in the routing tree that
// said hello (their connection is the relay); it runs the agents of the
// daemons it launched (with tree spawn, its children; orcarun without tree
// spawn, every daemon). A daemon started below another is reached once its
// report came up: its parent knows it then. JobMachine and DaemonMachine
// hold one each and call it for those decisions; neither writes them again.
//
// Threading: none; no I/O, no clock.
#ifndef ORCA_LAUNCH_TREE_NODE_H
#define ORCA_LAUNCH_TREE_NODE_H

#include <orca/export.h>
#include <orca/routed.h>

#include <chrono>
#include <cstdint>
#include <vector>

namespace orca::launch {

/* After a lost daemon's agent was sent SIGTERM, how long it may take to end
 * (its daemon ending its ranks first) before it is SIGKILLed. */
inline constexpr std::chrono::milliseconds kLostAgentGrace{1000};

/* Who a peer the oob lost is to this node. */
enum class PeerRole {
  Parent,    // this node's parent (never for orcarun)
  Below,     // a daemon in this node's subtree
  Stranger,  // anything else (out of range, or elsewhere in the tree)
};

/* What to do with agents when a daemon is lost: end the lost daemon's own
 * agent (daemon first, when it can), and SIGTERM the agents of the daemons
 * below it that this node launched (they lost their parent); SIGKILL what
 * is left after kLostAgentGrace. Empty when this node runs none of them. */
struct LostDaemonAgents {
  bool end_its_agent = false;
  std::vector<std::uint32_t> below;  // SIGTERM to these agents
};

/* The teardown from this node: `relayed` are the children that hear it
 * (their connection closing is then their end, not a loss); `unreached`
 * are daemons whose agents this node runs that cannot hear it (they never
 * said hello, or, below another daemon, never reported): SIGTERM to their
 * agents. */
struct TeardownReach {
  std::vector<std::uint32_t> relayed;
  std::vector<std::uint32_t> unreached;
};

class ORCA_EXPORT TreeNode {
 public:
  /* `tree` outlives the node; `self` is in 0..tree.daemons(). */
  TreeNode(const routed::RoutingTree& tree, std::uint32_t self);

  std::uint32_t self() const noexcept { return self_; }
  std::uint32_t daemons() const noexcept { return tree_->daemons(); }

  /* hello/welcome: whether a hello that came over the connection of
   * `from`, saying it is `claimed`, is a child's own (a daemon cannot speak
   * for another, and only a node's children say hello to it). */
  bool is_childs_hello(std::uint32_t from, std::uint32_t claimed) const noexcept;
  PeerRole role_of(std::uint32_t peer) const noexcept;

  // What the node saw of each daemon; vpids out of 1..daemons() are ignored.
  void launched(std::uint32_t vpid);  // this node runs its agent
  void hello(std::uint32_t vpid);     // its hello was welcomed
  void up(std::uint32_t vpid);        // its report came up
  bool is_launched(std::uint32_t vpid) const noexcept { return known(vpid) && state_[vpid].launched; }
  bool said_hello(std::uint32_t vpid) const noexcept { return known(vpid) && state_[vpid].hello; }
  bool is_up(std::uint32_t vpid) const noexcept { return known(vpid) && state_[vpid].up; }

  /* Daemon `vpid` (below this node) is lost. */
  LostDaemonAgents lost(std::uint32_t vpid) const;
  /* The job ends: who hears the teardown from this node and who does not. */
  TeardownReach teardown() const;

 private:
  struct Seen {
    bool launched = false;
    bool hello = false;
    bool up = false;
  };
  bool known(std::uint32_t vpid) const noexcept { return vpid >= 1 && vpid < state_.size(); }
  bool reached(std::uint32_t vpid) const noexcept;

  const routed::RoutingTree* tree_;
  std::uint32_t self_;
  std::vector<Seen> state_;  // by vpid; [0] unused
};

}  // namespace orca::launch

#endif
