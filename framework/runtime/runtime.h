/*
 * Runtime: what one Orca process owns for the MCA core.
 *
 * Every tool (orca_info, orcarun, orcad) builds one Runtime and calls
 * load() with its command-line options. load() gathers settings in
 * precedence order -- defaults, param files (mca_base_param_files), --tune
 * files, ORCA_MCA_* environment, --mca, the override file
 * (mca_base_override_param_file) -- declares the mca_base_* variables and
 * scans mca_base_component_path for components. add_framework() then
 * declares each framework the tool uses. After the last one,
 * report_settings() warns about settings that nothing claimed (with the
 * closest registered name) and about deprecated synonyms.
 *
 * Destruction order is fixed: frameworks (closing components) before the
 * repository (unloading them) before the registry.
 */
#ifndef ORCA_RUNTIME_H
#define ORCA_RUNTIME_H

#include "help/help.h"
#include "mca/var/mca_sources.h"

#include <orca/export.h>
#include <orca/mca_framework.h>
#include <orca/mca_repository.h>
#include <orca/mca_var.h>
#include <orca/result.h>

#include <functional>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace orca {

/* Where `make install` put things; the defaults of the mca_base_* paths. */
struct ORCA_EXPORT InstallPaths {
  std::string sysconfdir;
  std::string pkglibdir;
  std::string pkgdatadir;
  /* The directories configure chose. */
  static InstallPaths configured();
};

class ORCA_EXPORT Runtime {
 public:
  /* `program` names the process in messages; `envp` is the environment to
   * read ORCA_MCA_* and HOME from. */
  Runtime(std::string program, const char* const* envp,
          InstallPaths paths = InstallPaths::configured());
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  /* Loads every source of settings and the components. Errors: a bad
   * value, a malformed or unreadable file; the runtime is then unusable. */
  Status load(const mca::ToolOptions& options);

  /* What this process is; every component it opens is told (default:
   * a tool). Set it before adding frameworks. */
  void set_role(orca_process_role role) noexcept { role_ = role; }
  orca_process_role role() const noexcept { return role_; }
  /* Creates, and declares the variables of, a framework; a framework of
   * that name added before is returned as it is. */
  Result<mca::Framework*> add_framework(const mca::FrameworkDecl& decl);

  /* Prints deprecated-synonym notices and unclaimed-setting warnings
   * through the help catalog, except for the names in `handled` (which the
   * program dealt with itself). Call once every framework is added. */
  void report_settings(std::ostream& err, const std::set<std::string>& handled = {});

  /* Verbose output of mca_base_verbose (component loading). */
  int verbosity() const;
  /* Where log lines go: the channel ("oob", "mca") and the text, control
   * bytes already escaped. Every log line of liborca and of the components
   * a Runtime loads goes through it, so a daemon can forward its log to
   * the launcher instead of its own stderr. */
  using LogSink = std::function<void(std::string_view channel, const std::string& text)>;
  /* Replaces the sink; an empty one restores the default, which writes
   * "[program:pid] channel: text" to standard error. */
  void set_log_sink(LogSink sink) { sink_ = std::move(sink); }
  /* Sends one line to the sink. */
  void log(std::string_view channel, const std::string& text) const;

  const std::string& program() const noexcept { return program_; }
  mca::Registry& registry() noexcept { return registry_; }
  HelpCatalog& help() noexcept { return help_; }
  const mca::ComponentRepository& components() const noexcept { return repository_; }
  const std::vector<std::unique_ptr<mca::Framework>>& frameworks() const noexcept {
    return frameworks_;
  }

 private:
  Status declare_base_vars();
  Status load_file(const std::string& path, mca::SourceKind kind, int order, bool missing_ok);
  Status load_files(const std::string& list, mca::SourceKind kind, bool missing_ok);

  std::string program_;
  std::vector<std::string> environment_;
  InstallPaths paths_;
  mca::Registry registry_;
  HelpCatalog help_;
  mca::ComponentRepository repository_;
  std::vector<std::unique_ptr<mca::Framework>> frameworks_;
  LogSink sink_;
  orca_process_role role_ = ORCA_PROCESS_TOOL;
};

}  // namespace orca

#endif  // ORCA_RUNTIME_H
