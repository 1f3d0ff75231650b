// SrunStep: srun's words for the daemons' step, and a daemon's vpid in it.
#include "srun_step.h"

#include <orca/host_list.h>

#include <algorithm>
#include <cctype>
#include <charconv>

namespace orca::plm::slurm {
namespace {

Message why_not(std::string text) { return Message("plm", "slurm-step", {{"why", std::move(text)}}); }

// "--overlap" as an option of its own in the help text, not the prefix of
// a longer one.
bool has_option(std::string_view help, std::string_view option) {
  for (size_t at = help.find(option); at != std::string_view::npos; at = help.find(option, at + 1)) {
    const size_t end = at + option.size();
    const bool starts = at == 0 || std::isspace(static_cast<unsigned char>(help[at - 1])) || help[at - 1] == ',';
    const bool ends = end == help.size() || !(std::isalnum(static_cast<unsigned char>(help[end])) || help[end] == '-' ||
                                              help[end] == '_');
    if (starts && ends) return true;
  }
  return false;
}

}  // namespace

SrunFeatures srun_features(std::string_view help_text) {
  return SrunFeatures{.overlap = has_option(help_text, "--overlap"),
                      .external_launcher = has_option(help_text, "--external-launcher")};
}

Result<std::vector<std::string>> allocation_nodes(const Lookup& lookup) {
  for (const char* name : {"SLURM_JOB_NODELIST", "SLURM_NODELIST"}) {
    const char* value = lookup(name);
    if (value == nullptr) continue;
    auto nodes = launch::expand_hostlist(value, std::string(name) + "=" + printable(value));
    if (!nodes) {
      return why_not(std::string(name) + "=\"" + printable(value) + "\" is not a host list (" +
                     nodes.error().arg("problem") + ")");
    }
    return nodes;
  }
  return why_not("SLURM_JOB_NODELIST is not set, so the allocation's nodes are unknown");
}

Result<std::vector<std::string>> srun_command(const std::vector<std::string>& srun, const SrunFeatures& features,
                                              const std::vector<std::string>& hosts,
                                              const std::vector<std::string>& extra,
                                              const std::vector<std::string>& daemon) {
  if (srun.empty()) return why_not("plm_slurm_srun is empty");
  if (hosts.empty()) return why_not("the job has no host");
  std::string nodelist;
  for (const auto& h : hosts) {
    const bool misread = h.empty() || h.front() == '-' ||
                         std::any_of(h.begin(), h.end(), [](char c) { return c == ',' || std::isspace(static_cast<unsigned char>(c)); });
    if (misread) return why_not("the host name \"" + printable(h) + "\" cannot go in srun's --nodelist");
    nodelist += (nodelist.empty() ? "" : ",") + h;
  }
  const std::string k = std::to_string(hosts.size());
  std::vector<std::string> words = srun;
  for (std::string w : {"--nodes=" + k, "--ntasks=" + k, std::string("--ntasks-per-node=1"), "--nodelist=" + nodelist,
                        std::string("--kill-on-bad-exit"), std::string("--cpu-bind=none"), std::string("--mpi=none"),
                        std::string("--input=all"), std::string("--export=ALL")}) {
    words.push_back(std::move(w));
  }
  if (features.overlap) words.emplace_back("--overlap");
  if (features.external_launcher) words.emplace_back("--external-launcher");
  words.insert(words.end(), extra.begin(), extra.end());
  words.insert(words.end(), daemon.begin(), daemon.end());
  return words;
}

Result<std::uint32_t> step_vpid(const Lookup& lookup, const std::vector<std::string>& hosts) {
  const char* node_id = lookup("SLURM_NODEID");
  const char* step_nodes = lookup("SLURM_STEP_NODELIST");
  if (node_id == nullptr) return why_not("SLURM_NODEID is not set");
  if (step_nodes == nullptr) return why_not("SLURM_STEP_NODELIST is not set");
  std::uint32_t index = 0;
  const std::string_view id(node_id);
  const auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), index);
  if (ec != std::errc() || end != id.data() + id.size() || id.empty()) {
    return why_not("SLURM_NODEID=\"" + printable(node_id) + "\" is not a node number");
  }
  auto nodes = launch::expand_hostlist(step_nodes, "SLURM_STEP_NODELIST");
  if (!nodes) {
    return why_not("SLURM_STEP_NODELIST=\"" + printable(step_nodes) + "\" is not a host list (" +
                   nodes.error().arg("problem") + ")");
  }
  if (index >= nodes->size()) {
    return why_not("SLURM_NODEID=" + std::to_string(index) + " is beyond the " + std::to_string(nodes->size()) +
                   " nodes of SLURM_STEP_NODELIST=" + printable(step_nodes));
  }
  const std::string& me = nodes.value()[index];
  const auto it = std::find(hosts.begin(), hosts.end(), me);
  if (it == hosts.end()) {
    return why_not("this task's node, " + printable(me) + " (node " + std::to_string(index) + " of " + printable(step_nodes) +
                   "), is not a host of the job");
  }
  return static_cast<std::uint32_t>(it - hosts.begin()) + 1;
}

