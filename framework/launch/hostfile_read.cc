// Reading a hostfile: a regular file of at most kMaxHostfileSize bytes.
#include <orca/host_list.h>
#include <orca/unique_fd.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace orca::launch {

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

}  // namespace

Result<std::vector<HostSlots>> read_hostfile(const std::string& path) {
  auto unreadable = [&](std::string why) {
    return Message("launch", "hostfile-unreadable", {{"file", path}, {"why", std::move(why)}});
  };
  auto not_regular = [&](mode_t mode) {
    return unreadable("it is " + file_kind(mode) + "; a hostfile must be a regular file");
  };
  if (path.empty()) return unreadable("the name is empty");
  // O_NONBLOCK: opening a FIFO without a writer must not hang orcarun; the
  // type check below then refuses it.
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid()) {
    const int err = errno;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return not_regular(st.st_mode);
    return unreadable(std::strerror(err));
  }
  // Check what was opened, not what the name pointed to a moment earlier.
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return unreadable(std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return not_regular(st.st_mode);
  const std::string too_large =
      "it is larger than the limit of " + std::to_string(kMaxHostfileSize >> 20) + " MiB for a hostfile";
  if (static_cast<std::uintmax_t>(st.st_size) > kMaxHostfileSize) {
    return unreadable(too_large + " (" + std::to_string(st.st_size) + " bytes)");
  }
  // Read one byte past the limit, so that a file growing under us is
  // caught as well instead of being read without end.
  std::string text;
  while (text.size() <= kMaxHostfileSize) {
    const size_t have = text.size();
    const size_t want = std::min<size_t>(64 * 1024, kMaxHostfileSize + 1 - have);
    text.resize(have + want);
    const ssize_t n = ::read(fd.get(), text.data() + have, want);
    if (n < 0) {
      const int err = errno;
      text.resize(have);
      if (err == EINTR) continue;
      return unreadable(std::strerror(err));
    }
    text.resize(have + static_cast<size_t>(n));
    if (n == 0) break;
  }
  if (text.size() > kMaxHostfileSize) return unreadable(too_large);
  return parse_hostfile_text(text, path);
}

}  // namespace orca::launch
