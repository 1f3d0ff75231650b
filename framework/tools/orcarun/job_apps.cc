// The programs of a job, for the launch command (job_apps.h).
#include "job_apps.h"

#include "orcarun_option_values.h"

#include "mca/var/text.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

namespace orca::orcarun {

Status read_app_file(Options& o) {
  if (!o.app_file) return {};
  const std::string& path = *o.app_file;
  auto unreadable = [&](const std::string& why) {
    return Message("orcarun", "app-file-unreadable", {{"file", printable(path)}, {"why", why}});
  };
  std::ifstream in(path, std::ios::binary);
  if (!in) return unreadable(std::strerror(errno));
  std::string text;
  text.resize(kMaxAppFileBytes + 1);
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (in.bad()) return unreadable(std::strerror(errno));
  if (text.size() > kMaxAppFileBytes) return unreadable("it is larger than " + std::to_string(kMaxAppFileBytes) + " bytes");
  auto apps = parse_app_file(text, printable(path));
  if (!apps) return apps.error();
  o.apps = std::move(apps.value());
  return settle_apps(o);
}

Result<std::vector<launch::AppSpec>> app_specs(const Options& o, std::span<const std::string> environment,
                                               const std::string& cwd, const std::string& job_directory,
                                               bool job_directory_given) {
  std::vector<launch::AppSpec> specs;
  const std::vector<std::uint32_t> first = app_first_ranks(o.apps);
  for (const AppContext& app : o.apps) {
    launch::AppSpec spec{.first_rank = first[specs.size()], .argv = app.command, .environment = {},
                         .directory = job_directory, .directory_given = job_directory_given};
    auto forwarded = resolve_forwarding(app.forwards, environment);
    if (!forwarded) return forwarded.error();
    spec.environment = std::move(forwarded->variables);
    if (app.working_directory) {
      const std::string& dir = *app.working_directory;
      if (dir.front() != '/' && cwd.empty()) {
        return bad_option("--wdir " + printable(dir), "a relative directory is taken from orcarun's own, which cannot be "
                                                      "read; give an absolute one");
      }
      spec.directory = dir.front() == '/' ? dir : cwd + "/" + dir;
      spec.directory_given = true;
    }
    specs.push_back(std::move(spec));
  }
  return specs;
}

}  // namespace orca::orcarun
