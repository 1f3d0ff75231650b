// What JobLaunch's adapter tests run it over: a Messenger and a
// DaemonStarter that start nothing and open no socket, and daemons played
// by the test (FakeDaemons), which answer what orcarun sends them as a
// real orcad would, through the event loop, never from inside the call.
#ifndef ORCA_TEST_FRAMEWORK_TOOLS_JOB_LAUNCH_FAKES_H
#define ORCA_TEST_FRAMEWORK_TOOLS_JOB_LAUNCH_FAKES_H

#include "launch/launch_wire.h"
#include "oob/messenger.h"
#include "plm/daemon_starter.h"

#include <orca/event_loop.h>

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace orca::test {

/* Everything orcarun did to the outside, in order, as text a test can
 * search ("send 2 control Teardown", "signal_all 9", "add_peer 1 fake://1"). */
using ActionLog = std::vector<std::string>;

class FakeMessenger final : public oob::Messenger {
 public:
  struct Sent {
    ProcessName to;
    std::uint32_t tag;
    launch::WireMessage message;
  };
  FakeMessenger(ActionLog& log, std::function<void(const Sent&)> on_sent) : log_(log), on_sent_(std::move(on_sent)) {}

  /* add_peer refuses these vpids, as an oob that cannot reach them. */
  std::set<std::uint32_t> unreachable;

  const std::string& contact_uri() const noexcept override { return uri_; }
  Status add_peer(ProcessName peer, const std::string& uri) override;
  bool knows(ProcessName peer) const override { return known_.count(peer) != 0; }
  Status send(ProcessName peer, std::uint32_t tag, std::span<const std::uint8_t> bytes) override;
  Status send(ProcessName peer, std::uint32_t tag, std::shared_ptr<const std::vector<std::uint8_t>> bytes) override {
    return send(peer, tag, std::span<const std::uint8_t>(*bytes));
  }
  void set_router(Router router) override { router_ = std::move(router); }
  void on_receive(std::uint32_t tag, Receiver receiver) override { receivers_[tag] = std::move(receiver); }
  size_t on_peer_lost(LostHandler handler) override;
  void cancel_peer_lost(size_t token) override { lost_.erase(token); }
  size_t on_peer_ready(ReadyHandler handler) override;
  void cancel_peer_ready(size_t token) override { ready_.erase(token); }
  size_t on_peer_connected(ConnectedHandler handler) override;
  void cancel_peer_connected(size_t token) override { connected_.erase(token); }
  void forget_peer(ProcessName peer) override;
  std::string route(ProcessName) const override { return {}; }

  /* The test's side: a message from `from` arrives; a peer is lost. */
  void deliver(ProcessName from, std::uint32_t tag, const launch::WireMessage& message);
  void lose(ProcessName peer, const std::string& why);
  /* The job id orcarun chose (it opened the oob as vpid 0 of it). */
  std::uint32_t job = 0;

 private:
  ActionLog& log_;
  std::function<void(const Sent&)> on_sent_;
  std::string uri_ = "fake://orcarun";
  std::set<ProcessName> known_;
  Router router_;
  std::map<std::uint32_t, Receiver> receivers_;
  std::map<size_t, LostHandler> lost_;
  std::map<size_t, ReadyHandler> ready_;
  std::map<size_t, ConnectedHandler> connected_;
  size_t next_token_ = 1;
};

class FakeStarter final : public plm::DaemonStarter {
 public:
  FakeStarter(EventLoop& loop, ActionLog& log, Hooks hooks, std::function<void(const Launch&)> on_launch)
      : loop_(loop), log_(log), hooks_(std::move(hooks)), on_launch_(std::move(on_launch)) {}

  void launch(Launch launch) override;
  bool send(std::uint32_t vpid, std::vector<std::uint8_t>) override { return running_.count(vpid) != 0; }
  void daemon_up(std::uint32_t vpid) override { log_.push_back("daemon_up " + std::to_string(vpid)); }
  /* An agent ends on every signal but SIGCONT, reported as killed by it. */
  void signal(std::uint32_t vpid, int signo) override;
  void end_lost(std::uint32_t vpid) override;
  void signal_all(int signo) override;
  void cancel_waiting() override { log_.push_back("cancel_waiting"); }
  size_t running() const noexcept override { return running_.size(); }
  bool runs(std::uint32_t vpid) const override { return running_.count(vpid) != 0; }
  std::chrono::steady_clock::time_point last_start() const noexcept override { return last_start_; }

  /* The agent of `vpid` ends with `wait_status`, from the loop. */
  void end(std::uint32_t vpid, int wait_status, std::string tail = {});

 private:
  EventLoop& loop_;
  ActionLog& log_;
  Hooks hooks_;
  std::function<void(const Launch&)> on_launch_;
  std::set<std::uint32_t> running_;
  std::set<std::uint32_t> ending_;
  std::chrono::steady_clock::time_point last_start_{};
};

/* The daemons, as the test wants them to behave. Each daemon that
 * `reports` says hello and reports once launched; on the launch command
 * its ranks print what `output` says and end as `exit_status` says (a
 * rank with no entry runs until a signal ends it; one in `ignores`
 * outlives that signal); on a teardown its ranks are killed and its agent
 * exits 0. */
struct FakeDaemons {
  bool reports = true;
  std::map<std::uint32_t, int> exit_status;          // rank -> wait status
  std::map<std::uint32_t, std::string> output;       // rank -> stdout text
  std::map<std::uint32_t, std::set<int>> ignores;    // rank -> signals it survives
  /* Agents whose launch fails at once (exit status 1) instead. */
  bool agents_fail = false;
  /* Called (from the loop) once daemon `vpid` has started its ranks. */
  std::function<void(std::uint32_t vpid)> commanded;
  std::map<std::uint32_t, std::uint32_t> rank_app;  // rank -> its program, as the launch command said

  EventLoop* loop = nullptr;
  FakeMessenger* messenger = nullptr;
  FakeStarter* starter = nullptr;

  void launched(const plm::DaemonStarter::Launch& launch);
  void received(const FakeMessenger::Sent& sent);

 private:
  void rank_ends(std::uint32_t daemon, std::uint32_t rank, int wait_status);
  std::map<std::uint32_t, std::uint32_t> running_;  // rank -> its daemon, from the command until it ends
};

}  // namespace orca::test

#endif  // ORCA_TEST_FRAMEWORK_TOOLS_JOB_LAUNCH_FAKES_H
