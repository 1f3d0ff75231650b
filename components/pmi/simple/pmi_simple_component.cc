// pmi/simple: the PMI-1 / PMI-2 wire protocols MPICH-family programs
// speak on PMI_FD, served by SimpleServer.
#include "simple_server.h"

#include <orca/component_glue.h>
#include <orca/mca_component.h>
#include <orca/mca_context_reader.h>
#include <orca/pmi_module_glue.h>

#include <cstdio>
#include <iterator>
#include <memory>

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
  // Each job its own server: its ranks' socketpairs, its KVS.
  static constexpr bool kManyJobs = true;
  int priority_value = 0;
  orca::pmi::PmiJobs<orca::pmi::SimpleServer> jobs;
  orca_pmi_module module{};
  std::unique_ptr<orca::pmi::SimpleServer> make_server(const orca_pmi_host& host, const orca_pmi_job& job) {
    return std::make_unique<orca::pmi::SimpleServer>(host, job);
  }
  void* handle() noexcept { return &module; }
  int priority() const noexcept { return priority_value; }
};

orca_mca_rc simple_register(orca_mca_registrar* registrar) {
  return orca_mca_declare_vars(registrar, kVars, std::size(kVars));
}

orca_mca_rc simple_open(const orca_mca_context* context, void** out, orca_mca_reason* why) {
  return orca::mca::guarded(why, [&] {
    auto s = std::make_unique<State>();
    const orca::mca::ContextReader reader(*context, "pmi_simple_");
    if (orca::mca::all_read({reader.read("priority", s->priority_value)}, why) != ORCA_MCA_OK) return ORCA_MCA_FAILED;
    s->module = orca::pmi::PmiModuleGlue<State>::table(s.get());
    return orca::mca::ComponentGlue<State>::keep(std::move(s), out);
  });
}

}  // namespace

extern "C" ORCA_COMPONENT_EXPORT const orca_mca_component mca_pmi_simple_component =
    orca::mca::ComponentGlue<State>::descriptor("pmi", ORCA_PMI_INTERFACE_VERSION, "simple",
                                                "Serves MPICH-family programs the PMI-1 and PMI-2 wire protocols "
                                                "on PMI_FD",
                                                simple_register, simple_open);
