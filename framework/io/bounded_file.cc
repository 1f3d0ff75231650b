// read_bounded_file: regular files only, bounded, never blocking on open.
#include <orca/bounded_file.h>
#include <orca/unique_fd.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace orca {

namespace {

// What a file that is not a regular one is, for the error.
std::string file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string size_text(size_t bytes) {
  return bytes % (1u << 20) == 0 ? std::to_string(bytes >> 20) + " MiB" : std::to_string(bytes) + " bytes";
}

}  // namespace

BoundedFile read_bounded_file(const std::string& path, size_t max_bytes, std::string_view what,
                              BoundedFileRules rules) {
  BoundedFile out;
  auto fail = [&](std::string why) {
    out.text.clear();
    out.error = std::move(why);
    return out;
  };
  auto not_regular = [&](mode_t mode) { return fail("it is " + file_kind(mode) + "; only regular files are read"); };
  if (path.empty()) return fail("the name is empty");
  // O_NONBLOCK: opening a FIFO without a writer must not hang; the type
  // check below then refuses it.
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | (rules.no_symlink ? O_NOFOLLOW : 0)));
  if (!fd.valid()) {
    const int err = errno;
    out.missing = err == ENOENT;
    if (err == ELOOP && rules.no_symlink) return fail("it is a symbolic link; only the file itself is read");
    // A socket cannot be opened at all (ENXIO): say what it is instead.
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return not_regular(st.st_mode);
    return fail(std::strerror(err));
  }
  // Check what was opened, not what the name pointed to a moment earlier.
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return fail(std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return not_regular(st.st_mode);
  if (rules.private_to_user && st.st_uid != ::geteuid()) {
    return fail("it belongs to another user (uid " + std::to_string(st.st_uid) + ")");
  }
  char mode[8];
  std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
  if (rules.private_to_user && (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return fail(std::string("others may write it (mode ") + mode + ")");
  }
  if (rules.secret && (st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    return fail(std::string("others may read it (mode ") + mode + "; a file holding a secret must be 0600)");
  }
  const std::string too_large =
      "it is larger than the limit of " + size_text(max_bytes) + " for " + std::string(what);
  if (static_cast<std::uintmax_t>(st.st_size) > max_bytes) {
    return fail(too_large + " (" + std::to_string(st.st_size) + " bytes)");
  }
  // Read one byte past the limit, so that a file growing under us is
  // caught as well instead of being read without end.
  while (out.text.size() <= max_bytes) {
    const size_t have = out.text.size();
    const size_t want = std::min<size_t>(64 * 1024, max_bytes + 1 - have);
    out.text.resize(have + want);
    const ssize_t n = ::read(fd.get(), out.text.data() + have, want);
    if (n < 0) {
      const int err = errno;
      out.text.resize(have);
      if (err == EINTR) continue;
      return fail(std::strerror(err));
    }
    out.text.resize(have + static_cast<size_t>(n));
    if (n == 0) break;
  }
  if (out.text.size() > max_bytes) return fail(too_large);
  return out;
}

}  // namespace orca
