/*
 * Writing a small file only its user may read (a cache, a DVM's contact
 * file with its secret): whole or not at all, never readable by anyone
 * else for a moment. The directories up to it are made as needed, each
 * 0700; the text goes to a temporary file of this process, created with
 * O_EXCL|O_NOFOLLOW and mode 0600, then renamed over `path`.
 *
 * Returns "" when written, else why not in words ("cannot create X: ...").
 * Read such a file back with read_bounded_file's private_to_user and
 * secret rules (orca/bounded_file.h).
 */
#ifndef ORCA_PRIVATE_FILE_H
#define ORCA_PRIVATE_FILE_H

#include <orca/export.h>

#include <string>
#include <string_view>

namespace orca {

ORCA_EXPORT std::string write_private_file(const std::string& path, std::string_view text);

}  // namespace orca

#endif  // ORCA_PRIVATE_FILE_H
