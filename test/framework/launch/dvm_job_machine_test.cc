// DvmJobMachine: one job's end on a persistent DVM, driven by events and
// a fake clock, in milliseconds; and the rank failures it shares with
// JobMachine (rank_failure.h).
#include "launch/dvm_job_machine.h"
#include "launch/job_machine.h"
#include "launch/rank_failure.h"

#include "framework/launch/machine_fixtures.h"

#include <gtest/gtest.h>

#include <signal.h>

#include <memory>
#include <utility>

namespace orca::launch {
namespace {

using test::exited;
using test::killed;
using std::chrono::milliseconds;

using Log = std::vector<std::string>;

struct Shape {
  std::uint32_t daemons = 3;
  std::uint32_t ranks_per_daemon = 1;
  std::uint32_t idle_daemons = 0;  // more daemons, with none of the job's ranks
  std::optional<double> timeout;
  std::vector<std::string> app_commands;
  std::vector<std::uint32_t> app_first_rank;
};

const char* timer_name(DvmJobTimer t) {
  switch (t) {
    case DvmJobTimer::KillGrace: return "grace";
    case DvmJobTimer::JobTimeout: return "timeout";
    case DvmJobTimer::Drain: return "drain";
  }
  return "?";
}

// One job: the machine, and every hook call it made, in order.
class FakeDvmJob {
 public:
  explicit FakeDvmJob(const Shape& s) {
    DvmJobFacts facts{.command = "./app", .app_commands = s.app_commands, .app_first_rank = s.app_first_rank,
                      .kill_grace = milliseconds(5000), .timeout_seconds = s.timeout};
    for (std::uint32_t v = 1; v <= s.daemons + s.idle_daemons; ++v) facts.hosts.push_back("h" + std::to_string(v));
    for (std::uint32_t v = 1; v <= s.daemons; ++v) {
      for (std::uint32_t i = 0; i < s.ranks_per_daemon; ++i) facts.rank_daemon.push_back(v);
    }
    machine_ = std::make_unique<DvmJobMachine>(std::move(facts), hooks());
  }

  DvmJobMachine& m() { return *machine_; }
  // Started, and the log cleared.
  FakeDvmJob& started() {
    m().start();
    log.clear();
    return *this;
  }
  void advance(milliseconds d) {
    timers.advance(d, [this](DvmJobTimer t) { m().on_timer(t); });
  }
  // Ranks `from` to `to` (not included) end with `status`.
  void ranks_end(int status, std::uint32_t from, std::uint32_t to) {
    for (std::uint32_t r = from; r < to; ++r) m().rank_ended({.rank = r, .wait_status = status});
  }
  Log take() { return std::exchange(log, {}); }

  Log log;
  std::vector<Message> shown;
  test::FakeTimers<DvmJobTimer> timers;
  int done_calls = 0;

 private:
  DvmJobMachine::Hooks hooks() {
    return {
        .signal_ranks = [this](int s) { log.push_back("ranks " + std::to_string(s)); },
        .show =
            [this](const Message& msg) {
              log.push_back("show " + msg.topic());
              shown.push_back(msg);
            },
        .arm =
            [this](DvmJobTimer t, milliseconds d) {
              log.push_back(std::string("arm ") + timer_name(t) + " " + std::to_string(d.count()));
              timers.arm(t, d);
            },
        .cancel =
            [this](DvmJobTimer t) {
              log.push_back(std::string("cancel ") + timer_name(t));
              timers.cancel(t);
            },
        .done =
            [this](int status) {
              log.push_back("done " + std::to_string(status));
              ++done_calls;
            },
    };
  }

