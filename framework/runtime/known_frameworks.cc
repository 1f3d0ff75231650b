// The list of frameworks in this build. Each framework's declaration lives
// with its header (iof's, which no component includes, in framework/iof/);
// this file only gathers them for enumeration, at the level that ties the
// frameworks together (mca/base knows none of them).
#include "frameworks.h"

#include "oob/oob_host.h"
#include "plm/plm_base.h"
#include <orca/pmi.h>
#include <orca/ras.h>
#include <orca/reachable.h>
#include <orca/routed.h>

#include "iof/iof.h"

namespace orca {

std::vector<const mca::FrameworkDecl*> known_frameworks() { return {&ras::kFramework, &reach::kFramework, &oob::kFramework, &routed::kFramework, &plm::kFramework, &iof::kFramework, &pmi::kFramework}; }

}  // namespace orca
