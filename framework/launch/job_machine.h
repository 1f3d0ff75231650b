// JobMachine: the life of one job as orcarun sees it, from the first
// agent started to the last one ended, as a state machine without I/O or
// clocks (the shape of ConnectRace), so that every policy is tested with a
// fake clock in milliseconds.
//
// Events come in as calls: a daemon said hello or reported up, an agent
// ended, the oob lost a daemon, a rank ended or aborted, a signal came, a
// timer fired. Decisions go out through Hooks: launch a daemon, send the
// launch command to one of orcarun's children, signal the ranks, release a
// daemon, tear the job down, signal an agent, arm or cancel a timer, show a
// message, and say the job is over.
//
// Phases: WireUp (daemons starting; with early start, some ranks may run
// already) -> Running (every daemon up, the command sent) -> Draining (a
// daemon failed: the others' ranks get kDrainLimit to report) ->
// TearingDown (every daemon told to end; waiting for the agents) -> Done.
// A failure during the wire-up goes straight to TearingDown.
//
// What stays with the program (JobLaunch): the oob and the launcher, the
// bootstrap, the data-plane round and the mesh check, the collectives'
// root, output and stdin, --timing and the progress line.
#ifndef ORCA_LAUNCH_JOB_MACHINE_H
#define ORCA_LAUNCH_JOB_MACHINE_H

#include "early_start.h"
#include "launch_wire.h"
#include "tree_node.h"

#include <orca/export.h>
#include <orca/message.h>
#include <orca/result.h>
#include <orca/routed.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace orca::launch {

enum class JobPhase { WireUp, Running, Draining, TearingDown, Done };

/* The machine's timers; AgentExit is one per daemon (the others ignore
 * the vpid, which is 0). */
enum class JobTimer { Startup, KillGrace, JobTimeout, Drain, Teardown, LostAgentKill, AgentExit };

/* After teardown, how long the agents may take to end before they are killed. */
inline constexpr std::chrono::milliseconds kTeardownLimit{10000};
/* After a daemon failed, how long the ranks elsewhere get to report their
 * end (and their last output) once they were killed. */
inline constexpr std::chrono::milliseconds kDrainLimit{3000};
/* After the oob lost a daemon that is orcarun's own child, how long to wait
 * for its exit (the kernel's word on how it ended) before reporting the
 * oob's inference (a refused or reset connection, a silent peer) instead. */
inline constexpr std::chrono::milliseconds kAgentExitWait{200};

/* Seconds as the user would write them ("1", "0.5", "60"), for messages. */
ORCA_EXPORT std::string seconds_text(double seconds);

/* What the machine knows of the job before it starts. */
struct JobFacts {
  const routed::RoutingTree* tree = nullptr;  // daemons 1..tree->size(); outlives the machine
  std::vector<std::string> hosts;             // hosts[v - 1]: daemon v's host, as the job names it
  std::vector<std::uint32_t> rank_daemon;     // rank_daemon[r]: the vpid of rank r's daemon
  std::string command;                        // the program (argv[0]), for messages
  /* MPMD: each program's argv[0] and first rank, for messages naming a
   * rank's own program (empty: `command` is every rank's). */
  std::vector<std::string> app_commands;
  std::vector<std::uint32_t> app_first_rank;
  std::string plm_component;                  // "rsh", "slurm", "local": names the agent in messages
  /* What to check when the daemon on a host (printable) failed: the
   * launcher's own advice (plm::failure_hint). Unset: read its output. */
  std::function<std::string(const std::string& host)> failure_hint;
  bool all_at_once = false;                   // one launch starts every daemon (srun)
  bool tree_spawn = false;                    // daemons start their children themselves
  bool start_early = false;                   // each child of orcarun gets the command once its subtree is up
  std::chrono::milliseconds startup_timeout{60000};
  std::chrono::milliseconds kill_grace{5000};
  std::optional<double> timeout_seconds;      // --timeout, from the first command sent
};

class ORCA_EXPORT JobMachine {
 public:
  /* The vpid of the one launch of every daemon, in hooks and events. */
  static constexpr std::uint32_t kEveryDaemon = 0;

