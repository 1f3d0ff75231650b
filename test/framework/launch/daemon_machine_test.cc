// DaemonMachine: orcad's lifecycle policies, driven by events and a fake
// clock, in milliseconds. The routing trees are radix ones: with radix 2
// and 6 daemons, children(0) = {1, 2}, children(1) = {3, 4},
// children(2) = {5, 6}, and parent(3) = 1.
#include "launch/daemon_machine.h"

#include "framework/launch/machine_fixtures.h"

#include <gtest/gtest.h>

#include <signal.h>

#include <algorithm>
#include <map>
#include <memory>
#include <utility>

namespace orca::launch {
namespace {

using test::exited;
using test::killed;
using test::only;
using test::radix_tree;

using std::chrono::milliseconds;
using test::Succeeded;
using Log = std::vector<std::string>;

struct Shape {
  std::uint32_t daemons = 6;
  std::uint32_t radix = 2;
  std::uint32_t self = 1;
};

ExitRecord rank_exit(std::uint32_t rank, int wait_status, bool started = true) {
  return ExitRecord{.rank = rank, .wait_status = wait_status, .started = started};
}

// One daemon: the machine, and everything it asked of the program, in order.
class FakeDaemon {
 public:
  explicit FakeDaemon(const Shape& s) : tree_(radix_tree(s.radix, s.daemons)) {
    DaemonFacts facts{.tree = &tree_, .self = s.self};
    for (std::uint32_t v = 1; v <= s.daemons; ++v) facts.hosts.push_back("h" + std::to_string(v));
    machine_ = std::make_unique<DaemonMachine>(std::move(facts), hooks());
  }

  DaemonMachine& m() { return *machine_; }

  // The clock moves on by `d`: the timers due fire, in deadline order.
  void advance(milliseconds d) {
    timers.advance(d, [this](DaemonTimer t) { m().on_timer(t); });
  }
  bool logged(const std::string& entry) const { return std::find(log.begin(), log.end(), entry) != log.end(); }
  bool is_armed(DaemonTimer t) const { return timers.is_armed(t); }
  milliseconds armed_for(DaemonTimer t) const { return timers.armed_for(t); }

  std::vector<std::string> log;
  std::vector<std::string> failures;  // the messages alone, for substring checks
  test::FakeTimers<DaemonTimer> timers;
  // The program's answers about its processes.
  bool ranks_running = false;
  bool ranks_idle = true;
  bool pmi_serves = false;
  std::size_t agents = 0;
  std::function<void(std::uint32_t)> on_failure;  // what sending the report does (the oob may lose the parent)

 private:
  DaemonMachine::Hooks hooks() {
    return {
        .report_failure =
            [this](std::uint32_t v, const std::string& msg) {
              log.push_back("failure " + std::to_string(v) + ": " + msg);
              failures.push_back(msg);
              if (on_failure) on_failure(v);
            },
        .report_exit =
            [this](const ExitRecord& r) {
              log.push_back("exit " + std::to_string(r.rank) + " " + std::to_string(r.wait_status));
            },
        .say_done = [this] { log.push_back("done"); },
        .signal_ranks = [this](int s) { log.push_back("ranks " + std::to_string(s)); },
        .end_lost_agent = [this](std::uint32_t v) { log.push_back("end-lost " + std::to_string(v)); },
        .signal_agent = [this](std::uint32_t v, int s) { log.push_back("agent " + std::to_string(v) + " " + std::to_string(s)); },
        .signal_all_agents = [this](int s) { log.push_back("all-agents " + std::to_string(s)); },
        .cancel_launches = [this] { log.push_back("cancel-launches"); },
        .forget_child = [this](std::uint32_t v) { log.push_back("forget " + std::to_string(v)); },
        .arm = [this](DaemonTimer t, milliseconds d) { timers.arm(t, d); },
        .cancel = [this](DaemonTimer t) { timers.cancel(t); },
        .log = [this](const std::string& text) { log.push_back("log " + text); },
        .stop = [this] { log.push_back("stop"); },
        .ranks_running = [this] { return ranks_running; },
        .ranks_idle = [this] { return ranks_idle; },
        .pmi_serves_ranks = [this] { return pmi_serves; },
        .agents_running = [this] { return agents; },
    };
  }

