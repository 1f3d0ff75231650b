// pmi/pmix: a PMIx server (the PMIx reference library) for programs built
// with Open MPI, served by PmixServer.
#include "pmix_server.h"

#include <orca/component_glue.h>
#include <orca/mca_component.h>
#include <orca/mca_context_reader.h>
#include <orca/pmi.h>

#include <cstdio>
#include <iterator>
#include <memory>
#include <optional>
#include <string>

namespace {

const orca_mca_var_decl kVars[] = {
    {.name = "priority",
     .type = ORCA_MCA_VAR_INT,
     .default_value = "10",
     .level = 6,
     .description = "Selection priority of pmi/pmix (every pmi component that opens serves every rank; "
                    "`--mca pmi ^pmix` leaves it out, and saves each daemon the PMIx server's start)",
     .min_value = "-1000",
     .max_value = "1000"},
    {.name = "open_mpi_4",
     .type = ORCA_MCA_VAR_BOOL,
     .default_value = "true",
     .level = 5,
     .description = "Set what Open MPI 4.x needs to use this PMIx server instead of starting as a singleton: it "
                    "reads PMIx only when launched by a daemon it knows, so each rank gets "
                    "OMPI_MCA_orte_local_daemon_uri naming a placeholder (ranks never connect to it; everything "
                    "goes through PMIx), and OMPI_MCA_btl_vader_backing_directory the job's directory (removed at the end). "
                    "Harmless for programs not built with Open MPI 4"},
};

struct State {
  int priority_value = 0;
  bool open_mpi_4 = true;
  std::string placeholder_daemon;
  std::string tmpdir;
  std::unique_ptr<orca::pmi::PmixServer> server;
  orca_pmi_module module{};
  void* handle() noexcept { return &module; }
  int priority() const noexcept { return priority_value; }
};

State& state(void* self) { return *static_cast<State*>(self); }

orca_mca_rc pmix_job_start(void* self, const orca_pmi_host* host, const orca_pmi_job* job, orca_mca_reason* why) {
  return orca::mca::guarded(why, [&] {
    state(self).server = std::make_unique<orca::pmi::PmixServer>(*host, *job);
    state(self).placeholder_daemon = std::to_string(job->job & 0x7fffffffu) + "." + std::to_string(job->node + 1) +
                                     ";tcp://127.0.0.1:1";
    state(self).tmpdir = job->tmpdir;
    return ORCA_MCA_OK;
  });
}

orca_mca_rc pmix_rank_prepare(void* self, uint32_t rank, const orca_pmi_environment* env, int* inherit,
                              orca_mca_reason* why) {
  return orca::mca::guarded(why, [&] {
    *inherit = -1;
    State& s = state(self);
    if (!s.server) {
      std::snprintf(why->text, sizeof why->text, "no job started");
      return ORCA_MCA_FAILED;
    }
    if (orca::Status st = s.server->prepare(rank, *env); !st) {
      std::snprintf(why->text, sizeof why->text, "%s", st.error().summary().c_str());
      return ORCA_MCA_FAILED;
    }
    // Open MPI 4's launch detection (its schizo framework) otherwise makes
    // a rank of a job it did not start a singleton, which never reads the
    // PMIx server. Port 1 on loopback: nothing listens there.
    // Its shared-memory segments go in the job's directory, which the
    // daemon removes however the ranks end (in /dev/shm, a killed job's
    // would stay, and simulated nodes of one host would share names).
    if (s.open_mpi_4) {
      env->set(env->context, "OMPI_MCA_orte_local_daemon_uri", s.placeholder_daemon.c_str());
      env->set(env->context, "OMPI_MCA_btl_vader_backing_directory", s.tmpdir.c_str());
    }
    return ORCA_MCA_OK;
  });
}

void pmix_rank_started(void* self, uint32_t rank, int started) {
  if (started == 0 && state(self).server) state(self).server->ended(rank);
}

void pmix_rank_ended(void* self, uint32_t rank) {
  if (auto& server = state(self).server) server->ended(rank);
}

void pmix_release(void* self, uint64_t epoch, const orca_pmi_entry* entries, size_t count) {
  if (auto& server = state(self).server) server->release(epoch, orca::pmi::kvs_of(entries, count));
}

void pmix_deliver(void* self, uint32_t node, const uint8_t* bytes, size_t length) {
  if (auto& server = state(self).server) server->deliver(node, std::span<const std::uint8_t>(bytes, length));
}

void pmix_job_end(void* self) { state(self).server.reset(); }

orca_mca_rc pmix_register(orca_mca_registrar* registrar) {
  return orca_mca_declare_vars(registrar, kVars, std::size(kVars));
}

orca_mca_rc pmix_open(const orca_mca_context* context, void** out, orca_mca_reason* why) {
  return orca::mca::guarded(why, [&] {
    auto s = std::make_unique<State>();
    const orca::mca::ContextReader reader(*context, "pmi_pmix_");
    for (const orca::Status& st : {reader.read("priority", s->priority_value), reader.read("open_mpi_4", s->open_mpi_4)}) {
      if (!st) {
        std::snprintf(why->text, sizeof why->text, "%s", st.error().arg("why").c_str());
        return ORCA_MCA_FAILED;
      }
    }
    s->module = orca_pmi_module{.self = s.get(),
                                .job_start = &pmix_job_start,
                                .rank_prepare = &pmix_rank_prepare,
                                .rank_started = &pmix_rank_started,
                                .rank_ended = &pmix_rank_ended,
                                .release = &pmix_release,
                                .deliver = &pmix_deliver,
                                .job_end = &pmix_job_end};
    return orca::mca::ComponentGlue<State>::keep(std::move(s), out);
  });
}

}  // namespace

extern "C" ORCA_COMPONENT_EXPORT const orca_mca_component mca_pmi_pmix_component =
    orca::mca::ComponentGlue<State>::descriptor("pmi", ORCA_PMI_INTERFACE_VERSION, "pmix",
                                                "Serves Open MPI programs a PMIx server (the PMIx reference "
                                                "library), fence and direct modex over the routing tree",
                                                pmix_register, pmix_open);