  struct Hooks {
    /* Start the agent of daemon `vpid` (kEveryDaemon: the one launch of
     * all). Returns whether the agent is the daemon itself (plm/local), so
     * that its exit says how the daemon ended. A failure is reported back
     * through fail(). */
    std::function<bool(std::uint32_t vpid)> launch_daemon;
    /* Every daemon is up: the program runs what comes before the command
     * (data-plane round, reports) and then calls command_ready(). */
    std::function<void()> wired_up;
    /* Send the launch command to `child`, a child of orcarun that is up
     * and not gone. */
    std::function<Status(std::uint32_t child)> send_command;
    /* Signal every rank (through orcarun's children not gone). */
    std::function<void(int signo)> signal_ranks;
    /* Tell daemon `vpid` (done before the job) to end; its end is no loss. */
    std::function<void(std::uint32_t vpid)> release_daemon;
    /* Tell every daemon to end (failed: why) through `relayed`, the
     * children of orcarun that hear it (their connections closing is their
     * end, not a loss), and stop everything that feeds them (stdin,
     * launches still queued). */
    std::function<void(bool failed, const std::vector<std::uint32_t>& relayed)> send_teardown;
    std::function<void(std::uint32_t vpid, int signo)> signal_agent;
    /* End the agent of a lost daemon (its daemon first, when it can). */
    std::function<void(std::uint32_t vpid)> end_lost_agent;
    std::function<void(int signo)> signal_all_agents;
    std::function<bool(std::uint32_t vpid)> agent_runs;
    std::function<std::size_t()> agents_running;
    std::function<void(JobTimer, std::uint32_t vpid, std::chrono::milliseconds)> arm;
    std::function<void(JobTimer, std::uint32_t vpid)> cancel;
    std::function<void(const Message&)> show;
    /* The teardown is over (or timed out): the program stops its loop. */
    std::function<void()> done;
    /* Held daemons only (hold()): daemon `vpid` failed or was lost and is
     * dropped; the others stay. */
    std::function<void(std::uint32_t vpid, const std::string& what)> dropped;
  };

  JobMachine(JobFacts facts, Hooks hooks);

  /* Starts the agents orcarun starts first and the start-up timer. */
  void start();
  void on_timer(JobTimer timer, std::uint32_t vpid);

  // --- the wire-up ---
  void hello(std::uint32_t vpid);
  /* Daemon `vpid` reported up (its report came up the tree). Returns false
   * when it was already up. */
  bool up(std::uint32_t vpid);
  /* The ranks' daemons (JobFacts::rank_daemon), when the map could only
   * be made from the daemons' reports (--map-by ppr:N:core: how many
   * ranks a host runs depends on its processors). Only before the
   * command is sent and without an early start; returns whether it was
   * taken. */
  bool set_rank_daemons(std::vector<std::uint32_t> rank_daemon);
  /* What the wired_up hook ran before the command is done: the command
   * goes to every child of orcarun that does not have it. Returns whether
   * it did (if not, the job failed and ends). */
  bool command_ready();

  // --- reports from the daemons ---
  void rank_ended(const ExitRecord& record);
  void rank_aborted(const RankAbort& abort);
  /* A failure a daemon found, as its help topic and values. */
  void job_failed(const JobFailure& failure);
  /* Daemon `vpid` said its part of the job is over. */
  void daemon_done(std::uint32_t vpid);

  // --- daemons lost and agents ended ---
  void daemon_failed(std::uint32_t vpid, const std::string& what);
  /* The oob lost daemon `vpid`: daemon_failed, after kAgentExitWait for
   * its exit when orcarun runs the daemon itself. */
  void daemon_lost(std::uint32_t vpid, const std::string& what);
  void agent_exited(std::uint32_t vpid, int wait_status, const std::string& tail);
  /* The one launch of every daemon (`program`, srun) ended. */
  void step_ended(int wait_status, const std::string& tail, const std::string& program);
  /* A line of that launch names a daemon that ended ("h3"). */
  void step_said_ended(const std::string& host, const std::string& why);

