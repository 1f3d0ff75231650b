/*
 * The components linked into orcarun and orcad (configure
 * --enable-builtin-components, the default): every in-tree component (none
 * links a library of its own: pmi/pmix opens libpmix only when a daemon
 * starts a PMIx server). A launch then opens no component file. Empty in
 * a build without them.
 */
#ifndef ORCA_TOOLS_BUILTIN_COMPONENTS_H
#define ORCA_TOOLS_BUILTIN_COMPONENTS_H

#include <orca/mca_repository.h>

#include <string>
#include <vector>

// One line per component; the list is the one components/*/Makefile.inc
// builds into the programs (BUILTIN_COMPONENT_LIBS): a component missing
// from either fails the link or is loaded from its file as before.
#define ORCA_BUILTIN_COMPONENT_LIST(X) \
  X(oob, tcp)                          \
  X(oob, usock)                        \
  X(plm, local)                        \
  X(plm, rsh)                          \
  X(plm, slurm)                        \
  X(pmi, pmix)                         \
  X(pmi, simple)                       \
  X(ras, hostfile)                     \
  X(ras, slurm)                        \
  X(reachable, netlink)                \
  X(reachable, weighted)               \
  X(routed, direct)                    \
  X(routed, radix)

namespace orca::tools {

/* The descriptors, for Process::create (builtin_components.cc: linking it
 * links the components). */
mca::BuiltinComponents builtin_components();

/* Their names, "framework/component", for a program that has them not
 * (orca_info says which components orcarun and orcad carry). */
std::vector<std::string> builtin_component_names();

}  // namespace orca::tools

#endif  // ORCA_TOOLS_BUILTIN_COMPONENTS_H
