// Reading settings from param files, the environment and command lines.
#include <orca/bounded_file.h>
#include "mca/var/mca_sources.h"

#include "mca/var/text.h"

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
  const BoundedFile file = read_bounded_file(path, kMaxParamFileSize, "a param file");
  if (!file.ok()) {
    // Only a missing file is optional; ENOTDIR or EACCES on the way is not.
    if (file.missing && missing_ok) return std::vector<Setting>{};
    return Message("mca-var", "unreadable-param-file",
                   {{"file", path}, {"why", file.error}, {"kind", origin.kind_word()}});
  }
  Source o = origin;
  o.file = path;
  return parse_param_text(file.text, o);
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
