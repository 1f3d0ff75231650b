// reachable/weighted: ranks address pairs by rules alone, no system calls.
#ifndef ORCA_COMPONENTS_REACHABLE_WEIGHTED_RANKER_H
#define ORCA_COMPONENTS_REACHABLE_WEIGHTED_RANKER_H

#include <orca/reachable.h>

namespace orca::reach::weighted {

/* Weights before the link bonus: the tier decides, the bonus (<= 100)
 * orders within a tier. */
inline constexpr int kSameSubnet = 800;
inline constexpr int kLinkLocal = 600;
inline constexpr int kSameScope = 400;   // both private or both public
inline constexpr int kMixedScope = 100;  // one private, one public

/* Fills the undecided verdicts of `query` (the module's compute). */
orca_mca_rc rank(const orca_reach_query& query, orca_reach_verdict* verdicts);

}  // namespace orca::reach::weighted

#endif
