// DvmJobs: a DVM's jobs, from submission to their client's exit status.
#include "dvm_jobs.h"

#include "launch/rank_failure.h"
#include "tools/orcarun/job_footprint.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>

namespace orca::orcadvm {

namespace {

// The job's -n, summed over its programs; none (a single program without
// -n): a rank per slot. Errors: a malformed submission; more than a job's
// most ranks, with the count the user asked for.
Result<std::optional<unsigned>> asked_processes(const launch::DvmSubmit& submit) {
  if (submit.apps.empty() || submit.app_processes.size() != submit.apps.size()) {
    return Message("orcarun", "dvm-submit-malformed", {{"why", "its programs and their counts differ"}});
  }
  for (const auto& app : submit.apps) {
    if (app.argv.empty()) return Message("orcarun", "dvm-submit-malformed", {{"why", "a program has no command"}});
  }
  std::uint64_t total = 0;
  for (std::uint32_t p : submit.app_processes) total += p;
  if (total > launch::kMaxRanks) return launch::too_many_ranks(total, "-n");
  if (total == 0) return std::optional<unsigned>();
  return std::optional<unsigned>(static_cast<unsigned>(total));
}

}  // namespace

struct DvmJobs::Job {
  std::uint32_t id = 0;
  ProcessName client{};
  launch::LaunchCommand command;
  std::optional<double> timeout_seconds;
  std::unique_ptr<launch::DvmJobMachine> machine;  // from its start
  std::unique_ptr<pmi::FenceRoot> fences;          // its ranks' collectives, from its start
  std::map<launch::DvmJobTimer, std::unique_ptr<Timer>> timers;
  // Output sent on to the client and not yet credited by it, in order:
  // its daemon and bytes (the client credits in the order it printed).
  std::deque<std::pair<std::uint32_t, std::uint64_t>> uncredited;
  bool client_gone = false;
  bool torch_master = false;            // its programs may read MASTER_ADDR/MASTER_PORT
  std::uint32_t port_asked_of = 0;      // the daemon asked for MASTER_PORT (0: none asked, or answered)
};

DvmJobs::DvmJobs(Context context)
    : context_(std::move(context)), reaper_(context_.process.loop(), [this] { ended_.clear(); }),
      lost_(context_.nodes.size() + 1, false) {}

DvmJobs::~DvmJobs() = default;

DvmJobs::Job* DvmJobs::find(std::uint32_t id) {
  auto it = jobs_.find(id);
  return it == jobs_.end() ? nullptr : it->second.get();
}

launch::JobFootprint DvmJobs::footprint_here(const launch::RankMap& map) const {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  launch::JobFootprint f;
  std::vector<std::uint64_t> ranks_of(context_.nodes.size());
  for (const auto& p : map.placements) {
    if (p.node >= ranks_of.size() || !orcarun::is_this_host(context_.nodes[p.node].name, name)) continue;
    ++f.local_ranks;
    f.most_local_ranks = std::max(f.most_local_ranks, ++ranks_of[p.node]);
  }
  return f;
}

std::vector<launch::HostSlots> DvmJobs::live_nodes() const {
  std::vector<launch::HostSlots> nodes = context_.nodes;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (lost_[i + 1]) nodes[i].slots = 0;
  }
  return nodes;
}

void DvmJobs::tell_client(const Job& job, const launch::WireMessage& message) {
  if (job.client_gone) return;
  auto bytes = launch::encode(message);
  if (bytes) (void)context_.launch.messenger().send(job.client, launch::kTagDvm, bytes.value());
}

// The client renders it from orcarun's help texts, as a standalone run would.
void DvmJobs::show(const Job& job, const Message& message) {
  tell_client(job, launch::job_failure_of(message, job.id, 0));
}

