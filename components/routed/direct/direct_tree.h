// routed/direct: every daemon is a child of the launcher, so every
// message travels at most two hops (daemon -> launcher -> daemon).
#ifndef ORCA_COMPONENTS_ROUTED_DIRECT_TREE_H
#define ORCA_COMPONENTS_ROUTED_DIRECT_TREE_H

#include <orca/routed.h>

namespace orca::routed::direct {

/* The direct shape as a C module; it keeps no state (self is NULL). */
orca_routed_module module() noexcept;

}  // namespace orca::routed::direct

#endif
