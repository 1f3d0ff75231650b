// DaemonSession: this node's jobs (NodeJob): the pmi service of the
// standalone one, their output up to orcarun within its credit, and stdin
// down to them.
#include "daemon_session.h"

#include "launch/rank_failure.h"

namespace orca::orcad {

void DaemonSession::on_fence(ProcessName from, std::span<const std::uint8_t> bytes) {
  auto m = launch::decode(bytes);
  if (!m || !std::holds_alternative<launch::FenceData>(m.value()) || !pmi_) return;
  const auto& part = std::get<launch::FenceData>(m.value());
  if (part.job != 0) return;  // a DVM job's ranks have no PMI service yet
  // Only a child's own part counts: the oob names the sender.
  if (part.from != from.vpid || tree_->parent(from.vpid) != bootstrap_.vpid) return;
  pmi_->on_part(part);
}

void DaemonSession::on_pmi_direct(std::span<const std::uint8_t> bytes) {
  auto m = launch::decode(bytes);
  if (!m || !std::holds_alternative<launch::PmiDirect>(m.value()) || !pmi_) return;
  const auto& direct = std::get<launch::PmiDirect>(m.value());
  if (direct.job == 0 && direct.to == bootstrap_.vpid) pmi_->on_direct(direct);
}

void DaemonSession::make_pmi() {
  if (pmi_) return;
  pmi::PmiService::Hooks pmi_hooks;
  pmi_hooks.up = [this](const launch::FenceData& part) { post(tree_->parent(bootstrap_.vpid), launch::kTagFence, part); };
  pmi_hooks.abort = [this](const launch::RankAbort& abort) { up(launch::kTagStatus, abort); };
  pmi_hooks.direct = [this](const launch::PmiDirect& direct) { post(direct.to, launch::kTagPmiDirect, direct); };
  pmi_hooks.failed = [this](const Message& why) {
    // The job's failure, not this daemon's: orcarun shows the message.
    up(launch::kTagStatus, launch::job_failure_of(why, 0, bootstrap_.vpid));
  };
  pmi_hooks.made_directory = [this](const std::string& path) { keeper_.directory(path); };
  pmi_ = std::make_unique<pmi::PmiService>(process_, bootstrap_, *tree_, std::move(pmi_hooks));
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
  NodeJob& job = add_job(0, pmi_.get());
  job.launch(command);
  machine_->ranks_started();  // a node with no rank of the job may be done
}

// A DVM's job: its ranks here start at its command, and what they do is
// the job's alone (a failure to start them ends that job, not the daemon).
void DaemonSession::launch_dvm_job(const launch::LaunchCommand& command) {
  if (machine_->ending() || machine_->command_came() || jobs_.contains(command.job)) return;
  add_job(command.job, nullptr).launch(command);
}

NodeJob& DaemonSession::add_job(std::uint32_t job, pmi::PmiService* pmi) {
  NodeJob::Context context{.process = process_,
                           .bootstrap = bootstrap_,
                           .keeper = keeper_,
                           .host_identity = who_we_are().host_identity,
                           .started_by = started_by_,
                           .partial_delay = partial_delay_};
  auto made = std::make_unique<NodeJob>(std::move(context), job, pmi, job_hooks(job));
  return *jobs_.insert_or_assign(job, std::move(made)).first->second;
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
