// orca_info: shows what Orca would do, before a job runs: frameworks,
// components and why any were not loaded, and every MCA variable with its
// value and where that value came from.
#include "launch/launcher_vars.h"
#include "runtime/frameworks.h"
#include "tools/builtin_components.h"
#include "tools/tool_main.h"
#include "info_report.h"
#include "network_report.h"

#include <orca/interface_selection.h>
#include <orca/reachable.h>
#include "runtime/runtime.h"

#include "config.h"

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

extern char** environ;

namespace {

constexpr const char* kUsage = R"(Usage: orca_info [OPTIONS]

Shows Orca's frameworks and components (with why any file was not loaded),
and the MCA variables: value, where the value came from, level, type,
description and valid values.

Options:
  --param FRAMEWORK COMPONENT   show the variables of one component; "all"
                                works for either ("--param mca base" shows
                                the core variables, "--param all all" all)
  --level N                     with --param: only variables of level 1..N
                                (1: every user ... 9: developers; default 9)
  --interfaces                  every interface address of this host with its
                                kind, and whether the oob would use it and why
  --reach ADDR[/PREFIX][@KIND]...
                                the weight and reason of every (local, remote)
                                address pair for a peer with these addresses,
                                from the selected reachable component; KIND is
                                what the peer would advertise (e.g. bridge)
  --same-host                   with --reach: the peer is on this host
  --parsable                    one fact per line, for scripts:
                                mca:<framework>:<component>:param:<var>:<field>:<value>
                                iface:<name>:<addr>/<len>:kind=K:selected=yes|no:reason=R
                                reach:<local>:<remote>:weight=N:reason=R
  --mca NAME VALUE              set an MCA variable (beats param files and environment;
                                the override file beats it)
  --tune FILE                   read NAME = VALUE lines from FILE
  --version                     print the version and exit
  -h, --help                    print this help and exit

Variables are also read from ORCA_MCA_<name> in the environment and from the
param files named by mca_base_param_files.

Examples:
  orca_info
  orca_info --param mca base
  orca_info --interfaces --mca oob_tcp_if_include eth0
  orca_info --reach 10.0.0.2/24 192.168.122.1 --mca reachable weighted
  ORCA_MCA_mca_base_verbose=1 orca_info --param all all --level 2 --parsable
)";

struct InfoArgs {
  bool help = false;
  bool version = false;
  bool params = false;
  bool interfaces = false;
  bool same_host = false;
  std::vector<std::string> reach;
  std::string framework, component;
  orca::info::ReportOptions report;
};

orca::Result<InfoArgs> parse_info_args(const std::vector<std::string>& args) {
  InfoArgs out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      out.help = true;
    } else if (a == "--version" || a == "-V") {
      out.version = true;
    } else if (a == "--parsable") {
      out.report.parsable = true;
    } else if (a == "--param") {
      if (i + 2 >= args.size()) return orca::Message("orca-info", "param-args", {});
      out.params = true;
      out.framework = args[++i];
      out.component = args[++i];
    } else if (a == "--interfaces") {
      out.interfaces = true;
    } else if (a == "--same-host") {
      out.same_host = true;
    } else if (a == "--reach") {
      while (i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0) out.reach.push_back(args[++i]);
      if (out.reach.empty()) return orca::Message("orca-info", "reach-args", {});
    } else if (a == "--level") {
      char* end = nullptr;
      long level = i + 1 < args.size() ? std::strtol(args[i + 1].c_str(), &end, 10) : 0;
      if (i + 1 >= args.size() || *end != '\0' || level < 1 || level > 9)
        return orca::Message("orca-info", "bad-level", {{"value", i + 1 < args.size() ? args[i + 1] : ""}});
      out.report.level = static_cast<int>(level);
      ++i;
    } else {
      return orca::Message("orca-info", "unknown-option", {{"option", a}});
    }
  }
  return out;
}

}  // namespace

static int orca_info_main(int argc, char** argv) {
  orca::Runtime runtime("orca_info", environ);
  auto fail = [&](const orca::Message& m) {
    runtime.help().show(m, std::cerr, true);
    return EXIT_FAILURE;
  };

  auto tool_options = orca::mca::parse_tool_options(argc, argv);
  if (!tool_options) return fail(tool_options.error());
  auto args = parse_info_args(tool_options->rest);
  if (!args) return fail(args.error());
  if (args->help) {
    std::cout << kUsage;
    return EXIT_SUCCESS;
  }
  if (args->version) {
    std::cout << "orca_info (Orca) " << PACKAGE_VERSION << "\n";
    return EXIT_SUCCESS;
  }

  if (orca::Status st = runtime.load(tool_options.value()); !st) return fail(st.error());
  for (const auto* decl : orca::known_frameworks()) {
    auto fw = runtime.add_framework(*decl);
    if (!fw) return fail(fw.error());
  }
  // orcarun's own variables (not a framework's), so that they are documented.
  if (orca::Status st = orca::launch::declare_launcher_variables(runtime.registry()); !st) return fail(st.error());
  runtime.report_settings(std::cerr);

  if (args->params) {
    orca::Status st = orca::info::print_params(runtime, args->framework, args->component, args->report, std::cout);
    return st ? EXIT_SUCCESS : fail(st.error());
  }
  if (args->interfaces) {
    orca::Status st = orca::info::print_interfaces(runtime, args->report, std::cout);
    return st ? EXIT_SUCCESS : fail(st.error());
  }
  if (!args->reach.empty()) {
    // The matrix needs the reachable framework only; a framework this
    // report does not use (routed, say) must not stand in its way.
    for (const auto& fw : runtime.frameworks()) {
      if (fw->decl().name != orca::reach::kFramework.name) continue;
      if (orca::Status st = fw->open(); !st) return fail(st.error());
    }
    orca::Status st = orca::info::print_reach(runtime, args->reach, args->same_host, args->report, std::cout);
    return st ? EXIT_SUCCESS : fail(st.error());
  }
  // Open every framework so the listing shows which components would run.
  // A framework with no usable component is shown, not fatal, for the
  // listing: it is what the user came to find out.
  for (const auto& fw : runtime.frameworks()) {
    if (orca::Status st = fw->open(); !st) runtime.help().show(st.error(), std::cerr, true);
  }
  if (!args->report.parsable) {
    std::cout << "Orca " << PACKAGE_VERSION << "\n"
              << "Component path: " << runtime.registry().find("mca_base_component_path")->as_string() << "\n";
    // What orcarun and orcad run is their own copy: a newer file of one
    // of these below changes nothing for them.
    std::string names;
    for (const auto& n : orca::tools::builtin_component_names()) names += (names.empty() ? "" : ", ") + n;
    if (!names.empty()) std::cout << "Built into orcarun and orcad (their files below are not used by them): " << names << "\n";
  }
  orca::info::print_components(runtime, args->report, std::cout);
  return EXIT_SUCCESS;
}

int main(int argc, char** argv) {
  return orca::tools::guarded_main("orca_info", [&] { return orca_info_main(argc, argv); });
}
