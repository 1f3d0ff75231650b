// The footprint of a planned job on orcarun's host.
#include "job_footprint.h"

#include <algorithm>

#include <unistd.h>

#include <vector>

namespace orca::orcarun {

bool is_this_host(const std::string& node, const std::string& hostname) {
  if (node == "localhost" || node == hostname) return true;
  return node.size() > hostname.size() + 1 && node.compare(0, hostname.size(), hostname) == 0 &&
         node[hostname.size()] == '#';
}

launch::JobFootprint footprint_here(const JobPlan& plan) {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  launch::JobFootprint f;
  f.daemons = plan.nodes.size();
  std::vector<bool> local(plan.nodes.size());
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    local[i] = is_this_host(plan.nodes[i].name, name);
    if (local[i]) ++f.local_daemons;
  }
  std::vector<std::uint64_t> ranks_of(plan.nodes.size());
  for (const auto& p : plan.ranks.placements) {
    if (p.node < local.size() && local[p.node]) {
      ++f.local_ranks;
      f.most_local_ranks = std::max(f.most_local_ranks, ++ranks_of[p.node]);
    }
  }
  f.connections = plan.tree->children(0).size();
  // orcarun starts one process for every daemon at once (srun), its tree
  // children (tree spawn: they start the rest), or every daemon.
  if (plm::starts_all_at_once(plan.plm)) {
    f.children = 1;
  } else {
    f.children = plan.tree_spawn ? f.connections : f.daemons;
  }
  return f;
}

Status check_fits_here(const JobPlan& plan) {
  const launch::JobFootprint footprint = footprint_here(plan);
  if (Status st = launch::check_job_fits(footprint, launch::read_host_limits()); !st) return st;
  // The daemons started here inherit the limit raised for them too.
  (void)launch::raise_open_files(std::max(launch::files_needed(footprint), launch::daemon_files_needed(footprint)));
  return {};
}

}  // namespace orca::orcarun
