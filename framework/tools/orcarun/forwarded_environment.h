// The environment orcarun forwards to every rank (-x, -genv, -genvlist):
// what the user asked for, as requests, and their resolution against
// orcarun's own environment into the NAME=VALUE list the launch command
// carries. Pure: the environment is a parameter, nothing is read or
// printed here.
//
// Why it exists: ssh passes no environment and srun's is the daemon's, so
// a variable set where orcarun runs reaches a rank only if it is forwarded.
// orcad sets the forwarded variables before its own (ORCA_RANK, ORCA_SIZE,
// ORCA_LOCAL_RANK, ORCA_LOCAL_SIZE, ORCA_NODE, PMI_*), so Orca's win.
#ifndef ORCA_TOOLS_ORCARUN_FORWARDED_ENVIRONMENT_H
#define ORCA_TOOLS_ORCARUN_FORWARDED_ENVIRONMENT_H

#include <orca/message.h>
#include <orca/result.h>

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace orca::orcarun {

/* One variable, or a set of them, the command line asks to forward. */
struct ForwardRequest {
  enum class Kind {
    Value,            // -x NAME=VALUE, -genv NAME VALUE: this value
    FromEnvironment,  // -x NAME, -genvlist NAME,...: orcarun's value of NAME
    Prefix,           // -x 'PREFIX*': every variable of orcarun's whose name starts so
  };
  Kind kind = Kind::Value;
  std::string name;    // the name, or the prefix (without its '*')
  std::string value;   // Kind::Value only
  std::string option;  // the option as the user wrote it, for messages: "-x HOME"
};

/* The limits of what is forwarded. A rank's execve takes no environment
 * string longer than 128 KiB counting its terminating NUL (Linux's
 * MAX_ARG_STRLEN, E2BIG past it), and all of its arguments and environment
 * within a quarter of the stack limit (2 MiB by default): 1 MiB forwarded
 * leaves room for the daemon's own environment and the command. */
struct ForwardBounds {
  std::size_t per_variable = 128 * 1024;  // NAME=VALUE and its NUL
  std::size_t total = 1024 * 1024;        // every forwarded NAME=VALUE and its NUL
};

struct ForwardedEnvironment {
  std::vector<std::string> variables;  // NAME=VALUE, each name once, in the order first asked for
  std::vector<Message> warnings;       // a PREFIX* that matched nothing
};

/* Resolves `requests` in order against `environment` (NAME=VALUE entries,
 * as environ holds them; an entry without '=' is skipped, and of two
 * entries with one name the first counts, as getenv reads it). A later
 * request for a name replaces the value of an earlier one. Errors: a
 * FromEnvironment name not in `environment`; one variable or their sum
 * past `bounds` (nothing is to be started then). */
Result<ForwardedEnvironment> resolve_forwarding(std::span<const ForwardRequest> requests,
                                                std::span<const std::string> environment,
                                                ForwardBounds bounds = {});

}  // namespace orca::orcarun

#endif  // ORCA_TOOLS_ORCARUN_FORWARDED_ENVIRONMENT_H
