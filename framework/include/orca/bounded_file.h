/*
 * Reading a small file a user named (a param file, a hostfile): only a
 * regular file, opened without blocking so that a FIFO with no writer
 * cannot hang the caller, and at most a bound of bytes, checked while
 * reading too so a file that grows under us is caught. The caller turns a
 * failure into its own message; `why` says it in words.
 */
#ifndef ORCA_BOUNDED_FILE_H
#define ORCA_BOUNDED_FILE_H

#include <orca/export.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace orca {

struct ORCA_EXPORT BoundedFile {
  std::string text;
  bool missing = false;  // the file does not exist (ENOENT)
  std::string error;     // empty: read; else why not ("it is a FIFO ...; only regular files are read")
  bool ok() const noexcept { return error.empty(); }
};

/* What more a file must be to be read, for one whose contents are trusted
 * (a cache a program wrote for its user). */
struct BoundedFileRules {
  bool no_symlink = false;       // the name itself is not a symbolic link (O_NOFOLLOW)
  bool private_to_user = false;  // owned by this user (euid), writable by no one else
  bool secret = false;           // holds a secret: no one else may read it either (no group or other bits)
};

/* Reads `path`. `what` names the kind of file in the errors ("a param
 * file", "a hostfile"). The rules are checked on the file opened, not on
 * the name. */
ORCA_EXPORT BoundedFile read_bounded_file(const std::string& path, size_t max_bytes, std::string_view what,
                                          BoundedFileRules rules = {});

}  // namespace orca

#endif  // ORCA_BOUNDED_FILE_H
