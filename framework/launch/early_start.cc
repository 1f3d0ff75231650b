// choose_early_start and SubtreeArrivals (early_start.h).
#include "early_start.h"

namespace orca::launch {

EarlyStartChoice choose_early_start(const EarlyStartInputs& in) {
  if (!in.variable) return {.start = false, .why = "orcarun_start_early is false"};
  if (in.data_plane_round) return {.start = false, .why = "the data-plane round needs every daemon up"};
  if (in.report_routes) return {.start = false, .why = "--report-routes prints every daemon's routes first"};
  if (in.report_topology) return {.start = false, .why = "--report-topology prints every daemon's topology first"};
  if (in.working_directory) return {.start = false, .why = "--wdir is checked on every host before any rank starts"};
  if (in.places_cpus) return {.start = false, .why = "ranks are placed on every host's processors before any starts"};
  return {.start = true, .why = {}};
}

SubtreeArrivals::SubtreeArrivals(const routed::RoutingTree& tree)
    : tree_(tree), top_(tree.daemons() + 1, 0), missing_(tree.daemons() + 1, 0), up_(tree.daemons() + 1, false) {
  for (std::uint32_t c : tree_.children(0)) {
    for (std::uint32_t v : tree_.subtree(c)) top_[v] = c;
    missing_[c] = static_cast<std::uint32_t>(tree_.subtree(c).size());
  }
}

std::optional<std::uint32_t> SubtreeArrivals::arrived(std::uint32_t vpid) {
  if (vpid == 0 || vpid > tree_.daemons() || up_[vpid]) return std::nullopt;
  up_[vpid] = true;
  const std::uint32_t c = top_[vpid];
  if (--missing_[c] == 0) return c;
  return std::nullopt;
}

}  // namespace orca::launch
