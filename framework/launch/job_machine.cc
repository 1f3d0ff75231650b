// JobMachine: the job's lifecycle decisions (job_machine.h).
#include "job_machine.h"

#include "rank_failure.h"

#include <orca/child_process.h>

#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>

namespace orca::launch {
namespace {

// A daemon (or its agent, reporting it as a shell does) that died of a
// fault rather than the signals orcarun sends: a bug worth saying, even
// when the job itself is over.
bool crashed(int wait_status) {
  auto fault = [](int sig) { return sig == SIGSEGV || sig == SIGABRT || sig == SIGBUS || sig == SIGFPE || sig == SIGILL; };
  if (WIFSIGNALED(wait_status)) return fault(WTERMSIG(wait_status));
  return WIFEXITED(wait_status) && WEXITSTATUS(wait_status) > 128 && fault(WEXITSTATUS(wait_status) - 128);
}

}  // namespace

// Not std::to_string's "1.000000".
std::string seconds_text(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", seconds);
  return buf;
}

JobMachine::JobMachine(JobFacts facts, Hooks hooks)
    : facts_(std::move(facts)), hooks_(std::move(hooks)), node_(*facts_.tree, 0) {
  daemon_.resize(daemons() + 1);
  rank_done_.assign(facts_.rank_daemon.size(), false);
  ranks_left_ = static_cast<std::uint32_t>(facts_.rank_daemon.size());
  if (facts_.start_early) arrivals_.emplace(*facts_.tree);
}

bool JobMachine::set_rank_daemons(std::vector<std::uint32_t> rank_daemon) {
  if (command_sent_ || arrivals_ || phase_ != JobPhase::WireUp) return false;
  facts_.rank_daemon = std::move(rank_daemon);
  rank_done_.assign(facts_.rank_daemon.size(), false);
  ranks_left_ = static_cast<std::uint32_t>(facts_.rank_daemon.size());
  return true;
}

std::string JobMachine::describe(std::uint32_t vpid) const {
  return printable(host(vpid)) + " (daemon " + std::to_string(vpid) + ")";
}

bool JobMachine::ranks_may_run() const noexcept {
  return phase_ == JobPhase::Running || phase_ == JobPhase::Draining || (phase_ == JobPhase::WireUp && command_sent_);
}

// What to check when a daemon did not come up or failed: the launcher's
// own advice, which only its component knows.
std::string JobMachine::hint(const std::string& host) const {
  if (facts_.failure_hint) return facts_.failure_hint(host);
  return "Check what the daemon printed above";
}

// --- the wire-up -------------------------------------------------------------

void JobMachine::start() {
  if (facts_.all_at_once) {
    for (std::uint32_t v = 1; v <= daemons(); ++v) node_.launched(v);
    hooks_.launch_daemon(kEveryDaemon);
  } else {
    launch_children_of(0);  // with tree spawn they start the rest, else up() does
  }
  if (phase_ == JobPhase::WireUp) hooks_.arm(JobTimer::Startup, 0, facts_.startup_timeout);
}

void JobMachine::launch(std::uint32_t vpid) {
  if (node_.is_launched(vpid) || phase_ != JobPhase::WireUp) return;
  node_.launched(vpid);
  daemon_[vpid].agent_is_daemon = hooks_.launch_daemon(vpid);
}

// Without tree spawn orcarun starts every daemon, each once its parent in
// the routing tree is up (a daemon connects to its parent, so the parent's
// contact URI must be known first).
void JobMachine::launch_children_of(std::uint32_t vpid) {
  for (std::uint32_t c : facts_.tree->children(vpid)) launch(c);
}

void JobMachine::startup_timed_out() {
  std::string missing, first;
  for (std::uint32_t v = 1; v <= daemons(); ++v) {
    if (node_.is_up(v)) continue;
    missing += "\n  " + describe(v) + (node_.is_launched(v) ? "" : ": not started (its parent never came up)");
    if (first.empty()) first = printable(host(v));
  }
  fail(Message("orcarun", "startup-timeout",
               {{"hint", hint(first)},
                {"seconds", seconds_text(static_cast<double>(facts_.startup_timeout.count()) / 1000.0)},
                {"up", std::to_string(up_count_)},
                {"daemons", std::to_string(daemons())},
                {"missing", missing}}),
       1);
}

void JobMachine::hello(std::uint32_t vpid) { node_.hello(vpid); }

bool JobMachine::up(std::uint32_t vpid) {
  if (vpid == 0 || vpid > daemons() || node_.is_up(vpid)) return false;
  node_.up(vpid);
  ++up_count_;
  // Not during the teardown: a daemon started after it would not hear it.
  if (!facts_.all_at_once && !facts_.tree_spawn && phase_ == JobPhase::WireUp) launch_children_of(vpid);
  // A part of the tree is up and nothing holds the job for the rest: its
  // ranks start now. The phase stays WireUp until every daemon is up, so
  // a failure, a signal or the start-up timeout still ends the job by its
  // teardown, which ends these ranks too.
  if (arrivals_ && phase_ == JobPhase::WireUp && !failed_) {
    if (const auto child = arrivals_->arrived(vpid)) {
      if (Status sent = command_child(*child); !sent) command_not_sent(sent.error());
    }
  }
  if (up_count_ == daemons() && phase_ == JobPhase::WireUp) {
    hooks_.cancel(JobTimer::Startup, 0);
    hooks_.wired_up();
  }
  return true;
}

Status JobMachine::command_child(std::uint32_t child) {
  Daemon& d = daemon_[child];
  if (d.commanded || d.gone || !node_.is_up(child)) return {};
  if (!command_sent_ && facts_.timeout_seconds) {
    hooks_.arm(JobTimer::JobTimeout, 0,
               std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::duration<double>(*facts_.timeout_seconds)));
  }
  command_sent_ = true;
  d.commanded = true;
  return hooks_.send_command(child);
}