void DvmJobs::submit(ProcessName client, const launch::DvmSubmit& submit) {
  auto job = std::make_unique<Job>();
  job->id = next_id_++;
  job->client = client;
  if (submit.timeout_ms > 0) job->timeout_seconds = static_cast<double>(submit.timeout_ms) / 1000.0;
  auto refuse_now = [&](const Message& why) {
    show(*job, why);
    tell_client(*job, launch::DvmJobState{.job = job->id, .started = false, .ended = true, .exit_status = 1});
  };
  auto asked = asked_processes(submit);
  if (!asked) {
    refuse_now(asked.error());
    return;
  }
  const std::optional<unsigned> n = asked.value();
  auto by = launch::parse_map_by(submit.map_by.empty() ? "slot" : submit.map_by);
  if (!by) {
    refuse_now(by.error());
    return;
  }
  // On the slots free now, when it fits there and no job waits before it;
  // else on every slot, and it waits for those of its map in its turn.
  auto map_on = [&](const std::vector<launch::HostSlots>& nodes) {
    return submit.per_node > 0 ? launch::map_ranks_per_node(nodes, submit.per_node, n, submit.oversubscribe)
                               : launch::map_ranks(nodes, n, by.value(), submit.oversubscribe);
  };
  std::vector<launch::HostSlots> nodes = live_nodes();
  auto map = map_on(nodes);
  if (map && machine_->waiting() == 0) {
    std::vector<launch::HostSlots> free = std::move(nodes);
    for (std::size_t h = 0; h < free.size(); ++h) free[h].slots = machine_->free(h);
    if (auto now = map_on(free)) map = std::move(now);
  }
  if (!map) {
    // The DVM's hosts are set at its start: a standalone run's advice
    // (--host, a hostfile) does not apply.
    const Message& why = map.error();
    refuse_now(why.topic() == "map-too-many" ? Message("launch", "dvm-map-too-many", why.args()) : why);
    return;
  }
  // The daemons run already: what the job adds here is its ranks (their
  // processes, and each one's pipes in its daemon), against this host's
  // limits now, which the running jobs' processes count in.
  if (Status st = launch::check_job_fits(footprint_here(map.value()), launch::read_host_limits()); !st) {
    refuse_now(st.error());
    return;
  }
  launch::LaunchCommand& command = job->command;
  command.job = job->id;
  command.apps = submit.apps;
  std::uint32_t first = 0;
  for (std::size_t a = 0; a < command.apps.size(); ++a) {
    command.apps[a].first_rank = first;
    first += submit.app_processes[a];
  }
  command.environment = submit.environment;
  command.size = static_cast<std::uint32_t>(map->placements.size());
  command.placements = launch::rank_placements(map.value());
  command.stdin_target = submit.stdin_target;
  command.merge_stderr = submit.merge_stderr;
  command.pmi_left_out = submit.pmi_left_out;
  job->torch_master = submit.torch_master;
  const launch::DvmJobRequest request{.id = job->id,
                                      .slots = std::vector<unsigned>(map->local_sizes.begin(), map->local_sizes.end()),
                                      .wait = submit.wait,
                                      .oversubscribe = submit.oversubscribe};
  jobs_.emplace(job->id, std::move(job));
  machine_->submit(request);
}

launch::DvmJobMachine::Hooks DvmJobs::machine_hooks(std::uint32_t id) {
  return {.signal_ranks =
              [this, id](int signo) { (void)context_.launch.to_daemons(launch::SignalRanks{.job = id, .signal = signo}); },
          .show =
              [this, id](const Message& m) {
                if (Job* job = find(id)) show(*job, m);
              },
          .arm = [this, id](launch::DvmJobTimer timer, std::chrono::milliseconds after) { arm(id, timer, after); },
          .cancel =
              [this, id](launch::DvmJobTimer timer) {
                Job* job = find(id);
                if (!job) return;
                if (auto it = job->timers.find(timer); it != job->timers.end()) it->second->cancel();
              },
          .done = [this, id](int exit_status) { finished(id, exit_status); }};
}

void DvmJobs::arm(std::uint32_t id, launch::DvmJobTimer timer, std::chrono::milliseconds after) {
  Job* job = find(id);
  if (!job) return;
  auto& t = job->timers[timer];
  if (!t) {
    t = std::make_unique<Timer>(context_.process.loop(), [this, id, timer] {
      if (Job* j = find(id); j && j->machine) j->machine->on_timer(timer);
    });
  }
  t->start(after);
}

