/*
 * PmiModuleGlue: the C function table of a pmi module (orca/pmi.h),
 * generated from a C++ server class, so that every pmi component exposes
 * the same guarded boundary and holds only its server and variables.
 *
 * State (what the component's open() makes) must provide
 *   std::unique_ptr<Server> make_server(const orca_pmi_host&, const orca_pmi_job&);
 *       a job's server (throws with the reason when it cannot be made)
 *   PmiJobs<Server> jobs;   // the jobs job_start made, each its handle
 * and may provide
 *   static constexpr bool kManyJobs = true;
 *       its servers may serve several jobs at once (orca_pmi_module's
 *       many_jobs); without it, a second job_start before the first
 *       job's job_end is refused
 *   void warm_up(const orca_pmi_host&, const orca_pmi_job&);
 *       what needs no ranks, before the job (orca_pmi_module's warm_up;
 *       throws with the reason), and then
 *   void end_warm_up();
 *       drops what warm_up made for every job, when none is left (warm_end)
 * Server must provide
 *   Status prepare(std::uint32_t rank, const orca_pmi_environment& env, int* inherit);
 *   void started(std::uint32_t rank, bool ok);
 *   void ended(std::uint32_t rank);
 *   void release(std::uint64_t epoch, pmi::Kvs entries);   (or const pmi::Kvs&:
 *       the entries are the server's to keep)
 *   void deliver(std::uint32_t node, std::span<const std::uint8_t> bytes);
 * No exception crosses: job_start and rank_prepare report a reason, the
 * notifications drop what throws (a server does not throw from them).
 */
#ifndef ORCA_PMI_MODULE_GLUE_H
#define ORCA_PMI_MODULE_GLUE_H

#include <orca/component_glue.h>
#include <orca/pmi.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <span>
#include <vector>

namespace orca::pmi {

/* The jobs a module serves: each job's server, and the handle the C
 * interface passes for it (which leads back here, so that job_end can
 * drop it). */
template <typename S>
class PmiJobs {
 public:
  using Server = S;
  struct Job {
    PmiJobs* owner;
    std::unique_ptr<Server> server;
  };
  void* add(std::unique_ptr<Server> server) {
    jobs_.push_back(std::make_unique<Job>(Job{this, std::move(server)}));
    return jobs_.back().get();
  }
  static Server* server_of(void* handle) noexcept {
    return handle != nullptr ? static_cast<Job*>(handle)->server.get() : nullptr;
  }
  static void end(void* handle) {
    if (handle == nullptr) return;
    auto* job = static_cast<Job*>(handle);
    auto& jobs = job->owner->jobs_;
    jobs.erase(std::remove_if(jobs.begin(), jobs.end(), [job](const auto& j) { return j.get() == job; }), jobs.end());
  }
  bool empty() const noexcept { return jobs_.empty(); }
  std::size_t size() const noexcept { return jobs_.size(); }

 private:
  std::vector<std::unique_ptr<Job>> jobs_;
};

template <typename State>
class PmiModuleGlue {
 public:
  static orca_pmi_module table(State* state) {
    return orca_pmi_module{.self = state,
                           .many_jobs = kManyJobs ? 1 : 0,
                           .job_start = &job_start,
                           .rank_prepare = &rank_prepare,
                           .rank_started = &rank_started,
                           .rank_ended = &rank_ended,
                           .release = &release,
                           .deliver = &deliver,
                           .job_end = &job_end,
                           .warm_up = kWarms ? &warm_up : nullptr,
                           .warm_end = kWarms ? &warm_end : nullptr};
  }

 private:
  using Jobs = decltype(State::jobs);
  static State& of(void* self) { return *static_cast<State*>(self); }
  static constexpr bool kWarms = requires(State& s, const orca_pmi_host& h, const orca_pmi_job& j) { s.warm_up(h, j); };
  static constexpr bool kManyJobs = [] {
    if constexpr (requires { State::kManyJobs; }) {
      return State::kManyJobs;
    } else {
      return false;
    }
  }();

  // For the notifications: nothing to report an error to.
  template <typename F>
  static void quietly(F&& f) noexcept {
    try {
      f();
    } catch (...) {  // NOLINT(bugprone-empty-catch): a notification has no one to tell
    }
  }

  static orca_mca_rc job_start(void* self, const orca_pmi_host* host, const orca_pmi_job* job, void** served,
                               orca_mca_reason* why) {
    *served = nullptr;
    return mca::guarded(why, [&] {
      if (!kManyJobs && !of(self).jobs.empty()) {
        std::snprintf(why->text, sizeof why->text, "it serves one job at a time, and job %u came before the last ended",
                      static_cast<unsigned>(job->job));
        return ORCA_MCA_FAILED;
      }
      *served = of(self).jobs.add(of(self).make_server(*host, *job));
      return ORCA_MCA_OK;
    });
  }
  static orca_mca_rc warm_up(void* self, const orca_pmi_host* host, const orca_pmi_job* job, orca_mca_reason* why) {
    if constexpr (kWarms) {
      return mca::guarded(why, [&] {
        of(self).warm_up(*host, *job);
        return ORCA_MCA_OK;
      });
    } else {
      return ORCA_MCA_OK;
    }
  }
  static void warm_end(void* self) {
    if constexpr (kWarms) quietly([&] { of(self).end_warm_up(); });
  }
  static orca_mca_rc rank_prepare(void* served, uint32_t rank, const orca_pmi_environment* env, int* inherit,
                                  orca_mca_reason* why) {
    return mca::guarded(why, [&] {
      *inherit = -1;
      auto* server = Jobs::server_of(served);
      if (server == nullptr) {
        std::snprintf(why->text, sizeof why->text, "no job was started");
        return ORCA_MCA_FAILED;
      }
      if (Status st = server->prepare(rank, *env, inherit); !st) {
        std::snprintf(why->text, sizeof why->text, "%s", st.error().summary().c_str());
        return ORCA_MCA_FAILED;
      }
      return ORCA_MCA_OK;
    });
  }
  static void rank_started(void* served, uint32_t rank, int started) {
    quietly([&] {
      if (auto* server = Jobs::server_of(served)) server->started(rank, started != 0);
    });
  }
  static void rank_ended(void* served, uint32_t rank) {
    quietly([&] {
      if (auto* server = Jobs::server_of(served)) server->ended(rank);
    });
  }
  static void release(void* served, uint64_t epoch, const orca_pmi_entry* entries, size_t count) {
    quietly([&] {
      if (auto* server = Jobs::server_of(served)) server->release(epoch, kvs_of(entries, count));
    });
  }
  static void deliver(void* served, uint32_t node, const uint8_t* bytes, size_t length) {
    quietly([&] {
      if (auto* server = Jobs::server_of(served)) server->deliver(node, std::span<const std::uint8_t>(bytes, length));
    });
  }
  static void job_end(void* served) {
    quietly([&] { Jobs::end(served); });
  }
};

}  // namespace orca::pmi

#endif  // ORCA_PMI_MODULE_GLUE_H
