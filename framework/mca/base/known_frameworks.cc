// The list of frameworks in this build. Each framework's declaration lives
// with its base code; this file only gathers them for enumeration.
#include <orca/frameworks.h>

namespace orca {

std::vector<const mca::FrameworkDecl*> known_frameworks() {
  // Frameworks are added here as they land (reachable, oob, plm, routed).
  return {};
}

}  // namespace orca
