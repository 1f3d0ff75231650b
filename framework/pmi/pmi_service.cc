// PmiService: modules, environments and this daemon's part of collectives.
#include "pmi_service.h"

#include "settings_sink.h"

#include <orca/mca_var.h>

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <system_error>

namespace orca::pmi {

struct PmiService::Served {
  PmiService* service = nullptr;
  std::string component;
  const orca_pmi_module* module = nullptr;
  orca_pmi_host host{};
  void* served_job = nullptr;  // the module's handle of this job, from job_start on
  bool warmed = false;  // warm_up succeeded: warm_end is owed
  bool started = false;
};

PmiService::PmiService(Process& process, const launch::Bootstrap& bootstrap, const routed::RoutingTree& tree,
                       PmiModules& modules, std::uint32_t job, Hooks hooks)
    : process_(process), bootstrap_(bootstrap), tree_(tree), modules_(modules), job_(job), hooks_(std::move(hooks)) {}

PmiService::~PmiService() {
  end();
  if (!tmpdir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(tmpdir_, ec);
  }
}

Status PmiService::start(const launch::LaunchCommand& command) {
  const std::uint32_t self = bootstrap_.vpid;
  std::vector<std::uint32_t> rank_node(command.size, 0), local_rank(command.size, 0), rank_app(command.size, 0);
  std::vector<std::uint32_t> ranks_at(bootstrap_.daemons + 1, 0);
  for (const auto& p : command.placements) {
    if (p.rank >= command.size || p.daemon < 1 || p.daemon > bootstrap_.daemons) continue;
    rank_node[p.rank] = p.daemon - 1;
    local_rank[p.rank] = p.local_rank;
    rank_app[p.rank] = launch::app_of_rank(command.apps, p.rank);
    ++ranks_at[p.daemon];
  }
  auto ranks_below = [&](std::uint32_t vpid) {
    std::uint32_t n = 0;
    for (std::uint32_t v : tree_.subtree(vpid)) n += ranks_at[v];
    return n;
  };
  for (std::uint32_t c : tree_.children(self)) {
    if (ranks_below(c) > 0) children_with_ranks_.push_back(c);
  }
  for (std::uint32_t c : children_with_ranks_) {
    if (ranks_below(c) > ranks_at[c]) relays_.push_back(c);
  }
  subtree_ranks_ = ranks_below(self);
  contributors_ = static_cast<std::uint32_t>(children_with_ranks_.size()) + (ranks_at[self] > 0 ? 1 : 0);

  if (Status st = modules_.declare(); !st) return st;
  bound_ = modules_.bound();
  started_ = true;
  if (ranks_at[self] == 0) return {};
  if (Status st = open_modules(); !st) return st;
  // What the job's programs cannot use (a DVM job's, decided by its
  // client) is not started for it.
  std::erase_if(served_, [&](const auto& s) {
    return std::find(command.pmi_left_out.begin(), command.pmi_left_out.end(), s->component) != command.pmi_left_out.end();
  });

  JobView view;
  describe_job(view, command.size, rank_node.data(), local_rank.data());
  view.job.rank_app = rank_app.data();
  view.job.app_count = std::max<std::uint32_t>(1, static_cast<std::uint32_t>(command.apps.size()));
  // orcarun decided it for every daemon of the job (collectives agree).
  for (const mca::LeftOutComponent* l : process_.runtime().components().left_out_of("pmi")) {
    const std::string variable = l->name == "pmix" ? "orcarun_pmix_server" : "orcarun_pmi_" + l->name + "_server";
    log("pmi/" + l->name + " does not serve this job (" + variable + "): it is not loaded");
  }
  for (const auto& served : served_) {
    orca_mca_reason why{};
    if (served->module->job_start(served->module->self, &served->host, &view.job, &served->served_job, &why) !=
        ORCA_MCA_OK) {
      if (directory_error_) return *directory_error_;
      return Message("pmi", "job-start-failed", {{"component", served->component}, {"why", printable(why.text)}});
    }
    served->started = true;
  }
  return {};
}

void PmiService::describe_job(JobView& view, std::uint32_t size, const std::uint32_t* rank_node,
                              const std::uint32_t* local_rank) const {
  // Each job its own name: MPICH names its shared memory after the KVS.
  view.name = "orca-" + std::to_string(bootstrap_.job) + (job_ != 0 ? "-" + std::to_string(job_) : std::string());
  view.hosts.clear();
  for (const auto& h : bootstrap_.hosts) view.hosts.push_back(h.c_str());
  view.job = orca_pmi_job{.job = job_ != 0 ? job_ : bootstrap_.job,
                          .name = view.name.c_str(),
                          .size = size,
                          .node = bootstrap_.vpid - 1,
                          .node_count = bootstrap_.daemons,
                          .rank_node = rank_node,
                          .local_rank = local_rank,
                          .node_host = view.hosts.data(),
                          .max_keys = bound_.keys,
                          .max_bytes = bound_.bytes,
                          .rank_app = nullptr,
                          .app_count = 1};
}

Status PmiService::open_modules() {
  if (opened_) return {};
  if (Status st = modules_.open(); !st) return st;
  bound_ = modules_.bound();
  opened_ = true;
  for (const PmiModules::Module& m : modules_.modules()) {
    // A DVM's daemon runs several jobs at once: a module that serves one
    // at a time serves none of them (pmi/simple and pmi/pmix serve many).
    if (job_ != 0 && m.module->many_jobs == 0) {
      log("pmi/" + m.component + " does not serve DVM job " + std::to_string(job_) + ": it serves one job at a time");
      continue;
    }
    auto served = std::make_unique<Served>();
    served->service = this;
    served->component = m.component;
    served->module = m.module;
    served->host = orca_pmi_host{.host = served.get(),
                                 .base = process_.loop().base(),
                                 .contribute = &host_contribute,
                                 .rank_event = &host_rank_event,
                                 .send = &host_send,
                                 .log = &host_log,
                                 .over_bound = &host_over_bound,
                                 .job_directory = &host_job_directory};
    served_.push_back(std::move(served));
  }
  return {};
}

void PmiService::log(const std::string& text) const {
  const mca::Variable* v = process_.runtime().registry().find("pmi_base_verbose");
  if (v != nullptr && v->as_int() >= 1) process_.runtime().log("pmi", text);
}

void PmiService::warm_up() {
  if (started_ || opened_) return;
  Status st = open_modules();
  if (!st) {
    process_.runtime().log("pmi", "not warmed up before the job (the job's start will try again): " + st.error().summary());
    return;
  }
  // What needs no ranks: the job, this node, the hosts, the bounds.
  JobView view;
  describe_job(view, 0, nullptr, nullptr);
  for (const auto& served : served_) {
    if (served->module->warm_up == nullptr) continue;
    orca_mca_reason why{};
    if (served->module->warm_up(served->module->self, &served->host, &view.job, &why) == ORCA_MCA_OK) {
      served->warmed = true;
    } else {
      process_.runtime().log("pmi", "pmi/" + served->component + " not warmed up before the job (the job's start will "
                                                                   "try again): " + printable(why.text));
    }
  }
}

// What a launcher around this daemon gave it (an outer job's PMI_FD or
// PMIx server) is not the ranks' server: rank_environment drops it, and
// only these settings reach them.
Result<PmiService::RankSetup> PmiService::prepare(std::uint32_t rank) {
  RankSetup setup;
  const SettingsSink sink(setup.settings);
  for (const auto& s : served_) {
    int inherit = -1;
    orca_mca_reason why{};
    if (s->module->rank_prepare(s->served_job, rank, sink.environment(), &inherit, &why) != ORCA_MCA_OK) {
      return Message("pmi", "rank-prepare-failed",
                     {{"component", s->component}, {"rank", std::to_string(rank)}, {"why", printable(why.text)}});
    }
    if (inherit >= 3) setup.inherit_fds.push_back(inherit);
  }
  return setup;
}

void PmiService::started(std::uint32_t rank, bool ok) {
  for (const auto& s : served_) s->module->rank_started(s->served_job, rank, ok ? 1 : 0);
}

void PmiService::ended(std::uint32_t rank) {
  for (const auto& s : served_) s->module->rank_ended(s->served_job, rank);
}

launch::PmiProgress PmiService::progress(std::uint32_t rank) const {
  auto it = progress_.find(rank);
  return it == progress_.end() ? launch::PmiProgress::None : it->second;
}

std::string PmiService::host_of(std::uint32_t vpid) const { return printable(launch::daemon_host(bootstrap_.hosts, vpid)); }

FenceCollective& PmiService::collective(const std::string& component) {
  auto it = collectives_.find(component);
  if (it == collectives_.end()) {
    FenceCollective::Budget budget{.component = component, .bound = bound_, .source = [this](std::uint32_t v) {
      return part_source(host_of(v), std::find(relays_.begin(), relays_.end(), v) != relays_.end());
    }};
    it = collectives_.emplace(component, FenceCollective(contributors_, std::move(budget))).first;
  }
  return it->second;
}

void PmiService::fail(const Message& why) {
  // Once: the job ends, and this daemon takes no more of its data.
  if (failed_) return;
  failed_ = true;
  hooks_.failed(why);
}

void PmiService::contribute(const std::string& component, std::uint32_t contributor, std::uint64_t epoch,
                            Kvs entries) {
  if (failed_) return;
  auto done = collective(component).add(epoch, contributor, std::move(entries));
  if (!done) {
    fail(done.error());
    return;
  }
  if (!done.value()) return;
  launch::FenceData part{.job = job_,
                         .component = component, .epoch = epoch, .from = bootstrap_.vpid, .ranks = subtree_ranks_,
                         .entries = {}};
  part.entries.reserve(done.value()->merged.size());
  for (auto& [k, v] : done.value()->merged) part.entries.push_back({k, std::move(v)});
  hooks_.up(part);
}

void PmiService::on_part(const launch::FenceData& part) {
  if (!started_ ||
      std::find(children_with_ranks_.begin(), children_with_ranks_.end(), part.from) == children_with_ranks_.end()) {
    process_.runtime().log("pmi", "ignored a collective part from vpid " + std::to_string(part.from) +
                                      ", not a child of this daemon with ranks");
    return;
  }
  Kvs entries;
  for (const auto& kv : part.entries) entries.emplace(kv.key, kv.value);
  contribute(part.component, part.from, part.epoch, std::move(entries));
}

void PmiService::on_release(const launch::FenceRelease& release) {
  if (failed_) return;
  // Entries pointing into the release (no copy: a module takes what it
  // keeps); orcarun merged them, each key once.
  std::vector<orca_pmi_entry> entries;
  entries.reserve(release.entries.size());
  DataSize size;
  for (const auto& kv : release.entries) {
    entries.push_back({.key = kv.key.data(),
                       .key_length = kv.key.size(),
                       .value = reinterpret_cast<const std::uint8_t*>(kv.value.data()),
                       .value_length = kv.value.size()});
    size.add(kv.key, kv.value);
  }
  // orcarun held the job to the bound; this daemon may hold more (what it
  // was sent point to point).
  if (Status st = collective(release.component)
                      .hold(size,
                            "collective " + std::to_string(release.epoch) + " (released by orcarun) on top of the "
                            "direct modex data the daemon on " + host_of(bootstrap_.vpid) + " was sent");
      !st) {
    fail(st.error());
    return;
  }
  for (const auto& s : served_) {
    if (s->component == release.component) s->module->release(s->served_job, release.epoch, entries.data(), entries.size());
  }
}

void PmiService::on_direct(const launch::PmiDirect& direct) {
  if (failed_ || direct.from < 1 || direct.from > bootstrap_.daemons) return;
  for (const auto& s : served_) {
    if (s->component != direct.component) continue;
    // What the module may keep (a PMIx direct modex reply), with the job's collectives'.
    if (Status st = collective(direct.component)
                        .hold({.keys = 0, .bytes = direct.bytes.size()},
                              "the direct modex data from the daemon on " + host_of(direct.from));
        !st) {
      fail(st.error());
      return;
    }
    s->module->deliver(s->served_job, direct.from - 1, direct.bytes.data(), direct.bytes.size());
  }
}

void PmiService::end() {
  for (const auto& s : served_) {
    if (s->started) s->module->job_end(s->served_job);
    // Job 0's service is the daemon's own, made first and ended last: its
    // end is the module's on this daemon (a DVM job's is one of many).
    if (job_ == 0 && (s->warmed || s->started) && s->module->warm_end != nullptr) s->module->warm_end(s->module->self);
    s->served_job = nullptr;
    s->started = false;
    s->warmed = false;
  }
}

void PmiService::rank_event(Served& served, std::uint32_t rank, orca_pmi_rank_event event, int status, const char* text) {
  switch (event) {
    case ORCA_PMI_RANK_INITIALIZED:
      if (progress(rank) == launch::PmiProgress::None) progress_[rank] = launch::PmiProgress::Initialized;
      break;
    case ORCA_PMI_RANK_FINALIZED:
      progress_[rank] = launch::PmiProgress::Finalized;
      break;
    case ORCA_PMI_RANK_ABORTED:
    case ORCA_PMI_RANK_BROKE:
      hooks_.abort(launch::RankAbort{.job = job_,
                                     .rank = rank,
                                     .status = event == ORCA_PMI_RANK_BROKE ? 1 : status,
                                     .broke = event == ORCA_PMI_RANK_BROKE,
                                     .message = printable(std::string(text != nullptr ? text : "")) +
                                                (event == ORCA_PMI_RANK_BROKE ? " (pmi/" + served.component + ")" : "")});
      break;
    case ORCA_PMI_RANK_SERVER_LOST:
      // Not the rank's doing: the job ends with why, from this daemon.
      fail(Message("pmi", "server-lost",
                   {{"component", served.component},
                    {"host", host_of(bootstrap_.vpid)},
                    {"why", printable(std::string(text != nullptr ? text : ""))}}));
      break;
  }
}

void PmiService::host_contribute(void* host, uint64_t epoch, const orca_pmi_entry* entries, size_t count) {
  auto* s = static_cast<Served*>(host);
  s->service->contribute(s->component, s->service->bootstrap_.vpid, epoch, kvs_of(entries, count));
}

void PmiService::host_rank_event(void* host, uint32_t rank, orca_pmi_rank_event event, int status, const char* text) {
  auto* s = static_cast<Served*>(host);
  s->service->rank_event(*s, rank, event, status, text);
}

void PmiService::host_send(void* host, uint32_t node, const uint8_t* bytes, size_t length) {
  auto* s = static_cast<Served*>(host);
  s->service->hooks_.direct(launch::PmiDirect{.job = s->service->job_,
                                              .component = s->component,
                                              .from = s->service->bootstrap_.vpid,
                                              .to = node + 1,
                                              .bytes = std::vector<std::uint8_t>(bytes, bytes + length)});
}

void PmiService::host_over_bound(void* host, uint32_t rank, orca_pmi_bound which, uint64_t total) {
  auto* s = static_cast<Served*>(host);
  PmiService& service = *s->service;
  const DataSize size = which == ORCA_PMI_BOUND_KEYS ? DataSize{.keys = total} : DataSize{.bytes = total};
  service.fail(over_bound(s->component,
                               "the puts of rank " + std::to_string(rank) + " on " + service.host_of(service.bootstrap_.vpid),
                               which, service.bound_, size));
}

const char* PmiService::host_job_directory(void* host, orca_mca_reason* why) {
  PmiService& self = *static_cast<Served*>(host)->service;
  if (self.tmpdir_.empty()) {
    const char* base = ::getenv("TMPDIR");
    const std::string job = std::to_string(self.bootstrap_.job) + (self.job_ != 0 ? "." + std::to_string(self.job_) : "");
    std::string pattern = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/orca-" + job + "-" +
                          std::to_string(self.bootstrap_.vpid) + "-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      const std::string cause = std::generic_category().message(errno);
      std::snprintf(why->text, sizeof why->text, "cannot make the job's directory %s: %s", pattern.c_str(), cause.c_str());
      // What job_start's failure reports: the help text says what to set.
      self.directory_error_ = Message("pmi", "no-tmpdir", {{"path", pattern}, {"why", cause}});
      return nullptr;
    }
    self.tmpdir_ = std::move(pattern);
    if (self.hooks_.made_directory) self.hooks_.made_directory(self.tmpdir_);
  }
  return self.tmpdir_.c_str();
}

void PmiService::host_log(void* host, int level, const char* text) {
  auto* s = static_cast<Served*>(host);
  const mca::Variable* v = s->service->process_.runtime().registry().find("pmi_base_verbose");
  if (v != nullptr && v->as_int() >= level) s->service->process_.runtime().log("pmi", text);
}

}  // namespace orca::pmi
