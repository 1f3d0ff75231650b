// DvmMachine: a persistent DVM's jobs, clients, losses and stop.
#include "launch/dvm_machine.h"

#include "launch/launch_text.h"

#include <algorithm>

namespace orca::launch {

DvmMachine::DvmMachine(DvmFacts facts, Hooks hooks)
    : facts_(std::move(facts)), hooks_(std::move(hooks)), admission_(facts_.slots),
      host_lost_(facts_.hosts.size(), false) {}

std::size_t DvmMachine::hosts_left() const noexcept {
  return static_cast<std::size_t>(std::count(host_lost_.begin(), host_lost_.end(), false));
}

bool DvmMachine::uses(DvmJobId id, std::size_t host) const {
  auto it = jobs_.find(id);
  return it != jobs_.end() && host < it->second.slots.size() && it->second.slots[host] > 0;
}

void DvmMachine::start(DvmJobId id) {
  jobs_[id].started = true;
  hooks_.start_job(id);
}

void DvmMachine::start_all(const std::vector<DvmJobId>& ids) {
  for (DvmJobId id : ids) start(id);
}

Message DvmMachine::busy() const {
  return Message("launch", "dvm-busy", {{"waiting", std::to_string(waiting())}, {"running", std::to_string(running())}});
}

void DvmMachine::admit(const DvmJobRequest& request) {
  switch (admission_.submit(request)) {
    case Admission::Now:
      jobs_[request.id] = Job{request.slots, false};
      start(request.id);
      break;
    case Admission::Waiting:
      jobs_[request.id] = Job{request.slots, false};
      break;
    case Admission::Busy:
      hooks_.refuse_job(request.id, busy());
      break;
    case Admission::Never:
      hooks_.refuse_job(request.id, Message("launch", "dvm-job-too-large", {{"hosts", std::to_string(hosts_left())}}));
      break;
  }
}

void DvmMachine::ready() {
  if (phase_ != DvmPhase::Starting) return;
  phase_ = DvmPhase::Ready;
  while (!early_.empty()) {
    const DvmJobRequest r = std::move(early_.front());
    early_.pop_front();
    admit(r);
  }
  check_idle();
}

void DvmMachine::submit(const DvmJobRequest& request) {
  if (phase_ == DvmPhase::Stopping || phase_ == DvmPhase::Done) {
    hooks_.refuse_job(request.id, Message("launch", "dvm-stopping", {{"why", "it is stopping"}}));
    return;
  }
  disarm_idle();
  if (phase_ == DvmPhase::Starting) {
    if (!request.wait) {
      hooks_.refuse_job(request.id, busy());
      return;
    }
    early_.push_back(request);
    return;
  }
  admit(request);
  check_idle();
}

void DvmMachine::job_ended(DvmJobId id) {
  if (jobs_.erase(id) == 0) return;
  const std::vector<DvmJobId> admitted = admission_.release(id);
  if (phase_ == DvmPhase::Ready) start_all(admitted);
  check_idle();
}

void DvmMachine::client_joined() {
  ++clients_;
  disarm_idle();
}

void DvmMachine::client_left() {
  if (clients_ > 0) --clients_;
  check_idle();
}

void DvmMachine::daemon_lost(std::uint32_t vpid, const std::string& why) {
  if (vpid == 0 || vpid > host_lost_.size() || host_lost_[vpid - 1]) return;
  if (phase_ == DvmPhase::Stopping || phase_ == DvmPhase::Done) return;  // a teardown's losses are no news
  const std::size_t h = vpid - 1;
  host_lost_[h] = true;
  const std::string host = printable(facts_.hosts[h]);
  const Message lost("launch", "dvm-daemon-lost", {{"host", host}, {"vpid", std::to_string(vpid)}, {"why", why}});
  std::vector<DvmJobId> ended;
  for (const auto& [id, job] : jobs_) {
    if (job.started && uses(id, h)) ended.push_back(id);
  }
  const DvmAdmission::HostGone gone = admission_.remove_host(h);
  for (DvmJobId id : gone.never) {
    jobs_.erase(id);
    hooks_.refuse_job(id, lost);
  }
  for (DvmJobId id : ended) hooks_.end_job(id, lost);
  if (facts_.stop_on_loss || hosts_left() == 0) {
    hooks_.show(lost);
    stop("a daemon was lost");
    return;
  }
  hooks_.show(Message("launch", "dvm-goes-on", {{"host", host}, {"vpid", std::to_string(vpid)}, {"why", why},
                                                 {"left", std::to_string(hosts_left())}}));
  if (phase_ == DvmPhase::Ready) start_all(gone.admitted);
}

void DvmMachine::stop(const std::string& why) {
  if (phase_ == DvmPhase::Stopping || phase_ == DvmPhase::Done) return;
  phase_ = DvmPhase::Stopping;
  disarm_idle();
  const Message stopping("launch", "dvm-stopping", {{"why", why}});
  for (const DvmJobRequest& r : early_) hooks_.refuse_job(r.id, stopping);
  early_.clear();
  std::vector<DvmJobId> started, waiting;
  for (const auto& [id, job] : jobs_) (job.started ? started : waiting).push_back(id);
  for (DvmJobId id : waiting) {
    jobs_.erase(id);
    hooks_.refuse_job(id, stopping);
  }
  for (DvmJobId id : started) hooks_.end_job(id, stopping);
  hooks_.stop_daemons();
}

void DvmMachine::idle_timer() {
  if (!idle_armed_) return;
  idle_armed_ = false;
  hooks_.show(Message("launch", "dvm-idle-stop",
                      {{"seconds", std::to_string(std::chrono::duration_cast<std::chrono::seconds>(facts_.idle_limit).count())}}));
  stop("idle");
}

void DvmMachine::daemons_gone() {
  if (phase_ == DvmPhase::Stopping) phase_ = DvmPhase::Done;
}

// A detached DVM with nothing to do counts down to its end.
void DvmMachine::check_idle() {
  const bool idle = phase_ == DvmPhase::Ready && facts_.detached && facts_.idle_limit.count() > 0 && jobs_.empty() &&
                    early_.empty() && clients_ == 0;
  if (idle && !idle_armed_) {
    hooks_.arm_idle(facts_.idle_limit);
    idle_armed_ = true;
  } else if (!idle) {
    disarm_idle();
  }
}

void DvmMachine::disarm_idle() {
  if (!idle_armed_) return;
  hooks_.cancel_idle();
  idle_armed_ = false;
}

}  // namespace orca::launch
