// Which components a job's daemons leave unloaded, decided once by
// orcarun, which knows what they will use (the bootstrap carries the list;
// orcad's component repository then never dlopens those files).
//
// A daemon loads every component file it finds unless told otherwise:
// 12 dlopens, their relocations and memory, for frameworks it never opens
// or components it never selects. Left out:
//  - every ras component: nodes are orcarun's business;
//  - every routed component but the one orcarun chose: every process of
//    a job must build the same tree;
//  - every plm component but orcarun's: a daemon starts its children
//    (tree spawn) or finds its own place (one srun step) the way orcarun
//    started it;
//  - pmi/pmix where no rank can use its server (orcarun_pmix_server),
//    pmi/simple where none speaks PMI-1/2 (orcarun_pmi_simple_server).
// oob, reachable and iof are kept: what a daemon selects among them
// depends on its own host.
#ifndef ORCA_TOOLS_ORCARUN_DAEMON_COMPONENTS_H
#define ORCA_TOOLS_ORCARUN_DAEMON_COMPONENTS_H

#include <string>
#include <vector>

namespace orca::orcarun {

struct FoundComponent {
  std::string framework;
  std::string name;
};

struct DaemonComponentChoice {
  std::string routed;        // the routed component orcarun chose
  std::string plm;           // the plm component orcarun chose
  bool pmix_server = true;   // whether the daemons start libpmix's server
  bool simple_server = true; // whether they serve PMI-1/2 (pmi/simple)
};

/* "framework/component" for each component in `found` (orcarun's own
 * repository: the daemons share its component path) that the daemons
 * will not use, in the order found. */
std::vector<std::string> daemon_unused_components(const std::vector<FoundComponent>& found,
                                                  const DaemonComponentChoice& choice);

}  // namespace orca::orcarun

#endif
