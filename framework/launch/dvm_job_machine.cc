// DvmJobMachine: one job's end on a persistent DVM (dvm_job_machine.h).
#include "dvm_job_machine.h"

#include "job_machine.h"
#include "rank_failure.h"

#include <signal.h>

namespace orca::launch {

DvmJobMachine::DvmJobMachine(DvmJobFacts facts, Hooks hooks) : facts_(std::move(facts)), hooks_(std::move(hooks)) {
  rank_done_.assign(facts_.rank_daemon.size(), false);
  ranks_left_ = static_cast<std::uint32_t>(facts_.rank_daemon.size());
}

// The controller's facts name every daemon a rank is on; an empty name
// rather than a throw if one does not.
const std::string& DvmJobMachine::host(std::uint32_t vpid) const {
  static const std::string unknown;
  return vpid >= 1 && vpid <= facts_.hosts.size() ? facts_.hosts[vpid - 1] : unknown;
}

void DvmJobMachine::start() {
  if (started_ || phase_ == DvmJobPhase::Done) return;
  started_ = true;
  if (facts_.timeout_seconds) {
    timeout_armed_ = true;
    hooks_.arm(DvmJobTimer::JobTimeout,
               std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::duration<double>(*facts_.timeout_seconds)));
  }
  maybe_done();
}

// --- reports from the daemons ------------------------------------------------------

void DvmJobMachine::rank_ended(const ExitRecord& record) {
  if (phase_ == DvmJobPhase::Done || record.rank >= rank_done_.size() || rank_done_[record.rank]) return;
  account(record.rank);
  if (!failed_) {
    const auto failure = rank_failure(record, host(facts_.rank_daemon[record.rank]),
                                      rank_command(facts_.command, facts_.app_commands, facts_.app_first_rank, record.rank));
    if (failure && fail(failure->message, failure->exit_status)) stop_ranks(SIGTERM);
  }
  maybe_done();
}

// The rank's own end comes as its ExitRecord: an abort only fails the job.
void DvmJobMachine::rank_aborted(const RankAbort& abort) {
  if (phase_ == DvmJobPhase::Done || abort.rank >= facts_.rank_daemon.size() || failed_) return;
  const RankFailure failure = rank_abort_failure(abort, host(facts_.rank_daemon[abort.rank]));
  if (fail(failure.message, failure.exit_status)) stop_ranks(SIGTERM);
}

void DvmJobMachine::job_failed(const JobFailure& failure) {
  if (phase_ == DvmJobPhase::Done || failed_ || failure.vpid < 1 || failure.vpid > facts_.hosts.size()) return;
  // Some ranks may never report: those of a daemon that could not start
  // them. Once killed, the drain bounds the wait, as after a loss.
  draining_ = true;
  if (fail(job_failure_message(failure), 1)) stop_ranks(SIGTERM);
}

// The other daemons stay up and report their ranks' ends as usual; the
// drain only bounds the wait for a report that went through the lost one.
void DvmJobMachine::daemon_lost(std::uint32_t vpid, const std::string& what) {
  if (phase_ == DvmJobPhase::Done || vpid < 1 || vpid > facts_.hosts.size()) return;
  std::uint32_t gone = 0;
  for (std::uint32_t r = 0; r < rank_done_.size(); ++r) {
    if (facts_.rank_daemon[r] == vpid && !rank_done_[r]) {
      account(r);
      ++gone;
    }
  }
  if (gone == 0) return;
  draining_ = true;
  const Message::Args args{{"host", printable(host(vpid))}, {"vpid", std::to_string(vpid)}, {"what", printable(what)}, {"count", std::to_string(gone)}};
  if (fail(Message("orcarun", "dvm-job-daemon-lost", args), 1)) stop_ranks(SIGTERM);  // else they were told already
  maybe_arm_drain();
  maybe_done();
}

// --- the DVM ---------------------------------------------------------------------------

