// The programs of a job as the launch command carries them: the app file
// read (--app, -configfile), and each program's command, forwarded
// variables and directory resolved where orcarun runs.
#ifndef ORCA_TOOLS_ORCARUN_JOB_APPS_H
#define ORCA_TOOLS_ORCARUN_JOB_APPS_H

#include "orcarun_options.h"

#include "launch/launch_wire.h"

#include <orca/result.h>

#include <span>
#include <string>
#include <vector>

namespace orca::orcarun {

/* The most bytes of an app file. */
inline constexpr std::size_t kMaxAppFileBytes = 1u << 20;

/* With --app FILE: reads it (at most kMaxAppFileBytes) into o.apps and
 * settles them (settle_apps). Errors: orcarun/app-file-unreadable (the
 * file and why), app-file-syntax, and settle_apps's. */
Status read_app_file(Options& o);

/* Each program's part of the launch command: its words, its own forwarded
 * variables resolved against `environment`, and its directory: its own
 * --wdir (relative: to `cwd`), else `job_directory` (the job's).
 * `job_directory_given`: the job had --wdir. Errors: resolve_forwarding's;
 * a relative --wdir when orcarun's own directory is unknown. */
Result<std::vector<launch::AppSpec>> app_specs(const Options& o, std::span<const std::string> environment,
                                               const std::string& cwd, const std::string& job_directory,
                                               bool job_directory_given);

}  // namespace orca::orcarun

#endif  // ORCA_TOOLS_ORCARUN_JOB_APPS_H
