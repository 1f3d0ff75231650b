// plm/rsh: daemons started through a remote-shell agent, `AGENT HOST
// COMMAND...`: ssh by default, or any program called the same way (one
// that runs `ip netns exec HOST ...`, say). With tree spawn each daemon
// starts its own children in the routing tree through the same agent, so
// no host runs more agents than it has children.
#include "rsh_command.h"

#include <orca/component_glue.h>
#include <orca/mca_component.h>
#include <orca/mca_context_reader.h>
#include <orca/plm.h>

#include <cstdio>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

namespace {

const orca_mca_var_decl kVars[] = {
    {.name = "priority",
     .type = ORCA_MCA_VAR_INT,
     .default_value = "10",
     .level = 6,
     .description = "Selection priority of plm/rsh (below plm/local, so a job on this host alone needs no agent; "
                    "--mca plm rsh forces the agent)",
     .min_value = "-1000",
     .max_value = "1000"},
    {.name = "agent",
     .type = ORCA_MCA_VAR_STRING,
     .default_value = "ssh -x -o BatchMode=yes",
     .level = 2,
     .description = "The program, with its options, that runs a command on another host, called as "
                    "AGENT HOST COMMAND...; the daemon's bootstrap reaches the command on standard input"},
    {.name = "args",
     .type = ORCA_MCA_VAR_STRING,
     .default_value = "",
     .level = 4,
     .description = "More options for the agent, after plm_rsh_agent's own (Open MPI's plm_rsh_args: "
                    "horovodrun passes \"-p PORT\" here for sshd on another port)"},
    {.name = "num_concurrent",
     .type = ORCA_MCA_VAR_UNSIGNED,
     .default_value = "128",
     .level = 4,
     .description = "Agents one process has starting at once (started and their daemon not yet up); "
                    "0: no limit",
     .min_value = "0",
     .max_value = "65536"},
    {.name = "tree_spawn",
     .type = ORCA_MCA_VAR_BOOL,
     .default_value = "true",
     .level = 4,
     .description = "Each daemon starts its own children in the routing tree through the agent, so orcarun "
                    "starts only its own children (applies from plm_rsh_tree_spawn_min_daemons daemons)"},
    {.name = "tree_spawn_min_daemons",
     .type = ORCA_MCA_VAR_UNSIGNED,
     .default_value = "16",
     .level = 5,
     .description = "The smallest job (in daemons) that plm_rsh_tree_spawn applies to; smaller jobs are "
                    "started by orcarun alone",
     .min_value = "1",
     .max_value = "1048576"},
};

struct State {
  int priority_value = 0;
  std::vector<std::string> agent;
  std::uint32_t num_concurrent = 128;
  bool tree_spawn = true;
  std::uint32_t tree_spawn_min = 16;
  orca_plm_module module{};
  void* handle() noexcept { return &module; }
  int priority() const noexcept { return priority_value; }
};

orca_mca_rc rsh_accepts(void*, const char*, orca_mca_reason*) { return ORCA_MCA_OK; }

orca_mca_rc rsh_command(void* self, const char* host, const char* const* daemon, size_t count,
                        const orca_plm_words* out, orca_mca_reason* why) {
  auto* s = static_cast<State*>(self);
  std::vector<std::string> words(daemon, daemon + count);
  auto command = orca::plm::rsh::agent_command(s->agent, host, words);
  if (!command) {
    std::snprintf(why->text, sizeof why->text, "%s", command.error().arg("why").c_str());
    return ORCA_MCA_FAILED;
  }
  for (const auto& w : command.value()) out->add(out->context, w.c_str());
  return ORCA_MCA_OK;
}

uint32_t rsh_max_concurrent(void* self) { return static_cast<State*>(self)->num_concurrent; }
int rsh_tree_spawn(void* self, uint32_t daemons) {
  auto* s = static_cast<State*>(self);
  return s->tree_spawn && daemons >= s->tree_spawn_min ? 1 : 0;
}
uint32_t rsh_simulated_nodes(void*) { return 1; }

// The agent's own command line to try, as the user would type it.
void rsh_failure_hint(void* self, const char* host, char* text, size_t capacity) {
  std::string agent;
  for (const auto& w : static_cast<State*>(self)->agent) agent += w + " ";
  std::snprintf(text, capacity, "If the host cannot be reached, check the host name and plm_rsh_agent (try: %s%s true)",
                agent.c_str(), host);
}

orca_mca_rc rsh_register(orca_mca_registrar* registrar) {
  return orca_mca_declare_vars(registrar, kVars, std::size(kVars));
}

orca_mca_rc rsh_open(const orca_mca_context* context, void** state, orca_mca_reason* why) {
  return orca::mca::guarded(why, [&] {
    auto s = std::make_unique<State>();
    const orca::mca::ContextReader reader(*context, "plm_rsh_");
    auto fail = [&](const orca::Message& m) {
      std::snprintf(why->text, sizeof why->text, "%s", m.arg("why").c_str());
      return ORCA_MCA_FAILED;
    };
    if (orca::mca::all_read({reader.read("priority", s->priority_value), reader.read("num_concurrent", s->num_concurrent),
                             reader.read("tree_spawn", s->tree_spawn),
                             reader.read("tree_spawn_min_daemons", s->tree_spawn_min)},
                            why) != ORCA_MCA_OK) {
      return ORCA_MCA_FAILED;
    }
    auto agent = reader.text("agent");
    if (!agent) return fail(agent.error());
    auto args = reader.text("args");
    if (!args) return fail(args.error());
    auto words = orca::plm::rsh::agent_words(agent.value(), args.value());
    if (!words) return fail(words.error());
    s->agent = std::move(words.value());
    s->module = orca_plm_module{.self = s.get(),
                                .accepts = &rsh_accepts,
                                .command = &rsh_command,
                                .max_concurrent = &rsh_max_concurrent,
                                .tree_spawn = &rsh_tree_spawn,
                                .simulated_nodes = &rsh_simulated_nodes,
                                .failure_hint = &rsh_failure_hint};
    return orca::mca::ComponentGlue<State>::keep(std::move(s), state);
  });
}

}  // namespace

extern "C" ORCA_COMPONENT_EXPORT const orca_mca_component mca_plm_rsh_component =
    orca::mca::ComponentGlue<State>::descriptor("plm", ORCA_PLM_INTERFACE_VERSION, "rsh",
                                                "Starts daemons through ssh or another remote-shell agent, "
                                                "as a tree when the job is large",
                                                rsh_register, rsh_open);
