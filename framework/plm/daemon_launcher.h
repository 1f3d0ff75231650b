/*
 * DaemonLauncher (liborca's, not installed): the plm base's part that
 * starts the processes a module's commands name and watches the agents.
 */
#ifndef ORCA_FRAMEWORK_PLM_DAEMON_LAUNCHER_H
#define ORCA_FRAMEWORK_PLM_DAEMON_LAUNCHER_H

#include "plm/plm_base.h"

#include <orca/event_loop.h>
#include <orca/message.h>

#include <signal.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace orca::plm {

/*
 * DaemonLauncher: starts daemons through a module's commands and watches
 * the agents.
 *
 * Each launch is one child process (the agent, or the daemon itself) in a
 * process group of its own, with the bootstrap bytes written to its
 * standard input, which then stays open: the daemon's standard input
 * closing is how it learns that its launcher is gone. Its standard output
 * and error are kept (the last kTailBytes) for the message if it fails,
 * and passed on, a line at a time, through on_output.
 *
 * At most max_concurrent launches are in flight (started and not yet
 * confirmed by daemon_up() or ended); the rest wait in order.
 * on_exit reports every agent that ended, with the wait status and its
 * output tail, whether or not its daemon was up; it is the last thing the
 * launcher does in that call, so the hook may destroy the launcher.
 */
class ORCA_EXPORT DaemonLauncher {
 public:
  static constexpr size_t kTailBytes = 8192;
  struct Launch {
    std::uint32_t vpid = 0;  // kEveryDaemon: one process standing for every daemon
    std::string host;
    std::vector<std::string> argv;
    std::vector<std::uint8_t> bootstrap;
    /* When set, makes `bootstrap` as the launch starts rather than while
     * it waits: a job of N daemons whose bootstraps each name N hosts then
     * holds one at a time, not N. An empty result starts the agent with
     * an empty standard input (its daemon then fails, saying so). */
    std::function<std::vector<std::uint8_t>()> make_bootstrap;
    /* NAME=VALUE set in the agent's environment, over this process's. */
    std::vector<std::string> environment;
    /* The agent gets this signal when the launching process dies
     * (PR_SET_PDEATHSIG); 0: none. srun cancels its step on SIGTERM. */
    int parent_death_signal = 0;
    /* What ends the agent at once (the destructor, signal_all(SIGKILL)):
     * SIGKILL, except for an agent that must act on its way out (a
     * SIGKILLed srun leaves its step running; SIGTERM cancels it). */
    int kill_signal = SIGKILL;
  };
  struct Hooks {
    /* The agent of `vpid` ended (wait status), `tail` is what it printed last. */
    std::function<void(std::uint32_t vpid, int wait_status, const std::string& tail)> on_exit;
    /* One line (without '\n') the agent of `vpid` printed. May be empty. */
    std::function<void(std::uint32_t vpid, const std::string& line)> on_output;
    /* A launch could not start (fork, pipe); the job cannot go on. */
    std::function<void(std::uint32_t vpid, const Message& why)> on_failed_start;
  };

  DaemonLauncher(EventLoop& loop, std::uint32_t max_concurrent, Hooks hooks);
  /* Ends and reaps every agent still running: its kill_signal (with
   * SIGCONT, should it be stopped), then SIGKILL if it has not ended
   * within kKillSignalLimit. */
  ~DaemonLauncher();
  static constexpr std::chrono::milliseconds kKillSignalLimit{3000};
  DaemonLauncher(const DaemonLauncher&) = delete;
  DaemonLauncher& operator=(const DaemonLauncher&) = delete;

  /* The vpid of a launch that starts the daemons of every host at once. */
  static constexpr std::uint32_t kEveryDaemon = 0;

  /* Queues a launch; starts it now when under the cap. */
  void launch(Launch launch);
  /* Writes `bytes` to the standard input of the agent of `vpid` after what
   * it was given so far (a started agent only; false if there is none). */
  bool send(std::uint32_t vpid, std::vector<std::uint8_t> bytes);
  /* The daemon of `vpid` reported: its launch no longer counts in flight. */
  void daemon_up(std::uint32_t vpid);
  /* Sends `signo` to the process group of the agent of `vpid`, if it runs. */
  void signal(std::uint32_t vpid, int signo);
  /* Asks the agent of a lost daemon to end, daemon first: SIGCONT (a
   * stopped daemon must run to act, and a stopped member would make the
   * kernel hang up the agent's group once the agent is gone), then
   * SIGTERM, on which a daemon in the agent's group ends its ranks'
   * process groups before it exits; a SIGKILL would leave what the ranks
   * started running. The caller escalates to SIGKILL if it must. */
  void end_lost(std::uint32_t vpid);
  /* Sends `signo` to the process group of every running agent; SIGKILL
   * means each agent's kill_signal. */
  void signal_all(int signo);
  /* Forgets the launches not started yet. */
  void cancel_waiting() { waiting_.clear(); }
  /* Agents running (started and not ended). */
  size_t running() const noexcept { return agents_.size(); }
  /* Whether the agent of `vpid` runs here (this process is its parent,
   * so its exit will be reported through Hooks::on_exit). */
  bool runs(std::uint32_t vpid) const;
  size_t waiting() const noexcept { return waiting_.size(); }
  /* When the last agent was started (for --timing). */
  std::chrono::steady_clock::time_point last_start() const noexcept { return last_start_; }

 private:
  struct Agent;
  void start_next();
  void start(Launch launch);
  void ended(std::uint32_t vpid, int wait_status);
  bool read_output(Agent& agent);  // true at EOF
  static bool write_bootstrap(Agent& agent);  // true once it is all written (or cannot be)

  EventLoop& loop_;
  std::uint32_t max_concurrent_;
  Hooks hooks_;
  std::deque<Launch> waiting_;
  std::map<std::uint32_t, std::unique_ptr<Agent>> agents_;
  size_t in_flight_ = 0;
  std::chrono::steady_clock::time_point last_start_{};
};

}  // namespace orca::plm

#endif  // ORCA_FRAMEWORK_PLM_DAEMON_LAUNCHER_H
