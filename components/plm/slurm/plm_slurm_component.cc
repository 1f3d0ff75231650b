// plm/slurm: inside a Slurm allocation, the daemons of a job start as one
// srun job step, one orcad per node, so that Slurm accounts for, signals
// and cleans up every one of them as it does for mpirun's and Hydra's.
// Each orcad learns its node from SLURM_NODEID (daemon_vpid); all read
// the same bootstrap, which srun passes to every task (--input=all). The
// ranks see srun's task variables (SLURM_PROCID, ...) describe themselves,
// not their orcad (rank_environment).
#include "srun_options_cache.h"
#include "srun_probe.h"
#include "srun_step.h"

#include <orca/component_glue.h>
#include <orca/mca_component.h>
#include <orca/mca_context_reader.h>
#include <orca/plm.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace {

namespace slurm = orca::plm::slurm;

const orca_mca_var_decl kVars[] = {
    {.name = "priority",
     .type = ORCA_MCA_VAR_INT,
     .default_value = "30",
     .level = 6,
     .description = "Selection priority of plm/slurm (above plm/local and plm/rsh: inside an allocation the "
                    "allocation's nodes are started through srun; --mca plm rsh uses ssh instead)",
     .min_value = "-1000",
     .max_value = "1000"},
    {.name = "srun",
     .type = ORCA_MCA_VAR_STRING,
     .default_value = "srun",
     .level = 3,
     .description = "The srun program (searched in PATH) that starts the daemons' job step"},
    {.name = "args",
     .type = ORCA_MCA_VAR_STRING,
     .default_value = "",
     .level = 4,
     .description = "More srun options for the daemons' step, separated by spaces (no quoting), e.g. "
                    "\"--partition=debug\"; given after Orca's own"},
    {.name = "srun_cache",
     .type = ORCA_MCA_VAR_BOOL,
     .default_value = "true",
     .level = 5,
     .description = "Remember which options srun has (srun --help) per srun file, in "
                    "$XDG_CACHE_HOME/orca/srun-options (default ~/.cache/orca): later jobs start their daemons "
                    "without running srun --help first. A changed srun file (path, inode, size or time) is asked "
                    "again; false asks every time and leaves the file alone"},
};

struct State {
  int priority_value = 0;
  std::vector<std::string> srun;
  std::vector<std::string> args;
  std::string job;
  std::optional<std::vector<std::string>> nodes;  // the allocation's; nullopt if unreadable
  std::string nodes_problem;
  bool srun_cache = true;
  std::optional<slurm::SrunFeatures> features;  // from the cache or probed, at the first launch
  orca_plm_module module{};
  void* handle() noexcept { return &module; }
  int priority() const noexcept { return priority_value; }
};

const char* from_environment(const char* name) { return std::getenv(name); }

void say(orca_mca_reason* why, const std::string& text) { std::snprintf(why->text, sizeof why->text, "%s", text.c_str()); }

orca_mca_rc slurm_accepts(void* self, const char* host, orca_mca_reason* why) {
  auto* s = static_cast<State*>(self);
  if (!s->nodes) {
    say(why, s->nodes_problem);
    return ORCA_MCA_DECLINED;
  }
  if (std::find(s->nodes->begin(), s->nodes->end(), host) != s->nodes->end()) return ORCA_MCA_OK;
  say(why, std::string(host) + " is not a node of Slurm job " + s->job + " (" + std::to_string(s->nodes->size()) +
               (s->nodes->size() == 1 ? " node" : " nodes") + " in SLURM_JOB_NODELIST)");
  return ORCA_MCA_DECLINED;
}

// What this srun can do: from the cache when it knows this very file,
// else from `srun --help` (then remembered; a cache that cannot be written
// only costs the next job the probe).
orca::Result<slurm::SrunFeatures> srun_features(const State& s) {
  std::optional<slurm::SrunFile> file;
  std::string cache;
  if (s.srun_cache) {
    if (auto f = slurm::find_srun_file(s.srun.front(), &from_environment)) file = std::move(f.value());
    cache = slurm::cache_file_path(&from_environment);
  }
  std::string text;
  if (file && !cache.empty()) {
    text = slurm::read_cache(cache);
    if (auto known = slurm::cached_features(text, *file)) return *known;
  }
  auto help = slurm::srun_help(s.srun);
  if (!help) return help.error();
  const slurm::SrunFeatures features = slurm::srun_features(help.value());
  if (file && !cache.empty()) (void)slurm::write_cache(cache, slurm::with_features(text, *file, features));
  return features;
}

// The words for `hosts`; srun's options are learnt once, at the first command.
orca_mca_rc step_command(State& s, const std::vector<std::string>& hosts, const char* const* daemon, size_t count,
                         const orca_plm_words* out, orca_mca_reason* why) {
  if (!s.features) {
    auto features = srun_features(s);
    if (!features) {
      say(why, features.error().arg("why"));
      return ORCA_MCA_FAILED;
    }
    s.features = features.value();
  }
  auto words = slurm::srun_command(s.srun, *s.features, hosts, s.args, std::vector<std::string>(daemon, daemon + count));
  if (!words) {
    say(why, words.error().arg("why"));
    return ORCA_MCA_FAILED;
  }
  for (const auto& w : words.value()) out->add(out->context, w.c_str());
  return ORCA_MCA_OK;
}

