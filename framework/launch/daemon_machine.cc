// DaemonMachine: orcad's lifecycle decisions (daemon_machine.h).
#include "daemon_machine.h"

#include <orca/child_process.h>

#include <signal.h>

namespace orca::launch {

DaemonMachine::DaemonMachine(DaemonFacts facts, Hooks hooks)
    : facts_(std::move(facts)), hooks_(std::move(hooks)), node_(*facts_.tree, facts_.self) {}

std::string DaemonMachine::host_of(std::uint32_t vpid) const { return daemon_host(facts_.hosts, vpid); }

std::string DaemonMachine::describe(std::uint32_t vpid) const {
  return host_of(vpid) + " (vpid " + std::to_string(vpid) + ")";
}

// --- the tree ----------------------------------------------------------------

void DaemonMachine::child_welcomed(std::uint32_t vpid) { node_.hello(vpid); }

void DaemonMachine::child_unreachable(std::uint32_t vpid, const std::string& why) {
  hooks_.report_failure(vpid, "cannot add the daemon on " + host_of(vpid) + " as a peer: " + why);
}

void DaemonMachine::child_launched(std::uint32_t vpid) { node_.launched(vpid); }

void DaemonMachine::child_not_started(std::uint32_t vpid, const std::string& why) {
  hooks_.report_failure(vpid, "cannot start the agent for " + host_of(vpid) + ": " + why);
}

void DaemonMachine::child_agent_exited(std::uint32_t vpid, int wait_status, const std::string& tail) {
  if (!ending() && lost_.count(vpid) == 0) {
    hooks_.report_failure(vpid, "the agent for " + describe(vpid) + " " + plm::describe_wait_status(wait_status) +
                                    (tail.empty() ? std::string(", printing nothing") : ", printing:\n" + tail));
  }
  maybe_finish();
}

bool DaemonMachine::connected_to_parent() {
  if (reported_) return false;
  reported_ = true;
  return true;
}

void DaemonMachine::peer_lost(std::uint32_t vpid, const std::string& why) {
  if (ending()) return;
  switch (node_.role_of(vpid)) {
    case PeerRole::Parent:
      parent_gone("the oob lost it: " + why);
      return;
    case PeerRole::Below:
      break;
    case PeerRole::Stranger:
      return;
  }
  if (!lost_.insert(vpid).second) return;  // reported already
  hooks_.report_failure(vpid, "the daemon on " + describe(vpid) + " was lost: " + why);
  // A child we started may be alive but silent: its agent ends now, daemon
  // first, SIGKILL after the grace (as orcarun does with its own).
  const LostDaemonAgents agents = node_.lost(vpid);
  if (agents.end_its_agent) {
    hooks_.end_lost_agent(vpid);
    hooks_.arm(DaemonTimer::LostAgentKill, kLostAgentGrace);
  }
  for (std::uint32_t v : agents.below) hooks_.signal_agent(v, SIGTERM);
}

void DaemonMachine::input_closed() {
  if (!ending()) parent_gone("its standard input (from the agent that started this daemon) closed");
}

void DaemonMachine::on_signal(int signo) {
  if (ending()) return;
  phase_ = DaemonPhase::Ending;  // before the report, which may find the parent lost
  if (signo == SIGTERM) {
    // Said first, before the ranks' ends: the cause is this daemon's end (a
    // batch system ending its step, an administrator), not the ranks.
    hooks_.report_failure(facts_.self, "this daemon was sent SIGTERM while the job ran (by whoever started it, the "
                                       "batch system or a user); it killed its ranks and exited");
  }
  // SIGHUP: a stopped daemon whose agent died (its process group orphaned),
  // or a hung-up session: the same end, without a word (nobody hears it).
  end_at_once();
}

void DaemonMachine::parent_gone(const std::string& why) {
  // Ending from here on: sending the report below may itself find the
  // parent lost, and the oob says so from inside the send.
  phase_ = DaemonPhase::Ending;
  parent_gone_ = true;
  hooks_.log("the parent of this daemon is gone (" + why + "); killing its ranks and exiting");
  // If orcarun can still hear us (only the agent's session died), the cause
  // is this daemon's end, not its ranks' SIGKILL: say so first, and send no
  // exit records that would read as the ranks failing.
  hooks_.report_failure(facts_.self, "this daemon's parent is gone (" + why + "); it killed its ranks and exited");
  end_at_once();
}

// Our children must end their ranks before they go: SIGTERM makes an orcad
// end as here (and ends an agent, which closes its daemon's stdin). A
// SIGKILLed orcad kills nothing, and the parent-death signal reaches only
// each rank's own process, not what the rank started.
void DaemonMachine::end_at_once() {
  exit_status_ = 1;
  phase_ = DaemonPhase::Ending;
  hooks_.signal_ranks(SIGKILL);
  hooks_.cancel_launches();
  hooks_.signal_all_agents(SIGTERM);
  begin_ending();
}

// --- the job -----------------------------------------------------------------

bool DaemonMachine::command() {
  if (commanded_) return false;
  commanded_ = true;
  return true;
}

void DaemonMachine::ranks_started() { say_done_if_idle(); }

void DaemonMachine::rank_ended(const ExitRecord& record) {
  if (!parent_gone_) {
    ExitRecord r = record;
    if (!r.started) r.wait_status = 127 << 8;  // as a shell says "command not found"
    hooks_.report_exit(r);
    say_done_if_idle();
  }
  maybe_finish();
}

void DaemonMachine::teardown(int signo) {
  if (ending()) return;
  phase_ = DaemonPhase::Ending;
  hooks_.signal_ranks(signo != 0 ? signo : SIGKILL);
  hooks_.cancel_launches();  // a child started now would not hear it
  // The teardown was relayed down as it came: the children that heard it
  // end by themselves; the agents of those that cannot hear it are told.
  const TeardownReach reach = node_.teardown();
  for (std::uint32_t c : reach.relayed) hooks_.forget_child(c);
  for (std::uint32_t c : reach.unreached) hooks_.signal_agent(c, SIGTERM);
  begin_ending();
}

void DaemonMachine::begin_ending() {
  hooks_.arm(DaemonTimer::EndLimit, kDaemonEndLimit);
  maybe_finish();
}

void DaemonMachine::on_timer(DaemonTimer timer) {
  switch (timer) {
    case DaemonTimer::EndLimit:
      if (phase_ != DaemonPhase::Ending) break;
      hooks_.signal_all_agents(SIGKILL);
      phase_ = DaemonPhase::Done;
      hooks_.stop();
      break;
    case DaemonTimer::LostAgentKill:
      for (std::uint32_t v : lost_) {
        if (node_.is_launched(v)) hooks_.signal_agent(v, SIGKILL);
      }
      break;
  }
}

// This daemon's part of the job is over when every rank of it ended with
// nothing left in its process group, no rank of it reads orcarun's stdin,
// no pmi module serves them, and no daemon relays through it. It says so
// once; orcarun answers with a Teardown to it alone, so that it ends now
// instead of with the job's last rank (srun ends a step only when every
// task has, and a host is free sooner).
void DaemonMachine::say_done_if_idle() {
  // A daemon with children in the tree stays: it relays, and with tree
  // spawn it runs their agents.
  if (done_said_ || !commanded_ || ending() || facts_.tree->parent(facts_.self) != 0 ||
      !facts_.tree->children(facts_.self).empty() || hooks_.pmi_serves_ranks() || !hooks_.ranks_idle()) {
    return;
  }
  done_said_ = true;
  hooks_.say_done();
}

void DaemonMachine::maybe_finish() {
  if (phase_ != DaemonPhase::Ending || hooks_.ranks_running() || hooks_.agents_running() > 0) return;
  hooks_.cancel(DaemonTimer::EndLimit);
  phase_ = DaemonPhase::Done;
  hooks_.stop();
}

}  // namespace orca::launch
