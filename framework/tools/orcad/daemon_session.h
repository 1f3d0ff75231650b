// DaemonSession: what one orcad does between its bootstrap and its exit.
//
//   wire-up   open the oob, say hello to the parent (which learns our
//             contact URI), and once the connection is made report to
//             orcarun with the route it took: both leave in the
//             handshake's last write, so the parent wakes once for them;
//             with tree spawn, start our children in the routing tree
//             meanwhile;
//   run       on the launch command, start this node's ranks (a NodeJob);
//             hand their output and exits up to orcarun in order; relay
//             control messages to our children; a DVM's daemon runs one
//             NodeJob per job, each ended by the job's own teardown;
//   end       on teardown, or when the parent is gone (our standard input
//             closes, or the oob loses it): kill the ranks, wait for our
//             children's agents, exit.
#ifndef ORCA_TOOLS_ORCAD_DAEMON_SESSION_H
#define ORCA_TOOLS_ORCAD_DAEMON_SESSION_H

#include "mesh_probe.h"
#include "node_job.h"
#include "rank_keeper.h"

#include "iof/iof_flow.h"
#include "launch/daemon_machine.h"
#include "launch/launch_wire.h"
#include "oob/oob_outbox.h"
#include "pmi/pmi_service.h"
#include "runtime/process.h"

#include "plm/daemon_launcher.h"
#include <orca/routed.h>

#include <map>
#include <memory>
#include <optional>
#include <string>

namespace orca::orcad {

/* When orcad's first phases ended (main sees them; the session adds the
 * rest and reports them all to orcarun for --timing). */
struct StartupClock {
  using Clock = std::chrono::steady_clock;
  Clock::time_point main;              // main() entered
  Clock::time_point bootstrap_read;    // the bootstrap decoded
  Clock::time_point process_created;   // settings applied, components loaded
};

class DaemonSession {
 public:
  /* `keeper` is told each rank's process group as it starts, and must
   * outlive the session (whose end ends every group). */
  DaemonSession(Process& process, launch::Bootstrap bootstrap, StartupClock clock, RankKeeper& keeper);
  ~DaemonSession();
  /* Runs until the end; returns the exit status of orcad. */
  int run();
  /* Whether something of the job lives on outside this process until the
   * session's components end (a pmi module's library and its files):
   * then orcad must tear everything down rather than just exit. */
  bool keeps_outside_state() const noexcept { return pmi_ && pmi_->keeps_outside_state(); }

 private:
  Status start();
  Status open_frameworks();
  /* With tree spawn: the plm module that starts our children. */
  Status choose_child_launcher();
  Status open_oob();
  void receive_from_peers();
  void watch_parent();
  void watch_signals();
  /* The hello to the parent, and the report once it is connected. */
  Status say_hello();
  Result<mca::Framework*> plm_framework();
  Status find_own_place();
  /* The lifecycle's decisions (DaemonMachine), once this daemon knows its
   * place in the tree. */
  void make_machine();
  launch::DaemonMachine::Hooks machine_hooks();
  void arm(launch::DaemonTimer timer, std::chrono::milliseconds after);
  Status await_parent_contact();
  void on_hello(ProcessName from, std::span<const std::uint8_t> bytes);
  /* The connection to the parent is made: the report goes up. */
  void report_up();
  /* The hello: name, host and contact URI (the report adds the rest). */
  launch::DaemonReport who_we_are() const;
  void on_control(std::span<const std::uint8_t> bytes);
  /* orcarun's HostDirectory: answer with this host's data-plane link. */
  void on_directory(std::span<const std::uint8_t> bytes);
  /* orcarun's MeshCheck: dial every other host's link, report what failed. */
  void start_mesh_check(const launch::MeshCheck& check);
  void on_stdin(std::span<const std::uint8_t> bytes);
  void on_output_credit(std::span<const std::uint8_t> bytes);
  /* The ranks' pipes may be read: nothing waits in the outbox, and the
   * output window to orcarun is open. */
  bool output_may_flow() const;
  void resume_output();
  void make_pmi();
  pmi::PmiService::Hooks pmi_hooks(std::uint32_t job);
  /* Job `job`'s PMI service here, if it has one. */
  pmi::PmiService* pmi_of(std::uint32_t job) const;
  void launch_ranks(const launch::LaunchCommand& command);
  void launch_dvm_job(const launch::LaunchCommand& command);
  NodeJob::Context job_context();
  NodeJob& add_job(std::unique_ptr<NodeJob> job);  // kept in jobs_ until the job's teardown
  NodeJob::Hooks job_hooks(std::uint32_t job);
  void end_dvm_job(std::uint32_t job);
  void spawn_children();
  void report_failure(std::uint32_t vpid, const std::string& message);
  void up(std::uint32_t tag, const launch::WireMessage& message);
  void post(std::uint32_t vpid, std::uint32_t tag, const launch::WireMessage& message);
  void on_fence(ProcessName from, std::span<const std::uint8_t> bytes);
  void on_pmi_direct(std::span<const std::uint8_t> bytes);
  ProcessName name(std::uint32_t vpid) const { return ProcessName{bootstrap_.job, vpid}; }
  std::string host_of(std::uint32_t vpid) const;

  Process& process_;
  RankKeeper& keeper_;
  launch::Bootstrap bootstrap_;
  StartupClock clock_;
  StartupClock::Clock::time_point frameworks_opened_, oob_opened_;
  oob::Oob* oob_ = nullptr;
  std::optional<routed::RoutingTree> tree_;
  std::unique_ptr<pmi::PmiModules> pmi_modules_;  // with pmi_
  std::unique_ptr<pmi::PmiService> pmi_;  // job 0's, from start() on: warm_up before the oob opens
  std::unique_ptr<launch::DaemonMachine> machine_;  // from start() on
  std::map<launch::DaemonTimer, std::unique_ptr<Timer>> timers_;
  // This host's chosen data-plane address, then its interface's others
  // (where the mesh check listens and leaves from), when this daemon
  // answered for the host; empty otherwise.
  std::vector<net::IpAddress> data_plane_sources_;
  std::unique_ptr<MeshListener> mesh_listener_;       // the full-mesh check, until the command
  std::unique_ptr<MeshProbe> mesh_probe_;
  std::unique_ptr<oob::Outbox> outbox_;
  std::optional<iof::OutputWindow> output_window_;  // output sent to orcarun and not yet credited
  std::unique_ptr<plm::DaemonStarter> launcher_;  // a plm::DaemonLauncher, with tree spawn
  std::optional<plm::ChosenModule> plm_;
  mca::Framework* plm_fw_ = nullptr;  // declared and opened when first needed
  std::optional<plm::ChosenModule> started_by_;  // the launcher of every daemon at once, if that is how we started
  std::unique_ptr<IoWatch> parent_watch_;  // our stdin: its end is the parent's
  std::unique_ptr<SignalWatch> sigterm_;
  std::unique_ptr<SignalWatch> sighup_;
  // The jobs whose ranks run here: job 0 alone in a standalone run; a
  // DVM's, by their numbers, from each one's command to its end.
  std::map<std::uint32_t, std::unique_ptr<NodeJob>> jobs_;
  std::string hostname_;
  std::chrono::milliseconds partial_delay_{200};
};

}  // namespace orca::orcad

#endif
