/*
 * Whether a job's daemons start libpmix's server (pmi/pmix): decided once,
 * by orcarun, for every daemon of the job (their collectives must agree),
 * from orcarun_pmix_server and what ProgramLinkage read of the program.
 *
 *   always  start it
 *   never   do not: an Open MPI rank then runs as a singleton
 *   auto    start it unless the program was read whole (ProgramLinkage
 *           Kind::Read) and neither links a PMIx client library nor can
 *           run or load other code (libmpich's own imports aside:
 *           ProgramLinkage): `hostname` and an MPICH program get no
 *           server, an Open MPI program, `sh -c`, `python3`, a script or
 *           a program not found here get one
 */
#ifndef ORCA_PMIX_SERVER_CHOICE_H
#define ORCA_PMIX_SERVER_CHOICE_H

#include <orca/export.h>
#include <orca/program_linkage.h>
#include <orca/result.h>

#include <string>
#include <string_view>

namespace orca::launch {

enum class PmixServerMode { Auto, Always, Never };

/* "auto", "always", "never" (orcarun_pmix_server's words). Errors: another word. */
ORCA_EXPORT Result<PmixServerMode> parse_pmix_server_mode(std::string_view word);

struct PmixServerChoice {
  bool start = true;
  std::string why;  // one line for the user: what was found and what to set
};

ORCA_EXPORT PmixServerChoice choose_pmix_server(PmixServerMode mode, const ProgramLinkage& program);

}  // namespace orca::launch

#endif  // ORCA_PMIX_SERVER_CHOICE_H
