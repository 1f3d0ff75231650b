// make_plan: the job's plan (hosts, rank map, plm module, routing tree,
// variables, daemon services), made in full before anything starts so that
// every mistake is reported before a process is; make_daemon_plan: the
// same for daemons that will run jobs not known yet (orcadvm start).
#include "job_planning.h"

#include "iof/iof.h"
#include "launch/launcher_vars.h"
#include "launch/pmix_server_choice.h"
#include "launch/rank_network_env.h"
#include "daemon_components.h"
#include "job_footprint.h"
#include "job_apps.h"
#include "foreign_settings.h"
#include "forwarded_environment.h"
#include "job_nodes.h"
#include "map_policy.h"

#include <orca/child_process.h>
#include "oob/oob_host.h"
#include <orca/pmi.h>
#include <orca/ras.h>
#include <orca/reachable.h>

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <iostream>

namespace {


// The first word of a plm selection the user wrote, or "" (for messages).
std::string component_name(const orca::mca::Framework& fw) {
  auto selected = fw.selected();
  return selected.empty() ? std::string() : std::string(selected.front()->component->name());
}

/* What the ranks link with: orcarun's environment with the forwarded
 * variables (-x) applied, as the daemons build each rank's. */
orca::launch::LinkEnvironment link_environment(const std::vector<std::string>& forwarded) {
  std::vector<std::string> env = orca::plm::current_environment();
  orca::plm::apply_environment(env, forwarded);
  auto value = [&env](std::string_view name) -> std::string {
    for (const auto& e : env) {
      if (e.size() > name.size() && e.starts_with(name) && e[name.size()] == '=') return e.substr(name.size() + 1);
    }
    return "";
  };
  orca::launch::LinkEnvironment link;
  link.path = value("PATH");
  link.ld_library_path = value("LD_LIBRARY_PATH");
  link.ld_preload = value("LD_PRELOAD") + value("LD_AUDIT");
  return link;
}

// What every rank is to be given (-x, -genv, -genvlist), checked before
// anything starts: an unset name or a size past the bounds ends here.
orca::Status forward_environment(orca::Runtime& rt, const orca::orcarun::Options& options,
                                 orca::orcarun::JobPlan& plan) {
  auto forwarded = orca::orcarun::resolve_forwarding(options.forwards, orca::plm::current_environment());
  if (!forwarded) return forwarded.error();
  for (const auto& warning : forwarded->warnings) rt.help().show(warning, std::cerr, true);
  plan.environment = std::move(forwarded->variables);
  return {};
}

// The frameworks whose selection orcarun makes itself.
struct PlanFrameworks {
  orca::mca::Framework* plm = nullptr;
  orca::mca::Framework* routed = nullptr;
  orca::mca::Framework* ras = nullptr;
};

// Open MPI's own --mca settings go to the ranks (foreign_settings.h); a
// name of Orca's that nothing claims is an error, not a warning.
orca::Status pass_foreign_settings(orca::Runtime& rt, orca::orcarun::JobPlan& plan) {
  const orca::mca::Registry& registry = rt.registry();
  const auto foreign = orca::orcarun::split_foreign_settings(
      registry.settings(), [&](const std::string& name) { return registry.find(name) != nullptr; },
      orca::orcarun::orca_words(registry));
  std::set<std::string> handled(foreign.passed.begin(), foreign.passed.end());
  handled.insert(foreign.mistyped.begin(), foreign.mistyped.end());
  rt.report_settings(std::cerr, handled);
  if (!foreign.mistyped.empty()) {
    const std::string& name = foreign.mistyped.front();
    const std::string near = registry.closest_name(name);
    return orca::Message("orcarun", near.empty() ? "unknown-setting" : "unknown-setting-suggest",
                         {{"name", orca::printable(name)},
                          {"word", orca::printable(orca::orcarun::first_word(name))},
                          {"suggestion", near}});
  }
  for (const auto& name : foreign.passed) {
    if (rt.verbosity() >= 1) {
      rt.log("orcarun", "--mca " + name + " names no framework of Orca's: the ranks get it as OMPI_MCA_" + name);
    }
  }
  // Before -x and -genv, so that those win for the same variable.
  plan.environment.insert(plan.environment.begin(), foreign.environment.begin(), foreign.environment.end());
  return {};
}

orca::Result<PlanFrameworks> open_frameworks(orca::Runtime& rt, orca::orcarun::JobPlan& plan) {
  PlanFrameworks fws;
  // Every framework a daemon uses is declared here too: their settings are
  // checked once, here, and forwarded.
  for (const auto* decl : {&orca::ras::kFramework, &orca::iof::kFramework, &orca::pmi::kFramework, &orca::plm::kFramework,
                           &orca::routed::kFramework, &orca::reach::kFramework, &orca::oob::kFramework}) {
    auto fw = rt.add_framework(*decl);
    if (!fw) return fw.error();
    if (decl == &orca::plm::kFramework) fws.plm = fw.value();
    if (decl == &orca::routed::kFramework) fws.routed = fw.value();
    if (decl == &orca::ras::kFramework) fws.ras = fw.value();
  }
  if (orca::Status st = pass_foreign_settings(rt, plan); !st) return st.error();
  for (auto* fw : {fws.ras, fws.plm, fws.routed}) {
    if (orca::Status st = fw->open(); !st) return st.error();
  }
  return fws;
}

// The nodes: those the user named, or the batch allocation orcarun
// runs in (ras); else this host. The plm module is chosen for them.
orca::Status choose_nodes(const orca::orcarun::Options& options, const PlanFrameworks& fws,
                          orca::orcarun::JobPlan& plan) {
  auto allocation = orca::ras::allocate(*fws.ras, {.hosts = options.hosts, .hostfiles = options.hostfiles});
  if (!allocation) return allocation.error();
  std::vector<std::string> names;
  if (allocation.value()) {
    for (const auto& h : allocation.value()->nodes) names.push_back(h.name);
  } else {
    names.push_back(orca::orcarun::local_nodes(1).front().name);
  }
  auto chosen = orca::plm::choose_module(*fws.plm, names);
  if (!chosen) return chosen.error();
  plan.plm = chosen.value();
  plan.nodes = allocation.value() ? std::move(allocation.value()->nodes)
                                  : orca::orcarun::local_nodes(plan.plm.module->simulated_nodes(plan.plm.module->self));
  return {};
}

// The ranks on the nodes. A map by ppr:N:core and the like waits for the
// daemons' processors (JobLaunch).
orca::Status map_job(const orca::orcarun::Options& options, orca::orcarun::JobPlan& plan) {
  if (options.cpu.per_object != 0) return {};
  auto ranks = options.per_node ? orca::launch::map_ranks_per_node(plan.nodes, *options.per_node, options.processes,
                                                                   options.oversubscribe)
                                : orca::launch::map_ranks(plan.nodes, options.processes, options.map_by,
                                                          options.oversubscribe);
  if (!ranks) return ranks.error();
  plan.ranks = options.rank_by ? orca::launch::rank_ranks(ranks.value(), *options.rank_by) : std::move(ranks.value());
  if (options.display_map) {
    std::cerr << "orcarun: " + orca::launch::map_text(plan.nodes, plan.ranks, orca::orcarun::map_policy(options))
              << std::flush;
  }
  return {};
}

// The routing tree of the daemons, and whether they start their children.
orca::Status make_tree(const PlanFrameworks& fws, orca::orcarun::JobPlan& plan) {
  const auto n = static_cast<std::uint32_t>(plan.nodes.size());
  auto tree = orca::routed::routing_tree(*fws.routed, n);
  if (!tree) return tree.error();
  plan.tree = std::move(tree.value());
  plan.routed_component = component_name(*fws.routed);
  plan.tree_spawn = plan.plm.module->tree_spawn(plan.plm.module->self, n) != 0;
  return {};
}

// A job this host cannot hold is refused before anything starts.
orca::Status check_job_fits_here(orca::Runtime& rt, const orca::orcarun::JobPlan& plan) {
  if (orca::Status st = orca::orcarun::check_fits_here(plan); !st) return st;
  // Its failure texts are read now: a launch that fails for want of
  // descriptors must still say so in words.
  rt.help().preload("orcarun");
  return {};
}

// The launcher's settings (timeouts, output, PMI bounds, the data plane).
orca::Status apply_launcher_settings(orca::Runtime& rt, const orca::orcarun::Options& options,
                                     const orca::launch::LauncherSettings& launcher, orca::orcarun::JobPlan& plan) {
  plan.startup_timeout = launcher.startup_timeout;
  plan.kill_grace = launcher.kill_grace;
  if (auto d = orca::iof::partial_line_delay(rt.registry()); d) plan.partial_line_delay = d.value();
  if (auto b = orca::iof::output_buffer(rt.registry()); b) plan.output_buffer = b.value();
  auto pmi_bound = orca::pmi::job_data_bound(rt.registry());
  if (!pmi_bound) return pmi_bound.error();
  plan.pmi_bound = pmi_bound.value();
  auto families = orca::launch::parse_family_list(launcher.data_plane);
  if (!families) return families.error();
  plan.data_plane_families = std::move(families.value());
  plan.mesh_check = options.mesh_check || launcher.mesh_check;
  plan.mesh_check_timeout = launcher.mesh_check_timeout;
  if (plan.mesh_check && plan.data_plane_families.empty()) {
    return orca::Message("orcarun", "mesh-check-without-data-plane", {});
  }
  return {};
}

// The data-plane round (a message to and from every host after they are
// all up, and a daemon's own ranking of every other host's addresses)
// only for ranks that can read its variables. --report-routes and
// --mesh-check ask for it themselves.
void decide_data_plane_round(const orca::orcarun::Options& options, const orca::launch::PmiServerChoice& round,
                             orca::orcarun::JobPlan& plan) {
  if (!round.start && !options.report_routes && !plan.mesh_check && !plan.data_plane_families.empty()) {
    plan.data_plane_families.clear();
    plan.no_data_plane_round = round.why;
  }
}

// Whether each child's subtree gets the command once it is up, or only
// once every daemon is (launch/early_start.h).
void decide_early_start(const orca::orcarun::Options& options, const orca::launch::LauncherSettings& launcher,
                        orca::orcarun::JobPlan& plan) {
  const auto early = orca::launch::choose_early_start({.variable = launcher.start_early,
                                                       .data_plane_round = !plan.data_plane_families.empty(),
                                                       .report_routes = options.report_routes,
                                                       .report_topology = options.report_topology,
                                                       .working_directory = options.working_directory.has_value(),
                                                       .places_cpus = places_cpus(options)});
  plan.start_early = early.start;
  plan.no_early_start = early.why;
}

// What the daemons will not use, they do not even load (orcarun itself
// loads every component it finds).
std::vector<std::string> unused_by_daemons(const orca::Runtime& rt, const orca::orcarun::JobPlan& plan,
                                           bool pmix_server, bool simple_server) {
  std::vector<orca::orcarun::FoundComponent> found;
  for (const auto& c : rt.components().loaded()) found.push_back({std::string(c.framework()), std::string(c.name())});
  return orca::orcarun::daemon_unused_components(
      found, {.routed = plan.routed_component,
              .plm = plan.plm.component,
              .pmix_server = pmix_server,
              .simple_server = simple_server});
}

orca::launch::ServiceModes service_modes(const orca::launch::LauncherSettings& launcher) {
  return {.pmix_server = launcher.pmix_server,
          .pmi_simple_server = launcher.pmi_simple_server,
          .data_plane_round = launcher.data_plane_round};
}

// What each of the job's programs links (MPMD: several, each read once).
std::vector<orca::launch::ProgramLinkage> programs_of(const orca::orcarun::JobPlan& plan) {
  std::vector<std::string> names;
  for (const auto& app : plan.apps) names.push_back(app.argv.front());
  return orca::launch::inspect_programs(names, link_environment(plan.environment));
}

// What each daemon starts and loads, from what the ranks' programs link.
orca::Status choose_daemon_services(orca::Runtime& rt, const orca::orcarun::Options& options,
                                    const orca::launch::LauncherSettings& launcher,
                                    const std::vector<orca::launch::ProgramLinkage>& programs,
                                    orca::orcarun::JobPlan& plan) {
  // libpmix's server costs each daemon more than the rest of its launch,
  // pmi/simple a component to load: each started only where a rank may use
  // it, decided once for every daemon.
  auto services = orca::launch::choose_program_services(service_modes(launcher), programs);
  if (!services) return services.error();
  const auto& [pmix, simple, round] = services.value();
  decide_data_plane_round(options, round, plan);
  decide_early_start(options, launcher, plan);
  plan.unused_components = unused_by_daemons(rt, plan, pmix.start, simple.start);
  if (const auto* v = rt.registry().find("pmi_base_verbose"); v != nullptr && v->as_int() >= 1) {
    rt.log("pmi", pmix.why);
    rt.log("pmi", simple.why);
  }
  return {};
}

// The ranks' directory: --wdir's (a relative one from ours), else ours.
// Whether a host has it is for its daemon to say: this host may be none
// of the job's.
orca::Status choose_working_directory(const orca::orcarun::Options& options, orca::orcarun::JobPlan& plan) {
  char cwd[4096];
  const bool have_cwd = ::getcwd(cwd, sizeof cwd) != nullptr;
  const int cwd_error = errno;
  if (!options.working_directory) {
    if (have_cwd) plan.working_directory = cwd;
    return {};
  }
  const std::string& dir = *options.working_directory;
  if (dir.front() == '/') {
    plan.working_directory = dir;
  } else if (have_cwd) {
    plan.working_directory = std::string(cwd) + "/" + dir;
  } else {
    return orca::Message("orcarun", "bad-option",
                         {{"option", "--wdir " + orca::printable(dir)},
                          {"why", "a relative directory is taken from orcarun's own, which cannot be read (" +
                                      std::string(std::strerror(cwd_error)) + "); give an absolute one"}});
  }
  return {};
}

// Each program's command, variables and directory (MPMD: several).
orca::Status choose_apps(const orca::orcarun::Options& options, orca::orcarun::JobPlan& plan) {
  char cwd[4096];
  const std::string here = ::getcwd(cwd, sizeof cwd) != nullptr ? cwd : "";
  auto apps = orca::orcarun::app_specs(options, orca::plm::current_environment(), here, plan.working_directory,
                                       options.working_directory.has_value());
  if (!apps) return apps.error();
  plan.apps = std::move(apps.value());
  return {};
}

}  // namespace