  // --- the user and the program ---
  void on_signal(int signo);
  /* orcarun's stdout reader is gone: the job ends as a pipeline's writer
   * does, with 128 + SIGPIPE and nothing more said. */
  void output_broken();
  /* The job failed (the first failure sets the exit status; `status` 0
   * counts as 1). During the wire-up this begins the teardown. */
  void fail(const Message& message, int status);
  /* fail, then end the job (a failure that leaves nothing to wait for). */
  void fail_and_end(const Message& message, int status);
  /* fail, then ask the ranks to end (SIGTERM, SIGKILL after the grace). */
  void fail_and_stop_ranks(const Message& message, int status);
  void begin_teardown();
  /* Every daemon is up and the program keeps them for jobs not known yet
   * (a DVM) instead of sending a command: from now on a daemon that fails
   * or is lost is dropped (its agent ended, the dropped hook told), not
   * the end of all; a daemon whose parent it was drops in turn when it
   * sees its parent gone. Only in the wire-up, once every daemon is up. */
  void hold();
  bool held() const noexcept { return held_; }

  JobPhase phase() const noexcept { return phase_; }
  bool failed() const noexcept { return failed_; }
  int exit_status() const noexcept { return exit_status_; }
  std::uint32_t daemons() const noexcept { return static_cast<std::uint32_t>(facts_.hosts.size()); }
  std::uint32_t up_count() const noexcept { return up_count_; }
  std::uint32_t ranks_left() const noexcept { return ranks_left_; }
  bool is_up(std::uint32_t vpid) const { return node_.is_up(vpid); }
  bool is_launched(std::uint32_t vpid) const { return node_.is_launched(vpid); }
  bool is_gone(std::uint32_t vpid) const { return daemon_.at(vpid).gone; }
  bool is_commanded(std::uint32_t vpid) const { return daemon_.at(vpid).commanded; }
  /* Some ranks were sent their command (and may run). */
  bool command_sent() const noexcept { return command_sent_; }
  /* Collectives and done reports count from the first command on. */
  bool ranks_may_run() const noexcept;
  const std::string& host(std::uint32_t vpid) const { return facts_.hosts.at(vpid - 1); }
  /* orcarun's place in the tree: hello/welcome and lost peers. */
  const TreeNode& node() const noexcept { return node_; }
  /* "HOST (daemon V)", printable. */
  std::string describe(std::uint32_t vpid) const;

 private:
  // What orcarun alone keeps of a daemon (launched, hello and up: node_).
  struct Daemon {
    bool gone = false;       // its agent ended or it was lost, or it was released
    bool commanded = false;  // a child of orcarun's that was sent the launch command
    bool released = false;   // done before the job: its end is no failure
    bool agent_is_daemon = false;
    std::optional<std::string> awaiting_exit;  // lost: what to report if its exit does not come
  };

  bool ending() const noexcept { return phase_ == JobPhase::TearingDown || phase_ == JobPhase::Done; }
  void launch(std::uint32_t vpid);
  void launch_children_of(std::uint32_t vpid);
  void startup_timed_out();
  Status command_child(std::uint32_t child);
  void command_not_sent(const Message& why);
  const std::string& command_of(std::uint32_t rank) const;  // its program's argv[0]
  void signal_ranks(int signo);
  void rank_failed(const ExitRecord& record);
  /* The ranks of `vpid`'s subtree are gone with it; the rest drain. */
  void drain_after_loss(std::uint32_t vpid);
  void signal_unreached_agents(const std::vector<std::uint32_t>& unreached);
  void maybe_done();
  void finish();
  std::string hint(const std::string& host) const;

  JobFacts facts_;
  Hooks hooks_;
  TreeNode node_;
  std::vector<Daemon> daemon_;  // by vpid; [0] unused
  std::vector<bool> rank_done_;
  std::optional<SubtreeArrivals> arrivals_;  // with facts_.start_early
  std::uint32_t ranks_left_ = 0;
  std::uint32_t up_count_ = 0;
  JobPhase phase_ = JobPhase::WireUp;
  int exit_status_ = 0;
  bool failed_ = false;
  bool command_sent_ = false;
  bool grace_armed_ = false;
  bool held_ = false;
  int signals_seen_ = 0;
};

}  // namespace orca::launch

#endif
