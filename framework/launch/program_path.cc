// find_program: a program name resolved as execvp resolves it.
#include <orca/program_path.h>

#include <sys/stat.h>
#include <unistd.h>

namespace orca {

std::optional<std::string> find_program(std::string_view program, const char* path) {
  if (program.empty()) return std::nullopt;
  if (program.find('/') != std::string_view::npos) return std::string(program);
  std::string_view dirs = path != nullptr ? path : "/bin:/usr/bin";
  for (;;) {
    const size_t colon = dirs.find(':');
    const std::string_view dir = dirs.substr(0, colon);
    const std::string candidate = dir.empty() ? std::string(program) : std::string(dir) + "/" + std::string(program);
    struct stat st {};
    // A directory of that name has its x bit too: execvp goes on past it.
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    if (colon == std::string_view::npos) return std::nullopt;
    dirs.remove_prefix(colon + 1);
  }
}

}  // namespace orca
