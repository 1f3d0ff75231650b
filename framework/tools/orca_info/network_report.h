// orca_info --interfaces and --reach: the inventory with the selection
// decision for each address, and the reachability matrix for given peer
// addresses.
#ifndef ORCA_TOOLS_ORCA_INFO_NETWORK_REPORT_H
#define ORCA_TOOLS_ORCA_INFO_NETWORK_REPORT_H

#include "info_report.h"

#include "runtime/runtime.h"

#include <ostream>
#include <string>
#include <vector>

namespace orca::info {

/* Errors: the inventory cannot be read, or the selection variables are
 * invalid (both set, malformed or matching nothing). */
Status print_interfaces(Runtime& runtime, const ReportOptions& options, std::ostream& out);

/* `peers` are "ADDR[/PREFIX][@KIND]". Errors: a malformed address, and
 * those of print_interfaces. */
Status print_reach(Runtime& runtime, const std::vector<std::string>& peers, bool same_host,
                   const ReportOptions& options, std::ostream& out);

}  // namespace orca::info

#endif
