// orcadvm status and stop: a client of a DVM's controller. It finds the
// contact file (named, ORCA_DVM, else the one running DVM of this user),
// opens the oob under the DVM's job with its secret, so that the handshake
// proves the secret both ways, asks, and prints the answer. stop returns
// once the controller and its daemons are gone.
#ifndef ORCA_TOOLS_ORCADVM_DVM_CLIENT_H
#define ORCA_TOOLS_ORCADVM_DVM_CLIENT_H

#include "launch/launch_wire.h"
#include "runtime/process.h"

#include <optional>
#include <string>

namespace orca::orcadvm {

/* The contact file to use: `named` (--dvm-uri FILE), else ORCA_DVM, else
 * the one running DVM's in this user's contact directory. Errors: those
 * of launch::find_running_dvm, launch/dvm-contact-unwritable when there is
 * no directory to look in. */
Result<std::string> locate_contact(const std::optional<std::string>& named);

/* Asks the DVM of `contact_file`; returns orcadvm's exit status. */
int ask_dvm(Process& process, launch::DvmAsk ask, const std::string& contact_file);

}  // namespace orca::orcadvm

#endif
