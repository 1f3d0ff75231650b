// DvmMachine (framework/launch/dvm_machine.h): a persistent DVM's
// policies driven by events, each decision read from the hooks' log:
// jobs admitted in order, a client that will not wait, a lost daemon
// that ends only its own jobs, the idle limit of a detached DVM, the stop.
#include "launch/dvm_machine.h"

#include "help/help.h"

#include <gtest/gtest.h>

#include <set>

#include <string>
#include <vector>

namespace orca::launch {
namespace {

using std::chrono::milliseconds;
using Log = std::vector<std::string>;

class FakeDvm {
 public:
  explicit FakeDvm(DvmFacts facts) : machine(std::move(facts), hooks()) {}

  DvmMachine machine;
  Log log;
  std::vector<Message> messages;  // every one the machine gave out

  Log take() {
    Log out;
    out.swap(log);
    return out;
  }

 private:
  DvmMachine::Hooks hooks() {
    return {.start_job = [this](DvmJobId id) { log.push_back("start " + std::to_string(id)); },
            .refuse_job = [this](DvmJobId id, const Message& m) {
              log.push_back("refuse " + std::to_string(id) + " " + m.topic());
              messages.push_back(m);
            },
            .end_job = [this](DvmJobId id, const Message& m) {
              log.push_back("end " + std::to_string(id) + " " + m.topic());
              messages.push_back(m);
            },
            .arm_idle = [this](milliseconds d) { log.push_back("arm " + std::to_string(d.count())); },
            .cancel_idle = [this] { log.push_back("cancel"); },
            .show = [this](const Message& m) {
              log.push_back("show " + m.topic() + " " + m.arg("host"));
              messages.push_back(m);
            },
            .stop_daemons = [this] { log.push_back("stop daemons"); }};
  }
};

DvmFacts three_hosts(bool detached = false) {
  return {.hosts = {"h1", "h2", "h3"}, .slots = {2, 2, 2}, .detached = detached, .idle_limit = milliseconds(30000)};
}

DvmJobRequest job(DvmJobId id, std::vector<unsigned> slots, bool wait = true) {
  return {.id = id, .slots = std::move(slots), .wait = wait};
}

TEST(DvmMachine, JobsSubmittedWhileStartingRunOnceEveryDaemonIsUp) {
  FakeDvm d(three_hosts());
  d.machine.submit(job(1, {1, 1, 1}));
  d.machine.submit(job(2, {0, 0, 1}, false));
  EXPECT_EQ(d.take(), (Log{"refuse 2 dvm-busy"}));
  EXPECT_EQ(d.machine.waiting(), 1u);
  d.machine.ready();
  EXPECT_EQ(d.take(), (Log{"start 1"}));
  EXPECT_EQ(d.machine.phase(), DvmPhase::Ready);
}

TEST(DvmMachine, ManyJobsAtOnceEachStartsWhenItsSlotsAreFreeInOrder) {
  FakeDvm d(three_hosts());
  d.machine.ready();
  d.machine.submit(job(1, {2, 0, 0}));
  d.machine.submit(job(2, {1, 0, 0}));
  d.machine.submit(job(3, {0, 2, 2}));
  d.machine.submit(job(4, {9, 0, 0}));
  EXPECT_EQ(d.take(), (Log{"start 1", "refuse 4 dvm-job-too-large"}))
      << "3 fits, but 2 was submitted before it";
  d.machine.job_ended(1);
  EXPECT_EQ(d.take(), (Log{"start 2", "start 3"}));
  d.machine.job_ended(1);
  EXPECT_EQ(d.take(), Log{}) << "an end reported twice counts once";
  EXPECT_EQ(d.machine.running(), 2u);
}

TEST(DvmMachine, ALostDaemonEndsOnlyTheJobsOnItsHostAndTheDvmGoesOn) {
  FakeDvm d(three_hosts());
  d.machine.ready();
  d.machine.submit(job(1, {1, 1, 0}));
  d.machine.submit(job(2, {0, 0, 2}));
  d.machine.submit(job(3, {0, 2, 0}));  // waits for job 1's slot on h2
  d.machine.submit(job(4, {1, 0, 0}));  // waits behind 3
  d.take();
  d.machine.daemon_lost(2, "connection reset");
  EXPECT_EQ(d.take(), (Log{"refuse 3 dvm-daemon-lost", "end 1 dvm-daemon-lost", "show dvm-goes-on h2", "start 4"}));
  d.machine.job_ended(1);
  d.machine.job_ended(2);
  EXPECT_EQ(d.take(), Log{});
  EXPECT_EQ(d.machine.phase(), DvmPhase::Ready);
  EXPECT_EQ(d.machine.hosts_left(), 2u);
  d.machine.submit(job(5, {0, 1, 0}));
  EXPECT_EQ(d.take(), (Log{"refuse 5 dvm-job-too-large"})) << "h2 is gone";
  d.machine.daemon_lost(2, "again");
  EXPECT_EQ(d.take(), Log{}) << "a loss is news once";
}

TEST(DvmMachine, ALossStopsTheDvmWhenAskedOrWhenNoHostIsLeft) {
  DvmFacts f = three_hosts();
  f.stop_on_loss = true;
  FakeDvm asked(f);
  asked.machine.ready();
  asked.machine.submit(job(1, {1, 0, 0}));
  asked.take();
  asked.machine.daemon_lost(3, "killed");
  EXPECT_EQ(asked.take(), (Log{"show dvm-daemon-lost h3", "end 1 dvm-stopping", "stop daemons"}));
  EXPECT_EQ(asked.machine.phase(), DvmPhase::Stopping);
  asked.machine.daemon_lost(1, "teardown");
  EXPECT_EQ(asked.take(), Log{}) << "losses during the stop are no news";
  asked.machine.daemons_gone();
  EXPECT_EQ(asked.machine.phase(), DvmPhase::Done);

  FakeDvm last({.hosts = {"h1"}, .slots = {1}});
  last.machine.ready();
  last.machine.daemon_lost(1, "killed");
  EXPECT_EQ(last.take(), (Log{"show dvm-daemon-lost h1", "stop daemons"}));
}

TEST(DvmMachine, ADetachedDvmCountsDownOnlyWithNoJobAndNoClient) {
  FakeDvm d(three_hosts(true));
  d.machine.ready();
  EXPECT_EQ(d.take(), (Log{"arm 30000"}));
  d.machine.client_joined();
  EXPECT_EQ(d.take(), (Log{"cancel"}));
  d.machine.submit(job(1, {1, 0, 0}));
  d.machine.client_left();
  EXPECT_EQ(d.take(), (Log{"start 1"})) << "a job runs: no count";
  d.machine.job_ended(1);
  EXPECT_EQ(d.take(), (Log{"arm 30000"}));
  d.machine.idle_timer();
  EXPECT_EQ(d.take(), (Log{"show dvm-idle-stop ", "stop daemons"}));
  d.machine.submit(job(2, {1, 0, 0}));
  EXPECT_EQ(d.take(), (Log{"refuse 2 dvm-stopping"}));
}

TEST(DvmMachine, AForegroundDvmHasNoIdleLimit) {
  FakeDvm d(three_hosts(false));
  d.machine.ready();
  d.machine.client_joined();
  d.machine.client_left();
  EXPECT_EQ(d.take(), Log{});
  d.machine.idle_timer();
  EXPECT_EQ(d.take(), Log{}) << "a timer it never armed does nothing";
  d.machine.stop("its starter ended");
  EXPECT_EQ(d.take(), (Log{"stop daemons"}));
}

TEST(DvmMachine, StoppingEndsRunningJobsAndRefusesWaitingOnes) {
  FakeDvm d(three_hosts(true));
  d.machine.submit(job(9, {1, 0, 0}));  // still starting
  d.machine.stop("orcadvm stop");
  EXPECT_EQ(d.take(), (Log{"refuse 9 dvm-stopping", "stop daemons"}));

  FakeDvm r(three_hosts(true));
  r.machine.ready();
  r.machine.submit(job(1, {2, 2, 2}));
  r.machine.submit(job(2, {1, 0, 0}));
  r.take();
  r.machine.stop("orcadvm stop");
  EXPECT_EQ(r.take(), (Log{"refuse 2 dvm-stopping", "end 1 dvm-stopping", "stop daemons"}));
  r.machine.stop("again");
  EXPECT_EQ(r.take(), Log{}) << "one stop";
}

// Every message the machine gives renders from help-launch.txt with each
// of its values filled in.
TEST(DvmMachine, EveryMessageRendersCompletely) {
  FakeDvm d(three_hosts(true));
  d.machine.submit(job(1, {1, 0, 0}, false));  // busy while starting
  d.machine.ready();
  d.machine.submit(job(2, {9, 0, 0}));  // too large
  d.machine.submit(job(3, {1, 1, 0}));
  d.machine.daemon_lost(2, "reset");  // ends 3, goes on
  d.machine.idle_timer();
  d.machine.job_ended(3);
  d.machine.idle_timer();  // the idle stop
  d.machine.submit(job(4, {1, 0, 0}));  // stopping
  FakeDvm lost({.hosts = {"h1"}, .slots = {1}});
  lost.machine.ready();
  lost.machine.daemon_lost(1, "killed");
  HelpCatalog help("orcadvm", {ORCA_TEST_HELP_DIR});
  std::set<std::string> topics;
  for (const FakeDvm* f : {&d, &lost}) {
    for (const Message& m : f->messages) {
      const std::string text = help.render(m);
      EXPECT_EQ(text.find("not found in:"), std::string::npos) << text;
      EXPECT_EQ(text.find('{'), std::string::npos) << text;
      topics.insert(m.topic());
    }
  }
  EXPECT_EQ(topics, (std::set<std::string>{"dvm-busy", "dvm-job-too-large", "dvm-daemon-lost", "dvm-goes-on",
                                           "dvm-idle-stop", "dvm-stopping"}));
}

}  // namespace
}  // namespace orca::launch
