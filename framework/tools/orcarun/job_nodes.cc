// The nodes of a job on this host alone.
#include "job_nodes.h"

#include <unistd.h>

namespace orca::orcarun {

std::vector<launch::HostSlots> local_nodes(unsigned count) {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  const long cores = ::sysconf(_SC_NPROCESSORS_ONLN);
  const unsigned per_node = static_cast<unsigned>(std::max<long>(1, (cores > 0 ? cores : 1) / std::max(1u, count)));
  std::vector<launch::HostSlots> nodes;
  if (count <= 1) {
    nodes.push_back({.name = name, .slots = per_node, .slots_given = false});
    return nodes;
  }
  for (unsigned i = 1; i <= count; ++i) {
    nodes.push_back({.name = std::string(name) + "#" + std::to_string(i), .slots = per_node, .slots_given = false});
  }
  return nodes;
}

}  // namespace orca::orcarun