std::string tasks_per_node_text(const std::vector<std::uint32_t>& counts) {
  std::string text;
  for (size_t i = 0; i < counts.size();) {
    size_t j = i;
    while (j < counts.size() && counts[j] == counts[i]) ++j;
    text += (text.empty() ? "" : ",") + std::to_string(counts[i]);
    if (j - i > 1) text += "(x" + std::to_string(j - i) + ")";
    i = j;
  }
  return text;
}

std::vector<std::string> rank_variables(const Lookup& lookup, const std::vector<std::string>& hosts,
                                        const RankPlace& place) {
  const std::string size = std::to_string(place.size);
  std::vector<std::string> words = {"SLURM_PROCID=" + std::to_string(place.rank),
                                    "SLURM_LOCALID=" + std::to_string(place.local_rank),
                                    "SLURM_NTASKS=" + size,
                                    "SLURM_NPROCS=" + size,
                                    "SLURM_STEP_NUM_TASKS=" + size,
                                    "SLURM_TASK_PID"};
  std::string gtids;
  for (std::uint32_t r : place.node_ranks) gtids += (gtids.empty() ? "" : ",") + std::to_string(r);
  words.push_back("SLURM_GTIDS=" + gtids);
  // Per node in the step's order, which is Slurm's, not the job's.
  const char* step_nodes = lookup("SLURM_STEP_NODELIST");
  if (step_nodes == nullptr) return words;
  auto nodes = launch::expand_hostlist(step_nodes, "SLURM_STEP_NODELIST");
  if (!nodes || nodes->size() != hosts.size() || place.ranks_per_daemon.size() != hosts.size()) return words;
  std::vector<std::uint32_t> counts;
  for (const auto& node : nodes.value()) {
    const auto it = std::find(hosts.begin(), hosts.end(), node);
    if (it == hosts.end()) return words;
    counts.push_back(place.ranks_per_daemon[static_cast<size_t>(it - hosts.begin())]);
  }
  const std::string per_node = tasks_per_node_text(counts);
  words.push_back("SLURM_STEP_TASKS_PER_NODE=" + per_node);
  words.push_back("SLURM_TASKS_PER_NODE=" + per_node);
  return words;
}

std::string ended_node(std::string_view line) {
  constexpr std::string_view kHead = "srun: error: ";
  if (line.substr(0, kHead.size()) != kHead) return {};
  line.remove_prefix(kHead.size());
  const size_t colon = line.find(": task ");
  if (colon == std::string_view::npos || colon == 0) return {};
  std::string_view rest = line.substr(colon + 7);
  size_t digits = 0;
  while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) ++digits;
  if (digits == 0 || rest.substr(digits, 2) != ": ") return {};
  const std::string_view node = line.substr(0, colon);
  if (node.find_first_of(" \t,") != std::string_view::npos) return {};
  return std::string(node);
}

std::vector<std::string> split_words(std::string_view text) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    const size_t start = i;
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i > start) words.emplace_back(text.substr(start, i - start));
  }
  return words;
}

}  // namespace orca::plm::slurm
