// The iof framework's own variables.
#include "iof.h"

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
    {.name = "output_buffer",
     .type = ORCA_MCA_VAR_SIZE,
     .default_value = "32M",
     .level = 5,
     .description = "The most of the ranks' output orcarun holds while its own stdout or stderr is not read "
                    "(a pager, a paused terminal, a full pipe): shared out among the daemons, each between 64k and "
                    "4M; a daemon whose share is unwritten stops reading its ranks' output, so they wait in write()",
     .min_value = "64k",
     .max_value = "16G"},
};
}  // namespace

std::span<const orca_mca_var_decl> base_variable_decls() { return kBaseVars; }

Result<std::chrono::milliseconds> partial_line_delay(const mca::Registry& registry) {
  const mca::Variable* v = registry.find("iof_base_partial_line_ms");
  if (v == nullptr) return Message("mca-base", "not-registered", {{"framework", "iof"}});
  return std::chrono::milliseconds(v->as_unsigned());
}

Result<std::uint64_t> output_buffer(const mca::Registry& registry) {
  const mca::Variable* v = registry.find("iof_base_output_buffer");
  if (v == nullptr) return Message("mca-base", "not-registered", {{"framework", "iof"}});
  return v->as_size();
}

}  // namespace orca::iof
