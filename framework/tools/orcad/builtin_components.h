/*
 * The components linked into orcad (configure --enable-static-orcad, the
 * default): each in-tree component that needs no library of its own. A
 * job's daemon then opens no file for them; pmi/pmix (libpmix) stays a
 * file, loaded only for jobs that need it. Empty in a build without them.
 */
#ifndef ORCA_ORCAD_BUILTIN_COMPONENTS_H
#define ORCA_ORCAD_BUILTIN_COMPONENTS_H

#include <orca/mca_repository.h>

namespace orca::orcad {

mca::BuiltinComponents builtin_components();

}  // namespace orca::orcad

#endif  // ORCA_ORCAD_BUILTIN_COMPONENTS_H
