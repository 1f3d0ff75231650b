// orcarun: the launcher. Parses the command line, makes the plan (nodes,
// ranks, plm module, routing tree) so that every mistake is reported
// before anything starts, then runs the job (JobLaunch).
#include "tools/builtin_components.h"
#include "tools/tool_main.h"
#include "job_launch.h"
#include "job_apps.h"
#include "dvm_job_client.h"
#include "job_planning.h"
#include "orcarun_options.h"

#include <config.h>

#include <iostream>

extern char** environ;


static int orcarun_main(int argc, char** argv) {
  const auto started = std::chrono::steady_clock::now();
  std::vector<std::string> args(argv + 1, argv + argc);
  auto options = orca::orcarun::parse_options(args);
  orca::mca::ToolOptions tool = options ? options->tool : orca::mca::ToolOptions{};
  tool.builtin_components = orca::tools::builtin_components();
  auto created = orca::Process::create("orcarun", ORCA_PROCESS_LAUNCHER, tool, environ);
  if (!created) return 1;
  orca::Process& p = *created.value();
  if (options) {
    if (orca::Status st = orca::orcarun::read_app_file(options.value()); !st) return p.fail(st.error());
  }
  if (!options) return p.fail(options.error());
  if (options->help) {
    std::cout << orca::orcarun::kUsage;
    return 0;
  }
  if (options->version) {
    std::cout << "orcarun (Orca) " << PACKAGE_VERSION << "\n";
    return 0;
  }
  orca::orcarun::JobPlan plan;
  if (orca::orcarun::runs_on_dvm(options.value())) {
    if (orca::Status st = orca::orcarun::check_dvm_job_options(options.value()); !st) return p.fail(st.error());
    if (orca::Status st = orca::orcarun::make_dvm_job_plan(p.runtime(), options.value(), plan); !st) return p.fail(st.error());
    return orca::orcarun::run_on_dvm(p, options.value(), plan);
  }
  if (orca::Status st = orca::orcarun::make_plan(p.runtime(), options.value(), plan); !st) return p.fail(st.error());

  orca::orcarun::JobLaunch job(p, options.value(), std::move(plan), started, orca::orcarun::process_parts(p));
  return job.run();
}

int main(int argc, char** argv) {
  return orca::tools::guarded_main("orcarun", [&] { return orcarun_main(argc, argv); });
}