  routed::RoutingTree tree_;
  std::unique_ptr<DaemonMachine> machine_;
};

// A leaf child of orcarun (2 daemons, radix 2: 1 and 2 have no children)
// whose command came: the one kind of daemon that says it is done.
Shape leaf_of_orcarun() { return {.daemons = 2, .radix = 2, .self = 1}; }

// --- hello/welcome -------------------------------------------------------------

// A child's hello over its own connection, naming itself, is welcome.
TEST(DaemonMachineTree, OwnChildsHelloIsWelcome) {
  FakeDaemon d({.self = 1});
  EXPECT_TRUE(d.m().node().is_childs_hello(3, 3));
  EXPECT_TRUE(d.m().node().is_childs_hello(4, 4));
  EXPECT_TRUE(d.log.empty());
}

// A daemon cannot speak for another: the connection's vpid must be the claimed one.
TEST(DaemonMachineTree, AHelloClaimingAnotherVpidIsRefused) {
  FakeDaemon d({.self = 1});
  EXPECT_FALSE(d.m().node().is_childs_hello(3, 4));
  EXPECT_FALSE(d.m().node().is_childs_hello(4, 3));
}

// Only a node's own children say hello to it, not those further down.
TEST(DaemonMachineTree, AGrandchildsHelloIsRefused) {
  FakeDaemon d({.daemons = 10, .self = 1});  // children(3) = {7, 8}
  EXPECT_TRUE(d.m().node().is_childs_hello(3, 3));
  EXPECT_FALSE(d.m().node().is_childs_hello(7, 7));
  EXPECT_FALSE(d.m().node().is_childs_hello(8, 8));
}

// The parent (and this daemon itself) never says hello to it.
TEST(DaemonMachineTree, TheParentsOrOwnHelloIsRefused) {
  FakeDaemon d({.self = 3});
  EXPECT_FALSE(d.m().node().is_childs_hello(1, 1));
  EXPECT_FALSE(d.m().node().is_childs_hello(3, 3));
}

// A vpid outside 1..daemons is nobody's child.
TEST(DaemonMachineTree, AnOutOfRangeHelloIsRefused) {
  FakeDaemon d({.self = 3});  // children(3) = {7, 8}, but there are 6 daemons
  EXPECT_FALSE(d.m().node().is_childs_hello(7, 7));
  EXPECT_FALSE(d.m().node().is_childs_hello(0, 0));
}

// The report goes up on the first connection only: a reconnect reports nothing.
TEST(DaemonMachineTree, ConnectedToParentIsTrueOnlyTheFirstTime) {
  FakeDaemon d({.self = 3});
  EXPECT_TRUE(d.m().connected_to_parent());
  EXPECT_FALSE(d.m().connected_to_parent());
  EXPECT_FALSE(d.m().connected_to_parent());
  EXPECT_TRUE(d.log.empty());
}

// A child whose contact cannot be added is reported, naming its host.
TEST(DaemonMachineTree, AnUnreachableChildIsReported) {
  FakeDaemon d({.self = 1});
  d.m().child_unreachable(3, "bad uri");
  EXPECT_EQ(d.log, (Log{"failure 3: cannot add the daemon on h3 as a peer: bad uri"}));
  EXPECT_FALSE(d.m().ending());
}

// An agent that could not start is reported, naming its host.
TEST(DaemonMachineTree, AnAgentThatDidNotStartIsReported) {
  FakeDaemon d({.self = 1});
  d.m().child_not_started(4, "ssh: not found");
  EXPECT_EQ(d.log, (Log{"failure 4: cannot start the agent for h4: ssh: not found"}));
  EXPECT_FALSE(d.m().ending());
}

// --- the job -------------------------------------------------------------------

// One job per daemon: the command starts the ranks once.
TEST(DaemonMachineRanks, CommandIsTrueOnlyTheFirstTime) {
  FakeDaemon d({.self = 3});
  EXPECT_FALSE(d.m().command_came());
  EXPECT_TRUE(d.m().command());
  EXPECT_TRUE(d.m().command_came());
  EXPECT_FALSE(d.m().command());
  EXPECT_TRUE(d.m().command_came());
}

// A leaf child of orcarun with no rank left says done, once.
TEST(DaemonMachineRanks, ALeafChildOfOrcarunWithNoRanksSaysDoneOnce) {
  FakeDaemon d(leaf_of_orcarun());
  ASSERT_TRUE(d.m().command());
  d.m().ranks_started();
  EXPECT_EQ(d.log, (Log{"done"}));
  d.m().ranks_started();
  d.m().rank_ended(rank_exit(0, exited(0)));
  EXPECT_EQ(d.log, (Log{"done", "exit 0 0"}));  // not twice
}

// Another rank may still ask pmi for their data: not done yet.
TEST(DaemonMachineRanks, NotDoneWhilePmiServesTheRanks) {
  FakeDaemon d(leaf_of_orcarun());
  d.pmi_serves = true;
  d.m().command();
  d.m().ranks_started();
  EXPECT_TRUE(d.log.empty());
}

// A rank still running (or reading stdin) keeps the daemon: not done until idle.
TEST(DaemonMachineRanks, NotDoneUntilTheRanksAreIdle) {
  FakeDaemon d(leaf_of_orcarun());
  d.ranks_idle = false;
  d.m().command();
  d.m().ranks_started();
  EXPECT_TRUE(d.log.empty());
  d.ranks_idle = true;
  d.m().rank_ended(rank_exit(0, exited(0)));
  EXPECT_EQ(d.log, (Log{"exit 0 0", "done"}));  // the exit first
}

// Once ending, orcarun's teardown (or the end) releases the daemon: no done.
TEST(DaemonMachineRanks, NotDoneWhileEnding) {
  FakeDaemon d(leaf_of_orcarun());
  d.ranks_running = true;
  d.ranks_idle = false;
  d.m().command();
  d.m().ranks_started();
  d.m().teardown(SIGTERM);
  d.log.clear();
  d.ranks_running = false;
  d.ranks_idle = true;
  d.m().rank_ended(rank_exit(0, killed(SIGTERM)));
  EXPECT_EQ(d.log, (Log{"exit 0 15", "stop"}));
}

// Only orcarun's children say done: one below another daemon does not.
TEST(DaemonMachineRanks, NotDoneForADaemonWhoseParentIsNotOrcarun) {
  FakeDaemon d({.self = 3});  // parent 1, no children among 6
  d.m().command();
  d.m().ranks_started();
  EXPECT_TRUE(d.log.empty());
}

// A daemon with children must stay: they relay through it, and with tree
// spawn it runs their agents.
TEST(DaemonMachineRanks, NotDoneForADaemonWithChildren) {
  FakeDaemon d({.self = 1});  // parent 0, children 3 and 4
  d.m().command();
  d.m().ranks_started();
  EXPECT_TRUE(d.log.empty());
}

// Before the command there is no job to be done with.
TEST(DaemonMachineRanks, NotDoneBeforeTheCommand) {
  FakeDaemon d(leaf_of_orcarun());
  d.m().ranks_started();
  d.m().rank_ended(rank_exit(1, exited(0)));
  EXPECT_EQ(d.log, (Log{"exit 1 0"}));
  d.m().command();
  d.m().ranks_started();
  EXPECT_EQ(d.log, (Log{"exit 1 0", "done"}));
}

// A rank's exit goes up as waitpid gave it.
TEST(DaemonMachineRanks, ARankExitIsReportedUnchanged) {
  FakeDaemon d({.self = 3});
  d.m().command();
  d.m().rank_ended(rank_exit(4, exited(3)));
  d.m().rank_ended(rank_exit(5, killed(SIGSEGV)));
  EXPECT_EQ(d.log, (Log{"exit 4 768", "exit 5 11"}));
}

// A rank whose exec failed reads as a shell's "command not found" (127).
TEST(DaemonMachineRanks, ARankThatNeverStartedIsReportedAsStatus127) {
  FakeDaemon d({.self = 3});
  d.m().command();
  d.m().rank_ended(rank_exit(2, exited(1), false));
  EXPECT_EQ(d.log, (Log{"exit 2 " + std::to_string(127 << 8)}));
}

// --- lost peers ----------------------------------------------------------------

// The parent lost: one report, ranks killed, launches dropped, agents told, exit 1.
TEST(DaemonMachineLost, TheParentLostEndsTheDaemon) {
  FakeDaemon d({.self = 3});
  d.ranks_running = true;
  d.m().peer_lost(1, "reset");
  ASSERT_EQ(only(d.log, "failure").size(), 1u);
  EXPECT_EQ(only(d.log, "failure")[0].rfind("failure 3: ", 0), 0u);
  EXPECT_NE(d.failures[0].find("parent is gone"), std::string::npos);
  EXPECT_NE(d.failures[0].find("reset"), std::string::npos);
  // Logged, said up, then the ranks, the queued launches and the agents.
  ASSERT_EQ(d.log.size(), 5u);
  EXPECT_EQ(d.log[0].rfind("log ", 0), 0u);
  EXPECT_EQ(d.log[1].rfind("failure 3: ", 0), 0u);
  EXPECT_EQ(Log(d.log.begin() + 2, d.log.end()), (Log{"ranks 9", "cancel-launches", "all-agents 15"}));
  EXPECT_EQ(d.armed_for(DaemonTimer::EndLimit), kDaemonEndLimit);
  EXPECT_TRUE(d.is_armed(DaemonTimer::EndLimit));
  EXPECT_EQ(d.m().phase(), DaemonPhase::Ending);
  EXPECT_EQ(d.m().exit_status(), 1);
}

// For a child of orcarun, vpid 0 is the parent.
TEST(DaemonMachineLost, OrcarunLostIsTheParentOfItsChildren) {
  FakeDaemon d({.self = 2});
  d.ranks_running = true;
  d.m().peer_lost(0, "eof");
  EXPECT_EQ(d.failures.size(), 1u);
  EXPECT_TRUE(d.logged("ranks 9"));
  EXPECT_EQ(d.m().exit_status(), 1);
}

// Once the parent is gone the ranks' SIGKILL is not news: no exit goes up.
TEST(DaemonMachineLost, AfterTheParentIsGoneRankExitsAreNotReported) {
  FakeDaemon d(leaf_of_orcarun());
  d.ranks_running = true;
  d.m().command();
  d.m().peer_lost(0, "eof");
  d.log.clear();
  d.m().rank_ended(rank_exit(0, killed(SIGKILL)));
  EXPECT_TRUE(d.log.empty());
  d.ranks_running = false;
  d.m().rank_ended(rank_exit(1, killed(SIGKILL)));
  EXPECT_EQ(d.log, (Log{"stop"}));  // the last one still ends the daemon
}

// A child we launched is lost: reported, its agent ended, SIGKILLed after the grace.
TEST(DaemonMachineLost, ALaunchedChildLostHasItsAgentEnded) {
  FakeDaemon d({.self = 1});
  d.m().child_launched(3);
  d.m().child_launched(4);
  d.m().peer_lost(3, "reset");
  EXPECT_EQ(d.log, (Log{"failure 3: the daemon on h3 (vpid 3) was lost: reset", "end-lost 3"}));
  EXPECT_EQ(d.armed_for(DaemonTimer::LostAgentKill), kLostAgentGrace);
  d.advance(kLostAgentGrace - milliseconds(1));
  EXPECT_FALSE(d.logged("agent 3 9"));
  d.advance(milliseconds(1));
  EXPECT_EQ(d.log.back(), "agent 3 9");
  EXPECT_FALSE(d.logged("agent 4 9"));  // only the lost one
  EXPECT_EQ(d.m().phase(), DaemonPhase::Running);
}

// The kill after the grace reaches only the agents this daemon runs, even
// when a child it did not launch was lost meanwhile.
TEST(DaemonMachineLost, TheKillAfterTheGraceSparesAgentsRunElsewhere) {
  FakeDaemon d({.daemons = 10, .self = 1});
  d.m().child_launched(3);
  d.m().peer_lost(3, "reset");
  d.m().peer_lost(7, "reset");  // below 3: its agent is 3's
  d.advance(kLostAgentGrace);
  EXPECT_TRUE(d.logged("agent 3 9"));
  EXPECT_FALSE(d.logged("agent 7 9"));
}

// A lost child whose agent another node runs: reported, no agent to end.
TEST(DaemonMachineLost, AChildNotLaunchedHereIsReportedOnly) {
  FakeDaemon d({.self = 1});
  d.m().peer_lost(4, "timeout");
  d.m().peer_lost(4, "timeout");  // the oob says so again: once is news
  EXPECT_EQ(d.log, (Log{"failure 4: the daemon on h4 (vpid 4) was lost: timeout"}));
  EXPECT_FALSE(d.is_armed(DaemonTimer::LostAgentKill));
  EXPECT_EQ(d.m().phase(), DaemonPhase::Running);
}

// A daemon further down the subtree is below this one: reported, its agent is its parent's.
TEST(DaemonMachineLost, AGrandchildLostIsReportedOnly) {
  FakeDaemon d({.daemons = 10, .self = 1});
  d.m().child_launched(3);
  d.m().peer_lost(7, "reset");
  EXPECT_EQ(d.log, (Log{"failure 7: the daemon on h7 (vpid 7) was lost: reset"}));
  EXPECT_FALSE(d.is_armed(DaemonTimer::LostAgentKill));
}

// A peer elsewhere in the tree, out of range, or this daemon itself is no loss of ours.
TEST(DaemonMachineLost, AStrangerLostIsIgnored) {
  FakeDaemon d({.self = 3});
  d.m().peer_lost(4, "reset");   // a sibling
  d.m().peer_lost(2, "reset");   // the parent's sibling
  d.m().peer_lost(0, "reset");   // orcarun, not this daemon's parent
  d.m().peer_lost(7, "reset");   // its child in the shape, beyond 6 daemons
  d.m().peer_lost(99, "reset");
  d.m().peer_lost(3, "reset");   // itself
  EXPECT_TRUE(d.log.empty());
  EXPECT_EQ(d.m().phase(), DaemonPhase::Running);
}

// Once ending, losses are the end's own doing: nothing more is said or done.
TEST(DaemonMachineLost, PeerLostWhileEndingDoesNothing) {
  FakeDaemon d({.self = 1});
  d.ranks_running = true;
  d.m().child_launched(3);
  d.m().teardown(15);
  d.log.clear();
  d.m().peer_lost(3, "closed");
  d.m().peer_lost(0, "closed");
  EXPECT_TRUE(d.log.empty());
  EXPECT_EQ(d.m().exit_status(), 0);  // a teardown's end, not a parent's loss
}

// A lost child's agent ending afterwards was the machine's doing: not reported again.
TEST(DaemonMachineLost, ALostChildsAgentExitIsNotReportedAgain) {
  FakeDaemon d({.self = 1});
  d.m().child_launched(3);
  d.m().peer_lost(3, "reset");
  d.log.clear();
  d.m().child_agent_exited(3, killed(SIGTERM), "");
  EXPECT_TRUE(d.log.empty());
}

// The oob may say twice that it lost a child whose agent is ending: one report.
TEST(DaemonMachineLost, ALaunchedChildLostTwiceIsReportedOnce) {
  FakeDaemon d({.self = 1});
  d.m().child_launched(3);
  d.m().peer_lost(3, "reset");
  d.log.clear();
  d.m().peer_lost(3, "reset again");
  EXPECT_TRUE(d.log.empty());
}

// --- the children's agents -----------------------------------------------------

// An agent ending while the job runs is a failure, with what it printed.
TEST(DaemonMachineAgents, AnAgentExitWhileRunningIsReportedWithItsOutput) {
  FakeDaemon d({.self = 1});
  d.m().child_launched(4);
  d.m().child_agent_exited(4, exited(255), "ssh: connect to host h4: No route");
  ASSERT_EQ(d.failures.size(), 1u);
  EXPECT_EQ(d.log[0].rfind("failure 4: the agent for h4 (vpid 4) ", 0), 0u);
  EXPECT_NE(d.failures[0].find("255"), std::string::npos);
  EXPECT_NE(d.failures[0].find(", printing:\nssh: connect to host h4: No route"), std::string::npos);
  EXPECT_EQ(d.m().phase(), DaemonPhase::Running);
}

// An agent that printed nothing says so.
TEST(DaemonMachineAgents, AnAgentExitWithoutOutputSaysItPrintedNothing) {
  FakeDaemon d({.self = 1});
  d.m().child_agent_exited(3, killed(SIGKILL), "");
  ASSERT_EQ(d.failures.size(), 1u);
  EXPECT_EQ(d.log[0].rfind("failure 3: the agent for h3 (vpid 3) ", 0), 0u);
  EXPECT_NE(d.failures[0].find("printing nothing"), std::string::npos);
  EXPECT_NE(d.failures[0].find(std::to_string(SIGKILL)), std::string::npos);
}

// While ending, agents end because they were told to: not news.
TEST(DaemonMachineAgents, AnAgentExitWhileEndingIsNotReported) {
  FakeDaemon d({.self = 1});
  d.ranks_running = true;
  d.m().teardown(0);
  d.log.clear();
  d.m().child_agent_exited(3, killed(SIGTERM), "bye");
  EXPECT_TRUE(d.log.empty());
}

// --- the end -------------------------------------------------------------------

// Stdin closed: whoever started this daemon is gone, said with the stdin wording.
TEST(DaemonMachineEnd, InputClosedIsTheParentGone) {
  FakeDaemon d({.self = 3});
  d.ranks_running = true;
  d.m().input_closed();
  ASSERT_EQ(d.failures.size(), 1u);
  EXPECT_EQ(only(d.log, "failure")[0].rfind("failure 3: ", 0), 0u);
  EXPECT_NE(d.failures[0].find("parent is gone"), std::string::npos);
  EXPECT_NE(d.failures[0].find("standard input"), std::string::npos);
  EXPECT_TRUE(d.logged("ranks 9"));
  EXPECT_EQ(d.m().exit_status(), 1);
  d.m().input_closed();  // once
  EXPECT_EQ(d.failures.size(), 1u);
}

// SIGTERM: the daemon's own end is said first, then the ranks and agents go.
TEST(DaemonMachineEnd, SigtermReportsThenEnds) {
  FakeDaemon d({.self = 3});
  d.ranks_running = true;
  d.m().on_signal(SIGTERM);
  ASSERT_EQ(d.log.size(), 4u);
  EXPECT_EQ(d.log[0].rfind("failure 3: ", 0), 0u);
  EXPECT_NE(d.failures[0].find("SIGTERM"), std::string::npos);
  EXPECT_EQ(Log(d.log.begin() + 1, d.log.end()), (Log{"ranks 9", "cancel-launches", "all-agents 15"}));
  EXPECT_EQ(d.armed_for(DaemonTimer::EndLimit), kDaemonEndLimit);
  EXPECT_EQ(d.m().exit_status(), 1);
  EXPECT_EQ(d.m().phase(), DaemonPhase::Ending);
}

// SIGHUP: the same end, without a word (nobody hears it).
TEST(DaemonMachineEnd, SighupEndsWithoutAReport) {
  FakeDaemon d({.self = 3});
  d.ranks_running = true;
  d.m().on_signal(SIGHUP);
  EXPECT_EQ(d.log, (Log{"ranks 9", "cancel-launches", "all-agents 15"}));
  EXPECT_TRUE(d.is_armed(DaemonTimer::EndLimit));
  EXPECT_EQ(d.m().exit_status(), 1);
}

// A second signal (a tree parent ending too) changes nothing.
TEST(DaemonMachineEnd, ASecondSignalDoesNothing) {
  FakeDaemon d({.self = 3});
  d.ranks_running = true;
  d.m().on_signal(SIGHUP);
  d.log.clear();
  d.m().on_signal(SIGTERM);
  d.m().on_signal(SIGHUP);
  EXPECT_TRUE(d.log.empty());
}

// orcarun's teardown: ranks get its signal, welcomed children are forgotten,
// agents of children that never said hello are told; a clean exit.
TEST(DaemonMachineEnd, TeardownReachesRanksChildrenAndUnheardAgents) {
  FakeDaemon d({.self = 1});
  d.ranks_running = true;
  d.m().child_launched(3);
  d.m().child_launched(4);
  d.m().child_welcomed(3);
  d.m().teardown(SIGTERM);
  // Launches still queued go: a child started now would not hear it.
  EXPECT_EQ(d.log, (Log{"ranks 15", "cancel-launches", "forget 3", "agent 4 15"}));
  EXPECT_EQ(d.armed_for(DaemonTimer::EndLimit), kDaemonEndLimit);
  EXPECT_EQ(d.m().phase(), DaemonPhase::Ending);
  EXPECT_EQ(d.m().exit_status(), 0);
}

// A welcomed child another node launched is forgotten; its agent is not ours.
TEST(DaemonMachineEnd, TeardownForgetsWelcomedChildrenWithoutSignallingAgents) {
  FakeDaemon d({.self = 1});
  d.ranks_running = true;
  d.m().child_welcomed(3);
  d.m().child_welcomed(4);
  d.m().teardown(0);
  EXPECT_EQ(d.log, (Log{"ranks 9", "cancel-launches", "forget 3", "forget 4"}));  // 0: SIGKILL
}

// A second teardown (or one after another end) does nothing.
TEST(DaemonMachineEnd, TeardownTwiceDoesNothing) {
  FakeDaemon d({.self = 3});
  d.ranks_running = true;
  d.m().teardown(SIGINT);
  d.log.clear();
  d.m().teardown(SIGKILL);
  EXPECT_TRUE(d.log.empty());
  EXPECT_EQ(d.m().exit_status(), 0);
}

// Nothing left running: the end is over at once, its limit cancelled.
TEST(DaemonMachineEnd, TheEndFinishesAtOnceWhenNothingRuns) {
  FakeDaemon d({.self = 3});
  d.m().teardown(0);
  EXPECT_EQ(d.log, (Log{"ranks 9", "cancel-launches", "stop"}));
  EXPECT_EQ(d.m().phase(), DaemonPhase::Done);
  EXPECT_FALSE(d.is_armed(DaemonTimer::EndLimit));
}

// The end is over when the last rank ends (its exit still goes up first).
TEST(DaemonMachineEnd, TheEndFinishesWithTheLastRank) {
  FakeDaemon d({.self = 3});
  d.ranks_running = true;
  d.m().command();
  d.m().teardown(SIGTERM);
  d.log.clear();
  d.m().rank_ended(rank_exit(0, killed(SIGTERM)));
  EXPECT_EQ(d.log, (Log{"exit 0 15"}));
  d.ranks_running = false;
  d.m().rank_ended(rank_exit(1, killed(SIGTERM)));
  EXPECT_EQ(d.log, (Log{"exit 0 15", "exit 1 15", "stop"}));
  EXPECT_EQ(d.m().phase(), DaemonPhase::Done);
  EXPECT_FALSE(d.is_armed(DaemonTimer::EndLimit));
}

// The end waits for the children's agents too: over with the last of them.
TEST(DaemonMachineEnd, TheEndFinishesWithTheLastAgent) {
  FakeDaemon d({.self = 1});
  d.agents = 2;
  d.m().child_launched(3);
  d.m().child_launched(4);
  d.m().teardown(0);
  d.log.clear();
  d.agents = 1;
  d.m().child_agent_exited(3, exited(0), "");
  EXPECT_TRUE(d.log.empty());
  EXPECT_EQ(d.m().phase(), DaemonPhase::Ending);
  d.agents = 0;
  d.m().child_agent_exited(4, exited(0), "");
  EXPECT_EQ(d.log, (Log{"stop"}));
  EXPECT_EQ(d.m().phase(), DaemonPhase::Done);
}

// Past the limit the agents are SIGKILLed and the daemon exits anyway.
TEST(DaemonMachineEnd, TheEndLimitKillsTheAgentsAndStops) {
  FakeDaemon d({.self = 3});
  d.ranks_running = true;
  d.m().teardown(0);
  d.log.clear();
  d.advance(kDaemonEndLimit - milliseconds(1));
  EXPECT_TRUE(d.log.empty());
  d.advance(milliseconds(1));
  EXPECT_EQ(d.log, (Log{"all-agents 9", "stop"}));
  EXPECT_EQ(d.m().phase(), DaemonPhase::Done);
  EXPECT_EQ(d.m().exit_status(), 0);
}

// An end limit firing outside the end (a stale timer) does nothing.
TEST(DaemonMachineEnd, TheEndLimitWhileRunningDoesNothing) {
  FakeDaemon d({.self = 3});
  d.m().on_timer(DaemonTimer::EndLimit);
  EXPECT_TRUE(d.log.empty());
  EXPECT_EQ(d.m().phase(), DaemonPhase::Running);
}

// The oob may find the parent lost from inside the report's send: one report only.
TEST(DaemonMachineEnd, AParentLostDuringTheReportIsReportedOnce) {
  FakeDaemon d({.self = 3});
  d.ranks_running = true;
  bool lost = false;  // the oob loses its peer once
  d.on_failure = [&d, &lost](std::uint32_t) {
    if (!std::exchange(lost, true)) d.m().peer_lost(1, "broken pipe");
  };
  d.m().input_closed();
  EXPECT_EQ(d.failures.size(), 1u);
  EXPECT_EQ(only(d.log, "ranks"), (Log{"ranks 9"}));
  EXPECT_EQ(only(d.log, "all-agents"), (Log{"all-agents 15"}));
}

// The same from inside SIGTERM's report: the SIGTERM one stands alone.
TEST(DaemonMachineEnd, AParentLostDuringTheSigtermReportIsNotReported) {
  FakeDaemon d({.self = 3});
  d.ranks_running = true;
  bool lost = false;  // the oob loses its peer once
  d.on_failure = [&d, &lost](std::uint32_t) {
    if (!std::exchange(lost, true)) d.m().peer_lost(1, "broken pipe");
  };
  d.m().on_signal(SIGTERM);
  ASSERT_EQ(d.failures.size(), 1u);
  EXPECT_NE(d.failures[0].find("SIGTERM"), std::string::npos);
  EXPECT_EQ(only(d.log, "ranks"), (Log{"ranks 9"}));
}

}  // namespace
}  // namespace orca::launch
