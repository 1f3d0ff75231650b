// --display-map's heading: the mapping options as the user gave them.
#include "map_policy.h"

namespace orca::orcarun {

std::string map_policy(const Options& o) {
  std::string policy;
  if (o.cpu.per_object != 0) {
    policy = "--map-by ppr:" + std::to_string(o.cpu.per_object) + ":" + launch::resource_name(*o.cpu.map_by);
  } else {
    policy = o.per_node ? "-N " + std::to_string(*o.per_node) : o.map_by == MapBy::Node ? "--map-by node" : "--map-by slot";
    // Within each host, ranks go over its objects of that resource.
    if (o.cpu.map_by) policy += ", then by " + std::string(launch::resource_name(*o.cpu.map_by));
  }
  if (o.rank_by) policy += o.rank_by == launch::RankBy::Node ? ", --rank-by node" : ", --rank-by slot";
  return policy;
}

}  // namespace orca::orcarun
