// The programs of an MPMD job: `orcarun -n 2 ./a : -n 4 ./b`, or the lines
// of --app FILE (Open MPI's appfile) and -configfile FILE (Hydra's). Ranks
// are numbered across them in order: the first program's ranks first.
//
// Each program has its own -n, and may have its own -x NAME[=VALUE] and
// -env NAME VALUE (on top of the job's forwarded variables) and --wdir
// (else the job's). Options that place or run the whole job (--host,
// --map-by, ...) go before the first program. Pure: a file's text is
// parsed here; orcarun reads it.
#ifndef ORCA_TOOLS_ORCARUN_APP_CONTEXTS_H
#define ORCA_TOOLS_ORCARUN_APP_CONTEXTS_H

#include "forwarded_environment.h"

#include <orca/result.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orca::orcarun {

struct AppContext {
  std::optional<unsigned> processes;             // its -n
  std::vector<ForwardRequest> forwards;          // its own -x / -env
  std::optional<std::string> working_directory;  // its --wdir, as given
  std::vector<std::string> command;
};

/* The most programs in one job. */
inline constexpr std::size_t kMaxApps = 1024;

/* -env NAME VALUE at args[i] (Hydra's: a variable for one program's
 * ranks): added to `forwards`; i moves on to VALUE. Error:
 * orcarun/bad-option (a missing or malformed name or value). */
Status add_program_env(const std::vector<std::string>& args, std::size_t& i, std::vector<ForwardRequest>& forwards);

/* One program from args[i..]: its options, then its command up to a lone
 * ":" (i moves past it) or the end. Errors (orcarun/bad-option): an option
 * of the whole job (naming it), a malformed value, no command. */
Result<AppContext> parse_app_context(const std::vector<std::string>& args, std::size_t& i);

/* The programs of an app file's text: one a line, or several on a line
 * between ':' (Hydra's -configfile); blank lines and # comments skipped;
 * words split as a shell splits them, quotes and backslashes included
 * (split_shell_words; no expansion). Errors: orcarun/app-file-syntax
 * (source, line, why), and more than kMaxApps programs. */
Result<std::vector<AppContext>> parse_app_file(std::string_view text, const std::string& source);

/* The first rank of each program (ranks numbered across them in order),
 * and one past the last at the end. */
std::vector<std::uint32_t> app_first_ranks(const std::vector<AppContext>& apps);

}  // namespace orca::orcarun

#endif  // ORCA_TOOLS_ORCARUN_APP_CONTEXTS_H
