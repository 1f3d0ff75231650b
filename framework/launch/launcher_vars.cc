// orcarun's own variables.
#include "launcher_vars.h"

#include <span>

namespace orca::launch {

namespace {

// Declares each spec not declared yet (so that a second call changes
// nothing), in order, stopping at the first error.
Status declare_all(mca::Registry& registry, std::span<const mca::VarSpec> specs) {
  for (const auto& spec : specs) {
    if (registry.find(spec.full_name()) != nullptr) continue;
    auto v = registry.declare(spec);
    if (!v) return v.error();
  }
  return {};
}

// How long wire-up may take, and the grace before SIGKILL.
Status declare_time_limits(mca::Registry& registry) {
  const mca::VarSpec specs[] = {
      {.framework = "orcarun",
       .name = "startup_timeout",
       .type = mca::VarType::Double,
       .default_text = "60",
       .level = 3,
       .description = "Seconds within which every daemon must have started and reported to orcarun; a daemon "
                      "that has not ends the job with a message naming its host and what its agent printed",
       .min_text = "0.1",
       .max_text = "86400"},
      {.framework = "orcarun",
       .name = "kill_grace",
       .type = mca::VarType::Double,
       .default_text = "5",
       .level = 3,
       .description = "Seconds between forwarding SIGINT or SIGTERM (or a failure's SIGTERM) to every rank and "
                      "killing the ranks still running with SIGKILL (a second SIGINT kills at once)",
       .min_text = "0",
       .max_text = "3600"},
      {.framework = "orcadvm",
       .name = "idle_timeout",
       .type = mca::VarType::Double,
       .default_text = "900",
       .level = 2,
       .description = "Seconds a DVM started with orcadvm start --daemonize waits with no job and no client "
                      "(orcadvm status, stop, a job's orcarun) before it stops by itself, so that no daemon "
                      "lingers for ever (a DVM in the foreground ends with its starter instead)",
       .min_text = "0.1",
       .max_text = "2592000"},
  };
  return declare_all(registry, specs);
}

// Which data-plane variables ranks get, and the full-mesh check of the
// data-plane links.
Status declare_data_plane_variables(mca::Registry& registry) {
  const mca::VarSpec specs[] = {
      {.framework = "orcarun",
       .name = "data_plane",
       .type = mca::VarType::String,
       .default_text = "all",
       .level = 2,
       .description = "Which libraries' interface variables each rank gets, set to the interface its host's "
                      "daemon verified reaches the job's other hosts: all, none, or a comma list of ompi "
                      "(OMPI_MCA_btl_tcp_if_include), ucx (UCX_NET_DEVICES), nccl (NCCL_SOCKET_IFNAME), gloo "
                      "(GLOO_SOCKET_IFNAME), libfabric (FI_TCP_IFACE), mpich (MPIR_CVAR_CH3_INTERFACE_HOSTNAME), "
                      "torch (MASTER_ADDR, MASTER_PORT). A family the user set any variable of is left alone"},
      {.framework = "orcarun",
       .name = "mesh_check",
       .type = mca::VarType::Bool,
       .default_text = "false",
       .level = 2,
       .description = "Before the ranks start, every host connects to every other host's data-plane address "
                      "(the full-mesh check, also --mesh-check); a pair that cannot connect ends the launch with "
                      "its name instead of a job that hangs in its first collective"},
      {.framework = "orcarun",
       .name = "mesh_check_timeout",
       .type = mca::VarType::Double,
       .default_text = "3",
       .level = 4,
       .description = "Seconds each connection of the full-mesh check may take before the pair counts as broken",
       .min_text = "0.05",
       .max_text = "600"},
  };
  return declare_all(registry, specs);
}

// What the job's start may leave out (the PMIx and PMI-1/2 servers, the
// data-plane round), and whether ranks start before every daemon is up.
Status declare_start_choices(mca::Registry& registry) {
  const mca::VarSpec specs[] = {
      {.framework = "orcarun",
       .name = "pmix_server",
       .type = mca::VarType::Enum,
       .default_text = "auto",
       .level = 3,
       .description = "Whether the job's daemons start libpmix's server (pmi/pmix, which Open MPI ranks need; about "
                      "10 ms of CPU and several MiB per daemon): auto (unless orcarun reads that the program links "
                      "no PMIx client library and imports no way to run or load another program, as hostname or an "
                      "MPICH program), always, or never",
       .enum_words = {"auto", "always", "never"}},
      {.framework = "orcarun",
       .name = "pmi_simple_server",
       .type = mca::VarType::Enum,
       .default_text = "auto",
       .level = 3,
       .description = "Whether the job's daemons serve PMI-1 and PMI-2 (pmi/simple, which MPICH ranks need): auto "
                      "(unless orcarun reads that the program reaches no PMI client library and imports no way to "
                      "run or load another program, as hostname), always, or never",
       .enum_words = {"auto", "always", "never"}},
      {.framework = "orcarun",
       .name = "data_plane_round",
       .type = mca::VarType::Enum,
       .default_text = "auto",
       .level = 3,
       .description = "Whether orcarun asks the daemons for each host's data-plane link before the ranks start (one "
                      "round over every host; what ranks then get is orcarun_data_plane's): auto (unless orcarun "
                      "reads that the program links no MPI, PMI, UCX, NCCL, libfabric, gloo or PyTorch library and "
                      "imports no way to run or load another program, as hostname), always, or never. "
                      "--report-routes and --mesh-check hold it whatever this says",
       .enum_words = {"auto", "always", "never"}},
      {.framework = "orcarun",
       .name = "start_early",
       .type = mca::VarType::Bool,
       .default_text = "true",
       .level = 3,
       .description = "Start the ranks of each part of the routing tree (each daemon, up to 64 daemons) as soon as "
                      "that part is up, instead of once every daemon is, when the job needs nothing from the other "
                      "daemons first: no data-plane round, no --report-routes or --report-topology. A daemon that "
                      "fails later still ends the job, and the ranks already started with it"},
  };
  return declare_all(registry, specs);
}

}  // namespace

Status declare_launcher_variables(mca::Registry& registry) {
  if (Status st = declare_time_limits(registry); !st) return st;
  if (Status st = declare_data_plane_variables(registry); !st) return st;
  return declare_start_choices(registry);
}

LauncherSettings launcher_settings(const mca::Registry& registry) {
  LauncherSettings s;
  auto ms = [](double seconds) { return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000.0)); };
  if (const auto* v = registry.find("orcarun_startup_timeout")) s.startup_timeout = ms(v->as_double());
  if (const auto* v = registry.find("orcadvm_idle_timeout")) s.dvm_idle_timeout = ms(v->as_double());
  if (const auto* v = registry.find("orcarun_kill_grace")) s.kill_grace = ms(v->as_double());
  if (const auto* v = registry.find("orcarun_data_plane")) s.data_plane = v->as_string();
  if (const auto* v = registry.find("orcarun_mesh_check")) s.mesh_check = v->as_bool();
  if (const auto* v = registry.find("orcarun_mesh_check_timeout")) s.mesh_check_timeout = ms(v->as_double());
  if (const auto* v = registry.find("orcarun_pmix_server")) s.pmix_server = v->as_string();
  if (const auto* v = registry.find("orcarun_pmi_simple_server")) s.pmi_simple_server = v->as_string();
  if (const auto* v = registry.find("orcarun_data_plane_round")) s.data_plane_round = v->as_string();
  if (const auto* v = registry.find("orcarun_start_early")) s.start_early = v->as_bool();
  return s;
}

}  // namespace orca::launch
