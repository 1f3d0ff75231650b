/*
 * orcarun's own variables (not a framework's): how long wire-up may take
 * and how long ranks get between the forwarded signal and SIGKILL.
 * Declared by orcarun, and by orca_info so that they are documented.
 *
 *   orcarun_startup_timeout  seconds until every daemon must have reported
 *   orcarun_kill_grace       seconds between SIGINT/SIGTERM and SIGKILL
 *   orcarun_data_plane       which families of data-plane variables ranks get
 *                            (rank_network_env.h)
 *   orcarun_mesh_check       whether every host connects to every other
 *                            host's data-plane address before ranks start
 *   orcarun_mesh_check_timeout  seconds each such connection may take
 *   orcarun_pmix_server      auto, always or never (pmix_server_choice.h)
 *   orcarun_pmi_simple_server  the same for the PMI-1/2 server (pmi/simple)
 *   orcarun_data_plane_round   the same for the data-plane round
 *   orcarun_start_early      whether ranks start as their part of the tree
 *                            comes up, when nothing needs every daemon first
 *   orcadvm_idle_timeout     seconds a detached DVM (orcadvm start
 *                            --daemonize) waits idle before it stops
 */
#ifndef ORCA_LAUNCH_LAUNCHER_VARS_H
#define ORCA_LAUNCH_LAUNCHER_VARS_H

#include <orca/export.h>
#include <orca/mca_var.h>
#include <orca/result.h>

#include <chrono>
#include <string>

namespace orca::launch {

struct LauncherSettings {
  std::chrono::milliseconds startup_timeout{60000};
  std::chrono::milliseconds kill_grace{5000};
  std::string data_plane = "all";
  bool mesh_check = false;
  std::chrono::milliseconds mesh_check_timeout{3000};
  std::string pmix_server = "auto";
  std::string pmi_simple_server = "auto";
  std::string data_plane_round = "auto";
  bool start_early = true;
  std::chrono::milliseconds dvm_idle_timeout{900000};  // orcadvm_idle_timeout
};

/* Declares them (idempotent: a second call changes nothing). Errors: a
 * bad value from some source (named). */
ORCA_EXPORT Status declare_launcher_variables(mca::Registry& registry);
/* Their values, once declared. */
ORCA_EXPORT LauncherSettings launcher_settings(const mca::Registry& registry);

}  // namespace orca::launch

#endif
