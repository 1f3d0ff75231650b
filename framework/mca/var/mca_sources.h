/*
 * Where MCA settings come from, other than declarations: param files
 * (`name = value` lines, `#` comments, blank lines ignored), the
 * environment (ORCA_MCA_<name>=value) and tool command lines
 * (`--mca <name> <value>`, `--tune FILE`).
 *
 * These functions only read and parse; a Registry decides precedence.
 */
#ifndef ORCA_MCA_SOURCES_H
#define ORCA_MCA_SOURCES_H

#include <orca/export.h>
#include <orca/mca_repository.h>
#include <orca/mca_var.h>
#include <orca/result.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace orca::mca {

/* The environment prefix of a setting: ORCA_MCA_<name>. */
inline constexpr std::string_view kEnvPrefix = "ORCA_MCA_";

/* Limits on a param file. A real one holds a few kilobytes; the limits
 * keep /dev/zero, a runaway generator or a binary file from exhausting
 * memory before a line is even parsed. */
inline constexpr std::size_t kMaxParamFileSize = std::size_t{1} << 20;     // 1 MiB
inline constexpr std::size_t kMaxParamLineLength = std::size_t{64} << 10;  // 64 KiB, without the newline

/* Parses param-file text. `origin` gives kind, file and order; each
 * setting gets its line. A malformed line, or one longer than
 * kMaxParamLineLength, is an error ("bad-param-line") naming file and line
 * and showing the expected form. */
ORCA_EXPORT Result<std::vector<Setting>> parse_param_text(std::string_view text,
                                                          const Source& origin);

/* Reads and parses a file. A missing file is no error when `missing_ok`
 * (param files are optional). Always an error ("unreadable-param-file",
 * naming the file and why): a file that cannot be opened or read, one that
 * is not a regular file (a directory, FIFO, device or socket: a FIFO
 * without a writer does not block), and one larger than kMaxParamFileSize,
 * even if it grows while being read. */
ORCA_EXPORT Result<std::vector<Setting>> read_param_file(const std::string& path,
                                                         const Source& origin,
                                                         bool missing_ok);

/* Every ORCA_MCA_* entry of an environment block (NULL-terminated). */
ORCA_EXPORT std::vector<Setting> settings_from_environment(const char* const* envp);

/* Options every Orca tool accepts. */
struct ORCA_EXPORT ToolOptions {
  std::vector<Setting> mca;              // --mca name value, in order
  std::vector<std::string> tune_files;   // --tune FILE, in order
  std::vector<std::string> rest;         // everything else, in order
  /* Settings a launcher handed down (framework/mca/var/mca_forward.h),
   * added after the environment's and before --mca, each keeping its own
   * source. */
  std::vector<Setting> inherited;
  /* Components the launcher said this process will not use: their files
   * are not loaded (mca_repository.h). */
  LeaveOut leave_out;
  /* Components this program was linked with (mca_repository.h). */
  BuiltinComponents builtin_components;
};

/* Extracts --mca and --tune from argv[1..argc) (also -mca, and
 * --tune=FILE); the tool parses `rest` itself. Stops at "--". */
ORCA_EXPORT Result<ToolOptions> parse_tool_options(int argc, const char* const* argv);

}  // namespace orca::mca

#endif  // ORCA_MCA_SOURCES_H
