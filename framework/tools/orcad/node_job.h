// NodeJob: one job's part on this daemon: its ranks (RankProcess), each
// started from the launch command with its environment (rank_environment),
// descriptors, directory and stdin. A standalone orcad runs one (job 0)
// for its life; a DVM's daemon runs one per job it is given, made at the
// job's command and destroyed at the job's end, so that nothing of a job
// outlives it here (its processes, pipes and memory).
//
// What the daemon keeps for every job stays with DaemonSession: the oob
// and the output window to orcarun, the lifecycle (DaemonMachine), the pmi
// modules, and job 0's PMI service (made before its command, to warm up).
// A DVM job's PMI service is its own, and goes with it.
#ifndef ORCA_TOOLS_ORCAD_NODE_JOB_H
#define ORCA_TOOLS_ORCAD_NODE_JOB_H

#include "rank_keeper.h"
#include "rank_process.h"

#include "launch/launch_wire.h"
#include "pmi/pmi_service.h"
#include "runtime/process.h"

#include "plm/daemon_launcher.h"
#include <orca/routed.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace orca::orcad {

class NodeJob {
 public:
  /* What the daemon lends each of its jobs; all of it outlives them. */
  struct Context {
    Process& process;
    const launch::Bootstrap& bootstrap;  // the daemon's: its vpid, hosts, daemons
    RankKeeper& keeper;
    std::string host_identity;           // this host's, to find its data-plane link
    const std::optional<plm::ChosenModule>& started_by;  // the launcher of every daemon at once, if any
    std::chrono::milliseconds partial_delay;
  };
  struct Hooks {
    /* Output of one of the job's ranks, already numbered with the job. */
    std::function<void(const launch::OutputChunk& chunk)> output;
    /* A rank ended, after all its output (pmi progress filled in). */
    std::function<void(const launch::ExitRecord& record)> exited;
    /* Bytes of stdin written to a rank. */
    std::function<void(std::uint32_t bytes)> stdin_written;
    /* This node cannot start the job's ranks (why: printable). */
    std::function<void(const std::string& why)> failed;
  };

  /* `pmi` serves the job's ranks when set (job 0); it outlives the job. */
  NodeJob(Context context, std::uint32_t job, pmi::PmiService* pmi, Hooks hooks);
  /* A DVM job's: `pmi`, started for it, is the job's own. */
  NodeJob(Context context, std::uint32_t job, std::unique_ptr<pmi::PmiService> pmi, Hooks hooks);
  ~NodeJob();  // kills every rank still running, and reaps it
  NodeJob(const NodeJob&) = delete;
  NodeJob& operator=(const NodeJob&) = delete;

  /* Starts this node's ranks of `command` (maybe none); a failure to start
   * them all goes to Hooks::failed, and no rank is left running. */
  void launch(const launch::LaunchCommand& command);

  std::uint32_t job() const noexcept { return job_; }
  /* Its PMI service, if its ranks have one. */
  pmi::PmiService* pmi() const noexcept { return pmi_; }
  void signal(int signo);
  void write_stdin(const launch::StdinData& data);
  void pause_output();
  void resume_output();
  /* Some rank has not ended. */
  bool running() const;
  /* Every rank ended with nothing left in its process group, and none
   * reads orcarun's stdin (orcarun counts on its credit). */
  bool idle() const;
  std::size_t ranks() const noexcept { return ranks_.size(); }

 private:
  struct NodeLaunch;
  NodeLaunch node_launch(const launch::LaunchCommand& command, std::vector<const launch::RankPlacement*> mine) const;
  plm::SpawnSpec rank_spec(const launch::LaunchCommand& command, const NodeLaunch& node,
                           const launch::RankPlacement& p, std::uint32_t app_index,
                           std::vector<launch::EnvironmentSetting> pmi_settings) const;
  static std::string bad_programs(const launch::LaunchCommand& command);
  void start_rank(std::uint32_t rank_id, const plm::SpawnSpec& spec);
  RankProcess::Hooks rank_hooks();

  Context context_;
  std::uint32_t job_;
  std::unique_ptr<pmi::PmiService> own_pmi_;  // a DVM job's; before ranks_, which go first
  pmi::PmiService* pmi_;
  Hooks hooks_;
  std::map<std::uint32_t, std::unique_ptr<RankProcess>> ranks_;
};

}  // namespace orca::orcad

#endif
