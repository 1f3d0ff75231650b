// orcarun: the launcher. Parses the command line, makes the plan (nodes,
// ranks, plm module, routing tree) so that every mistake is reported
// before anything starts, then runs the job (JobLaunch).
#include "tools/builtin_components.h"
#include "tools/tool_main.h"
#include "daemon_components.h"
#include "job_footprint.h"
#include "job_launch.h"
#include "forwarded_environment.h"
#include "job_nodes.h"
#include "orcarun_options.h"

#include <orca/child_process.h>
#include <orca/iof.h>
#include <orca/launcher_vars.h>
#include <orca/rank_network_env.h>
#include <orca/oob.h>
#include <orca/pmix_server_choice.h>
#include <orca/pmi.h>
#include <orca/ras.h>
#include <orca/reachable.h>

#include <config.h>

#include <iostream>

extern char** environ;

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

}  // namespace

static int orcarun_main(int argc, char** argv) {
  const auto started = std::chrono::steady_clock::now();
  std::vector<std::string> args(argv + 1, argv + argc);
  auto options = orca::orcarun::parse_options(args);
  orca::mca::ToolOptions tool = options ? options->tool : orca::mca::ToolOptions{};
  tool.builtin_components = orca::tools::builtin_components();
  auto created = orca::Process::create("orcarun", ORCA_PROCESS_LAUNCHER, tool, environ);
  if (!created) return 1;
  orca::Process& p = *created.value();
  if (!options) return p.fail(options.error());
  if (options->help) {
    std::cout << orca::orcarun::kUsage;
    return 0;
  }
  if (options->version) {
    std::cout << "orcarun (Orca) " << PACKAGE_VERSION << "\n";
    return 0;
  }
  orca::Runtime& rt = p.runtime();
  orca::orcarun::JobPlan plan;
  // What every rank is to be given (-x, -genv, -genvlist), checked before
  // anything starts: an unset name or a size past the bounds ends here.
  auto forwarded = orca::orcarun::resolve_forwarding(options->forwards, orca::plm::current_environment());
  if (!forwarded) return p.fail(forwarded.error());
  for (const auto& warning : forwarded->warnings) rt.help().show(warning, std::cerr, true);
  plan.environment = std::move(forwarded->variables);
  if (orca::Status st = orca::launch::declare_launcher_variables(rt.registry()); !st) return p.fail(st.error());
  orca::mca::Framework* plm_fw = nullptr;
  orca::mca::Framework* routed_fw = nullptr;
  orca::mca::Framework* ras_fw = nullptr;
  // Every framework a daemon uses is declared here too: their settings are
  // checked once, here, and forwarded.
  for (const auto* decl : {&orca::ras::kFramework, &orca::iof::kFramework, &orca::pmi::kFramework, &orca::plm::kFramework,
                           &orca::routed::kFramework, &orca::reach::kFramework, &orca::oob::kFramework}) {
    auto fw = rt.add_framework(*decl);
    if (!fw) return p.fail(fw.error());
    if (decl == &orca::plm::kFramework) plm_fw = fw.value();
    if (decl == &orca::routed::kFramework) routed_fw = fw.value();
    if (decl == &orca::ras::kFramework) ras_fw = fw.value();
  }
  rt.report_settings(std::cerr);
  for (auto* fw : {ras_fw, plm_fw, routed_fw}) {
    if (orca::Status st = fw->open(); !st) return p.fail(st.error());
  }

  // The nodes: those the user named, or the batch allocation orcarun
  // runs in (ras); else this host.
  auto allocation = orca::ras::allocate(*ras_fw, {.hosts = options->hosts, .hostfiles = options->hostfiles});
  if (!allocation) return p.fail(allocation.error());
  std::vector<std::string> names;
  if (allocation.value()) {
    for (const auto& h : allocation.value()->nodes) names.push_back(h.name);
  } else {
    names.push_back(orca::orcarun::local_nodes(1).front().name);
  }
  auto chosen = orca::plm::choose_module(*plm_fw, names);
  if (!chosen) return p.fail(chosen.error());
  plan.plm = chosen.value();
  plan.nodes = allocation.value() ? std::move(allocation.value()->nodes)
                                  : orca::orcarun::local_nodes(plan.plm.module->simulated_nodes(plan.plm.module->self));

  auto ranks = orca::launch::map_ranks(plan.nodes, options->processes, options->map_by, options->oversubscribe);
  if (!ranks) return p.fail(ranks.error());
  plan.ranks = std::move(ranks.value());

  const auto n = static_cast<std::uint32_t>(plan.nodes.size());
  auto tree = orca::routed::routing_tree(*routed_fw, n);
  if (!tree) return p.fail(tree.error());
  plan.tree = std::move(tree.value());
  plan.routed_component = component_name(*routed_fw);
  plan.tree_spawn = plan.plm.module->tree_spawn(plan.plm.module->self, n) != 0;
  // A job this host cannot hold is refused before anything starts.
  const orca::launch::JobFootprint footprint = orca::orcarun::footprint_here(plan);
  if (orca::Status st = orca::launch::check_job_fits(footprint, orca::launch::read_host_limits()); !st) {
    return p.fail(st.error());
  }
  (void)orca::launch::raise_open_files(orca::launch::files_needed(footprint));
  // Its failure texts are read now: a launch that fails for want of
  // descriptors must still say so in words.
  rt.help().preload("orcarun");
  plan.daemon_command = orca::plm::daemon_program(rt.registry());
  const auto launcher = orca::launch::launcher_settings(rt.registry());
  plan.startup_timeout = launcher.startup_timeout;
  plan.kill_grace = launcher.kill_grace;
  if (auto d = orca::iof::partial_line_delay(rt.registry()); d) plan.partial_line_delay = d.value();
  if (auto b = orca::iof::output_buffer(rt.registry()); b) plan.output_buffer = b.value();
  auto pmi_bound = orca::pmi::job_data_bound(rt.registry());
  if (!pmi_bound) return p.fail(pmi_bound.error());
  plan.pmi_bound = pmi_bound.value();
  auto families = orca::launch::parse_family_list(launcher.data_plane);
  if (!families) return p.fail(families.error());
  plan.data_plane_families = std::move(families.value());
  plan.mesh_check = options.value().mesh_check || launcher.mesh_check;
  plan.mesh_check_timeout = launcher.mesh_check_timeout;
  if (plan.mesh_check && plan.data_plane_families.empty()) {
    return p.fail(orca::Message("orcarun", "mesh-check-without-data-plane", {}));
  }
  // libpmix's server costs each daemon more than the rest of its launch,
  // pmi/simple a component to load: each started only where a rank may use
  // it, decided once for every daemon.
  auto pmix_mode = orca::launch::parse_pmi_server_mode("orcarun_pmix_server", launcher.pmix_server);
  if (!pmix_mode) return p.fail(pmix_mode.error());
  auto simple_mode = orca::launch::parse_pmi_server_mode("orcarun_pmi_simple_server", launcher.pmi_simple_server);
  if (!simple_mode) return p.fail(simple_mode.error());
  auto round_mode = orca::launch::parse_pmi_server_mode("orcarun_data_plane_round", launcher.data_plane_round);
  if (!round_mode) return p.fail(round_mode.error());
  const auto program = orca::launch::inspect_program(options->command.front(), link_environment(plan.environment));
  const auto pmix = orca::launch::choose_pmix_server(pmix_mode.value(), program);
  const auto simple = orca::launch::choose_pmi_simple_server(simple_mode.value(), program);
  // The data-plane round (a message to and from every host after they are
  // all up, and a daemon's own ranking of every other host's addresses)
  // only for ranks that can read its variables. --report-routes and
  // --mesh-check ask for it themselves.
  if (const auto round = orca::launch::choose_data_plane_round(round_mode.value(), program);
      !round.start && !options->report_routes && !plan.mesh_check && !plan.data_plane_families.empty()) {
    plan.data_plane_families.clear();
    plan.no_data_plane_round = round.why;
  }
  const auto early = orca::launch::choose_early_start({.variable = launcher.start_early,
                                                       .data_plane_round = !plan.data_plane_families.empty(),
                                                       .report_routes = options->report_routes,
                                                       .report_topology = options->report_topology});
  plan.start_early = early.start;
  plan.no_early_start = early.why;
  // What the daemons will not use, they do not even load (orcarun itself
  // loads every component it finds).
  std::vector<orca::orcarun::FoundComponent> found;
  for (const auto& c : rt.components().loaded()) found.push_back({std::string(c.framework()), std::string(c.name())});
  plan.unused_components = orca::orcarun::daemon_unused_components(
      found, {.routed = plan.routed_component,
              .plm = plan.plm.component,
              .pmix_server = pmix.start,
              .simple_server = simple.start});
  if (const auto* v = rt.registry().find("pmi_base_verbose"); v != nullptr && v->as_int() >= 1) {
    rt.log("pmi", pmix.why);
    rt.log("pmi", simple.why);
  }

  orca::orcarun::JobLaunch job(p, options.value(), std::move(plan), started);
  return job.run();
}

int main(int argc, char** argv) {
  return orca::tools::guarded_main("orcarun", [&] { return orcarun_main(argc, argv); });
}
