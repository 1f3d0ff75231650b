/*
 * DaemonLauncher (liborca's, not installed): the plm base's part that
 * starts the processes a module's commands name and watches the agents.
 * What each call does is DaemonStarter's contract (daemon_starter.h).
 */
#ifndef ORCA_FRAMEWORK_PLM_DAEMON_LAUNCHER_H
#define ORCA_FRAMEWORK_PLM_DAEMON_LAUNCHER_H

#include "plm/daemon_starter.h"
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
 * the agents (the real DaemonStarter).
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
class ORCA_EXPORT DaemonLauncher final : public DaemonStarter {
 public:
  static constexpr size_t kTailBytes = 8192;

  DaemonLauncher(EventLoop& loop, std::uint32_t max_concurrent, Hooks hooks);
  /* Ends and reaps every agent still running: its kill_signal (with
   * SIGCONT, should it be stopped), then SIGKILL if it has not ended
   * within kKillSignalLimit. */
  ~DaemonLauncher() override;
  static constexpr std::chrono::milliseconds kKillSignalLimit{3000};
  DaemonLauncher(const DaemonLauncher&) = delete;
  DaemonLauncher& operator=(const DaemonLauncher&) = delete;

  void launch(Launch launch) override;
  bool send(std::uint32_t vpid, std::vector<std::uint8_t> bytes) override;
  void daemon_up(std::uint32_t vpid) override;
  void signal(std::uint32_t vpid, int signo) override;
  void end_lost(std::uint32_t vpid) override;
  void signal_all(int signo) override;
  void cancel_waiting() override { waiting_.clear(); }
  size_t running() const noexcept override { return agents_.size(); }
  bool runs(std::uint32_t vpid) const override;
  size_t waiting() const noexcept { return waiting_.size(); }
  std::chrono::steady_clock::time_point last_start() const noexcept override { return last_start_; }

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
