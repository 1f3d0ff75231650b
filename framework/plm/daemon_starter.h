/*
 * DaemonStarter: what a launcher program's adapter needs to start daemons
 * and act on their agents (liborca's, not installed). DaemonLauncher
 * (daemon_launcher.h) is the one real DaemonStarter, over child processes;
 * the interface exists so that an adapter of a lifecycle machine (orcarun's
 * JobLaunch) can be tested over a fake that starts nothing.
 *
 * An agent is the process a launch starts: a remote shell, srun, or the
 * daemon itself. Hooks run from the event loop; on_exit is the last thing
 * the starter does in its call, so the hook may destroy the starter.
 */
#ifndef ORCA_FRAMEWORK_PLM_DAEMON_STARTER_H
#define ORCA_FRAMEWORK_PLM_DAEMON_STARTER_H

#include <orca/export.h>
#include <orca/message.h>

#include <signal.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace orca::plm {

class ORCA_EXPORT DaemonStarter {
 public:
  /* The vpid of a launch that starts the daemons of every host at once. */
  static constexpr std::uint32_t kEveryDaemon = 0;
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

  virtual ~DaemonStarter() = default;

  /* Queues a launch; starts it now when under the cap. */
  virtual void launch(Launch launch) = 0;
  /* Writes `bytes` to the standard input of the agent of `vpid` after what
   * it was given so far (a started agent only; false if there is none). */
  virtual bool send(std::uint32_t vpid, std::vector<std::uint8_t> bytes) = 0;
  /* The daemon of `vpid` reported: its launch no longer counts in flight. */
  virtual void daemon_up(std::uint32_t vpid) = 0;
  /* Sends `signo` to the process group of the agent of `vpid`, if it runs. */
  virtual void signal(std::uint32_t vpid, int signo) = 0;
  /* Asks the agent of a lost daemon to end, daemon first: SIGCONT (a
   * stopped daemon must run to act, and a stopped member would make the
   * kernel hang up the agent's group once the agent is gone), then
   * SIGTERM, on which a daemon in the agent's group ends its ranks'
   * process groups before it exits; a SIGKILL would leave what the ranks
   * started running. The caller escalates to SIGKILL if it must. */
  virtual void end_lost(std::uint32_t vpid) = 0;
  /* Sends `signo` to the process group of every running agent; SIGKILL
   * means each agent's kill_signal. */
  virtual void signal_all(int signo) = 0;
  /* Forgets the launches not started yet. */
  virtual void cancel_waiting() = 0;
  /* Agents running (started and not ended). */
  virtual size_t running() const noexcept = 0;
  /* Whether the agent of `vpid` runs here (its exit will be reported
   * through Hooks::on_exit). */
  virtual bool runs(std::uint32_t vpid) const = 0;
  /* When the last agent was started (for --timing). */
  virtual std::chrono::steady_clock::time_point last_start() const noexcept = 0;

 protected:
  DaemonStarter() = default;
  DaemonStarter(const DaemonStarter&) = default;
  DaemonStarter& operator=(const DaemonStarter&) = default;
};

}  // namespace orca::plm

#endif  // ORCA_FRAMEWORK_PLM_DAEMON_STARTER_H
