// plm/local: daemons on this host, started directly (no agent). With
// plm_local_num_nodes N the job gets N daemons here, each standing for a
// node, so launches of many nodes are tested and measured without root or
// a cluster.
#include <orca/component_glue.h>
#include <orca/mca_component.h>
#include <orca/mca_context_reader.h>
#include <orca/plm.h>

#include <unistd.h>

#include <cstdio>
#include <iterator>
#include <memory>
#include <string>

namespace {

const orca_mca_var_decl kVars[] = {
    {.name = "priority",
     .type = ORCA_MCA_VAR_INT,
     .default_value = "20",
     .level = 6,
     .description = "Selection priority of plm/local: a job whose hosts are all this host is launched by the "
                    "highest-priority plm component that accepts them",
     .min_value = "-1000",
     .max_value = "1000"},
    {.name = "num_nodes",
     .type = ORCA_MCA_VAR_UNSIGNED,
     .default_value = "1",
     .level = 4,
     .description = "Daemons to run on this host when the job names no host, each a simulated node with its "
                    "own ranks (for tests and benchmarks of many nodes on one machine)",
     .min_value = "1",
     .max_value = "65536"},
    {.name = "tree_spawn",
     .type = ORCA_MCA_VAR_BOOL,
     .default_value = "false",
     .level = 5,
     .description = "Each daemon starts its own children in the routing tree (as plm/rsh does over ssh), "
                    "instead of orcarun starting every daemon",
     },
};

struct State {
  int priority_value = 0;
  std::uint32_t num_nodes = 1;
  bool tree_spawn = false;
  std::string hostname;
  orca_plm_module module{};
  void* handle() noexcept { return &module; }
  int priority() const noexcept { return priority_value; }
};

// This host under any of its names; "NAME#K" is simulated node K of it.
bool is_this_host(const State& s, std::string host) {
  if (auto hash = host.find('#'); hash != std::string::npos) host.erase(hash);
  if (host == "localhost" || host == "127.0.0.1" || host == "::1" || host == s.hostname) return true;
  const auto dot = s.hostname.find('.');
  return dot != std::string::npos && host == s.hostname.substr(0, dot);
}

orca_mca_rc local_accepts(void* self, const char* host, orca_mca_reason* why) {
  auto* s = static_cast<State*>(self);
  if (is_this_host(*s, host)) return ORCA_MCA_OK;
  std::snprintf(why->text, sizeof why->text, "%s is not this host (%s); plm/local starts daemons here only", host,
                s->hostname.c_str());
  return ORCA_MCA_DECLINED;
}

orca_mca_rc local_command(void*, const char*, const char* const* daemon, size_t count, const orca_plm_words* out,
                          orca_mca_reason*) {
  for (size_t i = 0; i < count; ++i) out->add(out->context, daemon[i]);
  return ORCA_MCA_OK;
}

uint32_t local_max_concurrent(void*) { return 0; }
int local_tree_spawn(void* self, uint32_t) { return static_cast<State*>(self)->tree_spawn ? 1 : 0; }
uint32_t local_simulated_nodes(void* self) { return static_cast<State*>(self)->num_nodes; }

orca_mca_rc local_register(orca_mca_registrar* registrar) {
  return orca_mca_declare_vars(registrar, kVars, std::size(kVars));
}

orca_mca_rc local_open(const orca_mca_context* context, void** state, orca_mca_reason* why) {
  return orca::mca::guarded(why, [&] {
    auto s = std::make_unique<State>();
    const orca::mca::ContextReader reader(*context, "plm_local_");
    if (orca::mca::all_read({reader.read("priority", s->priority_value), reader.read("num_nodes", s->num_nodes),
                             reader.read("tree_spawn", s->tree_spawn)},
                            why) != ORCA_MCA_OK) {
      return ORCA_MCA_FAILED;
    }
    char name[256] = {};
    ::gethostname(name, sizeof name - 1);
    s->hostname = name;
    s->module = orca_plm_module{.self = s.get(),
                                .accepts = &local_accepts,
                                .command = &local_command,
                                .max_concurrent = &local_max_concurrent,
                                .tree_spawn = &local_tree_spawn,
                                .simulated_nodes = &local_simulated_nodes};
    return orca::mca::ComponentGlue<State>::keep(std::move(s), state);
  });
}

}  // namespace

extern "C" ORCA_COMPONENT_EXPORT const orca_mca_component mca_plm_local_component =
    orca::mca::ComponentGlue<State>::descriptor("plm", ORCA_PLM_INTERFACE_VERSION, "local",
                                                "Starts daemons on this host, without an agent; "
                                                "plm_local_num_nodes simulates several nodes",
                                                local_register, local_open);
