// Runtime: gathers settings from every source, declares the mca_base_*
// variables, loads components and owns the frameworks a tool uses.
#include "runtime/runtime.h"

#include "mca/var/text.h"

#include <unistd.h>

#include <iostream>

namespace orca {

using mca::Source;
using mca::SourceKind;
using mca::VarSpec;
using mca::VarType;

InstallPaths InstallPaths::configured() {
  return InstallPaths{ORCA_SYSCONFDIR, ORCA_PKGLIBDIR, ORCA_PKGDATADIR};
}

namespace {

std::string env_value(const std::vector<std::string>& env, std::string_view key) {
  for (const auto& e : env) {
    if (e.size() > key.size() && e.compare(0, key.size(), key) == 0 && e[key.size()] == '=')
      return e.substr(key.size() + 1);
  }
  return {};
}

std::vector<std::string> path_list(const std::string& text) {
  std::vector<std::string> out;
  for (auto& p : mca::split(text, ':')) {
    if (!p.empty()) out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

Runtime::Runtime(std::string program, const char* const* envp, InstallPaths paths)
    : program_(std::move(program)), paths_(std::move(paths)), help_(program_, {paths_.pkgdatadir}) {
  for (; envp != nullptr && *envp != nullptr; ++envp) environment_.emplace_back(*envp);
  // Errors in the command line itself come before load(): honour a help
  // path given in the environment for them too.
  const std::string help_path = env_value(environment_, std::string(mca::kEnvPrefix) + "mca_base_help_path");
  if (!help_path.empty()) help_.set_dirs(path_list(help_path));
}

Runtime::~Runtime() {
  frameworks_.clear();  // close components before the repository unloads them
}


Status Runtime::declare_base_vars() {
  const std::string home = env_value(environment_, "HOME");
  const std::string user_dir = home.empty() ? std::string() : home + "/.orca";
  // Every row is one of mca_base_*.
  auto base = [](VarSpec s) {
    s.framework = "mca";
    s.component = "base";
    return s;
  };
  std::string param_files = paths_.sysconfdir + "/orca-mca-params.conf";
  std::string component_path = paths_.pkglibdir;
  if (!user_dir.empty()) {
    param_files += ":" + user_dir + "/mca-params.conf";
    component_path += ":" + user_dir + "/components";
  }
  const VarSpec specs[] = {
      base({.name = "param_files",
            .type = VarType::String,
            .default_text = param_files,
            .level = 2,
            .description = "Colon-separated param files read in order (a later file beats an earlier one); \"none\" "
                           "reads none. Set only in the environment or on the command line.",
            .flags = ORCA_MCA_VAR_FLAG_NOT_FROM_FILES}),
      base({.name = "override_param_file",
            .type = VarType::String,
            .default_text = paths_.sysconfdir + "/orca-mca-params-override.conf",
            .level = 3,
            .description = "A param file whose settings beat every other source; \"none\" reads none. "
                           "Set only in the environment or on the command line.",
            .flags = ORCA_MCA_VAR_FLAG_NOT_FROM_FILES}),
      base({.name = "component_path",
            .type = VarType::String,
            .default_text = component_path,
            .level = 2,
            .description = "Colon-separated directories searched in order for component files "
                           "mca_<framework>_<component>.so"}),
      base({.name = "help_path",
            .type = VarType::String,
            .default_text = paths_.pkgdatadir,
            .level = 9,
            .description = "Colon-separated directories holding the help-*.txt message files"}),
      base({.name = "verbose",
            .type = VarType::Int,
            .default_text = "0",
            .level = 8,
            .description = "Verbosity of component loading: 0 quiet, 1 or more lists every file loaded or skipped and why",
            .min_text = "0",
            .max_text = "100"}),
  };
  // Declare them all even if one has a bad value: the help path must be
  // known before that error can be shown.
  Status first;
  for (const auto& s : specs) {
    if (auto r = registry_.declare(s); !r && first) first = r.error();
  }
  help_.set_dirs(path_list(registry_.find("mca_base_help_path")->as_string()));
  return first;
}

Status Runtime::load_file(const std::string& path, SourceKind kind, int order, bool missing_ok) {
  auto settings = mca::read_param_file(path, Source{kind, path, 0, order}, missing_ok);
  if (!settings) return settings.error();
  for (auto& s : settings.value()) {
    if (Status st = registry_.add_setting(std::move(s)); !st) return st;
  }
  return {};
}

Status Runtime::load_files(const std::string& list, SourceKind kind, bool missing_ok) {
  if (list == "none") return {};
  int order = 0;
  for (const auto& path : path_list(list)) {
    if (Status st = load_file(path, kind, order++, missing_ok); !st) return st;
  }
  return {};
}

Status Runtime::load(const mca::ToolOptions& options) {
  std::vector<const char*> envp;
  for (const auto& e : environment_) envp.push_back(e.c_str());
  envp.push_back(nullptr);
  for (auto& s : mca::settings_from_environment(envp.data())) (void)registry_.add_setting(std::move(s));
  for (const auto& s : options.inherited) (void)registry_.add_setting(s);
  for (const auto& s : options.mca) (void)registry_.add_setting(s);

  if (Status st = declare_base_vars(); !st) return st;

  // Files are read in precedence order; registry precedence does the rest.
  if (Status st = load_files(registry_.find("mca_base_param_files")->as_string(), SourceKind::ParamFile, true); !st)
    return st;
  for (const auto& tune : options.tune_files) {
    if (Status st = load_file(tune, SourceKind::TuneFile, 0, false); !st) return st;
  }
  if (Status st = load_files(registry_.find("mca_base_override_param_file")->as_string(), SourceKind::OverrideFile, true);
      !st)
    return st;
  // A file may have changed the help path.
  help_.set_dirs(path_list(registry_.find("mca_base_help_path")->as_string()));

  mca::ComponentRepository::Log log;
  if (verbosity() > 0) log = [this](const std::string& text) { this->log("mca", text); };
  repository_ = mca::ComponentRepository::scan(path_list(registry_.find("mca_base_component_path")->as_string()), log,
                                               options.leave_out, options.builtin_components);
  return {};
}

Result<mca::Framework*> Runtime::add_framework(const mca::FrameworkDecl& decl) {
  // Adding a framework again is harmless: the same one, already declared.
  for (const auto& existing : frameworks_) {
    if (existing->decl().name == decl.name) return existing.get();
  }
  auto fw = std::make_unique<mca::Framework>(
      decl, registry_, repository_,
      [this, name = std::string(decl.name)](const std::string& text) { log(name, text); }, role_);
  if (Status st = fw->register_vars(); !st) return st.error();
  frameworks_.push_back(std::move(fw));
  return frameworks_.back().get();
}

void Runtime::report_settings(std::ostream& err, const std::set<std::string>& handled) {
  // Each notice and each unknown name is its own problem: show every one
  // (the registry already dropped exact repeats).
  for (const auto& m : registry_.take_notices()) help_.show(m, err, true);
  for (const auto& m : registry_.unclaimed_settings()) {
    if (handled.count(m.arg("name")) == 0) help_.show(m, err, true);
  }
}

int Runtime::verbosity() const {
  const mca::Variable* v = registry_.find("mca_base_verbose");
  return v == nullptr ? 0 : static_cast<int>(v->as_int());
}

void Runtime::log(std::string_view channel, const std::string& text) const {
  const std::string safe = printable(text);
  if (sink_) {
    sink_(channel, safe);
    return;
  }
  // One write for the whole line: stderr is unbuffered, so every << would
  // be a write of its own, and a process killed between two of them (a
  // lost daemon's agent is SIGKILLed) would leave a torn line behind.
  const std::string line =
      "[" + program_ + ":" + std::to_string(getpid()) + "] " + std::string(channel) + ": " + safe + "\n";
  std::cerr.write(line.data(), static_cast<std::streamsize>(line.size())).flush();
}

}  // namespace orca