namespace orca::orcarun {

/* The job's plan (hosts, rank map, plm, routing tree, variables), made in
 * full before anything starts: every mistake is reported here. */
Status make_plan(Runtime& rt, const Options& options, JobPlan& plan) {
  if (Status st = forward_environment(rt, options, plan); !st) return st;
  if (Status st = launch::declare_launcher_variables(rt.registry()); !st) return st;
  auto fws = open_frameworks(rt, plan);
  if (!fws) return fws.error();
  if (Status st = choose_nodes(options, fws.value(), plan); !st) return st;
  if (Status st = map_job(options, plan); !st) return st;
  if (Status st = make_tree(fws.value(), plan); !st) return st;
  if (Status st = check_job_fits_here(rt, plan); !st) return st;
  if (Status st = choose_working_directory(options, plan); !st) return st;
  if (Status st = choose_apps(options, plan); !st) return st;
  if (options.output_filename) {
    auto files = OutputFiles::open(*options.output_filename);
    if (!files) return files.error();
    plan.output_files = std::move(files.value());
  }
  plan.daemon_command = plm::daemon_program(rt.registry());
  const auto launcher = launch::launcher_settings(rt.registry());
  if (Status st = apply_launcher_settings(rt, options, launcher, plan); !st) return st;
  return choose_daemon_services(rt, options, launcher, programs_of(plan), plan);
}

Status make_dvm_job_plan(Runtime& rt, const Options& options, JobPlan& plan) {
  if (Status st = forward_environment(rt, options, plan); !st) return st;
  if (Status st = choose_working_directory(options, plan); !st) return st;
  if (Status st = choose_apps(options, plan); !st) return st;
  // The DVM's daemons loaded every PMI server; each job's ranks get those
  // its programs may use, decided as a standalone run decides them (a
  // PMIx namespace costs each daemon of the job a few ms), and a torch
  // master when they may read it.
  if (Status st = launch::declare_launcher_variables(rt.registry()); !st) return st;
  const auto launcher = launch::launcher_settings(rt.registry());
  auto services = launch::choose_program_services(service_modes(launcher), programs_of(plan));
  if (!services) return services.error();
  const bool pmix = services.value().pmix.start;
  const bool simple = services.value().simple.start;
  // MASTER_PORT costs a round trip to rank 0's daemon: for programs that
  // may read the data plane's variables only.
  plan.torch_master = services.value().round.start;
  if (!pmix) plan.pmi_left_out.emplace_back("pmix");
  if (!simple) plan.pmi_left_out.emplace_back("simple");
  return {};
}

Status make_daemon_plan(Runtime& rt, const Options& options, JobPlan& plan) {
  if (Status st = launch::declare_launcher_variables(rt.registry()); !st) return st;
  auto fws = open_frameworks(rt, plan);
  if (!fws) return fws.error();
  if (Status st = choose_nodes(options, fws.value(), plan); !st) return st;
  if (Status st = make_tree(fws.value(), plan); !st) return st;
  if (Status st = check_job_fits_here(rt, plan); !st) return st;
  if (Status st = choose_working_directory(options, plan); !st) return st;
  plan.daemon_command = plm::daemon_program(rt.registry());
  plan.dvm = true;
  const auto launcher = launch::launcher_settings(rt.registry());
  if (Status st = apply_launcher_settings(rt, options, launcher, plan); !st) return st;
  // The jobs are not known yet: every server the settings allow starts,
  // the cautious answer for a program that cannot be read.
  launch::ProgramLinkage unknown;
  unknown.unknown_why = "the jobs of a persistent DVM are not known when its daemons start";
  return choose_daemon_services(rt, options, launcher, {unknown}, plan);
}

}  // namespace orca::orcarun
