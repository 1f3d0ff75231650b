// The components linked into orcad (builtin_components.h).
#include "builtin_components.h"

#include "config.h"

#if ORCA_STATIC_ORCAD
// One line per component; the list is the one components/Makefile.inc
// builds into orcad (ORCAD_BUILTIN_LIBS): a component missing from either
// fails the link or is loaded from its file as before.
#define ORCA_BUILTIN_COMPONENTS(X) \
  X(oob, tcp)                      \
  X(oob, usock)                    \
  X(plm, local)                    \
  X(plm, rsh)                      \
  X(plm, slurm)                    \
  X(pmi, simple)                   \
  X(ras, hostfile)                 \
  X(ras, slurm)                    \
  X(reachable, netlink)            \
  X(reachable, weighted)           \
  X(routed, direct)                \
  X(routed, radix)

#define ORCA_DECLARE_BUILTIN(fw, name) extern "C" const orca_mca_component mca_##fw##_##name##_component;
ORCA_BUILTIN_COMPONENTS(ORCA_DECLARE_BUILTIN)
#endif

namespace orca::orcad {

mca::BuiltinComponents builtin_components() {
#if ORCA_STATIC_ORCAD
#define ORCA_ADDRESS_OF_BUILTIN(fw, name) &mca_##fw##_##name##_component,
  static constexpr const orca_mca_component* kAll[] = {ORCA_BUILTIN_COMPONENTS(ORCA_ADDRESS_OF_BUILTIN)};
  return kAll;
#else
  return {};
#endif
}

}  // namespace orca::orcad
