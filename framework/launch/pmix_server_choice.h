/*
 * Whether a job's daemons start libpmix's server (pmi/pmix) and the
 * PMI-1/2 server (pmi/simple), and whether orcarun holds the data-plane
 * round (each host's link chosen before the ranks start): decided once, by
 * orcarun, for every daemon of the job (their collectives must agree),
 * from orcarun_pmix_server, orcarun_pmi_simple_server and
 * orcarun_data_plane_round and what ProgramLinkage read of the program.
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
#ifndef ORCA_LAUNCH_PMIX_SERVER_CHOICE_H
#define ORCA_LAUNCH_PMIX_SERVER_CHOICE_H

#include "program_linkage.h"

#include <orca/export.h>
#include <orca/result.h>

#include <string>
#include <string_view>
#include <vector>

namespace orca::launch {

enum class PmiServerMode { Auto, Always, Never };

/* "auto", "always", "never" (the words of orcarun_pmix_server and
 * orcarun_pmi_simple_server). Errors: another word. */
ORCA_EXPORT Result<PmiServerMode> parse_pmi_server_mode(std::string_view variable, std::string_view word);

struct PmiServerChoice {
  bool start = true;
  std::string why;  // one line for the user: what was found and what to set
};

ORCA_EXPORT PmiServerChoice choose_pmix_server(PmiServerMode mode, const ProgramLinkage& program);
/* pmi/simple, with the same words: auto starts it unless the program was
 * read whole and reaches no PMI-1/2 client library (libmpich, libpmi,
 * libpmi2), links no PMIx one (an MPI library: not read further) and cannot
 * run or load other code: `hostname` and `sleep` get none. */
ORCA_EXPORT PmiServerChoice choose_pmi_simple_server(PmiServerMode mode, const ProgramLinkage& program);
/* The data-plane round (orcarun_data_plane_round, the same words): auto
 * holds it unless the program was read whole and links no MPI, PMI or
 * network library (ProgramLinkage::network_library) and cannot run or
 * load other code: `hostname` and `sleep` have no use for the variables,
 * `sh -c`, `python3` and every MPI program get them. */
ORCA_EXPORT PmiServerChoice choose_data_plane_round(PmiServerMode mode, const ProgramLinkage& program);

/* The three for a whole job, whose programs (MPMD: several, in order) may
 * each need what another does not: each starts when any program needs it,
 * with that program's words; when none does, the first program's words.
 * The modes are the variables' words. Errors: a word not auto, always or
 * never (bad-pmi-server-mode, naming the variable). */
struct ProgramServices {
  PmiServerChoice pmix{.start = false, .why = ""};
  PmiServerChoice simple{.start = false, .why = ""};
  PmiServerChoice round{.start = false, .why = ""};
};
struct ServiceModes {
  std::string_view pmix_server;        // orcarun_pmix_server
  std::string_view pmi_simple_server;  // orcarun_pmi_simple_server
  std::string_view data_plane_round;   // orcarun_data_plane_round
};
ORCA_EXPORT Result<ProgramServices> choose_program_services(const ServiceModes& modes,
                                                            const std::vector<ProgramLinkage>& programs);

}  // namespace orca::launch

#endif  // ORCA_LAUNCH_PMIX_SERVER_CHOICE_H
