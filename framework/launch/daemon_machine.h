// DaemonMachine: the life of one orcad between its hello and its exit, as
// a state machine without I/O or clocks (the shape of ConnectRace and
// JobMachine), so that every policy is tested with a fake clock.
//
// Events come in as calls: a child said hello, the connection to the parent
// was made, the oob lost a peer, the parent's end (stdin closed), a signal,
// the launch command, a rank ended, a child's agent ended, orcarun's
// teardown, a timer. Decisions go out through Hooks: report a failure or a
// rank's exit up, say this daemon is done, signal the ranks, end or signal
// the children's agents, forget a child the teardown was relayed to, arm a
// timer, stop.
//
// Phases: Running (from the hello on; the ranks run once the command came)
// -> Ending (orcarun's teardown, the parent gone, SIGTERM or SIGHUP: the
// ranks are signalled, the children told or their agents signalled, and
// kDaemonEndLimit armed) -> Done (no rank runs and no agent: the program
// stops its loop and exits with exit_status()).
//
// The policies orcarun's JobMachine shares (hello/welcome, who a lost peer
// is, which agents end with a lost daemon, whom a teardown reaches) are
// TreeNode's. What stays with the program (DaemonSession): the oob and the
// outbox, the pmi service, the ranks' processes and pipes, the mesh check,
// output credit and stdin.
#ifndef ORCA_LAUNCH_DAEMON_MACHINE_H
#define ORCA_LAUNCH_DAEMON_MACHINE_H

#include "launch_wire.h"
#include "tree_node.h"

#include <orca/export.h>
#include <orca/routed.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace orca::launch {

enum class DaemonPhase { Running, Ending, Done };
enum class DaemonTimer { EndLimit, LostAgentKill };

/* After this daemon began to end, how long its ranks and its children's
 * agents may take before the agents are SIGKILLed and it exits anyway
 * (its children then see their stdin close and go too). */
inline constexpr std::chrono::milliseconds kDaemonEndLimit{5000};

/* What the machine knows of its daemon before it starts. */
struct DaemonFacts {
  const routed::RoutingTree* tree = nullptr;  // outlives the machine
  std::uint32_t self = 0;                     // this daemon's vpid (1..)
  std::vector<std::string> hosts;             // hosts[v - 1]: daemon v's host, for messages
};

class ORCA_EXPORT DaemonMachine {
 public:
  struct Hooks {
    /* A failure up to orcarun, about daemon `vpid` (this one or a child). */
    std::function<void(std::uint32_t vpid, const std::string& message)> report_failure;
    /* A rank's end up to orcarun. */
    std::function<void(const ExitRecord& record)> report_exit;
    /* This daemon's part of the job is over (orcarun releases it). */
    std::function<void()> say_done;
    std::function<void(int signo)> signal_ranks;
    /* End the agent of a lost child (SIGCONT, SIGTERM: its daemon first). */
    std::function<void(std::uint32_t vpid)> end_lost_agent;
    std::function<void(std::uint32_t vpid, int signo)> signal_agent;
    std::function<void(int signo)> signal_all_agents;
    /* Drop the children's launches still queued. */
    std::function<void()> cancel_launches;
    /* The teardown was relayed to child `vpid`: its connection closing is
     * its end, not a loss to dial again. */
    std::function<void(std::uint32_t vpid)> forget_child;
    std::function<void(DaemonTimer, std::chrono::milliseconds)> arm;
    std::function<void(DaemonTimer)> cancel;
    std::function<void(const std::string& text)> log;
    /* The daemon is over: the program stops its loop. */
    std::function<void()> stop;
    // What the program knows of its processes.
    std::function<bool()> ranks_running;  // some rank has not ended
    /* Every rank ended with nothing left in its process group, and none
     * reads orcarun's stdin (orcarun counts on its credit). */
    std::function<bool()> ranks_idle;
    std::function<bool()> pmi_serves_ranks;  // another rank may still ask for their data
    std::function<std::size_t()> agents_running;
  };

  DaemonMachine(DaemonFacts facts, Hooks hooks);

  // --- the tree ---
  /* A child's hello checked (TreeNode::is_childs_hello) and its contact
   * added: teardowns are relayed to it from now on. */
  void child_welcomed(std::uint32_t vpid);
  /* A child's hello whose contact could not be added. */
  void child_unreachable(std::uint32_t vpid, const std::string& why);
  /* This daemon started the agent of child `vpid` (tree spawn). */
  void child_launched(std::uint32_t vpid);
  /* The agent of child `vpid` could not start (why: printable). */
  void child_not_started(std::uint32_t vpid, const std::string& why);
  void child_agent_exited(std::uint32_t vpid, int wait_status, const std::string& tail);
  /* The connection to the parent is made. Returns true the first time
   * only: then the report goes up (a reconnect reports nothing). */
  bool connected_to_parent();
  void peer_lost(std::uint32_t vpid, const std::string& why);
  /* Our standard input closed: whoever started this daemon is gone. */
  void input_closed();
  void on_signal(int signo);

  // --- the job ---
  /* The launch command came. Returns true the first time only (one job per
   * daemon): then the program starts this node's ranks. */
  bool command();
  /* The program started this node's ranks (maybe none). */
  void ranks_started();
  /* A rank ended (the program filled in its pmi progress). */
  void rank_ended(const ExitRecord& record);
  /* orcarun's teardown (signo for the ranks; 0: SIGKILL). */
  void teardown(int signo);
  void on_timer(DaemonTimer timer);

  DaemonPhase phase() const noexcept { return phase_; }
  int exit_status() const noexcept { return exit_status_; }
  bool ending() const noexcept { return phase_ != DaemonPhase::Running; }
  bool command_came() const noexcept { return commanded_; }
  /* This daemon's place in the tree: hello/welcome and lost peers. */
  const TreeNode& node() const noexcept { return node_; }

 private:
  std::string host_of(std::uint32_t vpid) const;
  std::string describe(std::uint32_t vpid) const;
  void parent_gone(const std::string& why);
  /* Kill the ranks, SIGTERM the children's agents, exit once all are gone. */
  void end_at_once();
  void begin_ending();
  void say_done_if_idle();
  void maybe_finish();

  DaemonFacts facts_;
  Hooks hooks_;
  TreeNode node_;
  DaemonPhase phase_ = DaemonPhase::Running;
  std::set<std::uint32_t> lost_;  // daemons below reported lost (once each)
  int exit_status_ = 0;
  bool commanded_ = false;
  bool reported_ = false;
  bool done_said_ = false;    // DaemonDone sent: orcarun's Teardown for this daemon alone follows
  bool parent_gone_ = false;  // ranks killed because the parent is gone: their exits are not news
};

}  // namespace orca::launch

#endif
