// orca_info's two reports: the component listing and the variable listing.
#ifndef ORCA_TOOLS_ORCA_INFO_INFO_REPORT_H
#define ORCA_TOOLS_ORCA_INFO_INFO_REPORT_H

#include "runtime/runtime.h"

#include <ostream>
#include <string>

namespace orca::info {

struct ReportOptions {
  bool parsable = false;
  int level = 9;
};

/* Frameworks, their components with version, file, state and priority,
 * and every file that could not be loaded, with the reason. */
void print_components(Runtime& runtime, const ReportOptions& options, std::ostream& out);

/* The variables of `framework` / `component` ("all" for either) up to
 * options.level. Errors: an unknown framework or component. */
Status print_params(Runtime& runtime, const std::string& framework, const std::string& component,
                    const ReportOptions& options, std::ostream& out);

}  // namespace orca::info

#endif