// Else the job would wait forever for ranks no daemon starts (an
// environment forwarded past oob_*_max_msg_size, say).
void JobMachine::command_not_sent(const Message& why) {
  fail_and_end(Message("orcarun", "command-not-sent", {{"why", why.arg("why").empty() ? why.summary() : why.arg("why")}}), 1);
}

bool JobMachine::command_ready() {
  if (phase_ != JobPhase::WireUp || failed_) return false;
  phase_ = JobPhase::Running;
  for (std::uint32_t c : facts_.tree->children(0)) {
    if (Status sent = command_child(c); !sent) {
      command_not_sent(sent.error());
      return false;
    }
  }
  return true;
}

// --- ranks -------------------------------------------------------------------

void JobMachine::signal_ranks(int signo) {
  if (phase_ == JobPhase::WireUp || ending()) return;
  hooks_.signal_ranks(signo);
  if (signo != SIGKILL && !grace_armed_) {
    grace_armed_ = true;
    hooks_.arm(JobTimer::KillGrace, 0, facts_.kill_grace);
  }
}

const std::string& JobMachine::command_of(std::uint32_t rank) const {
  return rank_command(facts_.command, facts_.app_commands, facts_.app_first_rank, rank);
}

void JobMachine::rank_failed(const ExitRecord& record) {
  if (failed_) return;
  const auto failure = rank_failure(record, host(facts_.rank_daemon[record.rank]), command_of(record.rank));
  if (!failure) return;
  fail(failure->message, failure->exit_status);
  if (ranks_left_ > 0) signal_ranks(SIGTERM);
}

void JobMachine::rank_ended(const ExitRecord& record) {
  if (record.rank >= rank_done_.size() || rank_done_[record.rank]) return;
  rank_done_[record.rank] = true;
  --ranks_left_;
  rank_failed(record);
  if (ranks_left_ == 0) begin_teardown();
}

void JobMachine::rank_aborted(const RankAbort& abort) {
  if (abort.rank >= facts_.rank_daemon.size() || failed_) return;
  const RankFailure failure = rank_abort_failure(abort, host(facts_.rank_daemon[abort.rank]));
  fail_and_stop_ranks(failure.message, failure.exit_status);
}

void JobMachine::job_failed(const JobFailure& failure) {
  if (failed_ || failure.vpid < 1 || failure.vpid > daemons()) return;
  fail_and_stop_ranks(job_failure_message(failure), 1);
}

