// JobLaunch, orcarun's adapter of the JobMachine, over a fake oob and a
// fake daemon starter (job_launch_fakes.h): that loop events reach the
// machine and its decisions become the right sends, signals and output,
// in milliseconds and without a process or a socket. The decisions
// themselves are the machine's tests' (test/framework/launch).
#include "job_launch_fakes.h"

#include "framework/launch/machine_fixtures.h"
#include "orcarun/job_launch.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace orca::orcarun {
namespace {

using test::ActionLog;
using test::exited;
using test::killed;

// orcarun's standard output and error go to files while it runs (it
// writes to descriptors 1 and 2 itself); GoogleTest's own output is
// held back until they are restored.
class CapturedOutput {
 public:
  CapturedOutput() {
    std::fflush(stdout);
    std::fflush(stderr);
    for (int fd : {1, 2}) {
      saved_[fd - 1] = ::dup(fd);
      files_[fd - 1] = std::tmpfile();
      ::dup2(::fileno(files_[fd - 1]), fd);
    }
  }
  ~CapturedOutput() { restore(); }
  CapturedOutput(const CapturedOutput&) = delete;
  CapturedOutput& operator=(const CapturedOutput&) = delete;

  /* Restores 1 and 2; what went to each. */
  void restore() {
    for (int i = 0; i < 2; ++i) {
      if (saved_[i] < 0) continue;
      ::dup2(saved_[i], i + 1);
      ::close(saved_[i]);
      saved_[i] = -1;
      std::rewind(files_[i]);
      std::ostringstream text;
      char buffer[4096];
      for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, files_[i])) > 0;) text.write(buffer, static_cast<std::streamsize>(n));
      text_[i] = text.str();
      std::fclose(files_[i]);
    }
  }
  const std::string& out() const { return text_[0]; }
  const std::string& err() const { return text_[1]; }

 private:
  int saved_[2] = {-1, -1};
  std::FILE* files_[2] = {nullptr, nullptr};
  std::string text_[2];
};

// The plm module of the fakes: the daemon's own words on any host, as
// plm/local does; no cap on agents in flight.
orca_mca_rc fake_command(void*, const char*, const char* const* daemon, size_t count, const orca_plm_words* out,
                         orca_mca_reason*) {
  for (size_t i = 0; i < count; ++i) out->add(out->context, daemon[i]);
  return ORCA_MCA_OK;
}
uint32_t no_cap(void*) { return 0; }
const orca_plm_module kFakePlm = {.self = nullptr, .command = fake_command, .max_concurrent = no_cap};

class JobLaunchAdapter : public testing::Test {
 protected:
  void SetUp() override {
    const std::string help = std::string("ORCA_MCA_mca_base_help_path=") + ORCA_TEST_HELP_DIR;
    const char* envp[] = {help.c_str(), "ORCA_MCA_mca_base_component_path=/nonexistent",
                          "ORCA_MCA_mca_base_param_files=none", "ORCA_MCA_mca_base_override_param_file=none", nullptr};
    const char* argv[] = {"orcarun", nullptr};
    auto p = Process::create("orcarun", ORCA_PROCESS_LAUNCHER, 1, argv, envp);
    ASSERT_TRUE(p.ok()) << p.error().summary();
    process_ = std::move(p.value());
    options_.stdin_target = StdinTarget::None;
    options_.command = {"./a.out"};
  }

  /* A plan of `daemons` hosts n1.. with one slot each and one rank per
   * host, all children of orcarun. */
  JobPlan plan(std::uint32_t daemons) {
    JobPlan p;
    for (std::uint32_t v = 1; v <= daemons; ++v) p.nodes.push_back({.name = "n" + std::to_string(v)});
    auto ranks = launch::map_ranks(p.nodes, daemons, launch::MapBy::Slot, false);
    EXPECT_TRUE(ranks.ok());
    p.ranks = std::move(ranks.value());
    p.plm = {.component = "fake", .module = &kFakePlm};
    p.tree = test::radix_tree(1024, daemons);
    p.routed_component = "radix";
    p.daemon_command = {"orcad"};
    p.kill_grace = std::chrono::milliseconds(20);
    p.startup_timeout = std::chrono::milliseconds(5000);
    return p;
  }

