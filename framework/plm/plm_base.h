/*
 * The plm base (liborca's, not installed; the component interface is
 * orca/plm.h): the framework's declaration and its variable, the choice
 * of the module that launches a job, and the module's answers in C++.
 */
#ifndef ORCA_FRAMEWORK_PLM_PLM_BASE_H
#define ORCA_FRAMEWORK_PLM_PLM_BASE_H

#include <orca/plm.h>

#include <orca/export.h>
#include <orca/mca_framework.h>
#include <orca/mca_var.h>
#include <orca/result.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace orca::plm {

/* plm_base_daemon: the daemon program (default: the orcad beside this
 * program, default_daemon_path()). */
ORCA_EXPORT std::span<const orca_mca_var_decl> base_variable_decls();
inline const mca::FrameworkDecl kFramework{"plm", "starts a daemon (orcad) on each host of a job",
                                           ORCA_PLM_INTERFACE_VERSION, mca::SelectMode::All, base_variable_decls()};

/* The words that run the daemon: plm_base_daemon, or default_daemon_path(). */
ORCA_EXPORT std::vector<std::string> daemon_program(const mca::Registry& registry);

/* The selected module and its component's name. */
struct ChosenModule {
  std::string component;
  const orca_plm_module* module = nullptr;
};

/* The highest-priority selected module of an opened plm framework that
 * accepts every host in `hosts`. Errors (area "plm"): none is selected
 * (plm/none-selected) or none accepts some host (plm/no-launcher, naming
 * the host and what each module answered). */
ORCA_EXPORT Result<ChosenModule> choose_module(const mca::Framework& framework, const std::vector<std::string>& hosts);

/* The words of module.command for `host`. */
ORCA_EXPORT Result<std::vector<std::string>> daemon_command(const ChosenModule& chosen, const std::string& host,
                                                            const std::vector<std::string>& daemon);
/* The host a line of a command_all launcher says a daemon ended on, or "". */
ORCA_EXPORT std::string ended_host(const ChosenModule& chosen, const std::string& line);
/* True when the module starts every daemon with one command (command_all). */
inline bool starts_all_at_once(const ChosenModule& chosen) { return chosen.module->command_all != nullptr; }
/* The words of module.command_all for `hosts`. Errors: plm/no-command. */
ORCA_EXPORT Result<std::vector<std::string>> all_daemons_command(const ChosenModule& chosen,
                                                                 const std::vector<std::string>& hosts,
                                                                 const std::vector<std::string>& daemon);
/* In a daemon started by a command_all launcher (its bootstrap has vpid
 * 0): its vpid, and the module that started it, from the first selected
 * module of an opened plm framework whose daemon_vpid recognises the
 * environment. Errors (area "plm"): plm/no-identity, naming what each
 * module answered. */
struct LauncherPlace {
  std::uint32_t vpid = 0;
  ChosenModule launcher;
};
ORCA_EXPORT Result<LauncherPlace> vpid_from_launcher(const mca::Framework& framework,
                                                     const std::vector<std::string>& hosts);
/* What to check when a daemon `chosen` started on `host` failed: the
 * module's failure_hint, or else to read what the daemon printed. Made
 * printable (a host name or a setting may hold control bytes). */
ORCA_EXPORT std::string failure_hint(const ChosenModule& chosen, const std::string& host);
/* The words of module.rank_environment (none without it). */
ORCA_EXPORT std::vector<std::string> rank_environment(const ChosenModule& launcher, const std::vector<std::string>& hosts,
                                                      const orca_plm_rank_place& place);

/* This program's directory's orcad: the default daemon. In an uninstalled
 * build tree (libtool keeps the real programs in .libs), the orcad wrapper
 * of the build tree. */
ORCA_EXPORT std::string default_daemon_path();

}  // namespace orca::plm

#endif  // ORCA_FRAMEWORK_PLM_PLM_BASE_H
