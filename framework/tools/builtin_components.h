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

namespace orca::tools {

mca::BuiltinComponents builtin_components();

}  // namespace orca::tools

#endif  // ORCA_TOOLS_BUILTIN_COMPONENTS_H
