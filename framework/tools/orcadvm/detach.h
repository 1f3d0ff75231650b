// orcadvm start --daemonize: the DVM runs on in a new session, detached
// from the terminal and the shell that started it, and `orcadvm start`
// returns once it is up (printing its ready line) or has failed (printing
// why, with its exit status), so that a script may use it at once.
#ifndef ORCA_TOOLS_ORCADVM_DETACH_H
#define ORCA_TOOLS_ORCADVM_DETACH_H

#include <string>

namespace orca::orcadvm {

/* Forks. The parent relays the child's standard output and error until
 * its ready line (a whole line on standard output) came, then exits 0, or
 * until both closed without it, then exits with the child's own status;
 * it never returns. The
 * child returns in a new session, its standard input /dev/null, its
 * output still to the parent. Returns false (the caller reports errno)
 * when no pipe or child could be made. */
bool detach();

/* In the detached child, once its ready line is printed: standard output
 * and error go to the file `log` from now on (made anew, mode 0600; to
 * /dev/null when it cannot be made), which lets the parent return.
 * Returns whether the log was made. */
bool detached_ready(const std::string& log);

}  // namespace orca::orcadvm

#endif