  /* Runs the job over the fakes; orcarun's exit status. */
  int run(JobPlan plan) {
    daemons_.loop = &process_->loop();
    JobParts parts{.open_oob = [this](ProcessName self, std::vector<std::uint8_t>) -> Result<oob::Messenger*> {
                     messenger_ = std::make_unique<test::FakeMessenger>(
                         log_, [this](const test::FakeMessenger::Sent& s) { daemons_.received(s); });
                     messenger_->job = self.job;
                     messenger_->unreachable = unreachable_;
                     daemons_.messenger = messenger_.get();
                     if (on_open_) on_open_();
                     return messenger_.get();
                   },
                   .make_starter = [this](std::uint32_t, plm::DaemonStarter::Hooks hooks) {
                     auto starter = std::make_unique<test::FakeStarter>(
                         process_->loop(), log_, std::move(hooks),
                         [this](const plm::DaemonStarter::Launch& l) { daemons_.launched(l); });
                     daemons_.starter = starter.get();
                     return std::unique_ptr<plm::DaemonStarter>(std::move(starter));
                   }};
    // A job that would never end (a loop event that no longer reaches the
    // machine) fails the test rather than hanging it.
    bool stuck = false;
    Timer watchdog(process_->loop(), [this, &stuck] {
      stuck = true;
      process_->loop().stop();
    });
    watchdog.start(std::chrono::seconds(10));
    CapturedOutput captured;
    int status;
    {
      JobLaunch job(*process_, options_, std::move(plan), std::chrono::steady_clock::now(), std::move(parts));
      status = job.run();
    }
    captured.restore();
    out_ = captured.out();
    err_ = captured.err();
    EXPECT_FALSE(stuck) << "the job did not end within 10 s:\n" << err_ << log_text();
    return status;
  }

  /* Whether the log holds `entry`; the entries that start with `prefix`. */
  bool logged(const std::string& entry) const { return std::find(log_.begin(), log_.end(), entry) != log_.end(); }
  std::vector<std::string> logged_starting(const std::string& prefix) const { return test::only(log_, prefix); }
  std::string log_text() const {
    std::string text;
    for (const auto& e : log_) text += e + "\n";
    return text;
  }
  /* Runs `fn` on the loop once the job has started (the oob opened). */
  void once_open(std::function<void()> fn) {
    on_open_ = [this, fn = std::move(fn)] { process_->loop().defer(fn); };
  }

  std::unique_ptr<Process> process_;
  Options options_;
  test::FakeDaemons daemons_;
  std::unique_ptr<test::FakeMessenger> messenger_;
  std::set<std::uint32_t> unreachable_;
  std::function<void()> on_open_;
  ActionLog log_;
  std::string out_, err_;
};

TEST_F(JobLaunchAdapter, AJobRunsOverTheDaemonsAndEndsWithTheirTeardown) {
  daemons_.exit_status = {{0, exited(0)}, {1, exited(0)}};
  daemons_.output = {{0, "hello from 0\n"}, {1, "hello from 1\n"}};
  EXPECT_EQ(run(plan(2)), 0) << err_;
  EXPECT_EQ(err_, "");
  // Each rank's line, whole, in some order.
  EXPECT_NE(out_.find("hello from 0\n"), std::string::npos) << out_;
  EXPECT_NE(out_.find("hello from 1\n"), std::string::npos) << out_;
  EXPECT_EQ(out_.size(), 26u) << out_;
  // Each hello made its daemon a peer by the URI it gave, and ended its
  // launch's turn in flight; each got the command, then was released.
  for (std::uint32_t v : {1u, 2u}) {
    const std::string n = std::to_string(v);
    EXPECT_TRUE(logged("launch " + n + " n" + n)) << log_text();
    EXPECT_TRUE(logged("add_peer " + n + " fake://" + n)) << log_text();
    EXPECT_TRUE(logged("daemon_up " + n)) << log_text();
    EXPECT_TRUE(logged("send " + n + " launch command")) << log_text();
    EXPECT_TRUE(logged("exit " + n + " 0")) << log_text();
  }
  EXPECT_EQ(logged_starting("send 1 launch command").size(), 1u) << log_text();
  EXPECT_TRUE(logged_starting("signal").empty()) << log_text();
}

// Each rank's program in the launch command: by the programs' first ranks
// (MPMD), and 0 for a job of one program whose count is the map's (no -n,
// -N), whose first ranks end at 0.
TEST_F(JobLaunchAdapter, EachPlacementNamesItsRanksProgram) {
  daemons_.exit_status = {{0, exited(0)}, {1, exited(0)}, {2, exited(0)}};
  JobPlan one = plan(3);
  one.apps = {{.first_rank = 0, .argv = {"./a.out"}}};
  EXPECT_EQ(run(std::move(one)), 0) << err_;
  EXPECT_EQ(daemons_.rank_app, (std::map<std::uint32_t, std::uint32_t>{{0, 0}, {1, 0}, {2, 0}}));
}

TEST_F(JobLaunchAdapter, TheRanksOfTheSecondProgramAreNamedSo) {
  daemons_.exit_status = {{0, exited(0)}, {1, exited(0)}, {2, exited(0)}};
  JobPlan two = plan(3);
  two.apps = {{.first_rank = 0, .argv = {"./master"}}, {.first_rank = 1, .argv = {"./worker"}}};
  EXPECT_EQ(run(std::move(two)), 0) << err_;
  EXPECT_EQ(daemons_.rank_app, (std::map<std::uint32_t, std::uint32_t>{{0, 0}, {1, 1}, {2, 1}}));
}