// A daemon whose part of the job is over ends now, if what orcarun knows
// agrees: it is a child of orcarun's own (a deeper one would leave its
// parent reporting it lost) and every rank placed on it ended. From here
// it counts as gone: nothing more is sent to it, and its end (connection,
// agent) is no failure; a crash at its end still is.
void JobMachine::daemon_done(std::uint32_t vpid) {
  if (vpid == 0 || vpid > daemons() || !ranks_may_run()) return;
  Daemon& d = daemon_[vpid];
  if (d.gone || facts_.tree->parent(vpid) != 0 || !facts_.tree->children(vpid).empty()) return;
  if (phase_ == JobPhase::WireUp && !d.commanded) return;
  for (std::size_t r = 0; r < rank_done_.size(); ++r) {
    if (facts_.rank_daemon[r] == vpid && !rank_done_[r]) return;
  }
  d.released = true;
  d.gone = true;
  hooks_.release_daemon(vpid);
}

// --- daemons lost ------------------------------------------------------------

void JobMachine::daemon_lost(std::uint32_t vpid, const std::string& what) {
  if (vpid == 0 || vpid > daemons() || ending()) return;
  Daemon& d = daemon_[vpid];
  if (d.gone || d.awaiting_exit) return;
  // When orcarun runs the daemon itself (plm/local), a daemon SIGKILLed is
  // noticed by the oob (its connection refused) before its exit is reaped:
  // that exit, "killed by signal 9", is the better report. A daemon alive
  // but silent (stopped) does not exit: after the wait it is reported lost
  // as before. An agent that is not the daemon (ssh) would only say how it
  // ended itself.
  if (d.agent_is_daemon && hooks_.agent_runs(vpid)) {
    d.awaiting_exit = what;
    hooks_.arm(JobTimer::AgentExit, vpid, kAgentExitWait);
    return;
  }
  daemon_failed(vpid, what);
}

void JobMachine::daemon_failed(std::uint32_t vpid, const std::string& what) {
  if (vpid == 0 || vpid > daemons() || ending()) return;
  Daemon& d = daemon_[vpid];
  if (d.gone) return;
  d.gone = true;
  if (d.awaiting_exit) {
    d.awaiting_exit.reset();
    hooks_.cancel(JobTimer::AgentExit, vpid);
  }
  // Held daemons (a DVM): this one is dropped, the others stay.
  if (held_) {
    if (!facts_.all_at_once && hooks_.agent_runs(vpid)) hooks_.end_lost_agent(vpid);
    hooks_.dropped(vpid, what);
    return;
  }
  // Read before fail: during the wire-up it begins the teardown, and a
  // drain of the ranks must not overwrite that phase.
  const bool wiring_up = phase_ == JobPhase::WireUp;
  fail(Message("orcarun", "daemon-failed", {{"host", printable(host(vpid))}, {"vpid", std::to_string(vpid)},
                                             {"what", printable(what)}, {"hint", hint(printable(host(vpid)))}}),
       1);
  if (wiring_up) {
    begin_teardown();  // fail did, unless the job had failed already
    return;
  }
  if (!ending()) drain_after_loss(vpid);
}

void JobMachine::drain_after_loss(std::uint32_t vpid) {
  // The lost daemon itself may be alive but silent (stopped, or behind a
  // black hole): its agent goes now, not at the end of the teardown (with
  // ssh that closes the daemon's stdin), SIGKILL if it is still there
  // after kLostAgentGrace. With one launch for every daemon its end is the
  // end of all of them: the teardown does that.
  if (!facts_.all_at_once) {
    const LostDaemonAgents agents = node_.lost(vpid);
    if (agents.end_its_agent) hooks_.end_lost_agent(vpid);
    hooks_.arm(JobTimer::LostAgentKill, 0, kLostAgentGrace);
    // Daemons orcarun started below it lost their parent: end them now
    // rather than when their own connection attempts give up.
    for (std::uint32_t v : agents.below) hooks_.signal_agent(v, SIGTERM);
  }
  // The ranks of that daemon's subtree are gone with it.
  for (std::uint32_t v : facts_.tree->subtree(vpid)) {
    daemon_[v].gone = true;
    for (std::size_t r = 0; r < rank_done_.size(); ++r) {
      if (facts_.rank_daemon[r] == v && !rank_done_[r]) {
        rank_done_[r] = true;
        --ranks_left_;
      }
    }
  }
  if (ranks_left_ == 0) {
    begin_teardown();
    return;
  }
  signal_ranks(SIGKILL);
  phase_ = JobPhase::Draining;
  hooks_.arm(JobTimer::Drain, 0, kDrainLimit);
}

