// JobLayout: the job as PMIx describes it to a server, computed from the
// pmi framework's orca_pmi_job: the nodes that run ranks, in node order,
// with the inputs of PMIx_generate_regex (their host names) and
// PMIx_generate_ppn (each node's ranks), this node's ranks, and each
// rank's index on its node. Pure; libpmix is not needed to compute it.
#ifndef ORCA_COMPONENTS_PMI_PMIX_JOB_LAYOUT_H
#define ORCA_COMPONENTS_PMI_PMIX_JOB_LAYOUT_H

#include <orca/pmi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace orca::pmi {

struct JobLayout {
  std::vector<std::uint32_t> nodes;     // nodes with ranks, ascending
  std::string node_list;                // "h2,h3": their hosts, comma-separated
  std::string ppn;                      // "0,2;1,3": each node's ranks, nodes in the same order
  std::vector<std::uint32_t> local;     // this node's ranks, ascending
  std::string local_peers;              // "0,2"
  std::vector<std::uint16_t> node_rank;  // [rank]: its index among its node's ranks
};

/* Throws std::invalid_argument when a rank's node is out of range or a
 * node has more ranks than a PMIx local rank can count (65535). */
JobLayout job_layout(const orca_pmi_job& job);

}  // namespace orca::pmi

#endif
