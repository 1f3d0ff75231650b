// JobMachine: orcarun's job lifecycle policies, driven by events and a
// fake clock, in milliseconds. Each case names the integration case that
// exercises the same policy with real processes, where one does.
#include "launch/job_machine.h"

#include "framework/launch/machine_fixtures.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <map>
#include <set>

namespace orca::launch {
namespace {

using test::exited;
using test::killed;
using test::only;
using test::radix_tree;

using std::chrono::milliseconds;
using test::Succeeded;

struct Shape {
  std::uint32_t daemons = 4;
  std::uint32_t radix = 64;
  std::uint32_t ranks_per_daemon = 1;
  bool start_early = false;
  bool all_at_once = false;
  bool tree_spawn = false;
  std::optional<double> timeout;
  std::string plm = "rsh";
  bool launcher_hint = true;  // the plm module gives its advice (plm::failure_hint)
  std::vector<std::string> app_commands;     // MPMD: each program's argv[0] ...
  std::vector<std::uint32_t> app_first_rank;  // ... and first rank
};

// One job: the machine, and everything it asked of the program, in order.
class FakeJob {
 public:
  explicit FakeJob(const Shape& s) : tree_(radix_tree(s.radix, s.daemons)) {
    JobFacts facts{.tree = &tree_, .command = "./app", .plm_component = s.plm, .all_at_once = s.all_at_once,
                   .tree_spawn = s.tree_spawn, .start_early = s.start_early, .timeout_seconds = s.timeout};
    facts.app_commands = s.app_commands;
    facts.app_first_rank = s.app_first_rank;
    if (s.launcher_hint) facts.failure_hint = [](const std::string& host) { return "try reaching " + host; };
    for (std::uint32_t v = 1; v <= s.daemons; ++v) {
      facts.hosts.push_back("h" + std::to_string(v));
      for (std::uint32_t i = 0; i < s.ranks_per_daemon; ++i) facts.rank_daemon.push_back(v);
    }
    facts.startup_timeout = milliseconds(60000);
    facts.kill_grace = milliseconds(5000);
    machine = std::make_unique<JobMachine>(std::move(facts), hooks());
  }

  JobMachine& m() { return *machine; }

  // Every daemon up, the command sent to all: the job runs.
  void run_all() {
    m().start();
    for (std::uint32_t v = 1; v <= m().daemons(); ++v) {
      m().hello(v);
      m().up(v);
    }
    ASSERT_TRUE(wired);
    ASSERT_TRUE(m().command_ready());
    log.clear();
  }
  // The clock moves on by `d`: the timers due fire, in deadline order.
  void advance(milliseconds d) {
    timers.advance(d, [this](const TimerKey& k) { m().on_timer(k.first, k.second); });
  }
  // Agent `vpid` ends with `status` (it is no longer running).
  void agent_ends(std::uint32_t vpid, int status, const std::string& tail = "") {
    agents.erase(vpid);
    m().agent_exited(vpid, status, tail);
  }
  void all_agents_end() {
    const auto running = agents;
    for (std::uint32_t v : running) {
      if (v != JobMachine::kEveryDaemon) agent_ends(v, exited(0));
    }
  }
  bool logged(const std::string& entry) const { return std::find(log.begin(), log.end(), entry) != log.end(); }
  bool is_armed(JobTimer t, std::uint32_t vpid = 0) const { return timers.is_armed({t, vpid}); }
  milliseconds armed_for(JobTimer t, std::uint32_t vpid = 0) const { return timers.armed_for({t, vpid}); }
  const Message& last_shown() const { return shown.back(); }

  std::vector<std::string> log;
  std::vector<Message> shown;
  using TimerKey = std::pair<JobTimer, std::uint32_t>;
  test::FakeTimers<TimerKey> timers;
  std::set<std::uint32_t> agents;
  std::vector<std::uint32_t> relayed;  // the children the last teardown went to
  bool wired = false;
  bool done = false;
  bool agent_is_daemon = false;
  std::function<void(std::uint32_t)> on_launch;  // a launch that fails, say
  std::function<Status(std::uint32_t)> on_command;

 private:
  JobMachine::Hooks hooks() {
    return {
        .launch_daemon =
            [this](std::uint32_t v) {
              log.push_back("launch " + std::to_string(v));
              agents.insert(v);
              if (on_launch) on_launch(v);
              return agent_is_daemon;
            },
        .wired_up = [this] { wired = true; },
        .send_command =
            [this](std::uint32_t c) {
              log.push_back("command " + std::to_string(c));
              return on_command ? on_command(c) : Status{};
            },
        .signal_ranks = [this](int s) { log.push_back("ranks " + std::to_string(s)); },
        .release_daemon = [this](std::uint32_t v) { log.push_back("release " + std::to_string(v)); },
        .send_teardown =
            [this](bool failed, const std::vector<std::uint32_t>& to) {
              log.push_back(failed ? "teardown failed" : "teardown done");
              relayed = to;
            },
        .signal_agent = [this](std::uint32_t v, int s) { log.push_back("agent " + std::to_string(v) + " " + std::to_string(s)); },
        .end_lost_agent = [this](std::uint32_t v) { log.push_back("end-lost " + std::to_string(v)); },
        .signal_all_agents = [this](int s) { log.push_back("all-agents " + std::to_string(s)); },
        .agent_runs = [this](std::uint32_t v) { return agents.count(v) > 0; },
        .agents_running = [this] { return agents.size(); },
        .arm = [this](JobTimer t, std::uint32_t v, milliseconds d) { timers.arm({t, v}, d); },
        .cancel = [this](JobTimer t, std::uint32_t v) { timers.cancel({t, v}); },
        .show =
            [this](const Message& msg) {
              log.push_back("show " + msg.topic());
              shown.push_back(msg);
            },
        .done =
            [this] {
              log.push_back("done");
              done = true;
            },
        .dropped = [this](std::uint32_t v, const std::string& what) {
          log.push_back("dropped " + std::to_string(v) + ": " + what);
        },
    };
  }

