/*
 * Which file execvp would run for a program name: the name itself when it
 * holds a '/', else the first executable regular file of that name in the
 * directories of a PATH value, in order (an empty entry is the working
 * directory, as execvp takes it; no PATH at all is execvp's own default,
 * "/bin:/usr/bin"). nullopt when PATH has none.
 */
#ifndef ORCA_PROGRAM_PATH_H
#define ORCA_PROGRAM_PATH_H

#include <orca/export.h>

#include <optional>
#include <string>
#include <string_view>

namespace orca {

ORCA_EXPORT std::optional<std::string> find_program(std::string_view program, const char* path);

}  // namespace orca

#endif  // ORCA_PROGRAM_PATH_H
