// PMI_process_mapping: the rank-to-node map in MPICH's vector notation,
// which MPICH reads to find the ranks it shares memory with.
#include <orca/pmi.h>

namespace orca::pmi {

namespace {

struct Triple {
  std::uint32_t start, nodes, ranks;  // `nodes` consecutive nodes from `start`, `ranks` each
};

// Runs of ranks on one node, in rank order, then runs of the same size on
// consecutive nodes folded into one triple.
std::vector<Triple> triples_of(std::span<const std::uint32_t> rank_node) {
  std::vector<Triple> runs;
  for (std::uint32_t node : rank_node) {
    if (!runs.empty() && runs.back().start == node && runs.back().nodes == 1) ++runs.back().ranks;
    else runs.push_back({node, 1, 1});
  }
  std::vector<Triple> out;
  for (const Triple& r : runs) {
    if (!out.empty() && out.back().ranks == r.ranks && r.start == out.back().start + out.back().nodes) ++out.back().nodes;
    else out.push_back(r);
  }
  return out;
}

// MPICH starts over from the first triple when the ranks outnumber the
// vector, so a placement that repeats a prefix of triples starting at node
// 0 (a cyclic --map-by node) is written as that prefix alone: its length
// then stays the same whatever the number of ranks.
std::size_t shortest_repeating_prefix(const std::vector<Triple>& triples, std::span<const std::uint32_t> rank_node) {
  if (triples.empty() || triples.front().start != 0) return triples.size();
  std::size_t covered = 0;  // ranks the first p triples place
  for (std::size_t p = 1; p < triples.size(); ++p) {
    covered += static_cast<std::size_t>(triples[p - 1].nodes) * triples[p - 1].ranks;
    if (triples[p].start != 0) continue;  // MPICH only wraps back to node 0
    bool repeats = true;
    for (std::size_t r = covered; r < rank_node.size() && repeats; ++r) repeats = rank_node[r] == rank_node[r % covered];
    if (repeats) return p;
  }
  return triples.size();
}

}  // namespace

std::string process_mapping(std::span<const std::uint32_t> rank_node) {
  const std::vector<Triple> triples = triples_of(rank_node);
  if (triples.empty()) return {};
  const std::size_t used = shortest_repeating_prefix(triples, rank_node);
  std::string out = "(vector";
  for (std::size_t i = 0; i < used; ++i) {
    const Triple& t = triples[i];
    out += ",(" + std::to_string(t.start) + "," + std::to_string(t.nodes) + "," + std::to_string(t.ranks) + ")";
  }
  out += ")";
  // MPICH reads it as one value of at most 1024 bytes; without it, MPICH
  // takes every rank for a node of its own (correct, without shared memory).
  return out.size() <= kMaxProcessMappingBytes ? out : std::string();
}

}  // namespace orca::pmi
