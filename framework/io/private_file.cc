// write_private_file: a file its user alone may read, written whole or not at all.
#include <orca/private_file.h>
#include <orca/unique_fd.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace orca {
namespace {

std::string errno_text(const std::string& what) { return what + ": " + std::strerror(errno); }

}  // namespace

std::string write_private_file(const std::string& path, std::string_view text) {
  const size_t slash = path.rfind('/');
  if (path.empty() || slash == std::string::npos || slash == 0) return "\"" + path + "\" is no file in a directory";
  // The directory and its parents as needed, the user's alone.
  const std::string dir = path.substr(0, slash);
  for (size_t at = dir.find('/', 1);; at = dir.find('/', at + 1)) {
    const std::string part = dir.substr(0, at);
    if (::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) return errno_text("cannot make " + part);
    if (at == std::string::npos) break;
  }
  const std::string temporary = path + "." + std::to_string(::getpid()) + ".tmp";
  UniqueFd fd(::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.valid()) return errno_text("cannot create " + temporary);
  std::size_t put = 0;
  while (put < text.size()) {
    const ssize_t n = ::write(fd.get(), text.data() + put, text.size() - put);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string why = errno_text("cannot write " + temporary);
      ::unlink(temporary.c_str());
      return why;
    }
    put += static_cast<std::size_t>(n);
  }
  fd.reset();
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    std::string why = errno_text("cannot rename " + temporary + " to " + path);
    ::unlink(temporary.c_str());
    return why;
  }
  return "";
}

}  // namespace orca