  std::unique_ptr<DvmJobMachine> machine_;
};

// --- ranks that end ------------------------------------------------------------------

TEST(DvmJobMachine, EveryRankEndingWellEndsTheJobWithZeroOnce) {
  FakeDvmJob j({.daemons = 3});
  j.started();
  EXPECT_EQ(j.m().ranks_left(), 3u);
  j.ranks_end(exited(0), 0, 2);
  EXPECT_TRUE(j.log.empty());
  EXPECT_EQ(j.m().phase(), DvmJobPhase::Running);
  j.ranks_end(exited(0), 2, 3);
  EXPECT_EQ(j.take(), (Log{"done 0"}));
  EXPECT_EQ(j.m().phase(), DvmJobPhase::Done);
  EXPECT_FALSE(j.m().failed());
  EXPECT_EQ(j.m().ranks_left(), 0u);
}

TEST(DvmJobMachine, StartArmsNothingWithoutATimeoutAndAJobOfNoRankIsDone) {
  FakeDvmJob j({.daemons = 2});
  j.m().start();
  EXPECT_TRUE(j.log.empty());
  FakeDvmJob none({.daemons = 0, .idle_daemons = 2});
  none.m().start();
  none.m().start();
  EXPECT_EQ(none.log, (Log{"done 0"}));
}

TEST(DvmJobMachine, AFailedRankSetsTheStatusShowsOnceAndStopsTheOthers) {
  FakeDvmJob j({.daemons = 3});
  j.started();
  j.m().rank_ended({.rank = 1, .wait_status = exited(3)});
  EXPECT_EQ(j.take(), (Log{"show rank-failed", "ranks 15", "arm grace 5000"}));
  EXPECT_EQ(j.shown.back().arg("rank"), "1");
  EXPECT_EQ(j.shown.back().arg("host"), "h2");
  EXPECT_EQ(j.shown.back().arg("command"), "./app");
  EXPECT_EQ(j.shown.back().arg("how"), "exited with status 3");
  EXPECT_TRUE(j.m().failed());
  EXPECT_EQ(j.m().exit_status(), 3);
  EXPECT_EQ(j.m().phase(), DvmJobPhase::Ending);

  // The others' ends, the SIGTERM's doing, say nothing more.
  j.m().rank_ended({.rank = 0, .wait_status = exited(5)});
  EXPECT_TRUE(j.take().empty());
  EXPECT_EQ(j.m().exit_status(), 3);

  // After the grace the last is killed, and its end is the job's.
  j.advance(milliseconds(4999));
  EXPECT_TRUE(j.log.empty());
  j.advance(milliseconds(1));
  EXPECT_EQ(j.take(), (Log{"ranks 9"}));
  j.m().rank_ended({.rank = 2, .wait_status = killed(SIGKILL)});
  EXPECT_EQ(j.take(), (Log{"done 3"}));
  EXPECT_EQ(j.shown.size(), 1u);
}

TEST(DvmJobMachine, RanksThatEndWithinTheGraceCancelIt) {
  FakeDvmJob j({.daemons = 2});
  j.started();
  j.m().rank_ended({.rank = 0, .wait_status = killed(SIGSEGV)});
  EXPECT_EQ(j.m().exit_status(), 128 + SIGSEGV);
  j.take();
  j.m().rank_ended({.rank = 1, .wait_status = killed(SIGTERM)});
  EXPECT_EQ(j.take(), (Log{"cancel grace", "done 139"}));
  EXPECT_FALSE(j.timers.is_armed(DvmJobTimer::KillGrace));
}

TEST(DvmJobMachine, TheLastRankFailingEndsTheJobWithoutSignals) {
  FakeDvmJob j({.daemons = 1});
  j.started();
  j.m().rank_ended({.rank = 0, .wait_status = exited(2)});
  EXPECT_EQ(j.take(), (Log{"show rank-failed", "done 2"}));
}

TEST(DvmJobMachine, ARankThatExitsZeroBeforeFinalizingFailsTheJob) {
  FakeDvmJob j({.daemons = 2});
  j.started();
  j.m().rank_ended({.rank = 0, .wait_status = exited(0), .pmi = PmiProgress::Finalized});
  EXPECT_TRUE(j.log.empty());
  j.m().rank_ended({.rank = 1, .wait_status = exited(0), .pmi = PmiProgress::Initialized});
  EXPECT_EQ(j.take(), (Log{"show rank-exited-unfinalized", "done 1"}));
}

TEST(DvmJobMachine, ARankThatCouldNotStartGives127AndNamesItsOwnProgram) {
  FakeDvmJob j({.daemons = 2, .ranks_per_daemon = 2, .app_commands = {"./master", "./worker"}, .app_first_rank = {0, 1}});
  j.started();
  j.m().rank_ended({.rank = 2, .wait_status = exited(127), .started = false, .message = "No such file or directory"});
  EXPECT_EQ(j.m().exit_status(), 127);
  EXPECT_EQ(j.shown.back().topic(), "rank-not-started");
  EXPECT_EQ(j.shown.back().arg("command"), "./worker");
  EXPECT_EQ(j.shown.back().arg("host"), "h2");
}

TEST(DvmJobMachine, UnknownAndRepeatedRankRecordsAreIgnored) {
  FakeDvmJob j({.daemons = 2});
  j.started();
  j.m().rank_ended({.rank = 7, .wait_status = exited(3)});
  j.m().rank_ended({.rank = 0, .wait_status = exited(0)});
  j.m().rank_ended({.rank = 0, .wait_status = exited(3)});
  EXPECT_TRUE(j.log.empty());
  EXPECT_EQ(j.m().ranks_left(), 1u);
  EXPECT_FALSE(j.m().failed());
  j.m().rank_ended({.rank = 1, .wait_status = exited(0)});
  EXPECT_EQ(j.take(), (Log{"done 0"}));
}

// --- aborts and the daemons' failures --------------------------------------------------------

TEST(DvmJobMachine, AnAbortFailsTheJobWithItsStatusAndTheRankStillCounts) {
  FakeDvmJob j({.daemons = 2});
  j.started();
  j.m().rank_aborted({.rank = 1, .status = 7, .message = "bad input"});
  EXPECT_EQ(j.take(), (Log{"show rank-aborted", "ranks 15", "arm grace 5000"}));
  EXPECT_EQ(j.shown.back().arg("host"), "h2");
  EXPECT_EQ(j.shown.back().arg("status"), "7");
  EXPECT_EQ(j.shown.back().arg("message"), ": bad input");
  EXPECT_EQ(j.m().exit_status(), 7);
  EXPECT_EQ(j.m().ranks_left(), 2u);  // its own end is still to come
  j.m().rank_aborted({.rank = 0, .status = 9});
  j.ranks_end(exited(7), 0, 2);
  EXPECT_EQ(j.take(), (Log{"cancel grace", "done 7"}));
}

TEST(DvmJobMachine, AnAbortWithStatusZeroOrABrokenProtocolGivesOne) {
  FakeDvmJob zero({.daemons = 1});
  zero.started();
  zero.m().rank_aborted({.rank = 0, .status = 0});
  EXPECT_EQ(zero.m().exit_status(), 1);
  FakeDvmJob broke({.daemons = 1});
  broke.started();
  broke.m().rank_aborted({.rank = 0, .status = 5, .broke = true, .message = "bad key"});
  EXPECT_EQ(broke.shown.back().topic(), "rank-broke-pmi");
  EXPECT_EQ(broke.shown.back().arg("why"), "bad key");
  EXPECT_EQ(broke.m().exit_status(), 1);
  FakeDvmJob unknown({.daemons = 1});
  unknown.started();
  unknown.m().rank_aborted({.rank = 1, .status = 5});
  EXPECT_TRUE(unknown.log.empty());
}

TEST(DvmJobMachine, ADaemonsFailureIsShownAsItNamedIt) {
  FakeDvmJob j({.daemons = 2});
  j.started();
  j.m().job_failed({.vpid = 3, .area = "orcarun", .topic = "x"});  // no such daemon
  EXPECT_TRUE(j.log.empty());
  j.m().job_failed({.vpid = 2, .area = "../orcarun", .topic = "working-directory-missing", .args = {{"host", "h\x1b" "2"}}});
  EXPECT_EQ(j.take(), (Log{"show working-directory-missing", "ranks 15", "arm grace 5000"}));
  EXPECT_EQ(j.shown.back().area(), "orcarun");
  EXPECT_EQ(j.shown.back().arg("host"), "h\\x1b2");
  EXPECT_EQ(j.m().exit_status(), 1);
  j.m().job_failed({.vpid = 1, .area = "orcarun", .topic = "other"});
  EXPECT_TRUE(j.log.empty());
}

// A daemon that could not start its ranks (a rank's PMI setup refused)
// says so; those ranks never report: once the others are killed, the
// drain ends the job (it waited for ever, its client too, SIGTERM or not).
TEST(DvmJobMachine, ADaemonsFailureIsDrainedOnceTheRanksAreKilled) {
  FakeDvmJob j({.daemons = 2, .ranks_per_daemon = 2});
  j.started();
  j.m().job_failed({.vpid = 1, .area = "orcarun", .topic = "dvm-node-cannot-start"});
  EXPECT_EQ(j.take(), (Log{"show dvm-node-cannot-start", "ranks 15", "arm grace 5000"}));
  j.ranks_end(killed(SIGTERM), 2, 4);  // daemon 2's, on SIGTERM
  j.advance(milliseconds(5000));
  EXPECT_EQ(j.take(), (Log{"ranks 9", "arm drain 3000"}));
  j.advance(milliseconds(3000));
  EXPECT_EQ(j.take(), (Log{"done 1"}));
  EXPECT_EQ(j.m().ranks_left(), 2u);  // daemon 1's: never started; the controller frees them
}

// --- lost daemons ----------------------------------------------------------------------------

TEST(DvmJobMachine, ALostDaemonsRanksAreGoneTheJobFailsAndTheOthersDrainAfterTheGrace) {
  FakeDvmJob j({.daemons = 3, .ranks_per_daemon = 2});
  j.started();
  j.m().rank_ended({.rank = 2, .wait_status = exited(0)});
  j.m().daemon_lost(2, "connection reset");
  EXPECT_EQ(j.take(), (Log{"show dvm-job-daemon-lost", "ranks 15", "arm grace 5000"}));
  EXPECT_EQ(j.shown.back().arg("host"), "h2");
  EXPECT_EQ(j.shown.back().arg("vpid"), "2");
  EXPECT_EQ(j.shown.back().arg("what"), "connection reset");
  EXPECT_EQ(j.shown.back().arg("count"), "1");  // rank 2 had ended
  EXPECT_EQ(j.m().ranks_left(), 4u);
  EXPECT_EQ(j.m().exit_status(), 1);
  // The others are killed after the grace, then have the drain to report.
  j.advance(milliseconds(5000));
  EXPECT_EQ(j.take(), (Log{"ranks 9", "arm drain 3000"}));
  j.ranks_end(killed(SIGKILL), 0, 2);
  j.advance(milliseconds(2999));
  EXPECT_TRUE(j.log.empty());
  j.advance(milliseconds(1));
  EXPECT_EQ(j.take(), (Log{"done 1"}));
  EXPECT_EQ(j.m().ranks_left(), 2u);  // never reported: the controller frees them
  EXPECT_EQ(j.done_calls, 1);
}

TEST(DvmJobMachine, ReportsWithinTheDrainEndTheJobAndCancelIt) {
  FakeDvmJob j({.daemons = 2});
  j.started();
  j.m().daemon_lost(1, "silent");
  j.advance(milliseconds(5000));
  j.take();
  j.m().rank_ended({.rank = 1, .wait_status = killed(SIGKILL)});
  EXPECT_EQ(j.take(), (Log{"cancel drain", "done 1"}));
}

TEST(DvmJobMachine, ALostDaemonWithNoneOfTheJobsRanksChangesNothing) {
  FakeDvmJob j({.daemons = 2, .idle_daemons = 1});
  j.started();
  j.m().daemon_lost(3, "connection reset");   // none of its ranks
  j.m().daemon_lost(9, "connection reset");   // no such daemon
  j.m().rank_ended({.rank = 0, .wait_status = exited(0)});
  j.m().daemon_lost(1, "connection reset");   // its ranks had ended
  EXPECT_TRUE(j.log.empty());
  EXPECT_FALSE(j.m().failed());
  EXPECT_EQ(j.m().phase(), DvmJobPhase::Running);
  j.m().rank_ended({.rank = 1, .wait_status = exited(0)});
  EXPECT_EQ(j.take(), (Log{"done 0"}));
}

TEST(DvmJobMachine, ALostDaemonWithTheLastRanksEndsTheJobAtOnce) {
  FakeDvmJob j({.daemons = 2});
  j.started();
  j.m().rank_ended({.rank = 0, .wait_status = exited(0)});
  j.m().daemon_lost(2, "connection refused");
  EXPECT_EQ(j.take(), (Log{"show dvm-job-daemon-lost", "done 1"}));
  j.m().daemon_lost(2, "connection refused");
  EXPECT_TRUE(j.log.empty());
}

TEST(DvmJobMachine, ALossAfterAFailureShowsNothingMoreAndDrainsOnceKilled) {
  FakeDvmJob j({.daemons = 3});
  j.started();
  j.m().rank_ended({.rank = 0, .wait_status = exited(4)});
  j.take();
  j.m().daemon_lost(2, "connection reset");
  EXPECT_TRUE(j.log.empty());  // the ranks got SIGTERM already; the grace runs
  EXPECT_EQ(j.m().exit_status(), 4);
  j.m().on_signal(SIGINT);
  j.m().on_signal(SIGINT);  // killed now: the drain starts
  EXPECT_EQ(j.take(), (Log{"ranks 2", "ranks 9", "arm drain 3000"}));
  j.advance(milliseconds(3000));
  EXPECT_EQ(j.take(), (Log{"cancel grace", "done 4"}));
}

// --- the DVM ending the job --------------------------------------------------------------------

TEST(DvmJobMachine, TheDvmEndingTheJobFailsItStopsTheRanksAndDrainsAfterTheGrace) {
  FakeDvmJob j({.daemons = 2});
  j.started();
  j.m().end(Message("launch", "dvm-stopping", {{"why", "orcadvm stop"}}));
  EXPECT_EQ(j.take(), (Log{"show dvm-stopping", "ranks 15", "arm grace 5000"}));
  EXPECT_EQ(j.m().exit_status(), 1);
  j.advance(milliseconds(5000));
  EXPECT_EQ(j.take(), (Log{"ranks 9", "arm drain 3000"}));
  j.advance(milliseconds(3000));
  EXPECT_EQ(j.take(), (Log{"done 1"}));
}

TEST(DvmJobMachine, TheDvmEndingAFailedJobSaysNothingMore) {
  FakeDvmJob j({.daemons = 2});
  j.started();
  j.m().rank_ended({.rank = 0, .wait_status = exited(3)});
  j.take();
  j.m().end(Message("launch", "dvm-daemon-lost"));
  EXPECT_TRUE(j.log.empty());
  EXPECT_EQ(j.m().exit_status(), 3);
  j.m().rank_ended({.rank = 1, .wait_status = killed(SIGTERM)});
  EXPECT_EQ(j.take(), (Log{"cancel grace", "done 3"}));
  j.m().end(Message("launch", "dvm-stopping"));
  EXPECT_TRUE(j.log.empty());
}

// --- the client ---------------------------------------------------------------------------------

TEST(DvmJobMachine, TheClientsFirstSignalGoesToTheRanksTheSecondKillsThem) {
  FakeDvmJob j({.daemons = 2});
  j.started();
  j.m().on_signal(SIGINT);
  EXPECT_EQ(j.take(), (Log{"ranks 2", "arm grace 5000"}));
  EXPECT_FALSE(j.m().failed());  // the ranks' ends decide the status
  EXPECT_EQ(j.m().phase(), DvmJobPhase::Ending);
  j.m().on_signal(SIGINT);
  EXPECT_EQ(j.take(), (Log{"ranks 9"}));
  j.advance(milliseconds(5000));  // the grace finds them killed already
  EXPECT_TRUE(j.log.empty());
}

TEST(DvmJobMachine, RanksEndedByTheClientsSignalGiveTheStatus) {
  FakeDvmJob j({.daemons = 2});
  j.started();
  j.m().on_signal(SIGINT);
  j.take();
  j.m().rank_ended({.rank = 0, .wait_status = killed(SIGINT)});
  EXPECT_EQ(j.take(), (Log{"show rank-failed", "ranks 15"}));
  j.m().rank_ended({.rank = 1, .wait_status = killed(SIGINT)});
  EXPECT_EQ(j.take(), (Log{"cancel grace", "done 130"}));

  // Ranks that catch the signal and finish well: the job succeeded.
  FakeDvmJob caught({.daemons = 2});
  caught.started();
  caught.m().on_signal(SIGTERM);
  caught.take();
  caught.ranks_end(exited(0), 0, 2);
  EXPECT_EQ(caught.take(), (Log{"cancel grace", "done 0"}));
}

TEST(DvmJobMachine, AClientGoneKillsTheRanksAtOnceShowsNothingAndDrains) {
  FakeDvmJob j({.daemons = 2});
  j.started();
  j.m().client_lost();
  EXPECT_EQ(j.take(), (Log{"ranks 9", "arm drain 3000"}));
  EXPECT_EQ(j.m().exit_status(), 128 + SIGHUP);
  j.m().client_lost();
  j.m().on_signal(SIGINT);
  j.m().rank_ended({.rank = 0, .wait_status = killed(SIGKILL)});
  j.m().daemon_lost(2, "gone too");
  EXPECT_EQ(j.take(), (Log{"cancel drain", "done 129"}));
  EXPECT_TRUE(j.shown.empty());
}

TEST(DvmJobMachine, AClientGoneEndsByTheDrainIfRanksNeverReport) {
  FakeDvmJob j({.daemons = 2});
  j.started();
  j.m().rank_ended({.rank = 0, .wait_status = exited(6)});
  j.m().client_lost();
  EXPECT_EQ(j.take(), (Log{"show rank-failed", "ranks 15", "arm grace 5000", "ranks 9", "arm drain 3000"}));
  j.advance(milliseconds(3000));
  EXPECT_EQ(j.take(), (Log{"cancel grace", "done 6"}));  // the first failure's status stands
}

// --- --timeout -------------------------------------------------------------------------------

TEST(DvmJobMachine, TheTimeoutFailsTheJobAndStopsTheRanks) {
  FakeDvmJob j({.daemons = 2, .timeout = 1.5});
  j.m().start();
  EXPECT_EQ(j.take(), (Log{"arm timeout 1500"}));
  j.advance(milliseconds(1500));
  EXPECT_EQ(j.take(), (Log{"show job-timeout", "ranks 15", "arm grace 5000"}));
  EXPECT_EQ(j.shown.back().arg("seconds"), "1.5");
  EXPECT_EQ(j.m().exit_status(), 1);
  j.ranks_end(killed(SIGTERM), 0, 2);
  EXPECT_EQ(j.take(), (Log{"cancel grace", "done 1"}));
}

TEST(DvmJobMachine, AJobDoneBeforeItsTimeoutCancelsIt) {
  FakeDvmJob j({.daemons = 1, .timeout = 60});
  j.started();
  j.m().rank_ended({.rank = 0, .wait_status = exited(0)});
  EXPECT_EQ(j.take(), (Log{"cancel timeout", "done 0"}));
}

// --- after the end ---------------------------------------------------------------------------

TEST(DvmJobMachine, NothingHappensAfterDone) {
  FakeDvmJob j({.daemons = 2, .timeout = 10});
  j.started();
  j.m().rank_ended({.rank = 0, .wait_status = exited(0)});
  j.m().rank_ended({.rank = 1, .wait_status = exited(0)});
  EXPECT_EQ(j.take(), (Log{"cancel timeout", "done 0"}));
  j.m().start();
  j.m().rank_ended({.rank = 1, .wait_status = exited(3)});
  j.m().rank_aborted({.rank = 0, .status = 3});
  j.m().job_failed({.vpid = 1, .area = "orcarun", .topic = "x"});
  j.m().daemon_lost(1, "gone");
  j.m().on_signal(SIGINT);
  j.m().client_lost();
  j.m().end(Message("launch", "dvm-stopping"));
  for (DvmJobTimer t : {DvmJobTimer::KillGrace, DvmJobTimer::JobTimeout, DvmJobTimer::Drain}) j.m().on_timer(t);
  EXPECT_TRUE(j.log.empty());
  EXPECT_EQ(j.m().exit_status(), 0);
  EXPECT_EQ(j.done_calls, 1);
}

TEST(DvmJobMachine, ATimerNotArmedIsIgnored) {
  FakeDvmJob j({.daemons = 2});
  j.started();
  for (DvmJobTimer t : {DvmJobTimer::KillGrace, DvmJobTimer::JobTimeout, DvmJobTimer::Drain}) j.m().on_timer(t);
  EXPECT_TRUE(j.log.empty());
  EXPECT_EQ(j.m().phase(), DvmJobPhase::Running);
}

// --- what a rank's end means (shared with JobMachine) ---------------------------------------------

TEST(RankFailure, AGoodEndIsNoFailure) {
  EXPECT_FALSE(rank_failure({.rank = 0, .wait_status = exited(0)}, "h1", "./app"));
  EXPECT_FALSE(rank_failure({.rank = 0, .wait_status = exited(0), .pmi = PmiProgress::Finalized}, "h1", "./app"));
  EXPECT_TRUE(rank_failure({.rank = 0, .wait_status = exited(0), .pmi = PmiProgress::Initialized}, "h1", "./app"));
}

TEST(RankFailure, TheStepThatFailedNamesTheTopicAndValuesArePrintable) {
  auto topic = [](const std::string& why) {
    return rank_failure({.rank = 3, .wait_status = exited(127), .started = false, .message = why}, "h1", "./app")->message.topic();
  };
  EXPECT_EQ(topic("cannot enter the working directory /x: No such file or directory"), "rank-directory-missing");
  EXPECT_EQ(topic("cannot bind to CPUs 3: Invalid argument"), "rank-not-bound");
  EXPECT_EQ(topic("No such file or directory"), "rank-not-started");
  const auto f = rank_failure({.rank = 3, .wait_status = exited(2)}, "h\x1b[2J", "./a\x07pp");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->exit_status, 2);
  EXPECT_EQ(f->message.arg("host"), "h\\x1b[2J");
  EXPECT_EQ(f->message.arg("command"), "./a\\x07pp");
}

TEST(RankFailure, ARanksProgramIsItsAppsOrTheCommand) {
  const std::string command = "./app";
  const std::vector<std::string> apps{"./master", "./worker"};
  const std::vector<std::uint32_t> first{0, 1};
  EXPECT_EQ(rank_command(command, apps, first, 0), "./master");
  EXPECT_EQ(rank_command(command, apps, first, 5), "./worker");
  EXPECT_EQ(rank_command(command, {}, {}, 5), "./app");
  EXPECT_EQ(rank_command(command, apps, {2, 4}, 1), "./app");  // before the first app
}

TEST(RankFailure, AReportedMessageRoundTripsAndIsMadeSafeOnTheWayBack) {
  const Message why("pmi", "pmi-server-failed", {{"host", "h1"}, {"reason", "bad\x1b[2J"}});
  const JobFailure f = job_failure_of(why, 7, 3);
  EXPECT_EQ(f.job, 7u);
  EXPECT_EQ(f.vpid, 3u);
  ASSERT_EQ(f.args.size(), 2u);
  EXPECT_EQ(f.args[1].value, "bad\x1b[2J");  // as given: the reader makes it printable
  const Message back = job_failure_message(f);
  EXPECT_EQ(back.area(), "pmi");
  EXPECT_EQ(back.topic(), "pmi-server-failed");
  EXPECT_EQ(back.arg("host"), "h1");
  EXPECT_EQ(back.arg("reason").find('\x1b'), std::string::npos);
}

}  // namespace
}  // namespace orca::launch
