// The host's reading of a module's interface lists (orca_oob_interface_filter).
#ifndef ORCA_FRAMEWORK_OOB_MODULE_INTERFACE_FILTER_H
#define ORCA_FRAMEWORK_OOB_MODULE_INTERFACE_FILTER_H

#include <orca/interface_selection.h>
#include <orca/mca_var.h>
#include <orca/oob.h>
#include <orca/result.h>

namespace orca::oob {

/* The filter a module's lists make; NULL: no lists. Each list's source,
 * for messages, is its variable's in `registry` ("given by the component"
 * for a name the registry does not hold). Errors: those of
 * net::interface_filter_of (both set, a malformed entry). */
Result<net::InterfaceFilter> module_interface_filter(const orca_oob_interface_filter* filter,
                                                     const mca::Registry& registry);

}  // namespace orca::oob

#endif