TEST_F(JobLaunchAdapter, TheFirstFailingRanksStatusIsOrcarunsAndNamesTheRank) {
  daemons_.exit_status = {{0, exited(0)}, {1, exited(3)}};
  EXPECT_EQ(run(plan(2)), 3) << err_;
  EXPECT_NE(err_.find("orcarun: rank 1 on n2 exited with status 3"), std::string::npos) << err_;
}

// The shell case sigint_ignored_then_killed runs the same with a real rank.
TEST_F(JobLaunchAdapter, SigintGoesToTheRanksAndRanksThatIgnoreItAreKilledAfterTheGrace) {
  daemons_.ignores = {{0, {SIGINT}}, {1, {SIGINT}}};
  daemons_.commanded = [](std::uint32_t v) {
    if (v == 2) ::raise(SIGINT);
  };
  const int status = run(plan(2));
  EXPECT_EQ(status, 128 + SIGKILL) << err_ << log_text();
  const auto sends = logged_starting("send 1 ");
  const auto sigint = std::find(sends.begin(), sends.end(), "send 1 signal ranks");
  ASSERT_NE(sigint, sends.end()) << log_text();
  EXPECT_NE(std::find(sigint + 1, sends.end(), "send 1 signal ranks"), sends.end())
      << "no second signal (the kill after the grace):\n" << log_text();
  EXPECT_NE(err_.find("was killed by signal 9"), std::string::npos) << err_;
}

TEST_F(JobLaunchAdapter, DaemonsThatNeverReportAreNamedAtTheStartupTimeout) {
  daemons_.reports = false;
  JobPlan p = plan(2);
  p.startup_timeout = std::chrono::milliseconds(30);
  EXPECT_NE(run(std::move(p)), 0);
  EXPECT_NE(err_.find("only 0 of 2 daemons reported within orcarun_startup_timeout"), std::string::npos) << err_;
  EXPECT_NE(err_.find("n1 (daemon 1)"), std::string::npos) << err_;
  EXPECT_NE(err_.find("n2 (daemon 2)"), std::string::npos) << err_;
  // Nothing was sent to daemons that never said hello; their agents were ended.
  EXPECT_TRUE(logged_starting("send").empty()) << log_text();
  EXPECT_FALSE(logged_starting("exit 1").empty()) << log_text();
  EXPECT_FALSE(logged_starting("exit 2").empty()) << log_text();
}

TEST_F(JobLaunchAdapter, TheTimeoutEndsARunningJob) {
  options_.timeout_seconds = 0.03;
  EXPECT_NE(run(plan(2)), 0);
  EXPECT_NE(err_.find("orcarun: the job did not finish within --timeout"), std::string::npos) << err_;
  EXPECT_TRUE(logged("send 1 signal ranks")) << log_text();
  EXPECT_EQ(out_, "");
}

TEST_F(JobLaunchAdapter, ManyAgentsFailingAtOnceEndTheJobNamingADaemon) {
  daemons_.agents_fail = true;
  EXPECT_EQ(run(plan(300)), 1);
  EXPECT_NE(err_.find("failed: its agent (fake) exited with status 1 before the daemon reported"), std::string::npos)
      << err_;
  EXPECT_TRUE(logged_starting("send").empty()) << log_text();
}

TEST_F(JobLaunchAdapter, ALostDaemonEndsTheJobNamingItAndItsAgentIsEnded) {
  // Once both daemons run their ranks, the oob loses daemon 2.
  daemons_.commanded = [this](std::uint32_t v) {
    if (v == 2) messenger_->lose({messenger_->job, 2}, "connection reset");
  };
  EXPECT_NE(run(plan(2)), 0);
  EXPECT_NE(err_.find("the oob lost the daemon on n2 (daemon 2): connection reset"), std::string::npos) << err_ << log_text();
  EXPECT_TRUE(logged("end_lost 2")) << log_text();
}

TEST_F(JobLaunchAdapter, ADaemonTheOobCannotReachFailsTheJobNamingIt) {
  unreachable_ = {2};
  EXPECT_NE(run(plan(2)), 0);
  EXPECT_NE(err_.find("cannot reach the daemon on n2 (daemon 2)"), std::string::npos) << err_;
  EXPECT_FALSE(logged("send 2 launch command")) << log_text();
}

TEST_F(JobLaunchAdapter, AHelloThatNamesAnotherDaemonIsIgnored) {
  // Daemon 1's connection says it is daemon 2: a lie (or a bug) that must
  // not make orcarun dial what it names.
  daemons_.exit_status = {{0, exited(0)}, {1, exited(0)}};
  once_open([this] {
    launch::DaemonReport forged{.vpid = 2, .hostname = "n2", .contact_uri = "fake://forged"};
    messenger_->deliver({messenger_->job, 1}, launch::kTagHello, forged);
  });
  EXPECT_EQ(run(plan(2)), 0) << err_;
  EXPECT_TRUE(logged_starting("add_peer").size() == 2 && !logged("add_peer 1 fake://forged") &&
              !logged("add_peer 2 fake://forged"))
      << log_text();
}

}  // namespace
}  // namespace orca::orcarun