// The DVM may stop its daemons next: the drain bounds the wait for their
// reports.
void DvmJobMachine::end(const Message& why) {
  if (phase_ == DvmJobPhase::Done) return;
  draining_ = true;
  if (fail(why, 1)) stop_ranks(SIGTERM);
  maybe_arm_drain();
  maybe_done();
}

// --- the client -----------------------------------------------------------------

// As JobMachine::on_signal once the job runs: the ranks decide the status.
void DvmJobMachine::on_signal(int signo) {
  if (phase_ == DvmJobPhase::Done || client_gone_) return;
  if (++signals_seen_ >= 2) {
    kill_ranks();
    return;
  }
  stop_ranks(signo);
}

// Nobody reads a message now; the status is a hung-up terminal's, for the
// controller's own record.
void DvmJobMachine::client_lost() {
  if (phase_ == DvmJobPhase::Done || client_gone_) return;
  client_gone_ = true;
  if (!failed_) {
    failed_ = true;
    exit_status_ = 128 + SIGHUP;
  }
  draining_ = true;
  kill_ranks();
  maybe_done();
}

// --- timers and the end --------------------------------------------------------------

void DvmJobMachine::on_timer(DvmJobTimer timer) {
  if (phase_ == DvmJobPhase::Done) return;
  switch (timer) {
    case DvmJobTimer::KillGrace:
      if (!grace_armed_) break;
      grace_armed_ = false;
      if (!killed_) kill_ranks();  // a second signal may have done it
      break;
    case DvmJobTimer::JobTimeout:
      if (!timeout_armed_) break;
      timeout_armed_ = false;
      fail(Message("orcarun", "job-timeout", {{"seconds", seconds_text(facts_.timeout_seconds.value_or(0))}}), 1);
      stop_ranks(SIGTERM);
      break;
    case DvmJobTimer::Drain:
      if (!drain_armed_) break;
      drain_armed_ = false;
      finish();
      break;
  }
}

bool DvmJobMachine::fail(const Message& message, int status) {
  if (failed_) return false;
  failed_ = true;
  exit_status_ = status != 0 ? status : 1;
  if (!client_gone_) hooks_.show(message);
  return true;
}

// Once SIGKILL went out, a later SIGTERM would reach no rank it missed.
void DvmJobMachine::stop_ranks(int signo) {
  if (ranks_left_ == 0 || killed_) return;
  phase_ = DvmJobPhase::Ending;
  hooks_.signal_ranks(signo);
  if (!grace_armed_) {
    grace_armed_ = true;
    hooks_.arm(DvmJobTimer::KillGrace, facts_.kill_grace);
  }
}

void DvmJobMachine::kill_ranks() {
  if (ranks_left_ == 0) return;
  phase_ = DvmJobPhase::Ending;
  killed_ = true;
  hooks_.signal_ranks(SIGKILL);
  maybe_arm_drain();
}

// As JobMachine's drain: the time the ranks get to report once killed.
// After a loss the grace comes first, so that a rank that ends cleanly on
// SIGTERM still may.
void DvmJobMachine::maybe_arm_drain() {
  if (!draining_ || !killed_ || drain_armed_ || ranks_left_ == 0) return;
  drain_armed_ = true;
  hooks_.arm(DvmJobTimer::Drain, kDrainLimit);
}

void DvmJobMachine::account(std::uint32_t rank) {
  rank_done_[rank] = true;
  --ranks_left_;
}

void DvmJobMachine::maybe_done() {
  if (ranks_left_ == 0 && phase_ != DvmJobPhase::Done) finish();
}

// done() is the last the machine does: the controller may destroy it there.
void DvmJobMachine::finish() {
  phase_ = DvmJobPhase::Done;
  if (grace_armed_) hooks_.cancel(DvmJobTimer::KillGrace);
  if (timeout_armed_) hooks_.cancel(DvmJobTimer::JobTimeout);
  if (drain_armed_) hooks_.cancel(DvmJobTimer::Drain);
  hooks_.done(exit_status_);
}

}  // namespace orca::launch
