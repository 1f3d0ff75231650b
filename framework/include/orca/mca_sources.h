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
#include <orca/mca_var.h>
#include <orca/result.h>

#include <string>
#include <string_view>
#include <vector>

namespace orca::mca {

/* The environment prefix of a setting: ORCA_MCA_<name>. */
inline constexpr std::string_view kEnvPrefix = "ORCA_MCA_";

/* Parses param-file text. `origin` gives kind, file and order; each
 * setting gets its line. A malformed line is an error naming file and
 * line and showing the expected form. */
ORCA_EXPORT Result<std::vector<Setting>> parse_param_text(std::string_view text,
                                                          const Source& origin);

/* Reads and parses a file. A missing file is no error when `missing_ok`
 * (param files are optional); an unreadable one always is. */
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
};

/* Extracts --mca and --tune from argv[1..argc) (also -mca, and
 * --tune=FILE); the tool parses `rest` itself. Stops at "--". */
ORCA_EXPORT Result<ToolOptions> parse_tool_options(int argc, const char* const* argv);

}  // namespace orca::mca

#endif  // ORCA_MCA_SOURCES_H
