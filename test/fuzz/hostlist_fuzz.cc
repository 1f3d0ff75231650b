// Host lists (orca/host_list.h): the hostlist expander behind --host,
// hostfiles and SLURM_JOB_NODELIST, --host itself, and Slurm's
// SLURM_TASKS_PER_NODE, paired with a node list as orcarun does under
// Slurm.
//
// Input: a mode byte (0: expand_hostlist, 1: parse_host_option,
// 2: parse_tasks_per_node, 3: a node list and a tasks-per-node list
// split at the first '\n'), then the text. Checks: accepted names are
// valid host names within the documented limits; every name expanded
// again is itself; merged hosts are unique with slots in bounds; counts
// are within bounds and number at most kMaxHostNames.
#include <orca/host_list.h>

#include "fuzz_input.h"
#include "hostlist_check.h"

namespace orca::launch {
namespace {

using fuzz::fuzz_require;

// Re-expanding is quadratic in nothing, but each call allocates: a
// sample of the names is enough.
constexpr size_t kReexpanded = 64;

void check_expansion(std::string_view text) {
  auto names = expand_hostlist(text, "fuzz");
  if (!names) return;
  fuzz::check_names(names.value());
  for (size_t i = 0; i < names->size() && i < kReexpanded; ++i) {
    auto again = expand_hostlist(names.value()[i], "fuzz");
    fuzz_require(again.ok() && again->size() == 1 && again->front() == names.value()[i],
                 "an expanded host name does not expand to itself");
  }
}

void check_counts(const std::vector<unsigned>& counts) {
  fuzz_require(!counts.empty() && counts.size() <= kMaxHostNames, "a tasks-per-node list of a bad size");
  for (unsigned c : counts) fuzz_require(c >= 1 && c <= kMaxSlotsPerHost, "a task count out of bounds");
}

void check_slurm_pair(std::string_view text) {
  const size_t nl = text.find('\n');
  if (nl == std::string_view::npos) return;
  auto names = expand_hostlist(text.substr(0, nl), "SLURM_JOB_NODELIST");
  auto counts = parse_tasks_per_node(text.substr(nl + 1));
  if (!names || !counts) return;
  auto hosts = hosts_with_counts(names.value(), counts.value(), "SLURM_JOB_NODELIST", "SLURM_TASKS_PER_NODE");
  if (!hosts) return;
  fuzz::check_hosts(hosts.value());
}

}  // namespace
}  // namespace orca::launch

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  using namespace orca::launch;
  orca::fuzz::FuzzInput in(data, size);
  const std::uint8_t mode = in.byte() % 4;
  const std::string_view text = in.rest_text();
  switch (mode) {
    case 0: check_expansion(text); break;
    case 1: {
      auto hosts = parse_host_option(text);
      if (hosts) orca::fuzz::check_hosts(hosts.value());
      break;
    }
    case 2: {
      auto counts = parse_tasks_per_node(text);
      if (counts) check_counts(counts.value());
      break;
    }
    default: check_slurm_pair(text); break;
  }
  return 0;
}
