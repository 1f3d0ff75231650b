// The names of the components linked into orcarun and orcad
// (builtin_components.h), without their code.
#include "tools/builtin_components.h"

#include "config.h"

namespace orca::tools {

std::vector<std::string> builtin_component_names() {
#if ORCA_BUILTIN_COMPONENTS
  std::vector<std::string> names;
#define ORCA_NAME_OF_BUILTIN(fw, name) names.push_back(#fw "/" #name);
  ORCA_BUILTIN_COMPONENT_LIST(ORCA_NAME_OF_BUILTIN)
  return names;
#else
  return {};
#endif
}

}  // namespace orca::tools
