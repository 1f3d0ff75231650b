/*
 * The components linked into orcarun and orcad (configure
 * --enable-builtin-components, the default): each in-tree component that
 * needs no library of its own. A launch then opens no file for them;
 * pmi/pmix (libpmix) stays a file, and orcad loads it only for jobs that
 * need it. Empty in a build without them.
 */
#ifndef ORCA_TOOLS_BUILTIN_COMPONENTS_H
#define ORCA_TOOLS_BUILTIN_COMPONENTS_H

#include <orca/mca_repository.h>

namespace orca::tools {

mca::BuiltinComponents builtin_components();

}  // namespace orca::tools

#endif  // ORCA_TOOLS_BUILTIN_COMPONENTS_H
