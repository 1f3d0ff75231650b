// pmi/pmix: a PMIx server (the PMIx reference library) for programs built
// with Open MPI: one PmixServer a daemon, a PmixJob (namespace) a job;
// libpmix is opened only when a daemon starts one (pmix_library.h).
#include "pmix_job.h"
#include "pmix_server.h"

#include <orca/component_glue.h>
#include <orca/mca_component.h>
#include <orca/mca_context_reader.h>
#include <orca/pmi_module_glue.h>

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
                    "goes through PMIx), and OMPI_MCA_btl_vader_backing_directory the job's directory (removed at "
                    "the end). Harmless for programs not built with Open MPI 4"},
    {.name = "share_topology",
     .type = ORCA_MCA_VAR_BOOL,
     .default_value = "true",
     .level = 5,
     .description = "Give the ranks this daemon's topology of the node (hwloc XML, without I/O devices), so that "
                    "Open MPI does not discover it again in every rank (with every hwloc plugin: some 20 ms of CPU a "
                    "rank). false: each rank discovers its own, I/O devices (NIC locality) included"},
    {.name = "gds",
     .type = ORCA_MCA_VAR_STRING,
     .default_value = "hash",
     .level = 5,
     .description = "libpmix's data store for the ranks' job data (its gds modules, a comma list, as PMIX_MCA_gds). "
                    "hash: each rank gets its job's data over its connection. Empty: libpmix's own choice, its "
                    "shared-memory store (ds21), which libpmix 4.2.2 never frees some 13 kB of per rank served: a "
                    "persistent DVM running thousands of Open MPI jobs grows by that much a rank and job"},
};

struct State {
  // libpmix allows one server a process: one PmixServer serves every job
  // of the daemon, each its own namespace (PmixJob).
  static constexpr bool kManyJobs = true;
  int priority_value = 0;
  bool open_mpi_4 = true;
  bool share_topology = true;
  std::string gds = "hash";
  // Opened by the first server, and kept: the servers call into it.
  std::optional<orca::pmi::PmixLibrary> library;
  // Started by warm_up before the first job (or by the first job), and
  // kept while the daemon serves jobs: the daemon's first job's end
  // (warm_end) drops it once no job is left.
  std::unique_ptr<orca::pmi::PmixServer> server;
  orca::pmi::PmiJobs<orca::pmi::PmixJob> jobs;  // after server: they go first
  orca_pmi_module module{};
  void warm_up(const orca_pmi_host& host, const orca_pmi_job& job) {
    if (!server) server = start_server(host, job);
  }
  void end_warm_up() {
    if (jobs.empty()) server.reset();
  }
  std::unique_ptr<orca::pmi::PmixJob> make_server(const orca_pmi_host& host, const orca_pmi_job& job) {
    if (!server) server = start_server(host, job);
    return std::make_unique<orca::pmi::PmixJob>(*server, host, job);
  }
  std::unique_ptr<orca::pmi::PmixServer> start_server(const orca_pmi_host& host, const orca_pmi_job& job) {
    if (!library) library.emplace(orca::pmi::PmixLibrary::open());
    return std::make_unique<orca::pmi::PmixServer>(*library, host, job,
                                                   orca::pmi::PmixServer::Options{.open_mpi_4 = open_mpi_4,
                                                                                  .share_topology = share_topology,
                                                                                  .gds = gds});
  }
  void* handle() noexcept { return &module; }
  int priority() const noexcept { return priority_value; }
};

orca_mca_rc pmix_register(orca_mca_registrar* registrar) {
  return orca_mca_declare_vars(registrar, kVars, std::size(kVars));
}

orca_mca_rc pmix_open(const orca_mca_context* context, void** out, orca_mca_reason* why) {
  return orca::mca::guarded(why, [&] {
    auto s = std::make_unique<State>();
    const orca::mca::ContextReader reader(*context, "pmi_pmix_");
    if (orca::mca::all_read({reader.read("priority", s->priority_value), reader.read("open_mpi_4", s->open_mpi_4),
                                  reader.read("share_topology", s->share_topology)}, why) !=
        ORCA_MCA_OK) {
      return ORCA_MCA_FAILED;
    }
    auto gds = reader.text("gds");
    if (orca::mca::all_read({gds ? orca::Status{} : orca::Status(gds.error())}, why) != ORCA_MCA_OK) return ORCA_MCA_FAILED;
    s->gds = std::move(gds.value());
    s->module = orca::pmi::PmiModuleGlue<State>::table(s.get());
    return orca::mca::ComponentGlue<State>::keep(std::move(s), out);
  });
}

}  // namespace

extern "C" ORCA_COMPONENT_EXPORT const orca_mca_component mca_pmi_pmix_component =
    orca::mca::ComponentGlue<State>::descriptor("pmi", ORCA_PMI_INTERFACE_VERSION, "pmix",
                                                "Serves Open MPI programs a PMIx server (the PMIx reference "
                                                "library), fence and direct modex over the routing tree",
                                                pmix_register, pmix_open);
