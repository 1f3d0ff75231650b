// PMI_process_mapping: the rank-to-node map in MPICH's vector notation,
// which MPICH reads to find the ranks it shares memory with.
#include <orca/pmi.h>

namespace orca::pmi {

std::string process_mapping(std::span<const std::uint32_t> rank_node) {
  // Runs of ranks on one node, in rank order.
  struct Run {
    std::uint32_t node, ranks;
  };
  std::vector<Run> runs;
  for (std::uint32_t node : rank_node) {
    if (!runs.empty() && runs.back().node == node) ++runs.back().ranks;
    else runs.push_back({node, 1});
  }
  if (runs.empty()) return {};
  // Runs of the same size on consecutive nodes fold into one triple.
  std::string out = "(vector";
  for (size_t i = 0; i < runs.size();) {
    size_t j = i + 1;
    while (j < runs.size() && runs[j].ranks == runs[i].ranks && runs[j].node == runs[j - 1].node + 1) ++j;
    out += ",(" + std::to_string(runs[i].node) + "," + std::to_string(j - i) + "," + std::to_string(runs[i].ranks) + ")";
    i = j;
  }
  return out + ")";
}

}  // namespace orca::pmi
