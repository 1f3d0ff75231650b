// OutputFiles (output_files.h).
#include "output_files.h"

#include <orca/message.h>
#include <orca/unique_fd.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace orca::orcarun {

namespace {

Message failure(const std::string& path, const std::string& what, int err) {
  return Message("orcarun", "output-files", {{"path", printable(path)}, {"what", what}, {"why", std::strerror(err)}});
}

// mkdir -p: every missing parent, then the directory.
Status make_directories(const std::string& path) {
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    const std::string prefix = path.substr(0, slash);
    if (!prefix.empty() && ::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
      return failure(prefix, "cannot make the directory", errno);
    }
    if (slash == std::string::npos) break;
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return failure(path, "cannot make the directory", errno);
  if (!S_ISDIR(st.st_mode)) return failure(path, "cannot put files in", ENOTDIR);
  return {};
}

}  // namespace

Result<OutputFiles> OutputFiles::open(std::string directory) {
  while (directory.size() > 1 && directory.back() == '/') directory.pop_back();
  if (Status st = make_directories(directory); !st) return st.error();
  return OutputFiles(std::move(directory));
}

std::string OutputFiles::path(std::uint32_t rank, Stream stream) const {
  return directory_ + "/rank." + std::to_string(rank) + (stream == Stream::Stdout ? "/stdout" : "/stderr");
}

Status OutputFiles::write(std::uint32_t rank, Stream stream, std::string_view bytes) {
  const std::string file = path(rank, stream);
  const bool first = started_.insert({rank, stream}).second;
  if (first) {
    if (Status st = make_directories(file.substr(0, file.rfind('/'))); !st) return st;
  }
  UniqueFd fd(::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (first ? O_TRUNC : 0), 0644));
  if (!fd.valid()) return failure(file, "cannot open", errno);
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd.get(), bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return failure(file, "cannot write", n < 0 ? errno : ENOSPC);
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return {};
}

}  // namespace orca::orcarun