void JobMachine::agent_exited(std::uint32_t vpid, int wait_status, const std::string& tail) {
  if (vpid == 0 || vpid > daemons()) return;
  Daemon& d = daemon_[vpid];
  if ((ending() || d.released) && crashed(wait_status)) {
    hooks_.show(Message("orcarun", "daemon-crashed-at-end",
                        {{"host", printable(host(vpid))}, {"vpid", std::to_string(vpid)}, {"how", plm::describe_wait_status(wait_status)},
                         {"printed", tail.empty() ? std::string("nothing") : printable(tail)}}));
    if (!failed_) exit_status_ = 1;
    failed_ = true;
  }
  if (!ending() && !d.gone) {
    const std::string printed = tail.empty() ? std::string("it printed nothing") : "it printed:\n" + tail;
    if (!node_.is_up(vpid)) {
      daemon_failed(vpid, "its agent (" + printable(facts_.plm_component) + ") " + plm::describe_wait_status(wait_status) +
                              " before the daemon reported; " + printed);
    } else {
      daemon_failed(vpid, "its daemon ended early: the agent " + plm::describe_wait_status(wait_status) + "; " + printed);
    }
  }
  maybe_done();
}

// The one launch of every daemon ended: at the end of the job, after the
// daemons; any earlier, every daemon is gone with it (srun
// --kill-on-bad-exit ends the step when one daemon dies).
void JobMachine::step_ended(int wait_status, const std::string& tail, const std::string& program) {
  const bool early = !ending();
  if (!early && !crashed(wait_status)) {
    maybe_done();
    return;
  }
  std::string when = "as the job ended";
  if (phase_ == JobPhase::WireUp) {
    std::string missing;
    for (std::uint32_t v = 1; v <= daemons(); ++v) {
      if (!node_.is_up(v)) missing += (missing.empty() ? "" : ", ") + printable(host(v));
    }
    when = "while the daemons were starting (" + std::to_string(up_count_) + " of " + std::to_string(daemons()) +
           " up; not up: " + missing + ")";
  } else if (early) {
    when = "while the job ran";
  }
  const Message m("orcarun", "daemons-step-ended",
                  {{"component", printable(facts_.plm_component)},
                   {"program", printable(program)},
                   {"how", plm::describe_wait_status(wait_status)},
                   {"when", when},
                   {"printed", tail.empty() ? std::string("nothing") : printable(tail)}});
  if (!early) {
    hooks_.show(m);  // a daemon died of a fault at the end: a bug worth saying
    if (!failed_) exit_status_ = 1;
    failed_ = true;
  } else {
    fail(m, 1);
    for (std::uint32_t v = 1; v <= daemons(); ++v) daemon_[v].gone = true;
    std::fill(rank_done_.begin(), rank_done_.end(), true);
    ranks_left_ = 0;
    begin_teardown();
  }
  maybe_done();
}

// It comes before the launch ends the others, whose ranks' ends would
// otherwise be taken for the cause.
void JobMachine::step_said_ended(const std::string& ended_host, const std::string& why) {
  for (std::uint32_t v = 1; v <= daemons(); ++v) {
    if (host(v) == ended_host) {
      daemon_failed(v, why);
      return;
    }
  }
}

// --- the user and the end ----------------------------------------------------

void JobMachine::on_signal(int signo) {
  ++signals_seen_;
  if (phase_ == JobPhase::WireUp) {
    // Started early, some ranks may run already.
    const char* ranks = command_sent_ ? "and with them the ranks already started on those that were up" : "and no rank was started";
    hooks_.show(Message("orcarun", "interrupted-wire-up", {{"signal", ::strsignal(signo)},
                                                           {"up", std::to_string(up_count_)},
                                                           {"daemons", std::to_string(daemons())},
                                                           {"ranks", ranks}}));
    failed_ = true;
    exit_status_ = 128 + signo;
    begin_teardown();
    return;
  }
  if (signals_seen_ >= 2) {
    hooks_.signal_ranks(SIGKILL);
    if (phase_ == JobPhase::TearingDown) hooks_.signal_all_agents(SIGKILL);
    return;
  }
  signal_ranks(signo);
}

