// The components linked into orcarun and orcad (builtin_components.h).
#include "tools/builtin_components.h"

#include "config.h"

#if ORCA_BUILTIN_COMPONENTS
// One line per component; the list is the one components/*/Makefile.inc
// builds into the programs (BUILTIN_COMPONENT_LIBS): a component missing
// from either fails the link or is loaded from its file as before.
#define ORCA_BUILTIN_LIST(X) \
  X(oob, tcp)                      \
  X(oob, usock)                    \
  X(plm, local)                    \
  X(plm, rsh)                      \
  X(plm, slurm)                    \
  X(pmi, pmix)                     \
  X(pmi, simple)                   \
  X(ras, hostfile)                 \
  X(ras, slurm)                    \
  X(reachable, netlink)            \
  X(reachable, weighted)           \
  X(routed, direct)                \
  X(routed, radix)

#define ORCA_DECLARE_BUILTIN(fw, name) extern "C" const orca_mca_component mca_##fw##_##name##_component;
ORCA_BUILTIN_LIST(ORCA_DECLARE_BUILTIN)
#endif

namespace orca::tools {

mca::BuiltinComponents builtin_components() {
#if ORCA_BUILTIN_COMPONENTS
#define ORCA_ADDRESS_OF_BUILTIN(fw, name) &mca_##fw##_##name##_component,
  static constexpr const orca_mca_component* kAll[] = {ORCA_BUILTIN_LIST(ORCA_ADDRESS_OF_BUILTIN)};
  return kAll;
#else
  return {};
#endif
}

}  // namespace orca::tools
