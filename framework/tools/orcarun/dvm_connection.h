// A client's way to a running DVM (orcadvm status and stop, orcarun
// --dvm): its contact file found (named, ORCA_DVM, else the one running
// DVM of this user), and the oob opened under the DVM's job with its
// secret, so that the handshake proves the secret both ways before the
// controller reads a byte of ours.
#ifndef ORCA_TOOLS_ORCARUN_DVM_CONNECTION_H
#define ORCA_TOOLS_ORCARUN_DVM_CONNECTION_H

#include "launch/dvm_contact.h"
#include "runtime/process.h"

#include <orca/oob.h>

#include <sys/types.h>

#include <optional>
#include <string>

namespace orca::orcarun {

/* Whether process `pid` runs (a zombie, ended and not yet reaped, does not). */
bool process_runs(pid_t pid);

/* The contact file to use: `named` (--dvm-uri FILE|URI), else ORCA_DVM
 * (the same), else the one running DVM's in this user's contact directory
 * (launch::resolve_dvm_name for the first two). Errors: those of
 * launch::resolve_dvm_name and launch::find_running_dvm,
 * launch/dvm-contact-unwritable when there is no directory to look in. */
Result<std::string> locate_dvm_contact(const std::optional<std::string>& named);

struct DvmConnection {
  std::string file;             // the contact file
  launch::DvmContact contact;   // what it holds
  oob::Oob* oob = nullptr;      // this client's, under the DVM's job
  ProcessName controller{};
};

/* orcadvm/unreachable: the DVM of `file` (its pid) could not be reached. */
Message dvm_unreachable(const std::string& file, std::uint32_t pid, const std::string& why);

/* Reads `contact_file` and opens this client's oob (a random vpid of the
 * clients' range) with the controller as its peer. Errors: the contact
 * file's, the secret's, orcadvm/unreachable. */
Result<DvmConnection> connect_dvm(Process& process, const std::string& contact_file);

}  // namespace orca::orcarun

#endif