// One host: a step of one node (a daemon starting its children in the
// routing tree, were plm/slurm chosen there).
orca_mca_rc slurm_command(void* self, const char* host, const char* const* daemon, size_t count,
                          const orca_plm_words* out, orca_mca_reason* why) {
  return step_command(*static_cast<State*>(self), {host}, daemon, count, out, why);
}

orca_mca_rc slurm_command_all(void* self, const char* const* hosts, size_t host_count, const char* const* daemon,
                              size_t count, const orca_plm_words* out, orca_mca_reason* why) {
  return step_command(*static_cast<State*>(self), std::vector<std::string>(hosts, hosts + host_count), daemon, count,
                      out, why);
}

orca_mca_rc slurm_daemon_vpid(void*, const char* const* hosts, size_t host_count, uint32_t* vpid,
                              orca_mca_reason* why) {
  if (std::getenv("SLURM_STEP_ID") == nullptr) {
    say(why, "not in a Slurm job step (SLURM_STEP_ID is not set)");
    return ORCA_MCA_DECLINED;
  }
  auto v = slurm::step_vpid(&from_environment, std::vector<std::string>(hosts, hosts + host_count));
  if (!v) {
    say(why, v.error().arg("why"));
    return ORCA_MCA_FAILED;
  }
  *vpid = v.value();
  return ORCA_MCA_OK;
}

void slurm_failure_hint(void*, const char* host, char* text, size_t capacity) {
  std::snprintf(text, capacity,
                "Check what srun printed above and the node's state in Slurm (sinfo -n %s); --mca plm rsh starts "
                "the daemons through ssh instead",
                host);
}

size_t slurm_ended_host(void*, const char* line, char* host, size_t capacity) {
  const std::string node = slurm::ended_node(line);
  if (node.empty() || node.size() + 1 > capacity) return 0;
  std::snprintf(host, capacity, "%s", node.c_str());
  return node.size();
}

void slurm_rank_environment(void*, const char* const* hosts, size_t host_count, const orca_plm_rank_place* place,
                            const orca_plm_words* out) {
  slurm::RankPlace p{.rank = place->rank,
                     .local_rank = place->local_rank,
                     .size = place->size,
                     .node_ranks = std::vector<std::uint32_t>(place->node_ranks, place->node_ranks + place->node_rank_count),
                     .ranks_per_daemon = std::vector<std::uint32_t>(place->ranks_per_daemon,
                                                                    place->ranks_per_daemon + place->daemons)};
  for (const auto& w : slurm::rank_variables(&from_environment, std::vector<std::string>(hosts, hosts + host_count), p)) {
    out->add(out->context, w.c_str());
  }
}

uint32_t slurm_max_concurrent(void*) { return 0; }
int slurm_tree_spawn(void*, uint32_t) { return 0; }  // srun reaches every node itself
uint32_t slurm_simulated_nodes(void*) { return 1; }

orca_mca_rc slurm_register(orca_mca_registrar* registrar) {
  return orca_mca_declare_vars(registrar, kVars, std::size(kVars));
}

orca_mca_rc slurm_open(const orca_mca_context* context, void** state, orca_mca_reason* why) {
  return orca::mca::guarded(why, [&] {
    const char* job = std::getenv("SLURM_JOB_ID");
    if (job == nullptr || *job == '\0') {
      say(why, "not inside a Slurm allocation (SLURM_JOB_ID is not set)");
      return ORCA_MCA_DECLINED;
    }
    auto s = std::make_unique<State>();
    s->job = orca::printable(job);
    const orca::mca::ContextReader reader(*context, "plm_slurm_");
    if (orca::mca::all_read({reader.read("priority", s->priority_value), reader.read("srun_cache", s->srun_cache)}, why) !=
        ORCA_MCA_OK) {
      return ORCA_MCA_FAILED;
    }
    auto srun = reader.text("srun");
    auto args = reader.text("args");
    if (!srun || !args) {
      say(why, (srun ? args.error() : srun.error()).arg("why"));
      return ORCA_MCA_FAILED;
    }
    s->srun = slurm::split_words(srun.value());
    s->args = slurm::split_words(args.value());
    if (s->srun.empty()) {
      say(why, "plm_slurm_srun is empty; it names the srun program");
      return ORCA_MCA_FAILED;
    }
    auto nodes = slurm::allocation_nodes(&from_environment);
    if (nodes) {
      s->nodes = std::move(nodes.value());
    } else {
      s->nodes_problem = nodes.error().arg("why");
    }
    s->module = orca_plm_module{.self = s.get(),
                                .accepts = &slurm_accepts,
                                .command = &slurm_command,
                                .max_concurrent = &slurm_max_concurrent,
                                .tree_spawn = &slurm_tree_spawn,
                                .simulated_nodes = &slurm_simulated_nodes,
                                .command_all = &slurm_command_all,
                                .daemon_vpid = &slurm_daemon_vpid,
                                .ended_host = &slurm_ended_host,
                                .rank_environment = &slurm_rank_environment,
                                .failure_hint = &slurm_failure_hint};
    return orca::mca::ComponentGlue<State>::keep(std::move(s), state);
  });
}

}  // namespace

extern "C" ORCA_COMPONENT_EXPORT const orca_mca_component mca_plm_slurm_component =
    orca::mca::ComponentGlue<State>::descriptor("plm", ORCA_PLM_INTERFACE_VERSION, "slurm",
                                                "Inside a Slurm allocation, starts one daemon per node as a "
                                                "single srun job step",
                                                slurm_register, slurm_open);
