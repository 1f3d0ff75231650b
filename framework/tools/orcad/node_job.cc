// NodeJob: one job's ranks on this daemon: each rank's spec
// (rank_environment), its process, and its output, exit and stdin.
#include "node_job.h"

#include "launch/cpu_topology.h"
#include "launch/rank_environment.h"
#include "launch/rank_network_env.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>

namespace orca::orcad {

NodeJob::NodeJob(Context context, std::uint32_t job, pmi::PmiService* pmi, Hooks hooks)
    : context_(std::move(context)), job_(job), pmi_(pmi), hooks_(std::move(hooks)) {}

NodeJob::NodeJob(Context context, std::uint32_t job, std::unique_ptr<pmi::PmiService> pmi, Hooks hooks)
    : context_(std::move(context)), job_(job), own_pmi_(std::move(pmi)), pmi_(own_pmi_.get()), hooks_(std::move(hooks)) {}

NodeJob::~NodeJob() = default;

// What every rank of this node shares at the launch command.
struct NodeJob::NodeLaunch {
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

void NodeJob::launch(const launch::LaunchCommand& command) {
  const std::uint32_t self = context_.bootstrap.vpid;
  std::vector<const launch::RankPlacement*> mine;
  for (const auto& p : command.placements) {
    if (p.daemon == self) mine.push_back(&p);
  }
  NodeLaunch node = node_launch(command, std::move(mine));
  if (std::string why = bad_programs(command); !why.empty()) {
    hooks_.failed("cannot start this node's ranks: " + why);
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
      hooks_.failed("cannot bind rank " + std::to_string(p->rank) + ": " + cpus.error().summary());
      return;
    }
    node.cpus.push_back(std::move(cpus.value()));
  }
  for (std::size_t i = 0; i < node.mine.size(); ++i) {
    const launch::RankPlacement* p = node.mine[i];
    pmi::PmiService::RankSetup pmi;
    if (pmi_) {
      auto setup = pmi_->prepare(p->rank);
      if (!setup) {
        hooks_.failed("cannot prepare rank " + std::to_string(p->rank) + " for PMI: " + setup.error().summary());
        return;
      }
      pmi = std::move(setup.value());
    }
    plm::SpawnSpec spec = rank_spec(command, node, *p, node.app[i], std::move(pmi.settings));
    spec.inherit_fds = std::move(pmi.inherit_fds);
    spec.cpus = node.cpus[i];
    start_rank(p->rank, spec);
  }
}

// Why the launch command's programs, CPU lists or ranks cannot be used (""
// if they can): orcarun made them, but a daemon starts nothing on a guess.
std::string NodeJob::bad_programs(const launch::LaunchCommand& command) {
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

NodeJob::NodeLaunch NodeJob::node_launch(const launch::LaunchCommand& command,
                                         std::vector<const launch::RankPlacement*> mine) const {
  NodeLaunch node{.mine = std::move(mine), .base_env = plm::current_environment()};
  // This host's data-plane link, as orcarun gathered it.
  for (const auto& l : command.links) {
    if (l.identity != context_.host_identity) continue;
    node.link = {.interface = l.interface, .address = l.address, .prefix_length = static_cast<int>(l.prefix_length), .rdma = l.rdma};
  }
  node.master = {.address = command.master_address, .port = command.master_port};
  node.ranks_at = launch::ranks_per_daemon(command.placements, context_.bootstrap.daemons);
  for (const launch::RankPlacement* p : node.mine) node.node_ranks.push_back(p->rank);
  std::sort(node.node_ranks.begin(), node.node_ranks.end());
  return node;
}

plm::SpawnSpec NodeJob::rank_spec(const launch::LaunchCommand& command, const NodeLaunch& node,
                                  const launch::RankPlacement& p, std::uint32_t app_index,
                                  std::vector<launch::EnvironmentSetting> pmi_settings) const {
  const launch::AppSpec& app = command.apps[app_index];
  const launch::Bootstrap& bootstrap = context_.bootstrap;
  launch::RankEnvironmentInput in{.inherited = node.base_env,
                                  .forwarded = node.app_env[app_index],
                                  .identity = {.rank = p.rank,
                                               .size = command.size,
                                               .local_rank = p.local_rank,
                                               .local_size = static_cast<std::uint32_t>(node.mine.size()),
                                               .node = bootstrap.vpid - 1,
                                               .app = app_index},
                                  .link = node.link,
                                  .master = node.master,
                                  .families = command.families,
                                  .launcher = {},
                                  .pmi = std::move(pmi_settings)};
  if (context_.started_by) {
    const orca_plm_rank_place place{.rank = p.rank,
                                    .local_rank = p.local_rank,
                                    .size = command.size,
                                    .node_ranks = node.node_ranks.data(),
                                    .node_rank_count = node.node_ranks.size(),
                                    .ranks_per_daemon = node.ranks_at.data() + 1,  // [0] is orcarun's
                                    .daemons = bootstrap.daemons};
    in.launcher = plm::rank_environment(*context_.started_by, bootstrap.hosts, place);
  }
  plm::SpawnSpec spec;
  spec.argv = app.argv;
  spec.environment = launch::rank_environment(in);
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

void NodeJob::start_rank(std::uint32_t rank_id, const plm::SpawnSpec& spec) {
  auto rank = std::make_unique<RankProcess>(context_.process.loop(), rank_id, spec, context_.partial_delay, rank_hooks());
  if (rank->process_group() > 0) context_.keeper.watch(rank->process_group());
  if (pmi_) pmi_->started(rank_id, rank->started());
  ranks_.emplace(rank_id, std::move(rank));
}

RankProcess::Hooks NodeJob::rank_hooks() {
  RankProcess::Hooks hooks;
  hooks.output = [this](std::uint32_t rank, launch::Stream stream, std::string_view text, bool partial) {
    hooks_.output(launch::OutputChunk{.job = job_, .rank = rank, .stream = stream, .partial = partial,
                                      .bytes = std::vector<std::uint8_t>(text.begin(), text.end())});
  };
  hooks.exited = [this](const launch::ExitRecord& record) {
    // A group with no member left is free for the kernel to give out
    // again: the keeper must not kill its next owner. One that still has
    // members (the rank's background children) stays watched, and its
    // RankProcess kills it at the end.
    if (auto it = ranks_.find(record.rank); it != ranks_.end() && it->second->group_gone()) {
      context_.keeper.forget(it->second->process_group());
    }
    launch::ExitRecord r = record;
    r.job = job_;
    if (pmi_) {
      // What its PMI connection still held (an abort) goes up first.
      pmi_->ended(record.rank);
      r.pmi = pmi_->progress(record.rank);
    }
    hooks_.exited(r);
  };
  hooks.stdin_written = [this](std::uint32_t n) { hooks_.stdin_written(n); };
  return hooks;
}

void NodeJob::signal(int signo) {
  for (auto& [rank, r] : ranks_) r->signal(signo);
}

// Every rank here that reads stdin gets the bytes; each credits what it
// took, and orcarun counts one window per rank that reads.
void NodeJob::write_stdin(const launch::StdinData& data) {
  for (auto& [rank, r] : ranks_) {
    if (r->reads_stdin()) r->write_stdin(data.bytes, data.eof);
  }
}

void NodeJob::pause_output() {
  for (auto& [rank, r] : ranks_) r->pause_output();
}

void NodeJob::resume_output() {
  for (auto& [rank, r] : ranks_) r->resume_output();
}

bool NodeJob::running() const {
  return std::any_of(ranks_.begin(), ranks_.end(), [](const auto& r) { return r.second->running(); });
}

bool NodeJob::idle() const {
  return std::none_of(ranks_.begin(), ranks_.end(), [](const auto& r) {
    return r.second->running() || r.second->reads_stdin() || !r.second->group_gone();
  });
}

}  // namespace orca::orcad
