// orcadvm status and stop: a client of a DVM's controller. It connects
// (tools/orcarun/dvm_connection.h), asks, and prints the answer. stop returns
// once the controller and its daemons are gone.
#ifndef ORCA_TOOLS_ORCADVM_DVM_CLIENT_H
#define ORCA_TOOLS_ORCADVM_DVM_CLIENT_H

#include "launch/launch_wire.h"
#include "runtime/process.h"

#include <optional>
#include <string>

namespace orca::orcadvm {

/* Asks the DVM of `contact_file`; returns orcadvm's exit status. */
int ask_dvm(Process& process, launch::DvmAsk ask, const std::string& contact_file);

}  // namespace orca::orcadvm

#endif
