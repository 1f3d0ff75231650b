// --map-by ppr:N:RESOURCE: each node's count from its processors.
#include "launch/object_map.h"

#include "launch/launch_text.h"

#include <set>
#include <string>

namespace orca::launch {

namespace {

// "2 cores", "1 NUMA node": k objects of r, as a person writes them.
std::string objects_text(Resource r, unsigned k) {
  const char* one = r == Resource::Hwthread ? "hardware thread" : r == Resource::Numa ? "NUMA node" : resource_name(r);
  return std::to_string(k) + " " + one + (k == 1 ? "" : "s");
}

}  // namespace

unsigned count_objects(const CpuTopology& topology, Resource r) {
  std::set<unsigned> seen;
  for (std::size_t i = 0; i < topology.pus.size(); ++i) seen.insert(resource_index(topology, i, r));
  return static_cast<unsigned>(seen.size());
}

Result<RankMap> map_ranks_per_object(const std::vector<HostSlots>& nodes, const std::vector<CpuTopology>& topologies,
                                     unsigned per_object, Resource r, std::optional<unsigned> n, bool oversubscribe) {
  if (per_object == 0 || per_object > kMaxPerNode) {
    return Message("launch", "map-per-node-range",
                   {{"per_node", std::to_string(per_object)}, {"limit", std::to_string(kMaxPerNode)}});
  }
  const std::string resource = resource_name(r);
  std::vector<std::uint64_t> counts;
  std::vector<unsigned> objects;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const unsigned k = i < topologies.size() ? count_objects(topologies[i], r) : 0;
    if (k == 0) return Message("launch", "map-cpus-none", {{"host", printable(nodes[i].name)}});
    objects.push_back(k);
    counts.push_back(static_cast<std::uint64_t>(per_object) * k);
  }
  const std::string policy = "--map-by ppr:" + std::to_string(per_object) + ":" + resource;
  return map_counts(nodes, counts, n, oversubscribe, policy, [&](std::size_t i) {
    return policy + " puts " + std::to_string(counts[i]) + " ranks (" + std::to_string(per_object) + " on each of its " +
           objects_text(r, objects[i]) + ")";
  });
}

}  // namespace orca::launch
