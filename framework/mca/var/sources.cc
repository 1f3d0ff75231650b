// Reading settings from param files, the environment and command lines.
#include <orca/mca_sources.h>

#include "mca/var/text.h"

#include <orca/unique_fd.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace orca::mca {

namespace {

bool valid_setting_name(std::string_view n) {
  if (n.empty()) return false;
  for (char c : n) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
      return false;
  }
  return true;
}

// What a file that is not a regular one is, for the error.
std::string file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// The start of an overlong line: enough to find it, not 64 KiB of it.
std::string excerpt(std::string_view line) {
  constexpr size_t kShown = 60;
  return line.size() <= kShown ? std::string(line) : std::string(line.substr(0, kShown)) + "...";
}

}  // namespace

Result<std::vector<Setting>> parse_param_text(std::string_view text, const Source& origin) {
  std::vector<Setting> out;
  int line_no = 0;
  for (const std::string& raw : split(text, '\n')) {
    ++line_no;
    Source where = origin;
    where.line = line_no;
    if (raw.size() > kMaxParamLineLength) {
      return Message("mca-var", "bad-param-line",
                     {{"source", where.describe()},
                      {"line", excerpt(raw)},
                      {"why", "the line is " + std::to_string(raw.size()) + " bytes long, more than the limit of " +
                                  std::to_string(kMaxParamLineLength / 1024) + " KiB"}});
    }
    std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') continue;
    size_t eq = line.find('=');
    std::string_view name = eq == std::string_view::npos ? line : trim(line.substr(0, eq));
    if (eq == std::string_view::npos || !valid_setting_name(name)) {
      return Message("mca-var", "bad-param-line",
                     {{"source", where.describe()},
                      {"line", std::string(line)},
                      {"why", eq == std::string_view::npos ? "there is no '='"
                                                            : "the name before '=' is not letters, digits and '_'"}});
    }
    std::string_view value = trim(line.substr(eq + 1));
    // A value may be quoted to keep surrounding spaces or a '#'.
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    out.push_back(Setting{std::string(name), std::string(value), where});
  }
  return out;
}

Result<std::vector<Setting>> read_param_file(const std::string& path, const Source& origin,
                                             bool missing_ok) {
  auto unreadable = [&](std::string why) {
    return Message("mca-var", "unreadable-param-file",
                   {{"file", path}, {"why", std::move(why)}, {"kind", origin.kind_word()}});
  };
  auto not_regular = [&](mode_t mode) {
    return unreadable("it is " + file_kind(mode) + "; only regular files are read");
  };
  // O_NONBLOCK: opening a FIFO without a writer must not hang the tool; the
  // type check below then refuses it.
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid()) {
    const int err = errno;
    // Only a missing file is optional; ENOTDIR or EACCES on the way is not.
    if (err == ENOENT && missing_ok) return std::vector<Setting>{};
    // A socket cannot be opened at all (ENXIO): say what it is instead.
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return not_regular(st.st_mode);
    return unreadable(std::strerror(err));
  }
  // Check what was opened, not what the name pointed to a moment earlier.
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return unreadable(std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return not_regular(st.st_mode);
  const std::string too_large = "it is larger than the limit of " + std::to_string(kMaxParamFileSize >> 20) +
                                " MiB for a param file";
  if (static_cast<std::uintmax_t>(st.st_size) > kMaxParamFileSize) {
    return unreadable(too_large + " (" + std::to_string(st.st_size) + " bytes)");
  }
  // Read one byte past the limit, so that a file growing under us is
  // caught as well instead of being read without end.
  std::string text;
  while (text.size() <= kMaxParamFileSize) {
    const size_t have = text.size();
    const size_t want = std::min<size_t>(64 * 1024, kMaxParamFileSize + 1 - have);
    text.resize(have + want);
    const ssize_t n = ::read(fd.get(), text.data() + have, want);
    if (n < 0) {
      const int err = errno;
      if (err == EINTR) {
        text.resize(have);
        continue;
      }
      return unreadable(std::strerror(err));
    }
    text.resize(have + static_cast<size_t>(n));
    if (n == 0) break;
  }
  if (text.size() > kMaxParamFileSize) return unreadable(too_large);
  Source o = origin;
  o.file = path;
  return parse_param_text(text, o);
}

std::vector<Setting> settings_from_environment(const char* const* envp) {
  std::vector<Setting> out;
  for (; envp != nullptr && *envp != nullptr; ++envp) {
    std::string_view entry(*envp);
    if (entry.substr(0, kEnvPrefix.size()) != kEnvPrefix) continue;
    size_t eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    Setting s;
    s.name = std::string(entry.substr(kEnvPrefix.size(), eq - kEnvPrefix.size()));
    s.text = std::string(entry.substr(eq + 1));
    s.source.kind = SourceKind::Environment;
    out.push_back(std::move(s));
  }
  return out;
}

Result<ToolOptions> parse_tool_options(int argc, const char* const* argv) {
  ToolOptions opts;
  int i = 1;
  for (; i < argc; ++i) {
    std::string_view a(argv[i]);
    if (a == "--") break;
    if (a == "--mca" || a == "-mca") {
      if (i + 2 >= argc) {
        return Message("mca-var", "mca-option-args", {{"option", std::string(a)}});
      }
      Setting s{argv[i + 1], argv[i + 2], Source{SourceKind::CommandLine, "", 0, 0}};
      opts.mca.push_back(std::move(s));
      i += 2;
    } else if (a == "--tune") {
      if (i + 1 >= argc) return Message("mca-var", "tune-option-args", {});
      opts.tune_files.emplace_back(argv[++i]);
    } else if (a.substr(0, 7) == "--tune=") {
      if (a.size() == 7) return Message("mca-var", "tune-option-args", {});
      opts.tune_files.emplace_back(a.substr(7));
    } else {
      opts.rest.emplace_back(a);
    }
  }
  for (; i < argc; ++i) opts.rest.emplace_back(argv[i]);
  return opts;
}

}  // namespace orca::mca
