// The nodes of a job.
#include "job_nodes.h"

#include <unistd.h>

namespace orca::orcarun {

Result<std::vector<launch::HostSlots>> named_hosts(const std::vector<std::string>& host_options,
                                                   const std::vector<std::string>& hostfiles) {
  std::vector<launch::HostSlots> all;
  for (const auto& h : host_options) {
    auto hosts = launch::parse_host_option(h);
    if (!hosts) return hosts.error();
    all.insert(all.end(), hosts->begin(), hosts->end());
  }
  for (const auto& f : hostfiles) {
    auto hosts = launch::read_hostfile(f);
    if (!hosts) return hosts.error();
    all.insert(all.end(), hosts->begin(), hosts->end());
  }
  if (all.empty()) return all;
  return launch::merge_duplicate_hosts(std::move(all), "--host and --hostfile");
}

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
