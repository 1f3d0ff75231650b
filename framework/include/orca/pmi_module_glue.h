/*
 * PmiModuleGlue: the C function table of a pmi module (orca/pmi.h),
 * generated from a C++ server class, so that every pmi component exposes
 * the same guarded boundary and holds only its server and variables.
 *
 * State (what the component's open() makes) must provide
 *   std::unique_ptr<Server> make_server(const orca_pmi_host&, const orca_pmi_job&);
 *       the job's server (throws with the reason when it cannot be made)
 *   std::unique_ptr<Server> server;   // the job's, once job_start made it
 * and may provide
 *   void warm_up(const orca_pmi_host&, const orca_pmi_job&);
 *       what needs no ranks, before the job (orca_pmi_module's warm_up;
 *       throws with the reason), and then
 *   void end_warm_up();
 *       drops what warm_up made and job_start did not take (job_end)
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

#include <cstdio>
#include <span>

namespace orca::pmi {

template <typename State>
class PmiModuleGlue {
 public:
  static orca_pmi_module table(State* state) {
    return orca_pmi_module{.self = state,
                           .job_start = &job_start,
                           .rank_prepare = &rank_prepare,
                           .rank_started = &rank_started,
                           .rank_ended = &rank_ended,
                           .release = &release,
                           .deliver = &deliver,
                           .job_end = &job_end,
                           .warm_up = kWarms ? &warm_up : nullptr};
  }

 private:
  static State& of(void* self) { return *static_cast<State*>(self); }
  static constexpr bool kWarms = requires(State& s, const orca_pmi_host& h, const orca_pmi_job& j) { s.warm_up(h, j); };

  // For the notifications: nothing to report an error to.
  template <typename F>
  static void quietly(F&& f) noexcept {
    try {
      f();
    } catch (...) {  // NOLINT(bugprone-empty-catch): a notification has no one to tell
    }
  }

  static orca_mca_rc job_start(void* self, const orca_pmi_host* host, const orca_pmi_job* job, orca_mca_reason* why) {
    return mca::guarded(why, [&] {
      of(self).server = of(self).make_server(*host, *job);
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
  static orca_mca_rc rank_prepare(void* self, uint32_t rank, const orca_pmi_environment* env, int* inherit,
                                  orca_mca_reason* why) {
    return mca::guarded(why, [&] {
      *inherit = -1;
      auto& server = of(self).server;
      if (!server) {
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
  static void rank_started(void* self, uint32_t rank, int started) {
    quietly([&] {
      if (auto& server = of(self).server) server->started(rank, started != 0);
    });
  }
  static void rank_ended(void* self, uint32_t rank) {
    quietly([&] {
      if (auto& server = of(self).server) server->ended(rank);
    });
  }
  static void release(void* self, uint64_t epoch, const orca_pmi_entry* entries, size_t count) {
    quietly([&] {
      if (auto& server = of(self).server) server->release(epoch, kvs_of(entries, count));
    });
  }
  static void deliver(void* self, uint32_t node, const uint8_t* bytes, size_t length) {
    quietly([&] {
      if (auto& server = of(self).server) server->deliver(node, std::span<const std::uint8_t>(bytes, length));
    });
  }
  static void job_end(void* self) {
    quietly([&] {
      of(self).server.reset();
      if constexpr (kWarms) of(self).end_warm_up();
    });
  }
};

}  // namespace orca::pmi

#endif  // ORCA_PMI_MODULE_GLUE_H
