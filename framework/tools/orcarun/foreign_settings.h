// Open MPI's own -mca settings on orcarun's command line: wrappers written
// for mpirun (Horovod's passes "-mca pml ob1 -mca btl ^openib") hand them
// to orcarun, whose registry has no such variables. A name whose first
// word is none of Orca's goes to the ranks as OMPI_MCA_<name>, Open MPI's
// own convention; one of Orca's words that no variable claims is a typo,
// and an error.
#ifndef ORCA_TOOLS_ORCARUN_FOREIGN_SETTINGS_H
#define ORCA_TOOLS_ORCARUN_FOREIGN_SETTINGS_H

#include <orca/mca_var.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace orca::orcarun {

struct ForeignSettings {
  std::vector<std::string> environment;  // OMPI_MCA_<name>=<value>, for every rank, in order
  std::vector<std::string> passed;       // the names passed on (for the verbose log)
  std::vector<std::string> mistyped;     // names of Orca's words no variable claims
};

/* Splits the command-line settings of `settings` that no variable claims
 * (`claimed` tells) by their first word ("pml" of pml, "btl" of
 * btl_tcp_if_include): in `orca_words` (Orca's frameworks and variable
 * prefixes: oob, plm, mca, orcarun, ...) they are mistyped, otherwise
 * passed on. A later setting of a name wins, as on the command line. */
ForeignSettings split_foreign_settings(const std::vector<mca::Setting>& settings,
                                       const std::function<bool(const std::string& name)>& claimed,
                                       const std::set<std::string>& orca_words);

/* The first words of Orca's names: every declared variable's framework. */
std::set<std::string> orca_words(const mca::Registry& registry);

/* The first word of a setting's name, up to its first '_'. */
std::string first_word(const std::string& name);

}  // namespace orca::orcarun

#endif  // ORCA_TOOLS_ORCARUN_FOREIGN_SETTINGS_H
