// The iof framework's own variables.
#include <orca/iof.h>
#include <orca/mca_var.h>

#include <iterator>

namespace orca::iof {
namespace {
const orca_mca_var_decl kBaseVars[] = {
    {.name = "partial_line_ms",
     .type = ORCA_MCA_VAR_UNSIGNED,
     .default_value = "100",
     .level = 4,
     .description = "A rank's output line without a newline yet (a prompt, a progress bar, an fflush) is shown "
                    "this many milliseconds after its first byte instead of waiting for the newline; whole lines "
                    "are shown at once and never mixed with another rank's",
     .min_value = "1",
     .max_value = "60000"},
};
}  // namespace

std::span<const orca_mca_var_decl> base_variable_decls() { return kBaseVars; }

Result<std::chrono::milliseconds> partial_line_delay(const mca::Registry& registry) {
  const mca::Variable* v = registry.find("iof_base_partial_line_ms");
  if (v == nullptr) return Message("mca-base", "not-registered", {{"framework", "iof"}});
  return std::chrono::milliseconds(v->as_unsigned());
}

}  // namespace orca::iof
