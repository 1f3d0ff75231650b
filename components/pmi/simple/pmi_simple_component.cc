// pmi/simple: the PMI-1 / PMI-2 wire protocols MPICH-family programs
// speak on PMI_FD, served by SimpleServer.
#include "simple_server.h"

#include <orca/component_glue.h>
#include <orca/mca_component.h>
#include <orca/mca_context_reader.h>
#include <orca/pmi.h>

#include <cstdio>
#include <iterator>
#include <memory>
#include <optional>

namespace {

const orca_mca_var_decl kVars[] = {
    {.name = "priority",
     .type = ORCA_MCA_VAR_INT,
     .default_value = "20",
     .level = 6,
     .description = "Selection priority of pmi/simple (every pmi component that opens serves every rank; "
                    "`--mca pmi ^simple` leaves it out)",
     .min_value = "-1000",
     .max_value = "1000"},
};

struct State {
  int priority_value = 0;
  std::optional<orca::pmi::SimpleServer> server;
  orca_pmi_module module{};
  void* handle() noexcept { return &module; }
  int priority() const noexcept { return priority_value; }
};

State& state(void* self) { return *static_cast<State*>(self); }

void fill(orca_mca_reason* why, const orca::Message& m) {
  std::snprintf(why->text, sizeof why->text, "%s", m.summary().c_str());
}

orca_mca_rc simple_job_start(void* self, const orca_pmi_host* host, const orca_pmi_job* job, orca_mca_reason* why) {
  return orca::mca::guarded(why, [&] {
    state(self).server.emplace(*host, *job);
    return ORCA_MCA_OK;
  });
}

orca_mca_rc simple_rank_prepare(void* self, uint32_t rank, const orca_pmi_environment* env, int* inherit,
                                orca_mca_reason* why) {
  return orca::mca::guarded(why, [&] {
    *inherit = -1;
    State& s = state(self);
    if (!s.server) {
      std::snprintf(why->text, sizeof why->text, "no job started");
      return ORCA_MCA_FAILED;
    }
    if (orca::Status st = s.server->prepare(rank, *env, inherit); !st) {
      fill(why, st.error());
      return ORCA_MCA_FAILED;
    }
    return ORCA_MCA_OK;
  });
}

void simple_rank_started(void* self, uint32_t rank, int started) {
  if (auto& server = state(self).server) server->started(rank, started != 0);
}

void simple_rank_ended(void* self, uint32_t rank) {
  if (auto& server = state(self).server) server->ended(rank);
}

void simple_release(void* self, uint64_t epoch, const orca_pmi_entry* entries, size_t count) {
  if (auto& server = state(self).server) server->release(epoch, orca::pmi::kvs_of(entries, count));
}

// pmi/simple has no point-to-point traffic: every get is answered here.
void simple_deliver(void*, uint32_t, const uint8_t*, size_t) {}

void simple_job_end(void* self) { state(self).server.reset(); }

orca_mca_rc simple_register(orca_mca_registrar* registrar) {
  return orca_mca_declare_vars(registrar, kVars, std::size(kVars));
}

orca_mca_rc simple_open(const orca_mca_context* context, void** out, orca_mca_reason* why) {
  return orca::mca::guarded(why, [&] {
    auto s = std::make_unique<State>();
    const orca::mca::ContextReader reader(*context, "pmi_simple_");
    if (orca::Status st = reader.read("priority", s->priority_value); !st) {
      std::snprintf(why->text, sizeof why->text, "%s", st.error().arg("why").c_str());
      return ORCA_MCA_FAILED;
    }
    s->module = orca_pmi_module{.self = s.get(),
                                .job_start = &simple_job_start,
                                .rank_prepare = &simple_rank_prepare,
                                .rank_started = &simple_rank_started,
                                .rank_ended = &simple_rank_ended,
                                .release = &simple_release,
                                .deliver = &simple_deliver,
                                .job_end = &simple_job_end};
    return orca::mca::ComponentGlue<State>::keep(std::move(s), out);
  });
}

}  // namespace

extern "C" ORCA_COMPONENT_EXPORT const orca_mca_component mca_pmi_simple_component =
    orca::mca::ComponentGlue<State>::descriptor("pmi", ORCA_PMI_INTERFACE_VERSION, "simple",
                                                "Serves MPICH-family programs the PMI-1 and PMI-2 wire protocols "
                                                "on PMI_FD",
                                                simple_register, simple_open);
