// DaemonLauncher (framework/plm/daemon_launcher.cc) on a real EventLoop
// with /bin/sh agents: the bootstrap reaches the agent's stdin, output
// comes back a line at a time and as the tail of an exit, max_concurrent
// holds launches back until daemon_up(), signals reach the agent's whole
// process group, and the destructor leaves no process and no zombie.
#include <orca/event_loop.h>
#include "plm/daemon_launcher.h"

#include "framework/plm/process_probe.h"
#include "lib/temp_dir.h"

#include <gtest/gtest.h>

#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace orca::plm {
namespace {

using namespace std::chrono_literals;
using test::kHangGuard;

/* An agent: `/bin/sh -c SCRIPT`. */
DaemonLauncher::Launch agent(std::uint32_t vpid, const std::string& script, std::vector<std::uint8_t> bootstrap = {}) {
  return DaemonLauncher::Launch{vpid, "localhost", {"/bin/sh", "-c", script}, std::move(bootstrap)};
}

struct Exit {
  int status = 0;
  std::string tail;
};

/* A launcher whose hooks record everything, in the order it came. */
class Launcher : public ::testing::Test {
 protected:
  void make(std::uint32_t max_concurrent) {
    launcher_ = std::make_unique<DaemonLauncher>(
        loop_, max_concurrent,
        DaemonLauncher::Hooks{.on_exit =
                                  [this](std::uint32_t vpid, int status, const std::string& tail) {
                                    exits_[vpid] = Exit{status, tail};
                                    events_[vpid].push_back("exit");
                                  },
                              .on_output =
                                  [this](std::uint32_t vpid, const std::string& line) {
                                    lines_[vpid].push_back(line);
                                    events_[vpid].push_back("line");
                                  },
                              .on_failed_start =
                                  [this](std::uint32_t vpid, const Message& why) { failed_[vpid] = why.summary(); }});
  }
  bool run_until(const std::function<bool()>& done) { return loop_.run_until(done, kHangGuard); }
  bool exited(std::uint32_t vpid) const { return exits_.count(vpid) != 0; }
  size_t line_count(std::uint32_t vpid) const { return lines_.count(vpid) ? lines_.at(vpid).size() : 0; }
  /* The first line of `vpid` as a pid (agents here print $$ or $!). */
  pid_t pid_line(std::uint32_t vpid, size_t index = 0) const {
    return static_cast<pid_t>(std::stoi(lines_.at(vpid).at(index)));
  }