void DvmJobs::start(launch::DvmJobId id) {
  Job* job = find(static_cast<std::uint32_t>(id));
  if (!job) return;
  launch::DvmJobFacts facts{.kill_grace = context_.kill_grace, .timeout_seconds = job->timeout_seconds};
  for (const auto& node : context_.nodes) facts.hosts.push_back(node.name);
  for (const auto& p : job->command.placements) facts.rank_daemon.push_back(p.daemon);
  facts.command = job->command.apps.front().argv.front();
  if (job->command.apps.size() > 1) {
    for (const auto& app : job->command.apps) {
      facts.app_commands.push_back(app.argv.front());
      facts.app_first_rank.push_back(app.first_rank);
    }
  }
  job->machine = std::make_unique<launch::DvmJobMachine>(std::move(facts), machine_hooks(job->id));
  job->fences = context_.launch.fence_root(job->command);
  job->machine->start();
  // torch's store listens on rank 0's host, whose free ports only its
  // daemon can tell: asked before the command (one round trip), for jobs
  // whose programs may read MASTER_ADDR.
  std::uint32_t rank0_daemon = 0;
  for (const auto& p : job->command.placements) {
    if (p.rank == 0) rank0_daemon = p.daemon;
  }
  std::string master = job->torch_master ? context_.launch.torch_master_address(rank0_daemon) : "";
  if (!master.empty()) {
    const launch::MasterPortAsk ask{.job = job->id, .near = master};
    if (context_.launch.to_daemon(rank0_daemon, launch::kTagDirectory, ask)) {
      job->command.master_address = std::move(master);
      job->port_asked_of = rank0_daemon;
      return;
    }
  }
  launch_ranks(*job);
}

// The client hears of the start only once the command is on its way: its
// standard input, which it forwards from then on, must reach each daemon
// after the command (a daemon drops stdin of a job it does not know).
void DvmJobs::launch_ranks(Job& job) {
  if (Status st = context_.launch.to_daemons(job.command); !st) {
    context_.process.runtime().log("plm", "job " + std::to_string(job.id) + ": " + st.error().summary());
  }
  tell_client(job, launch::DvmJobState{.job = job.id, .ranks = job.command.size, .started = true});
}

// A job that ended while its port was asked for (a signal, its client or
// that daemon gone) starts no rank.
void DvmJobs::master_port_of(Job& job, const launch::MasterPort& answer) {
  if (job.port_asked_of == 0 || answer.vpid != job.port_asked_of) return;
  job.port_asked_of = 0;
  if (job.machine->phase() != launch::DvmJobPhase::Running) return;
  job.command.master_port = answer.port;  // 0: none could be had there; MASTER_ADDR alone is set
  launch_ranks(job);
}

void DvmJobs::refuse(launch::DvmJobId id, const Message& why) {
  auto it = jobs_.find(static_cast<std::uint32_t>(id));
  if (it == jobs_.end()) return;
  show(*it->second, why);
  tell_client(*it->second, launch::DvmJobState{.job = it->second->id, .ended = true, .exit_status = 1});
  ended_.push_back(std::move(it->second));
  jobs_.erase(it);
  reaper_.start(std::chrono::milliseconds(0));
}

// The DVM ends a running job (it stops, or a host the job uses is lost).
void DvmJobs::end(launch::DvmJobId id, const Message& why) {
  Job* job = find(static_cast<std::uint32_t>(id));
  if (!job || !job->machine) return;
  job->machine->end(why);
}

void DvmJobs::from_daemon(ProcessName from, launch::WireMessage message) {
  Job* job = find(launch::job_of(message));
  if (auto* chunk = std::get_if<launch::OutputChunk>(&message)) {
    if (!job || job->client_gone) {
      context_.launch.credit_output(from.vpid, chunk->bytes.size());  // nobody to read it: the daemon goes on
      return;
    }
    job->uncredited.emplace_back(from.vpid, chunk->bytes.size());
    tell_client(*job, message);
    return;
  }
  if (std::holds_alternative<launch::StdinCredit>(message)) {
    if (job) tell_client(*job, message);
    return;
  }
  if (!job || !job->machine) return;
  if (auto* record = std::get_if<launch::ExitRecord>(&message)) {
    job->machine->rank_ended(*record);
  } else if (auto* abort = std::get_if<launch::RankAbort>(&message)) {
    job->machine->rank_aborted(*abort);
  } else if (auto* failure = std::get_if<launch::JobFailure>(&message)) {
    if (failure->vpid == from.vpid) job->machine->job_failed(*failure);  // only of itself: the oob names the sender
  } else if (auto* part = std::get_if<launch::FenceData>(&message)) {
    collect(*job, from.vpid, *part);
  } else if (auto* port = std::get_if<launch::MasterPort>(&message)) {
    if (port->vpid == from.vpid) master_port_of(*job, *port);  // only of itself: the oob names the sender
  }
}

