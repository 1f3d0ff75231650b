/*
 * The frameworks this build of Orca provides, for tools that enumerate
 * them (orca_info). A tool that uses a framework adds it with
 * Runtime::add_framework; this list is only for enumeration.
 */
#ifndef ORCA_RUNTIME_FRAMEWORKS_H
#define ORCA_RUNTIME_FRAMEWORKS_H

#include <orca/export.h>
#include <orca/mca_framework.h>

#include <vector>

namespace orca {

ORCA_EXPORT std::vector<const mca::FrameworkDecl*> known_frameworks();

}  // namespace orca

#endif  // ORCA_RUNTIME_FRAMEWORKS_H