  EventLoop loop_;
  std::unique_ptr<DaemonLauncher> launcher_;
  std::map<std::uint32_t, Exit> exits_;
  std::map<std::uint32_t, std::vector<std::string>> lines_;
  std::map<std::uint32_t, std::vector<std::string>> events_;
  std::map<std::uint32_t, std::string> failed_;
};

/* Processes alive whose parent is this test process, counted from /proc
 * rather than asked of the launcher. */
size_t live_children() {
  size_t n = 0;
  DIR* d = ::opendir("/proc");
  if (d == nullptr) return 0;
  while (dirent* e = ::readdir(d)) {
    const pid_t pid = static_cast<pid_t>(std::strtol(e->d_name, nullptr, 10));
    if (pid <= 0) continue;
    std::ifstream stat("/proc/" + std::string(e->d_name) + "/stat");
    std::string text;
    if (!std::getline(stat, text)) continue;
    const auto close = text.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    long ppid = 0;
    if (!(std::istringstream(text.substr(close + 1)) >> state >> ppid)) continue;
    if (ppid == ::getpid() && state != 'Z') ++n;
  }
  ::closedir(d);
  return n;
}

TEST_F(Launcher, TheBootstrapReachesTheAgentsStdin) {
  make(0);
  test::TempDir dir;
  // Larger than a pipe holds, so the launcher must wait for the agent to
  // read; every byte value, so nothing is treated as text.
  std::vector<std::uint8_t> bootstrap(200000);
  for (size_t i = 0; i < bootstrap.size(); ++i) bootstrap[i] = static_cast<std::uint8_t>((i * 7 + i / 256) & 0xff);
  const std::string file = (dir.path() / "received").string();
  // stdin stays open after the bootstrap, so the agent reads exactly as
  // many bytes as it is told to, as orcad does.
  launcher_->launch(agent(1, "head -c " + std::to_string(bootstrap.size()) + " >'" + file + "'; echo done", bootstrap));
  ASSERT_TRUE(run_until([&] { return exited(1); }));
  EXPECT_TRUE(WIFEXITED(exits_[1].status) && WEXITSTATUS(exits_[1].status) == 0) << exits_[1].tail;
  std::ifstream in(file, std::ios::binary);
  const std::vector<std::uint8_t> got((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(got.size(), bootstrap.size());
  EXPECT_TRUE(got == bootstrap) << "the agent read other bytes than the bootstrap";
}

TEST_F(Launcher, OutputComesLineByLineAndBeforeTheExit) {
  make(0);
  launcher_->launch(agent(1, "printf 'one\\ntwo\\n\\n'; printf 'to stderr\\n' >&2; printf last; exit 5"));
  ASSERT_TRUE(run_until([&] { return exited(1); }));
  EXPECT_EQ(lines_[1], (std::vector<std::string>{"one", "two", "", "to stderr", "last"}));
  ASSERT_TRUE(WIFEXITED(exits_[1].status));
  EXPECT_EQ(WEXITSTATUS(exits_[1].status), 5);
  EXPECT_EQ(exits_[1].tail, "one\ntwo\n\nto stderr\nlast");
  ASSERT_FALSE(events_[1].empty());
  EXPECT_EQ(events_[1].back(), "exit") << "output reported after the exit";
  EXPECT_EQ(launcher_->running(), 0u);
  EXPECT_TRUE(failed_.empty());
}

TEST_F(Launcher, TheTailIsTheLastKTailBytes) {
  make(0);
  // 2000 lines of 11 bytes: more than kTailBytes.
  launcher_->launch(agent(
      1, "i=0; while [ $i -lt 2000 ]; do printf 'line %05d\\n' $i; i=$((i+1)); done; exit 3"));
  ASSERT_TRUE(run_until([&] { return exited(1); }));
  std::string all;
  std::vector<std::string> expected_lines;
  for (int i = 0; i < 2000; ++i) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "line %05d", i);
    expected_lines.emplace_back(buf);
    all += std::string(buf) + "\n";
  }
  ASSERT_GT(all.size(), DaemonLauncher::kTailBytes);
  EXPECT_EQ(exits_[1].tail.size(), DaemonLauncher::kTailBytes);
  EXPECT_EQ(exits_[1].tail, all.substr(all.size() - DaemonLauncher::kTailBytes));
  EXPECT_EQ(lines_[1], expected_lines);
  EXPECT_TRUE(WIFEXITED(exits_[1].status) && WEXITSTATUS(exits_[1].status) == 3);
}

TEST_F(Launcher, AnAgentThatCannotRunIsReportedAsAnExitWithTheReason) {
  make(0);
  launcher_->launch(DaemonLauncher::Launch{1, "h", {"/nonexistent/orca-agent", "h"}, {}});
  ASSERT_TRUE(run_until([&] { return exited(1); }));
  EXPECT_TRUE(WIFEXITED(exits_[1].status) && WEXITSTATUS(exits_[1].status) == 127);
  EXPECT_NE(exits_[1].tail.find("cannot run /nonexistent/orca-agent: No such file or directory"), std::string::npos)
      << exits_[1].tail;
  EXPECT_TRUE(failed_.empty()) << "an exec failure is an exit, not a failed start";
}

TEST_F(Launcher, MaxConcurrentHoldsLaunchesBackUntilDaemonUp) {
  make(2);
  ASSERT_EQ(live_children(), 0u) << "another test left a child behind";
  for (std::uint32_t v = 1; v <= 5; ++v) launcher_->launch(agent(v, "echo up; exec sleep 100"));
  // spawn_child returns after exec: the processes exist now or never.
  EXPECT_EQ(live_children(), 2u);
  EXPECT_EQ(launcher_->running(), 2u);
  EXPECT_EQ(launcher_->waiting(), 3u);
  ASSERT_TRUE(run_until([&] { return line_count(1) == 1 && line_count(2) == 1; }));
  EXPECT_EQ(line_count(3) + line_count(4) + line_count(5), 0u) << "a launch beyond the cap ran";
  EXPECT_EQ(live_children(), 2u);

  // A daemon up frees its slot: the next launch in order starts.
  launcher_->daemon_up(1);
  EXPECT_EQ(live_children(), 3u);
  EXPECT_EQ(launcher_->waiting(), 2u);
  ASSERT_TRUE(run_until([&] { return line_count(3) == 1; }));
  // Saying so twice, or for a vpid that is not there, frees nothing.
  launcher_->daemon_up(1);
  launcher_->daemon_up(99);
  EXPECT_EQ(live_children(), 3u);
  EXPECT_EQ(launcher_->waiting(), 2u);

  // An agent that ends before its daemon was up frees its slot too.
  launcher_->signal(2, SIGKILL);
  ASSERT_TRUE(run_until([&] { return exited(2) && line_count(4) == 1; }));
  EXPECT_TRUE(WIFSIGNALED(exits_[2].status) && WTERMSIG(exits_[2].status) == SIGKILL);
  EXPECT_EQ(line_count(5), 0u);
  EXPECT_EQ(launcher_->waiting(), 1u);
  EXPECT_EQ(live_children(), 3u);  // 1 (up), 3 and 4

  launcher_->cancel_waiting();
  launcher_->daemon_up(3);
  EXPECT_EQ(launcher_->waiting(), 0u);
  EXPECT_EQ(live_children(), 3u) << "a cancelled launch started";
}

TEST_F(Launcher, ZeroMeansNoCap) {
  make(0);
  for (std::uint32_t v = 1; v <= 4; ++v) launcher_->launch(agent(v, "exec sleep 100"));
  EXPECT_EQ(launcher_->running(), 4u);
  EXPECT_EQ(launcher_->waiting(), 0u);
  EXPECT_EQ(live_children(), 4u);
}

TEST_F(Launcher, SignalReachesTheWholeProcessGroupOfOneAgent) {
  make(0);
  // Each agent's sleep is a child of its shell, in the shell's group.
  for (std::uint32_t v = 1; v <= 2; ++v) launcher_->launch(agent(v, "sleep 100 & echo $!; wait"));
  ASSERT_TRUE(run_until([&] { return line_count(1) == 1 && line_count(2) == 1; }));
  const pid_t sleep1 = pid_line(1), sleep2 = pid_line(2);
  ASSERT_GT(sleep1, 0);
  ASSERT_GT(sleep2, 0);

  launcher_->signal(1, SIGTERM);
  ASSERT_TRUE(run_until([&] { return exited(1); }));
  EXPECT_TRUE(WIFSIGNALED(exits_[1].status) && WTERMSIG(exits_[1].status) == SIGTERM);
  EXPECT_TRUE(test::wait_dead(sleep1)) << "the agent's child was not signalled";
  EXPECT_FALSE(test::is_dead(sleep2)) << "another agent's group was signalled";
  EXPECT_FALSE(exited(2));

  launcher_->signal_all(SIGTERM);
  ASSERT_TRUE(run_until([&] { return exited(2); }));
  EXPECT_TRUE(WIFSIGNALED(exits_[2].status) && WTERMSIG(exits_[2].status) == SIGTERM);
  EXPECT_TRUE(test::wait_dead(sleep2));
}

TEST_F(Launcher, SignalAllReachesEveryAgent) {
  make(0);
  for (std::uint32_t v = 1; v <= 3; ++v) launcher_->launch(agent(v, "exec sleep 100"));
  launcher_->signal_all(SIGUSR1);
  ASSERT_TRUE(run_until([&] { return exits_.size() == 3; }));
  for (std::uint32_t v = 1; v <= 3; ++v) {
    EXPECT_TRUE(WIFSIGNALED(exits_[v].status) && WTERMSIG(exits_[v].status) == SIGUSR1) << "vpid " << v;
  }
  EXPECT_EQ(launcher_->running(), 0u);
}

TEST_F(Launcher, TheDestructorKillsAndReapsEveryAgentAndItsGroup) {
  make(0);
  for (std::uint32_t v = 1; v <= 2; ++v) launcher_->launch(agent(v, "echo $$; sleep 100 & echo $!; wait"));
  ASSERT_TRUE(run_until([&] { return line_count(1) == 2 && line_count(2) == 2; }));
  const std::vector<pid_t> agents = {pid_line(1), pid_line(2)};
  const std::vector<pid_t> grandchildren = {pid_line(1, 1), pid_line(2, 1)};
  launcher_.reset();
  for (pid_t p : agents) {
    // Reaped by the destructor itself: not even a zombie is left.
    EXPECT_FALSE(test::process_state(p).has_value()) << "agent " << p << " is in state "
                                                     << test::process_state(p).value_or('?');
  }
  for (pid_t p : grandchildren) EXPECT_TRUE(test::wait_dead(p)) << "the agent's child " << p << " survived";
  EXPECT_TRUE(exits_.empty()) << "hooks ran from the destructor";
  // The loop goes on safely without the launcher's watches.
  loop_.run_until([] { return false; }, 50ms);
  EXPECT_TRUE(exits_.empty());
}

TEST_F(Launcher, AnAgentWhoseChildKeepsTheOutputOpenIsReportedWhenItExits) {
  make(0);
  // The sleep inherits the output pipe and holds it open after the agent
  // is gone, as a daemon outliving a local agent would.
  launcher_->launch(agent(1, "sleep 100 & echo $!; exit 4"));
  ASSERT_TRUE(run_until([&] { return exited(1); })) << "the exit waited for the pipe to close";
  EXPECT_TRUE(WIFEXITED(exits_[1].status) && WEXITSTATUS(exits_[1].status) == 4);
  const pid_t sleeper = static_cast<pid_t>(std::stoi(exits_[1].tail));
  ASSERT_GT(sleeper, 0) << exits_[1].tail;
  ::kill(sleeper, SIGKILL);
  EXPECT_TRUE(test::wait_dead(sleeper));
}

TEST_F(Launcher, AnExitAfterDaemonUpIsStillReported) {
  make(1);
  launcher_->launch(agent(1, "read line; exit 0"));
  launcher_->launch(agent(2, "echo second"));
  EXPECT_EQ(launcher_->waiting(), 1u);
  launcher_->daemon_up(1);
  ASSERT_TRUE(run_until([&] { return exited(2); }));
  launcher_->signal(1, SIGKILL);
  ASSERT_TRUE(run_until([&] { return exited(1); }));
  EXPECT_TRUE(WIFSIGNALED(exits_[1].status));
  EXPECT_EQ(lines_[2], std::vector<std::string>{"second"});
}

/* The bytes of `file`, all of them. */
std::vector<std::uint8_t> file_bytes(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/* `n` bytes of every value, differing from `seed` to `seed`. */
std::vector<std::uint8_t> pattern(size_t n, unsigned seed) {
  std::vector<std::uint8_t> b(n);
  for (size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>((i * 13 + i / 251 + seed) & 0xff);
  return b;
}

TEST_F(Launcher, SendReachesTheAgentsStdinAfterTheBootstrap) {
  make(0);
  test::TempDir dir;
  const std::string first = (dir.path() / "bootstrap").string();
  const std::string rest = (dir.path() / "sent").string();
  const auto bootstrap = pattern(1000, 1);
  const auto one = pattern(300, 2);
  const auto two = pattern(70000, 3);  // more than a pipe holds: written as the agent reads
  // The agent reads the bootstrap, says so, then what send() gives it.
  launcher_->launch(agent(1,
                          "head -c " + std::to_string(bootstrap.size()) + " >'" + first + "'; echo read; head -c " +
                              std::to_string(one.size() + two.size()) + " >'" + rest + "'; echo done",
                          bootstrap));
  ASSERT_TRUE(run_until([&] { return line_count(1) == 1 || exited(1); }));
  ASSERT_EQ(lines_[1], std::vector<std::string>{"read"});
  EXPECT_TRUE(launcher_->send(1, one));
  EXPECT_TRUE(launcher_->send(1, two));
  ASSERT_TRUE(run_until([&] { return exited(1); }));
  EXPECT_TRUE(WIFEXITED(exits_[1].status) && WEXITSTATUS(exits_[1].status) == 0) << exits_[1].tail;
  EXPECT_EQ(lines_[1], (std::vector<std::string>{"read", "done"}));
  EXPECT_TRUE(file_bytes(first) == bootstrap) << "the agent read other bytes than the bootstrap";
  std::vector<std::uint8_t> sent = one;
  sent.insert(sent.end(), two.begin(), two.end());
  const auto got = file_bytes(rest);
  EXPECT_EQ(got.size(), sent.size());
  EXPECT_TRUE(got == sent) << "the agent read other bytes than were sent, or in another order";
}

TEST_F(Launcher, SendWhileTheBootstrapIsStillGoingComesAfterIt) {
  make(0);
  test::TempDir dir;
  const std::string file = (dir.path() / "received").string();
  // A bootstrap larger than a pipe holds: part of it is still queued when
  // send() appends.
  const auto bootstrap = pattern(200000, 4);
  const auto one = pattern(5000, 5);
  const auto two = pattern(17, 6);
  std::vector<std::uint8_t> all = bootstrap;
  all.insert(all.end(), one.begin(), one.end());
  all.insert(all.end(), two.begin(), two.end());
  launcher_->launch(agent(1, "head -c " + std::to_string(all.size()) + " >'" + file + "'; echo done", bootstrap));
  EXPECT_TRUE(launcher_->send(1, one));
  EXPECT_TRUE(launcher_->send(1, two));
  EXPECT_TRUE(launcher_->send(1, {})) << "nothing to send is still an agent that runs";
  ASSERT_TRUE(run_until([&] { return exited(1); }));
  EXPECT_TRUE(WIFEXITED(exits_[1].status) && WEXITSTATUS(exits_[1].status) == 0) << exits_[1].tail;
  const auto got = file_bytes(file);
  EXPECT_EQ(got.size(), all.size());
  EXPECT_TRUE(got == all) << "the bytes came in another order than bootstrap, then each send()";
}

TEST_F(Launcher, SendWithoutARunningAgentIsRefused) {
  make(1);
  EXPECT_FALSE(launcher_->send(1, {1, 2, 3})) << "no launch at all";
  launcher_->launch(agent(1, "exit 0"));
  launcher_->launch(agent(2, "exit 0"));  // waits behind the cap
  EXPECT_EQ(launcher_->waiting(), 1u);
  EXPECT_FALSE(launcher_->send(2, {1})) << "a launch not started yet";
  EXPECT_FALSE(launcher_->send(7, {1})) << "a vpid never launched";
  ASSERT_TRUE(run_until([&] { return exited(1); }));
  EXPECT_FALSE(launcher_->send(1, {1})) << "an agent that ended";
}

TEST_F(Launcher, TheDestructorEndsAnAgentWithItsKillSignal) {
  make(0);
  test::TempDir dir;
  const std::string term_file = (dir.path() / "term").string();
  const std::string kill_file = (dir.path() / "kill").string();
  // srun must get SIGTERM to cancel its step; the default stays SIGKILL.
  auto trapping = [](const std::string& file) {
    return "trap \"echo got-term > '" + file + "'; exit 0\" TERM; echo $$; while :; do sleep 0.1; done";
  };
  DaemonLauncher::Launch term = agent(1, trapping(term_file));
  term.kill_signal = SIGTERM;
  launcher_->launch(std::move(term));
  launcher_->launch(agent(2, trapping(kill_file)));
  // The trap is set once the shell has printed its pid.
  ASSERT_TRUE(run_until([&] { return line_count(1) == 1 && line_count(2) == 1; }));
  const std::vector<pid_t> agents = {pid_line(1), pid_line(2)};
  launcher_.reset();
  for (pid_t p : agents) {
    EXPECT_FALSE(test::process_state(p).has_value()) << "agent " << p << " is in state "
                                                     << test::process_state(p).value_or('?');
  }
  std::ifstream term_in(term_file);
  std::string said;
  EXPECT_TRUE(std::getline(term_in, said)) << "the agent with kill_signal SIGTERM did not get SIGTERM";
  EXPECT_EQ(said, "got-term");
  EXPECT_FALSE(std::ifstream(kill_file).good()) << "the default agent got SIGTERM, not SIGKILL";
  EXPECT_TRUE(exits_.empty()) << "hooks ran from the destructor";
}

// A stopped agent acts on SIGTERM only once it runs again, and one that
// ignores SIGTERM never does: the destructor still returns, with both
// reaped (SIGCONT, then SIGKILL after kKillSignalLimit). alarm() only
// turns a hang into a failure; it bounds nothing that is measured.
TEST_F(Launcher, TheDestructorEndsStoppedAndDeafAgents) {
  make(0);
  DaemonLauncher::Launch stopped = agent(1, "echo $$; while :; do sleep 0.1; done");
  stopped.kill_signal = SIGTERM;
  DaemonLauncher::Launch deaf = agent(2, "trap '' TERM; echo $$; while :; do sleep 0.1; done");
  deaf.kill_signal = SIGTERM;
  launcher_->launch(std::move(stopped));
  launcher_->launch(std::move(deaf));
  ASSERT_TRUE(run_until([&] { return line_count(1) == 1 && line_count(2) == 1; }));
  const std::vector<pid_t> agents = {pid_line(1), pid_line(2)};
  launcher_->signal(1, SIGSTOP);
  ASSERT_TRUE(run_until([&] { return test::process_state(agents[0]).value_or('?') == 'T'; }));
  ::alarm(60);
  launcher_.reset();
  ::alarm(0);
  for (pid_t p : agents) {
    EXPECT_FALSE(test::process_state(p).has_value()) << "agent " << p << " is in state "
                                                     << test::process_state(p).value_or('?');
  }
}

TEST_F(Launcher, SignalAllSigkillMeansEachAgentsKillSignal) {
  make(0);
  test::TempDir dir;
  const std::string file = (dir.path() / "term").string();
  DaemonLauncher::Launch term =
      agent(1, "trap \"echo got-term > '" + file + "'; exit 0\" TERM; echo ready; while :; do sleep 0.1; done");
  term.kill_signal = SIGTERM;
  launcher_->launch(std::move(term));
  launcher_->launch(agent(2, "echo ready; exec sleep 100"));
  ASSERT_TRUE(run_until([&] { return line_count(1) == 1 && line_count(2) == 1; }));
  launcher_->signal_all(SIGKILL);
  ASSERT_TRUE(run_until([&] { return exits_.size() == 2; }));
  EXPECT_TRUE(WIFEXITED(exits_[1].status) && WEXITSTATUS(exits_[1].status) == 0)
      << "the trap did not run: status " << exits_[1].status;
  EXPECT_TRUE(WIFSIGNALED(exits_[2].status) && WTERMSIG(exits_[2].status) == SIGKILL);
  std::ifstream in(file);
  std::string said;
  EXPECT_TRUE(std::getline(in, said));
  EXPECT_EQ(said, "got-term");
  EXPECT_EQ(launcher_->running(), 0u);
}


// Descriptors reused at a high rate, and running out: 600 agents of every
// kind (quick exits with output, exec failures, bootstraps made as they
// start, agents still reading stdin) through a cap of 32, with
// RLIMIT_NOFILE lowered so that some spawns find no descriptor. Each
// launch ends exactly once, as an exit or a failed start, and nothing is
// left; under the sanitizers, a watch on a closed or reused descriptor
// would be reported (issue 19: a crash after "Epoll ADD ... Bad file
// descriptor" with thousands of daemons).
TEST_F(Launcher, DescriptorsReusedAndRunningOutCostNoLaunchItsEnd) {
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &saved), 0);
  rlimit low = saved;
  low.rlim_cur = 96;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
  make(32);
  constexpr std::uint32_t kLaunches = 600;
  std::uint32_t next = 1, made = 0;
  auto launch_next = [&] {
    const std::uint32_t v = next++;
    switch (v % 4) {
      case 0: launcher_->launch(agent(v, "echo $$; exit 3")); break;
      case 1: launcher_->launch(DaemonLauncher::Launch{v, "h", {"/nonexistent/orca-agent"}, {}}); break;
      case 2: {
        auto l = agent(v, "head -c 5 >/dev/null; echo done");
        l.make_bootstrap = [&made] { ++made; return std::vector<std::uint8_t>{'h', 'e', 'l', 'l', 'o'}; };
        launcher_->launch(std::move(l));
        break;
      }
      default: launcher_->launch(agent(v, "exec 0<&-; true")); break;
    }
  };
  for (int i = 0; i < 64; ++i) launch_next();
  const bool done = loop_.run_until(
      [&] {
        // Each end makes room for another launch, until all are queued.
        while (next <= kLaunches && exits_.size() + failed_.size() + 64 >= next) launch_next();
        return exits_.size() + failed_.size() == kLaunches;
      },
      60000ms);
  ::setrlimit(RLIMIT_NOFILE, &saved);
  ASSERT_TRUE(done) << exits_.size() << " exits and " << failed_.size() << " failed starts of " << kLaunches;
  for (std::uint32_t v = 1; v <= kLaunches; ++v) {
    EXPECT_EQ(exits_.count(v) + failed_.count(v), 1u) << "launch " << v;
  }
  for (const auto& [v, e] : exits_) {
    if (v % 4 == 0) EXPECT_TRUE(WIFEXITED(e.status) && WEXITSTATUS(e.status) == 3) << v;
    if (v % 4 == 1) EXPECT_TRUE(WIFEXITED(e.status) && WEXITSTATUS(e.status) == 127) << v;
  }
  EXPECT_GT(made, 0u);
  EXPECT_EQ(launcher_->running(), 0u);
  EXPECT_EQ(live_children(), 0u);
}

}  // namespace
}  // namespace orca::plm
