/*
 * Framework "iof": forwarding of the ranks' standard streams. It has no
 * components yet; its base variables tune what orcad and orcarun do with
 * the streams (iof_lines.h has the machinery).
 *
 *   iof_base_partial_line_ms  how long a line without '\n' is held before
 *                             it is shown anyway (a prompt, a progress bar)
 *   iof_base_output_buffer    how much output orcarun holds for a reader
 *                             that does not read (iof_flow.h)
 */
#ifndef ORCA_IOF_IOF_H
#define ORCA_IOF_IOF_H

#include <orca/export.h>
#include <orca/mca_framework.h>
#include <orca/result.h>

#include <chrono>
#include <span>

namespace orca::iof {

ORCA_EXPORT std::span<const orca_mca_var_decl> base_variable_decls();

inline const mca::FrameworkDecl kFramework{"iof", "forwards the standard output, error and input of a job's ranks", 1,
                                           mca::SelectMode::All, base_variable_decls()};

/* iof_base_partial_line_ms of a registry where the iof framework was
 * added. Errors: the framework was not added. */
ORCA_EXPORT Result<std::chrono::milliseconds> partial_line_delay(const mca::Registry& registry);

/* iof_base_output_buffer, likewise. */
ORCA_EXPORT Result<std::uint64_t> output_buffer(const mca::Registry& registry);

}  // namespace orca::iof

#endif  // ORCA_IOF_IOF_H
