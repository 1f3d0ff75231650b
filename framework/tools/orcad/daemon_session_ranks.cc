// DaemonSession: this node's jobs (NodeJob): the pmi service of the
// standalone one, their output up to orcarun within its credit, and stdin
// down to them.
#include "daemon_session.h"

#include "launch/rank_failure.h"
#include "pmi/pmi_modules.h"

namespace orca::orcad {

void DaemonSession::on_fence(ProcessName from, std::span<const std::uint8_t> bytes) {
  auto m = launch::decode(bytes);
  if (!m || !std::holds_alternative<launch::FenceData>(m.value())) return;
  const auto& part = std::get<launch::FenceData>(m.value());
  // Only a child's own part counts: the oob names the sender.
  if (part.from != from.vpid || tree_->parent(from.vpid) != bootstrap_.vpid) return;
  if (pmi::PmiService* pmi = pmi_of(part.job)) pmi->on_part(part);
}

void DaemonSession::on_pmi_direct(std::span<const std::uint8_t> bytes) {
  auto m = launch::decode(bytes);
  if (!m || !std::holds_alternative<launch::PmiDirect>(m.value())) return;
  const auto& direct = std::get<launch::PmiDirect>(m.value());
  if (direct.to != bootstrap_.vpid) return;
  if (pmi::PmiService* pmi = pmi_of(direct.job)) pmi->on_direct(direct);
}

pmi::PmiService* DaemonSession::pmi_of(std::uint32_t job) const {
  if (job == 0) return pmi_.get();
  auto it = jobs_.find(job);
  return it != jobs_.end() ? it->second->pmi() : nullptr;
}

void DaemonSession::make_pmi() {
  if (pmi_) return;
  pmi_modules_ = std::make_unique<pmi::PmiModules>(process_, (bootstrap_.flags & launch::kBootstrapDvm) != 0);
  pmi_ = std::make_unique<pmi::PmiService>(process_, bootstrap_, *tree_, *pmi_modules_, 0, pmi_hooks(0));
}

pmi::PmiService::Hooks DaemonSession::pmi_hooks(std::uint32_t job) {
  pmi::PmiService::Hooks hooks;
  hooks.up = [this](const launch::FenceData& part) { post(tree_->parent(bootstrap_.vpid), launch::kTagFence, part); };
  hooks.abort = [this](const launch::RankAbort& abort) { up(launch::kTagStatus, abort); };
  hooks.direct = [this](const launch::PmiDirect& direct) { post(direct.to, launch::kTagPmiDirect, direct); };
  hooks.failed = [this, job](const Message& why) {
    // The job's failure, not this daemon's: orcarun (or the DVM) shows it.
    up(launch::kTagStatus, launch::job_failure_of(why, job, bootstrap_.vpid));
  };
  hooks.made_directory = [this](const std::string& path) { keeper_.directory(path); };
  return hooks;
}

void DaemonSession::launch_ranks(const launch::LaunchCommand& command) {
  if (command.job != 0) {
    launch_dvm_job(command);
    return;
  }
  if (!machine_->command()) return;  // one standalone job per daemon: a repeated command is ignored
  // The check is over: its listener and dials give their ports back.
  mesh_listener_.reset();
  mesh_probe_.reset();
  make_pmi();
  if (Status st = pmi_->start(command); !st) {
    // No rank starts: without its PMI server an MPI rank would wait forever.
    report_failure(bootstrap_.vpid, "cannot serve the job's ranks PMI: " + st.error().summary());
    return;
  }
  add_job(std::make_unique<NodeJob>(job_context(), 0, pmi_.get(), job_hooks(0))).launch(command);
  machine_->ranks_started();  // a node with no rank of the job may be done
}

// A DVM's job: its ranks here start at its command, and what they do is
// the job's alone (a failure to start them ends that job, not the daemon).
void DaemonSession::launch_dvm_job(const launch::LaunchCommand& command) {
  if (machine_->ending() || machine_->command_came() || jobs_.contains(command.job)) return;
  make_pmi();
  auto pmi = std::make_unique<pmi::PmiService>(process_, bootstrap_, *tree_, *pmi_modules_, command.job,
                                               pmi_hooks(command.job));
  NodeJob::Hooks hooks = job_hooks(command.job);
  if (Status st = pmi->start(command); !st) {
    // No rank starts: without its PMI server an MPI rank would wait forever.
    hooks.failed("cannot serve the job's ranks PMI: " + st.error().summary());
    return;
  }
  add_job(std::make_unique<NodeJob>(job_context(), command.job, std::move(pmi), std::move(hooks))).launch(command);
}

NodeJob& DaemonSession::add_job(std::unique_ptr<NodeJob> job) {
  const std::uint32_t id = job->job();
  return *jobs_.insert_or_assign(id, std::move(job)).first->second;
}

NodeJob::Context DaemonSession::job_context() {
  return NodeJob::Context{.process = process_,
                          .bootstrap = bootstrap_,
                          .keeper = keeper_,
                          .host_identity = who_we_are().host_identity,
                          .started_by = started_by_,
                          .partial_delay = partial_delay_};
}

NodeJob::Hooks DaemonSession::job_hooks(std::uint32_t job) {
  NodeJob::Hooks hooks;
  hooks.output = [this](const launch::OutputChunk& chunk) {
    up(launch::kTagOutput, chunk);
    output_window_->sent(chunk.bytes.size());
    if (!output_may_flow()) {
      for (auto& [id, j] : jobs_) j->pause_output();
    }
  };
  if (job == 0) {
    hooks.exited = [this](const launch::ExitRecord& record) { machine_->rank_ended(record); };
    hooks.failed = [this](const std::string& why) { report_failure(bootstrap_.vpid, why); };
  } else {
    hooks.exited = [this](const launch::ExitRecord& record) { up(launch::kTagStatus, record); };
    hooks.failed = [this, job](const std::string& why) {
      up(launch::kTagStatus, launch::JobFailure{.job = job, .vpid = bootstrap_.vpid, .area = "orcarun",
                                                .topic = "dvm-node-cannot-start",
                                                .args = {{"host", host_of(bootstrap_.vpid)}, {"why", why}}});
    };
  }
  hooks.stdin_written = [this, job](std::uint32_t n) { up(launch::kTagCredit, launch::StdinCredit{.job = job, .bytes = n}); };
  return hooks;
}

// A DVM's job is over: whatever of it still runs here is killed, and
// nothing of it stays.
void DaemonSession::end_dvm_job(std::uint32_t job) {
  if (job != 0) jobs_.erase(job);
}

void DaemonSession::on_stdin(std::span<const std::uint8_t> bytes) {
  auto m = launch::decode(bytes);
  if (!m || !std::holds_alternative<launch::StdinData>(m.value())) return;
  const auto& data = std::get<launch::StdinData>(m.value());
  if (auto it = jobs_.find(data.job); it != jobs_.end()) it->second->write_stdin(data);
}

void DaemonSession::on_output_credit(std::span<const std::uint8_t> bytes) {
  auto m = launch::decode(bytes);
  if (!m || !std::holds_alternative<launch::OutputCredit>(m.value())) return;
  output_window_->credited(std::get<launch::OutputCredit>(m.value()).bytes);
  resume_output();
}

bool DaemonSession::output_may_flow() const { return outbox_->waiting() == 0 && output_window_->open(); }

void DaemonSession::resume_output() {
  if (!output_may_flow()) return;
  for (auto& [id, j] : jobs_) j->resume_output();
}

}  // namespace orca::orcad