  routed::RoutingTree tree_;
  std::unique_ptr<JobMachine> machine;
};

using Log = std::vector<std::string>;

// --- the wire-up ---------------------------------------------------------------

// Every daemon up, then held (a DVM): no command is sent.
void hold_all(FakeJob& j) {
  j.m().start();
  for (std::uint32_t v = 1; v <= j.m().daemons(); ++v) {
    j.m().hello(v);
    j.m().up(v);
  }
  j.m().hold();
  j.log.clear();
}

TEST(JobMachineWireUp, StartLaunchesOrcarunsChildrenAndArmsTheStartupTimer) {
  FakeJob j({.daemons = 6, .radix = 2});
  j.m().start();
  EXPECT_EQ(j.log, (Log{"launch 1", "launch 2"}));
  EXPECT_EQ(j.armed_for(JobTimer::Startup, 0), milliseconds(60000));
  EXPECT_EQ(j.m().phase(), JobPhase::WireUp);
}

TEST(JobMachineWireUp, AReportLaunchesThatDaemonsChildren) {
  FakeJob j({.daemons = 6, .radix = 2});
  j.m().start();
  j.log.clear();
  EXPECT_TRUE(j.m().up(1));
  EXPECT_EQ(j.log, (Log{"launch 3", "launch 4"}));
  EXPECT_FALSE(j.m().up(1));  // twice: nothing more
  EXPECT_EQ(j.m().up_count(), 1u);
}

TEST(JobMachineWireUp, WithTreeSpawnTheDaemonsLaunchTheirOwnChildren) {
  FakeJob j({.daemons = 6, .radix = 2, .tree_spawn = true});
  j.m().start();
  j.m().up(1);
  EXPECT_EQ(j.log, (Log{"launch 1", "launch 2"}));
}

TEST(JobMachineWireUp, OneLaunchStartsEveryDaemon) {
  FakeJob j({.daemons = 5, .all_at_once = true, .plm = "slurm"});
  j.m().start();
  EXPECT_EQ(j.log, (Log{"launch 0"}));
  for (std::uint32_t v = 1; v <= 5; ++v) EXPECT_TRUE(j.m().is_launched(v));
}

TEST(JobMachineWireUp, EveryDaemonUpCancelsTheStartupTimerAndWiresUpOnce) {
  FakeJob j({.daemons = 3});
  j.m().start();
  j.m().up(2);
  j.m().up(1);
  EXPECT_FALSE(j.wired);
  j.m().up(3);
  EXPECT_TRUE(j.wired);
  EXPECT_FALSE(j.is_armed(JobTimer::Startup));
  EXPECT_EQ(j.m().phase(), JobPhase::WireUp);  // until the command is ready
}

TEST(JobMachineWireUp, CommandReadySendsTheCommandToEachChildOfOrcarun) {
  FakeJob j({.daemons = 6, .radix = 2});
  j.m().start();
  for (std::uint32_t v = 1; v <= 6; ++v) j.m().up(v);
  j.log.clear();
  EXPECT_TRUE(j.m().command_ready());
  EXPECT_EQ(j.log, (Log{"command 1", "command 2"}));
  EXPECT_EQ(j.m().phase(), JobPhase::Running);
  EXPECT_FALSE(j.m().command_ready());  // once
}

// orcarun_mapping_test.sh: forward_past_the_message_limit
TEST(JobMachineWireUp, ACommandThatCannotBeSentFailsTheJobAndEndsIt) {
  FakeJob j({.daemons = 2});
  j.on_command = [](std::uint32_t) { return Status(Message("oob", "message-too-large", {{"why", "3 MiB is over the limit"}})); };
  j.m().start();
  j.m().hello(1);
  j.m().hello(2);
  j.m().up(1);
  j.m().up(2);
  EXPECT_FALSE(j.m().command_ready());
  EXPECT_EQ(j.shown.size(), 1u);
  EXPECT_EQ(j.last_shown().topic(), "command-not-sent");
  EXPECT_EQ(j.last_shown().arg("why"), "3 MiB is over the limit");
  EXPECT_TRUE(j.logged("teardown failed"));
  EXPECT_EQ(j.m().exit_status(), 1);
}

// orcarun_early_start_test.sh: ranks_start_before_the_last_daemon_is_up
TEST(JobMachineWireUp, EarlyStartCommandsEachSubtreeAsItComesUp) {
  FakeJob j({.daemons = 6, .radix = 2, .start_early = true});
  j.m().start();
  for (std::uint32_t v : {1u, 3u, 5u}) j.m().up(v);
  EXPECT_TRUE(only(j.log, "command").empty());
  j.m().up(4);  // 1's subtree (1, 3, 4) is whole
  EXPECT_EQ(only(j.log, "command"), (Log{"command 1"}));
  EXPECT_EQ(j.m().phase(), JobPhase::WireUp);
  EXPECT_TRUE(j.m().command_sent());
  EXPECT_TRUE(j.m().ranks_may_run());
  j.m().up(2);
  j.m().up(6);
  ASSERT_TRUE(j.wired);
  EXPECT_TRUE(j.m().command_ready());
  EXPECT_EQ(only(j.log, "command"), (Log{"command 1", "command 2"}));  // 2 once, 1 not again
}

// orcarun_early_start_test.sh: held_when_start_early_is_false
TEST(JobMachineWireUp, WithoutEarlyStartNoRankStartsBeforeEveryDaemonIsUp) {
  FakeJob j({.daemons = 3});
  j.m().start();
  j.m().up(1);
  j.m().up(2);
  EXPECT_TRUE(only(j.log, "command").empty());
  EXPECT_FALSE(j.m().ranks_may_run());
}

// orcarun_lifecycle_test.sh: startup_timeout
TEST(JobMachineWireUp, StartupTimeoutNamesEachMissingDaemonAndWhy) {
  FakeJob j({.daemons = 6, .radix = 2});
  j.m().start();
  j.m().hello(1);
  j.m().hello(2);
  j.m().up(1);
  j.m().up(2);
  j.m().up(3);
  j.advance(milliseconds(59999));
  EXPECT_TRUE(j.shown.empty());
  j.advance(milliseconds(1));
  ASSERT_EQ(j.shown.size(), 1u);
  const Message& m = j.last_shown();
  EXPECT_EQ(m.topic(), "startup-timeout");
  EXPECT_EQ(m.arg("seconds"), "60");
  EXPECT_EQ(m.arg("up"), "3");
  EXPECT_EQ(m.arg("daemons"), "6");
  EXPECT_EQ(m.arg("missing"), "\n  h4 (daemon 4)\n  h5 (daemon 5)\n  h6 (daemon 6)");
  EXPECT_EQ(m.arg("hint"), "try reaching h4");  // the first daemon missing
  EXPECT_EQ(j.m().phase(), JobPhase::TearingDown);
  EXPECT_EQ(j.m().exit_status(), 1);
}

TEST(JobMachineWireUp, ADaemonNeverLaunchedIsSaidToWaitForItsParent) {
  FakeJob j({.daemons = 6, .radix = 2});
  j.m().start();
  j.m().up(2);  // 1 never comes up: 3 and 4 are never launched
  j.advance(milliseconds(60000));
  EXPECT_NE(j.last_shown().arg("missing").find("h3 (daemon 3): not started (its parent never came up)"), std::string::npos);
  EXPECT_NE(j.last_shown().arg("missing").find("h1 (daemon 1)\n"), std::string::npos);
}

TEST(JobMachineWireUp, TheHintIsTheLaunchersOwnOrToReadTheOutput) {
  FakeJob advised({.daemons = 1, .all_at_once = true, .plm = "slurm"});
  advised.m().start();
  advised.advance(milliseconds(60000));
  EXPECT_EQ(advised.last_shown().arg("hint"), "try reaching h1");
  FakeJob plain({.daemons = 1, .plm = "local", .launcher_hint = false});
  plain.m().start();
  plain.advance(milliseconds(60000));
  EXPECT_EQ(plain.last_shown().arg("hint"), "Check what the daemon printed above");
}

TEST(JobMachineWireUp, AFailedLaunchStopsTheLaunchesAfterIt) {
  FakeJob j({.daemons = 3});
  j.on_launch = [&j](std::uint32_t v) {
    if (v == 1) j.m().fail(Message("plm", "bad-agent"), 1);
  };
  j.m().start();
  EXPECT_EQ(only(j.log, "launch"), (Log{"launch 1"}));
  EXPECT_EQ(j.m().phase(), JobPhase::TearingDown);
  EXPECT_FALSE(j.is_armed(JobTimer::Startup));
}

// --- the teardown ---------------------------------------------------------------

// orcarun_lifecycle_test.sh: sigterm_reaches_starting_daemons
// --- daemons held for a DVM ------------------------------------------------------

TEST(JobMachineHeld, OnlyOnceEveryDaemonIsUp) {
  FakeJob j({.daemons = 3});
  j.m().start();
  j.m().up(1);
  j.m().hold();
  EXPECT_FALSE(j.m().held());
  j.m().up(2);
  j.m().up(3);
  j.m().hold();
  EXPECT_TRUE(j.m().held());
}

TEST(JobMachineHeld, ALostDaemonIsDroppedAndTheOthersStay) {
  FakeJob j({.daemons = 4});
  hold_all(j);
  j.agent_ends(2, killed(SIGKILL));
  EXPECT_EQ(j.log, (Log{"dropped 2: its daemon ended early: the agent was killed by signal 9 (Killed); it printed nothing"}));
  EXPECT_TRUE(j.m().is_gone(2));
  EXPECT_FALSE(j.m().failed());
  EXPECT_EQ(j.m().phase(), JobPhase::WireUp);
  EXPECT_TRUE(j.shown.empty());
  // Lost by the oob, with its agent still there: the agent is ended.
  j.log.clear();
  j.m().daemon_lost(3, "the oob lost it");
  EXPECT_EQ(j.log, (Log{"end-lost 3", "dropped 3: the oob lost it"}));
  // Its agent's exit afterwards is no second loss.
  j.log.clear();
  j.agent_ends(3, killed(SIGTERM));
  EXPECT_EQ(j.log, Log{});
}

TEST(JobMachineHeld, ADaemonBelowALostOneDropsInTurn) {
  // radix 2: daemon 1's children are 3 and 4.
  FakeJob j({.daemons = 4, .radix = 2});
  hold_all(j);
  j.agent_ends(1, killed(SIGKILL));
  j.agent_ends(3, exited(0));
  j.agent_ends(4, exited(0));
  ASSERT_EQ(j.log.size(), 3u);
  EXPECT_TRUE(j.log[0].starts_with("dropped 1: "));
  EXPECT_TRUE(j.log[1].starts_with("dropped 3: "));
  EXPECT_TRUE(j.log[2].starts_with("dropped 4: "));
  EXPECT_FALSE(j.m().is_gone(2));
}

TEST(JobMachineHeld, TheTeardownReachesOnlyTheDaemonsLeftAndEndsWithZero) {
  FakeJob j({.daemons = 3});
  hold_all(j);
  j.agent_ends(2, killed(SIGKILL));
  j.log.clear();
  j.m().begin_teardown();
  EXPECT_TRUE(j.logged("teardown done"));
  j.all_agents_end();
  EXPECT_TRUE(j.done);
  EXPECT_EQ(j.m().exit_status(), 0);
}

TEST(JobMachineTeardown, DaemonsThatCannotHearTheTeardownHaveTheirAgentsSignalled) {
  FakeJob j({.daemons = 6, .radix = 2});
  j.m().start();
  j.m().hello(1);
  j.m().up(1);  // launches 3 and 4
  j.m().up(3);
  j.log.clear();
  j.m().fail(Message("orcarun", "x"), 1);
  // 2 (no hello) and 4 (below 1, not up) cannot hear it; 1 and 3 can.
  EXPECT_EQ(j.log, (Log{"show x", "teardown failed", "agent 2 15", "agent 4 15"}));
  EXPECT_EQ(j.relayed, (std::vector<std::uint32_t>{1}));  // 3 hears it from 1
  EXPECT_TRUE(j.is_armed(JobTimer::Teardown));
}

TEST(JobMachineTeardown, WithOneLaunchOfEveryDaemonTheStepIsSignalledOnce) {
  FakeJob j({.daemons = 4, .all_at_once = true, .plm = "slurm"});
  j.m().start();
  j.m().up(1);
  j.log.clear();
  j.m().begin_teardown();
  EXPECT_EQ(only(j.log, "agent"), (Log{"agent 0 15"}));
}

TEST(JobMachineTeardown, EndsWhenTheLastAgentHasEnded) {
  FakeJob j({.daemons = 2});
  j.run_all();
  j.m().rank_ended({.rank = 0});
  j.m().rank_ended({.rank = 1});
  EXPECT_EQ(j.m().phase(), JobPhase::TearingDown);
  EXPECT_TRUE(j.logged("teardown done"));
  j.agent_ends(1, exited(0));
  EXPECT_FALSE(j.done);
  j.agent_ends(2, exited(0));
  EXPECT_TRUE(j.done);
  EXPECT_EQ(j.m().phase(), JobPhase::Done);
  EXPECT_FALSE(j.is_armed(JobTimer::Teardown));
  EXPECT_EQ(j.m().exit_status(), 0);
  EXPECT_FALSE(j.m().failed());
}

TEST(JobMachineTeardown, AgentsThatOutliveTheLimitAreKilled) {
  FakeJob j({.daemons = 2});
  j.run_all();
  j.m().begin_teardown();
  j.advance(kTeardownLimit - milliseconds(1));
  EXPECT_FALSE(j.done);
  j.advance(milliseconds(1));
  EXPECT_TRUE(j.logged("all-agents 9"));
  EXPECT_TRUE(j.done);
}

TEST(JobMachineTeardown, TeardownCancelsTheTimersOfTheRunningJob) {
  FakeJob j({.daemons = 2, .timeout = 30.0});
  j.run_all();
  j.m().rank_ended({.rank = 0, .wait_status = exited(2)});  // arms the kill grace
  ASSERT_TRUE(j.is_armed(JobTimer::KillGrace));
  ASSERT_TRUE(j.is_armed(JobTimer::JobTimeout));
  j.m().rank_ended({.rank = 1, .wait_status = killed(SIGTERM)});
  EXPECT_FALSE(j.is_armed(JobTimer::KillGrace));
  EXPECT_FALSE(j.is_armed(JobTimer::JobTimeout));
  EXPECT_EQ(j.m().exit_status(), 2);
}

// --- ranks' ends and the exit status ---------------------------------------------

TEST(JobMachineExit, EveryRankExitingZeroEndsTheJobWithZero) {
  FakeJob j({.daemons = 2, .ranks_per_daemon = 2});
  j.run_all();
  for (std::uint32_t r = 0; r < 3; ++r) j.m().rank_ended({.rank = r});
  EXPECT_EQ(j.m().phase(), JobPhase::Running);
  j.m().rank_ended({.rank = 3});
  EXPECT_EQ(j.m().phase(), JobPhase::TearingDown);
  EXPECT_TRUE(j.shown.empty());
  EXPECT_EQ(j.m().exit_status(), 0);
}

// orcarun_binding_test.sh: ranks_per_object (the map made from the daemons' processors)
TEST(JobMachineExit, RanksSetOnceTheDaemonsAreUpAreTheOnesAwaited) {
  FakeJob j({.daemons = 2, .ranks_per_daemon = 0});
  j.m().start();
  for (std::uint32_t v = 1; v <= 2; ++v) {
    j.m().hello(v);
    j.m().up(v);
  }
  ASSERT_TRUE(j.m().set_rank_daemons({1, 1, 2}));
  ASSERT_TRUE(j.m().command_ready());
  EXPECT_FALSE(j.m().set_rank_daemons({1})) << "too late: the command is out";
  j.m().rank_ended({.rank = 0});
  j.m().rank_ended({.rank = 2});
  EXPECT_EQ(j.m().phase(), JobPhase::Running) << "rank 1 has not ended";
  j.m().rank_ended({.rank = 1});
  EXPECT_EQ(j.m().phase(), JobPhase::TearingDown);
  EXPECT_EQ(j.m().exit_status(), 0);

  FakeJob early({.daemons = 2, .start_early = true});
  EXPECT_FALSE(early.m().set_rank_daemons({1, 2})) << "an early start commands ranks before all are up";
}

// orcarun_mapping_test.sh: failed_rank_exit_status
TEST(JobMachineExit, AFailedRankSetsTheStatusAndStopsTheOthers) {
  FakeJob j({.daemons = 3});
  j.run_all();
  j.m().rank_ended({.rank = 1, .wait_status = exited(3)});
  EXPECT_EQ(j.m().exit_status(), 3);
  EXPECT_EQ(j.last_shown().topic(), "rank-failed");
  EXPECT_EQ(j.last_shown().arg("rank"), "1");
  EXPECT_EQ(j.last_shown().arg("host"), "h2");
  EXPECT_EQ(j.last_shown().arg("command"), "./app");
  EXPECT_EQ(j.last_shown().arg("how"), "exited with status 3");
  EXPECT_EQ(j.log, (Log{"show rank-failed", "ranks 15"}));
  EXPECT_EQ(j.armed_for(JobTimer::KillGrace, 0), milliseconds(5000));
}

// orcarun_lifecycle_test.sh: sigint_ignored_then_killed
TEST(JobMachineExit, RanksStillThereAfterTheGraceAreKilled) {
  FakeJob j({.daemons = 3});
  j.run_all();
  j.m().rank_ended({.rank = 0, .wait_status = exited(1)});
  j.log.clear();
  j.advance(milliseconds(5000));
  EXPECT_EQ(j.log, (Log{"ranks 9"}));
}

TEST(JobMachineExit, TheFirstFailureGivesTheStatusAndTheOnlyMessage) {
  FakeJob j({.daemons = 3});
  j.run_all();
  j.m().rank_ended({.rank = 0, .wait_status = exited(3)});
  j.m().rank_ended({.rank = 1, .wait_status = exited(5)});
  j.m().rank_ended({.rank = 2, .wait_status = killed(SIGTERM)});
  EXPECT_EQ(j.shown.size(), 1u);
  EXPECT_EQ(j.m().exit_status(), 3);
  EXPECT_EQ(only(j.log, "ranks"), (Log{"ranks 15"}));  // once: the others are ending already
}

TEST(JobMachineExit, ARankKilledBySignalGives128PlusTheSignal) {
  FakeJob j({.daemons = 1});
  j.run_all();
  j.m().rank_ended({.rank = 0, .wait_status = killed(SIGSEGV)});
  EXPECT_EQ(j.m().exit_status(), 128 + SIGSEGV);
}

// orcarun_mapping_test.sh: missing_command_is_127
TEST(JobMachineExit, ARankThatCouldNotStartGives127AndWhy) {
  FakeJob j({.daemons = 1});
  j.run_all();
  j.m().rank_ended({.rank = 0, .wait_status = exited(127), .started = false, .message = "No such file or directory"});
  EXPECT_EQ(j.m().exit_status(), 127);
  EXPECT_EQ(j.last_shown().topic(), "rank-not-started");
  EXPECT_EQ(j.last_shown().arg("why"), "No such file or directory");
}

// MPMD: the message names the failing rank's own program.
TEST(JobMachineExit, ARankOfTheSecondProgramIsNamedWithItsProgram) {
  FakeJob j({.daemons = 2, .ranks_per_daemon = 2, .app_commands = {"./master", "./worker"}, .app_first_rank = {0, 1, 4}});
  j.run_all();
  j.m().rank_ended({.rank = 2, .wait_status = exited(127), .started = false, .message = "No such file or directory"});
  EXPECT_EQ(j.last_shown().arg("command"), "./worker");
  FakeJob first({.daemons = 2, .ranks_per_daemon = 2, .app_commands = {"./master", "./worker"}, .app_first_rank = {0, 1, 4}});
  first.run_all();
  first.m().rank_ended({.rank = 0, .wait_status = exited(3)});
  EXPECT_EQ(first.last_shown().arg("command"), "./master");
}

// A program's directory or binding that failed names that, not the program.
TEST(JobMachineExit, ARankWhoseDirectoryOrBindingFailedSaysWhichAndNamesItsProgram) {
  FakeJob j({.daemons = 1});
  j.run_all();
  j.m().rank_ended({.rank = 0, .wait_status = exited(127), .started = false,
                    .message = "cannot enter the working directory /gone: No such file or directory"});
  EXPECT_EQ(j.last_shown().topic(), "rank-directory-missing");
  FakeJob b({.daemons = 1});
  b.run_all();
  b.m().rank_ended({.rank = 0, .wait_status = exited(127), .started = false,
                    .message = "cannot bind to CPUs 7: Invalid argument"});
  EXPECT_EQ(b.last_shown().topic(), "rank-not-bound");
  EXPECT_EQ(b.m().exit_status(), 127);
}

// orcarun_mpi_test.sh: fail_unfinished
TEST(JobMachineExit, ARankExitingZeroBeforeFinalizeFailsTheJob) {
  FakeJob j({.daemons = 2});
  j.run_all();
  j.m().rank_ended({.rank = 0, .pmi = PmiProgress::Initialized});
  EXPECT_EQ(j.last_shown().topic(), "rank-exited-unfinalized");
  EXPECT_EQ(j.m().exit_status(), 1);
  j.m().rank_ended({.rank = 1, .pmi = PmiProgress::Finalized});
  EXPECT_EQ(j.shown.size(), 1u);
}

TEST(JobMachineExit, AnExitReportedTwiceOrOutOfRangeCountsOnce) {
  FakeJob j({.daemons = 2});
  j.run_all();
  j.m().rank_ended({.rank = 0});
  j.m().rank_ended({.rank = 0});
  j.m().rank_ended({.rank = 7});
  EXPECT_EQ(j.m().ranks_left(), 1u);
  EXPECT_EQ(j.m().phase(), JobPhase::Running);
}

// orcarun_mpi_test.sh: fail_abort
TEST(JobMachineExit, ARankAbortGivesItsOwnStatus) {
  FakeJob j({.daemons = 2});
  j.run_all();
  j.m().rank_aborted({.rank = 1, .status = 42, .message = "bad input"});
  EXPECT_EQ(j.m().exit_status(), 42);
  EXPECT_EQ(j.last_shown().topic(), "rank-aborted");
  EXPECT_EQ(j.last_shown().arg("message"), ": bad input");
  EXPECT_TRUE(j.logged("ranks 15"));
}

TEST(JobMachineExit, ARankThatBrokePmiFailsWithOne) {
  FakeJob j({.daemons = 2});
  j.run_all();
  j.m().rank_aborted({.rank = 0, .status = 42, .broke = true, .message = "key too long"});
  EXPECT_EQ(j.m().exit_status(), 1);
  EXPECT_EQ(j.last_shown().topic(), "rank-broke-pmi");
  EXPECT_EQ(j.last_shown().arg("why"), "key too long");
}

TEST(JobMachineExit, ADaemonsFailureNamesOnlyAHelpFileItMayName) {
  FakeJob j({.daemons = 2});
  j.run_all();
  j.m().job_failed({.vpid = 2, .area = "../../etc/Pass wd", .topic = "no-such\x1b[2J", .args = {{"k", "v\x1b"}}});
  EXPECT_EQ(j.last_shown().area(), "etcasswd");
  EXPECT_EQ(j.last_shown().topic(), "no-such2");
  EXPECT_EQ(j.last_shown().arg("k"), "v\\x1b");
  EXPECT_TRUE(j.logged("ranks 15"));
}

TEST(JobMachineExit, AFailureFromNoDaemonOfTheJobIsIgnored) {
  FakeJob j({.daemons = 2});
  j.run_all();
  j.m().job_failed({.vpid = 9, .area = "pmi", .topic = "x"});
  EXPECT_FALSE(j.m().failed());
}

// orcarun_lifecycle_test.sh: timeout_ends_the_job
TEST(JobMachineExit, TheTimeoutCountsFromTheFirstCommand) {
  FakeJob j({.daemons = 2, .timeout = 1.5});
  j.m().start();
  j.advance(milliseconds(10000));  // the wire-up does not count
  j.m().up(1);
  j.m().up(2);
  j.m().command_ready();
  EXPECT_EQ(j.armed_for(JobTimer::JobTimeout, 0), milliseconds(1500));
  j.advance(milliseconds(1500));
  EXPECT_EQ(j.last_shown().topic(), "job-timeout");
  EXPECT_EQ(j.last_shown().arg("seconds"), "1.5");
  EXPECT_EQ(j.m().exit_status(), 1);
  EXPECT_TRUE(j.logged("ranks 15"));
}

// --- daemons lost ------------------------------------------------------------------

// orcarun_lifecycle_test.sh: daemon_killed_mid_job
TEST(JobMachineLoss, ALostDaemonFailsTheJobAndTheOthersDrain) {
  FakeJob j({.daemons = 3, .ranks_per_daemon = 2});
  j.run_all();
  j.m().daemon_failed(2, "the oob lost it");
  const Message& m = j.last_shown();
  EXPECT_EQ(m.topic(), "daemon-failed");
  EXPECT_EQ(m.arg("host"), "h2");
  EXPECT_EQ(m.arg("vpid"), "2");
  EXPECT_EQ(m.arg("what"), "the oob lost it");
  EXPECT_EQ(j.log, (Log{"show daemon-failed", "end-lost 2", "ranks 9"}));
  EXPECT_EQ(j.m().ranks_left(), 4u);  // its two ranks are gone with it
  EXPECT_EQ(j.m().phase(), JobPhase::Draining);
  EXPECT_EQ(j.armed_for(JobTimer::Drain, 0), kDrainLimit);
  EXPECT_EQ(j.armed_for(JobTimer::LostAgentKill, 0), kLostAgentGrace);
  EXPECT_TRUE(j.m().is_gone(2));
}

TEST(JobMachineLoss, TheDrainEndsWhenTheOtherRanksHaveReported) {
  FakeJob j({.daemons = 2});
  j.run_all();
  j.m().daemon_failed(1, "lost");
  j.m().rank_ended({.rank = 1, .wait_status = killed(SIGKILL)});
  EXPECT_EQ(j.m().phase(), JobPhase::TearingDown);
  EXPECT_EQ(j.m().exit_status(), 1);  // the loss, not the kill it caused
}

TEST(JobMachineLoss, TheDrainHasALimit) {
  FakeJob j({.daemons = 2});
  j.run_all();
  j.m().daemon_failed(1, "lost");
  j.advance(kDrainLimit);
  EXPECT_EQ(j.m().phase(), JobPhase::TearingDown);
}

// orcarun_lifecycle_test.sh: daemon_stopped; orcarun_faults_test.sh: leaf_daemon_stopped
TEST(JobMachineLoss, ALostAgentStillThereAfterItsGraceIsKilled) {
  FakeJob j({.daemons = 3});
  j.run_all();
  j.m().daemon_failed(2, "silent");
  j.log.clear();
  j.advance(kLostAgentGrace);
  EXPECT_EQ(j.log, (Log{"agent 2 9"}));
}

// orcarun_ssh_test.sh: tree_spawn_parent_death_ends_its_subtree
TEST(JobMachineLoss, AnInteriorDaemonLostTakesItsSubtree) {
  FakeJob j({.daemons = 6, .radix = 2});
  j.run_all();
  j.m().daemon_failed(1, "lost");
  EXPECT_EQ(only(j.log, "agent"), (Log{"agent 3 15", "agent 4 15"}));
  for (std::uint32_t v : {1u, 3u, 4u}) EXPECT_TRUE(j.m().is_gone(v));
  EXPECT_FALSE(j.m().is_gone(2));
  EXPECT_EQ(j.m().ranks_left(), 3u);
}

TEST(JobMachineLoss, LosingEveryRanksDaemonEndsTheJobAtOnce) {
  FakeJob j({.daemons = 3, .radix = 2});
  j.run_all();
  j.m().daemon_failed(1, "lost");  // 1 and 3
  j.m().daemon_failed(2, "lost");
  EXPECT_EQ(j.m().phase(), JobPhase::TearingDown);
  EXPECT_EQ(j.shown.size(), 1u);
}

TEST(JobMachineLoss, WithOneLaunchOfEveryDaemonNoAgentIsSignalledAlone) {
  FakeJob j({.daemons = 3, .all_at_once = true, .plm = "slurm"});
  j.run_all();
  j.m().daemon_failed(2, "lost");
  EXPECT_TRUE(only(j.log, "agent").empty());
  EXPECT_TRUE(only(j.log, "end-lost").empty());
  EXPECT_FALSE(j.is_armed(JobTimer::LostAgentKill));
}

// orcarun_lifecycle_test.sh: daemon_killed_mid_job (plm/local: the exit says how)
TEST(JobMachineLoss, WhenOrcarunRunsTheDaemonItsExitIsAwaitedAndReported) {
  FakeJob j({.daemons = 2, .plm = "local"});
  j.agent_is_daemon = true;
  j.run_all();
  j.m().daemon_lost(2, "connection refused");
  EXPECT_TRUE(j.shown.empty());
  EXPECT_EQ(j.armed_for(JobTimer::AgentExit, 2), kAgentExitWait);
  j.agent_ends(2, killed(SIGKILL));
  EXPECT_FALSE(j.is_armed(JobTimer::AgentExit, 2));
  EXPECT_NE(j.last_shown().arg("what").find("its daemon ended early: the agent was killed by signal 9"), std::string::npos);
}

// orcarun_lifecycle_test.sh: daemon_stopped
TEST(JobMachineLoss, ADaemonSilentButAliveIsReportedInTheOobsWords) {
  FakeJob j({.daemons = 2, .plm = "local"});
  j.agent_is_daemon = true;
  j.run_all();
  j.m().daemon_lost(2, "no keepalive answer for 3 s");
  j.m().daemon_lost(2, "again");  // once
  j.advance(kAgentExitWait);
  ASSERT_EQ(j.shown.size(), 1u);
  EXPECT_EQ(j.last_shown().arg("what"), "no keepalive answer for 3 s");
}

TEST(JobMachineLoss, ThroughAnAgentTheOobsWordIsReportedAtOnce) {
  FakeJob j({.daemons = 2});
  j.run_all();
  j.m().daemon_lost(1, "reset by peer");
  EXPECT_EQ(j.last_shown().arg("what"), "reset by peer");
}

TEST(JobMachineLoss, ALossDuringTheTeardownIsNoFailure) {
  FakeJob j({.daemons = 2});
  j.run_all();
  j.m().rank_ended({.rank = 0});
  j.m().rank_ended({.rank = 1});
  j.m().daemon_lost(1, "closed");
  j.m().daemon_failed(2, "closed");
  EXPECT_TRUE(j.shown.empty());
  EXPECT_FALSE(j.m().failed());
}

// orcarun_command_line_test.sh: missing_daemon_program; orcarun_lifecycle_test.sh: many_daemons_failing_at_once
TEST(JobMachineLoss, ADaemonFailingDuringTheWireUpEndsTheJob) {
  FakeJob j({.daemons = 3});
  j.m().start();
  j.m().hello(1);
  j.m().up(1);
  j.agent_ends(2, exited(255), "ssh: Could not resolve hostname h2");
  EXPECT_EQ(j.last_shown().topic(), "daemon-failed");
  EXPECT_EQ(j.last_shown().arg("what"),
            "its agent (rsh) exited with status 255 before the daemon reported; it printed:\nssh: Could not resolve hostname h2");
  EXPECT_EQ(j.m().phase(), JobPhase::TearingDown);
  EXPECT_TRUE(j.logged("agent 3 15"));
}

TEST(JobMachineLoss, AnAgentEndingAfterItsDaemonCameUpSaysTheDaemonEndedEarly) {
  FakeJob j({.daemons = 2});
  j.run_all();
  j.agent_ends(1, exited(0));
  EXPECT_EQ(j.last_shown().arg("what"), "its daemon ended early: the agent exited with status 0; it printed nothing");
}

// orcarun_lifecycle_test.sh: daemon_crash_at_end_is_reported
TEST(JobMachineLoss, ADaemonCrashingAtTheEndIsStillABug) {
  FakeJob j({.daemons = 2});
  j.run_all();
  j.m().rank_ended({.rank = 0});
  j.m().rank_ended({.rank = 1});
  j.agent_ends(1, killed(SIGSEGV), "Segmentation fault");
  EXPECT_EQ(j.last_shown().topic(), "daemon-crashed-at-end");
  EXPECT_EQ(j.last_shown().arg("printed"), "Segmentation fault");
  EXPECT_EQ(j.m().exit_status(), 1);
  j.agent_ends(2, killed(SIGKILL));  // the teardown's own signal: no bug
  EXPECT_EQ(j.shown.size(), 1u);
  EXPECT_TRUE(j.done);
}

TEST(JobMachineLoss, AShellReportingACrashAs128PlusTheSignalCountsAsACrash) {
  FakeJob j({.daemons = 1});
  j.run_all();
  j.m().rank_ended({.rank = 0});
  j.agent_ends(1, exited(128 + SIGABRT));
  EXPECT_EQ(j.last_shown().topic(), "daemon-crashed-at-end");
}

// --- the one launch of every daemon (srun) ---------------------------------------

// orcarun_slurm_test.sh: srun_missing_from_path
TEST(JobMachineStep, AStepEndingDuringTheWireUpNamesTheDaemonsNotUp) {
  FakeJob j({.daemons = 3, .all_at_once = true, .plm = "slurm"});
  j.m().start();
  j.m().up(2);
  j.agents.erase(0);
  j.m().step_ended(exited(1), "srun: error: Unable to create step", "srun");
  EXPECT_EQ(j.last_shown().topic(), "daemons-step-ended");
  EXPECT_EQ(j.last_shown().arg("when"), "while the daemons were starting (1 of 3 up; not up: h1, h3)");
  EXPECT_EQ(j.last_shown().arg("program"), "srun");
  EXPECT_TRUE(j.done);
}

TEST(JobMachineStep, AStepEndingWhileTheJobRunsEndsItAll) {
  FakeJob j({.daemons = 2, .all_at_once = true, .plm = "slurm"});
  j.run_all();
  j.agents.erase(0);
  j.m().step_ended(killed(SIGTERM), "", "srun");
  EXPECT_EQ(j.last_shown().arg("when"), "while the job ran");
  EXPECT_EQ(j.m().ranks_left(), 0u);
  EXPECT_TRUE(j.done);
}

TEST(JobMachineStep, AStepEndingCleanlyAtTheEndIsQuiet) {
  FakeJob j({.daemons = 1, .all_at_once = true, .plm = "slurm"});
  j.run_all();
  j.m().rank_ended({.rank = 0});
  j.agents.erase(0);
  j.m().step_ended(exited(0), "", "srun");
  EXPECT_TRUE(j.shown.empty());
  EXPECT_TRUE(j.done);
}

// orcarun_slurm_test.sh: daemon_killed_mid_job
TEST(JobMachineStep, ALineOfTheStepNamingAHostFailsThatDaemon) {
  FakeJob j({.daemons = 3, .all_at_once = true, .plm = "slurm"});
  j.run_all();
  j.m().step_said_ended("h3", "srun reports that its task there ended: srun: error: h3: task 2: Killed");
  EXPECT_EQ(j.last_shown().arg("vpid"), "3");
  j.m().step_said_ended("nowhere", "x");
  EXPECT_EQ(j.shown.size(), 1u);
}

// --- signals and the output's reader -----------------------------------------------

// orcarun_lifecycle_test.sh: sigterm_reaches_starting_daemons
TEST(JobMachineSignal, ASignalDuringTheWireUpEndsTheJobWith128PlusIt) {
  FakeJob j({.daemons = 3});
  j.m().start();
  j.m().up(1);
  j.m().on_signal(SIGINT);
  EXPECT_EQ(j.last_shown().topic(), "interrupted-wire-up");
  EXPECT_EQ(j.last_shown().arg("up"), "1");
  EXPECT_EQ(j.last_shown().arg("ranks"), "and no rank was started");
  EXPECT_EQ(j.m().exit_status(), 128 + SIGINT);
  EXPECT_EQ(j.m().phase(), JobPhase::TearingDown);
}

// orcarun_early_start_test.sh: sigint_during_the_wire_up_ends_the_early_ranks
TEST(JobMachineSignal, AfterAnEarlyStartTheMessageSaysRanksRan) {
  FakeJob j({.daemons = 3, .start_early = true});
  j.m().start();
  j.m().up(1);
  j.m().on_signal(SIGTERM);
  EXPECT_EQ(j.last_shown().arg("ranks"), "and with them the ranks already started on those that were up");
  EXPECT_EQ(j.m().exit_status(), 128 + SIGTERM);
}

// orcarun_lifecycle_test.sh: sigint_ends_the_job, sigint_ignored_then_killed
TEST(JobMachineSignal, TheFirstSignalGoesToTheRanksTheSecondKillsThem) {
  FakeJob j({.daemons = 2});
  j.run_all();
  j.m().on_signal(SIGINT);
  EXPECT_EQ(j.log, (Log{"ranks 2"}));
  EXPECT_TRUE(j.is_armed(JobTimer::KillGrace));
  EXPECT_FALSE(j.m().failed());  // the ranks' ends decide the status
  j.m().on_signal(SIGINT);
  EXPECT_EQ(j.log, (Log{"ranks 2", "ranks 9"}));
}

TEST(JobMachineSignal, ASecondSignalDuringTheTeardownKillsTheAgents) {
  FakeJob j({.daemons = 2});
  j.run_all();
  j.m().on_signal(SIGINT);
  j.m().rank_ended({.rank = 0, .wait_status = killed(SIGINT)});
  j.m().rank_ended({.rank = 1, .wait_status = killed(SIGINT)});
  ASSERT_EQ(j.m().phase(), JobPhase::TearingDown);
  j.log.clear();
  j.m().on_signal(SIGINT);
  EXPECT_EQ(j.log, (Log{"ranks 9", "all-agents 9"}));
}

// orcarun_output_flow_test.sh: reader_gone_ends_the_job
TEST(JobMachineSignal, AStdoutNobodyReadsEndsTheJobAsAPipelinesWriter) {
  FakeJob j({.daemons = 2});
  j.run_all();
  j.m().output_broken();
  EXPECT_EQ(j.m().exit_status(), 128 + SIGPIPE);
  EXPECT_TRUE(j.shown.empty());
  EXPECT_EQ(j.log, (Log{"ranks 15"}));
  j.m().rank_ended({.rank = 0, .wait_status = exited(1)});  // the SIGTERM's doing: no new status
  EXPECT_EQ(j.m().exit_status(), 128 + SIGPIPE);
}

TEST(JobMachineSignal, AStdoutGoneDuringTheWireUpEndsIt) {
  FakeJob j({.daemons = 2});
  j.m().start();
  j.m().output_broken();
  EXPECT_EQ(j.m().phase(), JobPhase::TearingDown);
}

// --- daemons done before the job ------------------------------------------------------

// orcarun_lifecycle_test.sh: daemons_whose_ranks_are_done_end_early
TEST(JobMachineRelease, ADaemonWhoseRanksAreAllDoneIsReleased) {
  FakeJob j({.daemons = 3, .ranks_per_daemon = 2});
  j.run_all();
  j.m().rank_ended({.rank = 2});
  j.m().daemon_done(2);
  EXPECT_TRUE(j.log.empty());  // rank 3 still runs there
  j.m().rank_ended({.rank = 3});
  j.m().daemon_done(2);
  EXPECT_EQ(j.log, (Log{"release 2"}));
  EXPECT_TRUE(j.m().is_gone(2));
  j.agent_ends(2, exited(0));  // its end is no failure
  EXPECT_FALSE(j.m().failed());
}

TEST(JobMachineRelease, OnlyALeafChildOfOrcarunIsReleased) {
  FakeJob j({.daemons = 3, .radix = 2});
  j.run_all();
  j.m().rank_ended({.rank = 0});
  j.m().rank_ended({.rank = 2});
  j.m().daemon_done(1);  // interior: 3 is below it
  j.m().daemon_done(3);  // below 1: its parent would report it lost
  EXPECT_TRUE(j.log.empty());
}

TEST(JobMachineRelease, NotBeforeItWasSentTheCommand) {
  // No ranks at all: every daemon's ranks are done from the start.
  FakeJob j({.daemons = 2, .ranks_per_daemon = 0, .start_early = true});
  j.m().start();
  j.m().daemon_done(1);
  EXPECT_TRUE(only(j.log, "release").empty());
  j.m().up(1);  // commanded early; 2 is not
  j.m().daemon_done(2);
  EXPECT_TRUE(only(j.log, "release").empty());
  j.m().daemon_done(1);
  EXPECT_EQ(only(j.log, "release"), (Log{"release 1"}));
}

TEST(JobMachineRelease, AReleasedDaemonThatCrashesIsStillReported) {
  FakeJob j({.daemons = 2});
  j.run_all();
  j.m().rank_ended({.rank = 0});
  j.m().daemon_done(1);
  j.agent_ends(1, killed(SIGSEGV));
  EXPECT_EQ(j.last_shown().topic(), "daemon-crashed-at-end");
  EXPECT_EQ(j.m().exit_status(), 1);
}

}  // namespace
}  // namespace orca::launch