void JobMachine::output_broken() {
  if (failed_) return;
  failed_ = true;
  exit_status_ = 128 + SIGPIPE;
  if (phase_ == JobPhase::WireUp) {
    begin_teardown();
    return;
  }
  signal_ranks(SIGTERM);
}

void JobMachine::fail(const Message& message, int status) {
  if (failed_) return;
  failed_ = true;
  exit_status_ = status != 0 ? status : 1;
  hooks_.show(message);
  if (phase_ == JobPhase::WireUp) begin_teardown();
}

void JobMachine::fail_and_end(const Message& message, int status) {
  fail(message, status);
  begin_teardown();
}

void JobMachine::fail_and_stop_ranks(const Message& message, int status) {
  fail(message, status);
  signal_ranks(SIGTERM);
}

void JobMachine::hold() {
  if (phase_ == JobPhase::WireUp && up_count_ == daemons()) held_ = true;
}

void JobMachine::begin_teardown() {
  if (ending()) return;
  phase_ = JobPhase::TearingDown;
  for (JobTimer t : {JobTimer::Startup, JobTimer::Drain, JobTimer::JobTimeout, JobTimer::KillGrace}) hooks_.cancel(t, 0);
  const TeardownReach reach = node_.teardown();
  hooks_.send_teardown(failed_, reach.relayed);
  signal_unreached_agents(reach.unreached);
  hooks_.arm(JobTimer::Teardown, 0, kTeardownLimit);
  maybe_done();
}

// A daemon that has not said hello yet cannot hear the teardown: its agent
// is told directly (a daemon still starting just ends). So is one started
// below another daemon that has not reported yet: its parent relays the
// teardown only to the children it knows, and may not know it. With one
// launch for every daemon (srun), SIGTERM to it cancels the whole step.
void JobMachine::signal_unreached_agents(const std::vector<std::uint32_t>& unreached) {
  if (facts_.all_at_once) {
    if (!unreached.empty()) hooks_.signal_agent(kEveryDaemon, SIGTERM);
    return;
  }
  for (std::uint32_t v : unreached) hooks_.signal_agent(v, SIGTERM);
}

void JobMachine::maybe_done() {
  if (phase_ != JobPhase::TearingDown || hooks_.agents_running() > 0) return;
  hooks_.cancel(JobTimer::Teardown, 0);
  finish();
}

void JobMachine::finish() {
  phase_ = JobPhase::Done;
  hooks_.done();
}

void JobMachine::on_timer(JobTimer timer, std::uint32_t vpid) {
  switch (timer) {
    case JobTimer::Startup:
      if (phase_ == JobPhase::WireUp) startup_timed_out();
      break;
    case JobTimer::KillGrace:
      if (!ending()) hooks_.signal_ranks(SIGKILL);
      break;
    case JobTimer::JobTimeout:
      if (ending()) break;
      fail(Message("orcarun", "job-timeout", {{"seconds", seconds_text(*facts_.timeout_seconds)}}), 0);
      signal_ranks(SIGTERM);
      break;
    case JobTimer::Drain:
      begin_teardown();
      break;
    case JobTimer::Teardown:
      if (phase_ != JobPhase::TearingDown) break;
      hooks_.signal_all_agents(SIGKILL);
      finish();
      break;
    case JobTimer::LostAgentKill:
      for (std::uint32_t v = 1; v <= daemons(); ++v) {
        if (daemon_[v].gone) hooks_.signal_agent(v, SIGKILL);
      }
      break;
    case JobTimer::AgentExit:
      if (vpid >= 1 && vpid <= daemons() && daemon_[vpid].awaiting_exit) {
        const std::string what = *daemon_[vpid].awaiting_exit;
        daemon_[vpid].awaiting_exit.reset();
        daemon_failed(vpid, what);
      }
      break;
  }
}

}  // namespace orca::launch
