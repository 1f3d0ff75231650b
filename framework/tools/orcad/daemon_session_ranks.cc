// DaemonSession: this node's ranks: the pmi service, each rank's spec
// (rank_environment), their output up to orcarun within its credit, and
// stdin down to them.
#include "daemon_session.h"

#include "launch/cpu_topology.h"
#include "launch/rank_environment.h"

#include "launch/rank_network_env.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>

namespace orca::orcad {

void DaemonSession::on_fence(ProcessName from, std::span<const std::uint8_t> bytes) {
  auto m = launch::decode(bytes);
  if (!m || !std::holds_alternative<launch::FenceData>(m.value()) || !pmi_) return;
  const auto& part = std::get<launch::FenceData>(m.value());
  // Only a child's own part counts: the oob names the sender.
  if (part.from != from.vpid || tree_->parent(from.vpid) != bootstrap_.vpid) return;
  pmi_->on_part(part);
}

void DaemonSession::on_pmi_direct(std::span<const std::uint8_t> bytes) {
  auto m = launch::decode(bytes);
  if (!m || !std::holds_alternative<launch::PmiDirect>(m.value()) || !pmi_) return;
  const auto& direct = std::get<launch::PmiDirect>(m.value());
  if (direct.to == bootstrap_.vpid) pmi_->on_direct(direct);
}

void DaemonSession::make_pmi() {
  if (pmi_) return;
  pmi::PmiService::Hooks pmi_hooks;
  pmi_hooks.up = [this](const launch::FenceData& part) { post(tree_->parent(bootstrap_.vpid), launch::kTagFence, part); };
  pmi_hooks.abort = [this](const launch::RankAbort& abort) { up(launch::kTagStatus, abort); };
  pmi_hooks.direct = [this](const launch::PmiDirect& direct) { post(direct.to, launch::kTagPmiDirect, direct); };
  pmi_hooks.failed = [this](const Message& why) {
    // The job's failure, not this daemon's: orcarun shows the message.
    launch::JobFailure failure{.vpid = bootstrap_.vpid, .area = why.area(), .topic = why.topic(), .args = {}};
    for (const auto& [key, value] : why.args()) failure.args.push_back({key, value});
    up(launch::kTagStatus, failure);
  };
  pmi_hooks.made_directory = [this](const std::string& path) { keeper_.directory(path); };
  pmi_ = std::make_unique<pmi::PmiService>(process_, bootstrap_, *tree_, std::move(pmi_hooks));
}

// What every rank of this node shares at the launch command.
struct DaemonSession::NodeLaunch {
  std::vector<const launch::RankPlacement*> mine;
  std::vector<std::string> base_env;
  launch::RankLink link;
  launch::TorchMaster master;
  std::vector<std::uint32_t> ranks_at;
  std::vector<std::uint32_t> node_ranks;
  std::vector<std::vector<unsigned>> cpus;  // [i]: the CPUs mine[i] is bound to
  std::vector<std::uint32_t> app;           // [i]: mine[i]'s program
  std::vector<std::vector<std::string>> app_env;  // [app]: the job's forwarded variables, then the program's
};

void DaemonSession::launch_ranks(const launch::LaunchCommand& command) {
  std::vector<const launch::RankPlacement*> mine;
  for (const auto& p : command.placements) {
    if (p.daemon == bootstrap_.vpid) mine.push_back(&p);
  }
  if (!machine_->command()) return;  // one job per daemon: a repeated command is ignored
  // The check is over: its listener and dials give their ports back.
  mesh_listener_.reset();
  mesh_probe_.reset();
  make_pmi();
  if (Status st = pmi_->start(command); !st) {
    // No rank starts: without its PMI server an MPI rank would wait forever.
    report_failure(bootstrap_.vpid, "cannot serve the job's ranks PMI: " + st.error().summary());
    return;
  }
  NodeLaunch node = node_launch(command, std::move(mine));
  if (std::string why = bad_programs(command); !why.empty()) {
    report_failure(bootstrap_.vpid, "cannot start this node's ranks: " + why);
    return;
  }
  for (const auto& app : command.apps) {
    node.app_env.push_back(command.environment);
    node.app_env.back().insert(node.app_env.back().end(), app.environment.begin(), app.environment.end());
  }
  for (const launch::RankPlacement* p : node.mine) {
    node.app.push_back(launch::app_of_rank(command.apps, p->rank));
    auto cpus = command.cpus.empty() ? Result<std::vector<unsigned>>(std::vector<unsigned>{})
                                     : launch::parse_cpu_list(command.cpus[p->rank]);
    if (!cpus) {
      report_failure(bootstrap_.vpid, "cannot bind rank " + std::to_string(p->rank) + ": " + cpus.error().summary());
      return;
    }
    node.cpus.push_back(std::move(cpus.value()));
  }
  for (std::size_t i = 0; i < node.mine.size(); ++i) {
    const launch::RankPlacement* p = node.mine[i];
    auto pmi = pmi_->prepare(p->rank);
    if (!pmi) {
      report_failure(bootstrap_.vpid, "cannot prepare rank " + std::to_string(p->rank) + " for PMI: " + pmi.error().summary());
      return;
    }
    plm::SpawnSpec spec = rank_spec(command, node, *p, node.app[i], std::move(pmi.value()));
    spec.cpus = node.cpus[i];
    start_rank(p->rank, spec);
  }
  machine_->ranks_started();  // a node with no rank of the job may be done
}

// Why the launch command's programs, CPU lists or ranks cannot be used (""
// if they can): orcarun made them, but a daemon starts nothing on a guess.
std::string DaemonSession::bad_programs(const launch::LaunchCommand& command) {
  if (command.apps.empty() || command.apps.front().first_rank != 0) return "the launch command has no program for rank 0";
  for (std::size_t a = 0; a < command.apps.size(); ++a) {
    if (command.apps[a].argv.empty()) return "program " + std::to_string(a) + " has no command";
    if (a > 0 && command.apps[a].first_rank < command.apps[a - 1].first_rank) return "the programs are out of order";
  }
  if (!command.cpus.empty() && command.cpus.size() != command.size) {
    return "the CPU lists are for " + std::to_string(command.cpus.size()) + " ranks, not " + std::to_string(command.size);
  }
  for (const auto& p : command.placements) {
    if (p.rank >= command.size) return "rank " + std::to_string(p.rank) + " is placed in a job of " + std::to_string(command.size);
  }
  return "";
}

DaemonSession::NodeLaunch DaemonSession::node_launch(const launch::LaunchCommand& command,
                                                     std::vector<const launch::RankPlacement*> mine) const {
  NodeLaunch node{.mine = std::move(mine), .base_env = plm::current_environment()};
  // This host's data-plane link, as orcarun gathered it.
  const std::string identity = who_we_are().host_identity;
  for (const auto& l : command.links) {
    if (l.identity != identity) continue;
    node.link = {.interface = l.interface, .address = l.address, .prefix_length = static_cast<int>(l.prefix_length), .rdma = l.rdma};
  }
  node.master = {.address = command.master_address, .port = command.master_port};
  node.ranks_at = launch::ranks_per_daemon(command.placements, bootstrap_.daemons);
  for (const launch::RankPlacement* p : node.mine) node.node_ranks.push_back(p->rank);
  std::sort(node.node_ranks.begin(), node.node_ranks.end());
  return node;
}

plm::SpawnSpec DaemonSession::rank_spec(const launch::LaunchCommand& command, const NodeLaunch& node,
                                        const launch::RankPlacement& p, std::uint32_t app_index,
                                        pmi::PmiService::RankSetup pmi) const {
  const launch::AppSpec& app = command.apps[app_index];
  launch::RankEnvironmentInput in{.inherited = node.base_env,
                                  .forwarded = node.app_env[app_index],
                                  .identity = {.rank = p.rank,
                                               .size = command.size,
                                               .local_rank = p.local_rank,
                                               .local_size = static_cast<std::uint32_t>(node.mine.size()),
                                               .node = bootstrap_.vpid - 1,
                                               .app = app_index},
                                  .link = node.link,
                                  .master = node.master,
                                  .families = command.families,
                                  .launcher = {},
                                  .pmi = std::move(pmi.settings)};
  if (started_by_) {
    const orca_plm_rank_place place{.rank = p.rank,
                                    .local_rank = p.local_rank,
                                    .size = command.size,
                                    .node_ranks = node.node_ranks.data(),
                                    .node_rank_count = node.node_ranks.size(),
                                    .ranks_per_daemon = node.ranks_at.data() + 1,  // [0] is orcarun's
                                    .daemons = bootstrap_.daemons};
    in.launcher = plm::rank_environment(*started_by_, bootstrap_.hosts, place);
  }
  plm::SpawnSpec spec;
  spec.argv = app.argv;
  spec.environment = launch::rank_environment(in);
  spec.inherit_fds = std::move(pmi.inherit_fds);
  // orcarun's own directory where this host has it, else ours; --wdir's
  // always (the job's is checked at start-up; a program's own, or one gone
  // since, fails the rank's start, saying why).
  if (!app.directory.empty() && (app.directory_given || ::access(app.directory.c_str(), X_OK) == 0)) {
    spec.directory = app.directory;
  }
  spec.pipe_input = command.stdin_target == launch::kStdinAll ||
                    command.stdin_target == static_cast<std::int32_t>(p.rank);
  spec.parent_death_signal = SIGKILL;
  spec.merge_errors = command.merge_stderr;  // in order, as the rank wrote them
  return spec;
}

void DaemonSession::start_rank(std::uint32_t rank_id, const plm::SpawnSpec& spec) {
  auto rank = std::make_unique<RankProcess>(process_.loop(), rank_id, spec, partial_delay_, rank_hooks());
  if (rank->process_group() > 0) keeper_.watch(rank->process_group());
  pmi_->started(rank_id, rank->started());
  ranks_.emplace(rank_id, std::move(rank));
}

RankProcess::Hooks DaemonSession::rank_hooks() {
  RankProcess::Hooks hooks;
  hooks.output = [this](std::uint32_t rank, launch::Stream stream, std::string_view text, bool partial) {
    launch::OutputChunk chunk{.rank = rank, .stream = stream, .partial = partial,
                              .bytes = std::vector<std::uint8_t>(text.begin(), text.end())};
    up(launch::kTagOutput, chunk);
    output_window_->sent(text.size());
    if (!output_may_flow()) {
      for (auto& [r, proc] : ranks_) proc->pause_output();
    }
  };
  hooks.exited = [this](const launch::ExitRecord& record) {
    // A group with no member left is free for the kernel to give out
    // again: the keeper must not kill its next owner. One that still has
    // members (the rank's background children) stays watched, and its
    // RankProcess kills it at the end.
    if (auto it = ranks_.find(record.rank); it != ranks_.end() && it->second->group_gone()) {
      keeper_.forget(it->second->process_group());
    }
    // What its PMI connection still held (an abort) goes up first.
    pmi_->ended(record.rank);
    launch::ExitRecord r = record;
    r.pmi = pmi_->progress(record.rank);
    machine_->rank_ended(r);
  };
  hooks.stdin_written = [this](std::uint32_t n) { up(launch::kTagCredit, launch::StdinCredit{.bytes = n}); };
  return hooks;
}

void DaemonSession::on_stdin(std::span<const std::uint8_t> bytes) {
  auto m = launch::decode(bytes);
  if (!m || !std::holds_alternative<launch::StdinData>(m.value())) return;
  const auto& data = std::get<launch::StdinData>(m.value());
  // Every rank here that reads stdin gets the bytes; each credits what
  // it took, and orcarun counts one window per rank that reads.
  for (auto& [rank, r] : ranks_) {
    if (r->reads_stdin()) r->write_stdin(data.bytes, data.eof);
  }
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
  for (auto& [rank, r] : ranks_) r->resume_output();
}

}  // namespace orca::orcad