// The DVM is the root of its jobs' collectives, as orcarun is of its one.
void DvmJobs::collect(Job& job, std::uint32_t from, const launch::FenceData& part) {
  auto release = job.fences->add(from, part, pmi::FenceRoot::Clock::now());
  if (!release) {
    job.machine->job_failed(launch::job_failure_of(release.error(), job.id, 0));
    return;
  }
  if (!release.value()) return;
  release.value()->job = job.id;
  if (Status st = context_.launch.to_daemons(std::move(*release.value())); !st) {
    job.machine->job_failed(launch::job_failure_of(st.error(), job.id, 0));
  }
}

void DvmJobs::from_client(ProcessName client, const launch::WireMessage& message) {
  Job* job = find(launch::job_of(message));
  if (!job || job->client != client) return;  // a client acts on its own jobs only
  if (auto* sig = std::get_if<launch::SignalRanks>(&message)) {
    if (job->machine && (sig->signal == SIGINT || sig->signal == SIGTERM)) job->machine->on_signal(sig->signal);
  } else if (auto* data = std::get_if<launch::StdinData>(&message)) {
    pass_stdin(*job, *data);
  } else if (auto* credit = std::get_if<launch::OutputCredit>(&message)) {
    std::uint64_t left = credit->bytes;
    while (left > 0 && !job->uncredited.empty()) {
      auto& [vpid, bytes] = job->uncredited.front();
      const std::uint64_t take = std::min(left, bytes);
      context_.launch.credit_output(vpid, take);
      bytes -= take;
      left -= take;
      if (bytes == 0) job->uncredited.pop_front();
    }
  }
}

// The client's stdin, to the daemons of the ranks that read it.
void DvmJobs::pass_stdin(const Job& job, const launch::StdinData& data) {
  if (!job.machine || job.command.stdin_target == launch::kStdinNone) return;
  auto bytes = launch::encode(data);
  if (!bytes) return;
  auto shared = std::make_shared<const std::vector<std::uint8_t>>(std::move(bytes.value()));
  std::vector<std::uint32_t> sent;
  for (const auto& p : job.command.placements) {
    const bool reads = job.command.stdin_target == launch::kStdinAll ||
                       static_cast<std::int64_t>(p.rank) == job.command.stdin_target;
    if (!reads || std::find(sent.begin(), sent.end(), p.daemon) != sent.end()) continue;
    sent.push_back(p.daemon);
    (void)context_.launch.messenger().send(ProcessName{context_.launch.job_id(), p.daemon}, launch::kTagStdin, shared);
  }
}

void DvmJobs::credit_all(Job& job) {
  for (const auto& [vpid, bytes] : job.uncredited) context_.launch.credit_output(vpid, bytes);
  job.uncredited.clear();
}

void DvmJobs::client_lost(ProcessName client) {
  std::vector<std::uint32_t> mine;
  for (const auto& [id, job] : jobs_) {
    if (job->client == client) mine.push_back(id);
  }
  for (std::uint32_t id : mine) {
    Job* job = find(id);
    if (!job) continue;
    job->client_gone = true;
    credit_all(*job);
    if (job->machine) {
      job->machine->client_lost();
    } else {
      // Still waiting for slots: it leaves the queue.
      ended_.push_back(std::move(jobs_[id]));
      jobs_.erase(id);
      reaper_.start(std::chrono::milliseconds(0));
      machine_->job_ended(id);
    }
  }
}

void DvmJobs::daemon_lost(std::uint32_t vpid, const std::string& what) {
  if (vpid < lost_.size()) lost_[vpid] = true;
  std::vector<std::uint32_t> running;
  for (const auto& [id, job] : jobs_) {
    if (job->machine) running.push_back(id);
  }
  for (std::uint32_t id : running) {
    if (Job* job = find(id)) job->machine->daemon_lost(vpid, what);
  }
}

// Called from the job's machine: the job is destroyed from the loop.
void DvmJobs::finished(std::uint32_t id, int exit_status) {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return;
  Job& job = *it->second;
  for (auto& [timer, t] : job.timers) t->cancel();
  // What still runs of it on a daemon (a rank that never reported) is killed there.
  (void)context_.launch.to_daemons(launch::Teardown{.job = id, .signal = SIGKILL, .reason = "the job is over"});
  credit_all(job);
  tell_client(job, launch::DvmJobState{.job = id, .started = true, .ended = true, .exit_status = exit_status});
  ended_.push_back(std::move(it->second));
  jobs_.erase(it);
  reaper_.start(std::chrono::milliseconds(0));
  machine_->job_ended(id);
}

}  // namespace orca::orcadvm
