// The components linked into orcarun and orcad (builtin_components.h).
#include "tools/builtin_components.h"

#include "config.h"

#if ORCA_BUILTIN_COMPONENTS
#define ORCA_DECLARE_BUILTIN(fw, name) extern "C" const orca_mca_component mca_##fw##_##name##_component;
ORCA_BUILTIN_COMPONENT_LIST(ORCA_DECLARE_BUILTIN)
#endif

namespace orca::tools {

mca::BuiltinComponents builtin_components() {
#if ORCA_BUILTIN_COMPONENTS
#define ORCA_ADDRESS_OF_BUILTIN(fw, name) &mca_##fw##_##name##_component,
  static constexpr const orca_mca_component* kAll[] = {ORCA_BUILTIN_COMPONENT_LIST(ORCA_ADDRESS_OF_BUILTIN)};
  return kAll;
#else
  return {};
#endif
}

}  // namespace orca::tools
