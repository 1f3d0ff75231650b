// SrunOptionsCache: the cache file of srun's options, and finding srun.
#include "srun_options_cache.h"

#include <orca/bounded_file.h>
#include <orca/private_file.h>
#include <orca/program_path.h>

#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <vector>

namespace orca::plm::slurm {
namespace {

constexpr std::string_view kLineTag = "srun1";

Message why_not(std::string text) { return Message("plm", "slurm-step", {{"why", std::move(text)}}); }

std::int64_t nanoseconds(const timespec& t) { return static_cast<std::int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec; }

std::optional<SrunFile> identify(const std::string& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || ::access(path.c_str(), X_OK) != 0) return std::nullopt;
  return SrunFile{.path = path,
                  .device = static_cast<std::uint64_t>(st.st_dev),
                  .inode = static_cast<std::uint64_t>(st.st_ino),
                  .size = static_cast<std::uint64_t>(st.st_size),
                  .modified_ns = nanoseconds(st.st_mtim),
                  .changed_ns = nanoseconds(st.st_ctim)};
}

template <typename T>
bool parse_number(std::string_view word, T& out) {
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), out);
  return ec == std::errc() && end == word.data() + word.size();
}

// One cache line, split: its file and features; nullopt when malformed.
struct Entry {
  SrunFile file;
  SrunFeatures features;
};

std::optional<Entry> parse_line(std::string_view line) {
  // Eight space-separated words, then the path (which may hold spaces).
  std::string_view words[8];
  for (auto& w : words) {
    const size_t space = line.find(' ');
    if (space == std::string_view::npos) return std::nullopt;
    w = line.substr(0, space);
    line.remove_prefix(space + 1);
  }
  Entry e;
  int overlap = -1;
  int external = -1;
  if (words[0] != kLineTag || !parse_number(words[1], e.file.device) || !parse_number(words[2], e.file.inode) ||
      !parse_number(words[3], e.file.size) || !parse_number(words[4], e.file.modified_ns) ||
      !parse_number(words[5], e.file.changed_ns) || !parse_number(words[6], overlap) ||
      !parse_number(words[7], external) || (overlap != 0 && overlap != 1) || (external != 0 && external != 1) ||
      line.empty() || line.find('\0') != std::string_view::npos) {
    return std::nullopt;
  }
  e.file.path = std::string(line);
  e.features = SrunFeatures{.overlap = overlap == 1, .external_launcher = external == 1};
  return e;
}

std::string format_line(const SrunFile& f, const SrunFeatures& features) {
  return std::string(kLineTag) + " " + std::to_string(f.device) + " " + std::to_string(f.inode) + " " +
         std::to_string(f.size) + " " + std::to_string(f.modified_ns) + " " + std::to_string(f.changed_ns) + " " +
         (features.overlap ? "1" : "0") + " " + (features.external_launcher ? "1" : "0") + " " + f.path;
}

bool same_file(const SrunFile& a, const SrunFile& b) {
  return a.path == b.path && a.device == b.device && a.inode == b.inode && a.size == b.size &&
         a.modified_ns == b.modified_ns && a.changed_ns == b.changed_ns;
}

template <typename Visit>
void each_line(std::string_view text, Visit visit) {
  while (!text.empty()) {
    const size_t end = text.find('\n');
    visit(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
}

}  // namespace

Result<SrunFile> find_srun_file(const std::string& name, const Lookup& lookup) {
  if (name.empty()) return why_not("no srun program named");
  const auto path = find_program(name, lookup("PATH"));
  if (!path) return why_not(name + " is not in PATH");
  if (auto f = identify(*path)) return *f;
  return why_not(*path + " is not an executable file");
}

std::optional<SrunFeatures> cached_features(std::string_view text, const SrunFile& file) {
  std::optional<SrunFeatures> found;
  each_line(text, [&](std::string_view line) {
    if (found) return;
    if (auto e = parse_line(line); e && same_file(e->file, file)) found = e->features;
  });
  return found;
}

std::string with_features(std::string_view text, const SrunFile& file, const SrunFeatures& features) {
  if (file.path.find('\n') != std::string::npos || file.path.empty()) return std::string(text);
  std::string out = format_line(file, features) + "\n";
  std::size_t kept = 1;
  each_line(text, [&](std::string_view line) {
    if (kept >= kMaxCachedSruns) return;
    auto e = parse_line(line);
    if (!e || e->file.path == file.path) return;
    out += format_line(e->file, e->features) + "\n";
    ++kept;
  });
  return out;
}

std::string cache_file_path(const Lookup& lookup) {
  const char* xdg = lookup("XDG_CACHE_HOME");
  if (xdg != nullptr && xdg[0] == '/') return std::string(xdg) + "/orca/srun-options";
  const char* home = lookup("HOME");
  if (home != nullptr && home[0] == '/') return std::string(home) + "/.cache/orca/srun-options";
  return "";
}

std::string read_cache(const std::string& path) {
  if (path.empty()) return "";
  const BoundedFile file =
      read_bounded_file(path, kMaxCacheBytes, "srun's option cache", {.no_symlink = true, .private_to_user = true});
  return file.ok() ? file.text : "";
}

Status write_cache(const std::string& path, std::string_view text) {
  if (path.empty()) return why_not("no cache file to write");
  if (std::string why = write_private_file(path, text); !why.empty()) return why_not(why);
  return {};
}

}  // namespace orca::plm::slurm
