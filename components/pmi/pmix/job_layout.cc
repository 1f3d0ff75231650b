// JobLayout: grouping the job's ranks by node.
#include "job_layout.h"

#include <stdexcept>

namespace orca::pmi {

namespace {
std::string joined(const std::vector<std::uint32_t>& values) {
  std::string out;
  for (std::uint32_t v : values) out += (out.empty() ? "" : ",") + std::to_string(v);
  return out;
}
}  // namespace

JobLayout job_layout(const orca_pmi_job& job) {
  std::vector<std::vector<std::uint32_t>> by_node(job.node_count);
  JobLayout out;
  out.node_rank.resize(job.size);
  for (std::uint32_t r = 0; r < job.size; ++r) {
    const std::uint32_t n = job.rank_node[r];
    if (n >= job.node_count) throw std::invalid_argument("rank " + std::to_string(r) + " is on no node of the job");
    if (by_node[n].size() >= 65535) throw std::invalid_argument("more than 65535 ranks on one node");
    out.node_rank[r] = static_cast<std::uint16_t>(by_node[n].size());
    by_node[n].push_back(r);
  }
  for (std::uint32_t n = 0; n < job.node_count; ++n) {
    if (by_node[n].empty()) continue;
    out.nodes.push_back(n);
    out.node_list += (out.node_list.empty() ? "" : ",") + std::string(job.node_host[n]);
    out.ppn += (out.ppn.empty() ? "" : ";") + joined(by_node[n]);
  }
  if (job.node < job.node_count) out.local = by_node[job.node];
  out.local_peers = joined(out.local);
  return out;
}

}  // namespace orca::pmi
