// daemon_unused_components: what orcarun knows the daemons will not load.
#include "daemon_components.h"

#include <algorithm>

namespace orca::orcarun {

std::vector<std::string> daemon_unused_components(const std::vector<FoundComponent>& found,
                                                  const DaemonComponentChoice& choice) {
  std::vector<std::string> out;
  for (const auto& c : found) {
    bool unused = false;
    if (c.framework == "ras") unused = true;
    else if (c.framework == "routed") unused = c.name != choice.routed;
    else if (c.framework == "plm") unused = c.name != choice.plm;
    else if (c.framework == "pmi") unused = (c.name == "pmix" && !choice.pmix_server) || (c.name == "simple" && !choice.simple_server);
    const std::string entry = c.framework + "/" + c.name;
    if (unused && std::find(out.begin(), out.end(), entry) == out.end()) out.push_back(entry);
  }
  return out;
}

}  // namespace orca::orcarun
