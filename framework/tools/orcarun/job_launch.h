// JobLaunch: one run of orcarun once the plan is made, as the adapter of a
// JobMachine (launch/job_machine.h), which decides the job's life: this
// turns loop events (oob messages, agents' exits, signals, timers) into the
// machine's events and its hooks into I/O: daemons started through the plm,
// messages sent through the oob, output printed, timers armed. What the
// machine leaves to the program stays here: the bootstrap, the data-plane
// round and the mesh check, the collectives' root, stdin, and the reports
// (--report-routes, --timing, the progress line).
#ifndef ORCA_TOOLS_ORCARUN_JOB_LAUNCH_H
#define ORCA_TOOLS_ORCARUN_JOB_LAUNCH_H

#include "data_plane_gather.h"
#include "orcarun_options.h"
#include "output_files.h"
#include "stdin_forwarder.h"

#include "io/stream_writer.h"
#include "iof/iof_flow.h"
#include "iof/iof_lines.h"
#include "launch/job_machine.h"
#include "launch/launch_wire.h"
#include "launch/rank_map.h"
#include "pmi/fence_root.h"
#include "runtime/process.h"

#include "oob/messenger.h"
#include "plm/daemon_starter.h"
#include "plm/plm_base.h"
#include <orca/routed.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace orca::orcarun {

/* Everything decided before a process is started. */
struct JobPlan {
  std::vector<launch::HostSlots> nodes;  // node i is daemon vpid i + 1
  launch::RankMap ranks;
  plm::ChosenModule plm;
  std::optional<routed::RoutingTree> tree;  // always set; optional only because a tree has no empty state
  std::string routed_component;
  bool tree_spawn = false;
  bool dvm = false;  // a persistent DVM's daemons (make_daemon_plan): kBootstrapDvm
  std::vector<std::string> daemon_command;
  std::chrono::milliseconds startup_timeout{60000};
  std::chrono::milliseconds kill_grace{5000};
  std::chrono::milliseconds partial_line_delay{100};
  std::uint64_t output_buffer = 32u << 20;  // iof_base_output_buffer
  pmi::DataBound pmi_bound;  // pmi_base_max_job_keys / _bytes
  std::vector<std::string> data_plane_families;  // orcarun_data_plane; empty: no data-plane round
  std::string no_data_plane_round;               // why orcarun_data_plane_round left the round out ("" : it did not)
  bool start_early = false;                      // each child's subtree gets the command once it is up (launch/early_start.h)
  std::string no_early_start;                    // why not, when it does not
  std::vector<std::string> environment;          // NAME=VALUE forwarded to every rank (-x, -genv, -genvlist)
  bool mesh_check = false;                       // --mesh-check / orcarun_mesh_check
  std::chrono::milliseconds mesh_check_timeout{3000};
  std::vector<std::string> unused_components;  // "framework/component" the daemons do not load (daemon_components.h)
  std::vector<std::string> pmi_left_out;       // a DVM job's: the pmi components its programs do not need
  bool torch_master = false;                   // a DVM job's: its programs may read MASTER_ADDR/MASTER_PORT
  std::string working_directory;  // the ranks' (absolute): --wdir's, else orcarun's own
  std::vector<launch::AppSpec> apps;         // the programs (MPMD: several) by first rank, for the launch command
  std::optional<OutputFiles> output_files;  // --output-filename: the ranks' output goes there
};

/* Where a JobLaunch gets its oob and its daemon starter: the process's
 * Oob and a plm::DaemonLauncher in orcarun (process_parts), fakes in the
 * adapter's tests. */
struct JobParts {
  /* Opens the oob as `self` with the job secret; the Messenger outlives the JobLaunch. */
  std::function<Result<oob::Messenger*>(ProcessName self, std::vector<std::uint8_t> secret)> open_oob;
  std::function<std::unique_ptr<plm::DaemonStarter>(std::uint32_t max_concurrent, plm::DaemonStarter::Hooks hooks)>
      make_starter;
};
JobParts process_parts(Process& process);

class JobLaunch {
 public:
  JobLaunch(Process& process, const Options& options, JobPlan plan,
            std::chrono::steady_clock::time_point started, JobParts parts);
  ~JobLaunch();
  /* Runs the job; returns orcarun's exit status. */
  int run();

  // --- daemons held for jobs not known yet (orcadvm start) ---
  struct Hold {
    std::function<void()> ready;  // every daemon up and wired
    std::function<void(int signo)> signalled;  // SIGINT or SIGTERM from then on
    /* From then on, daemon `vpid` failed or was lost (what: how); the
     * others are held still (JobMachine::hold). */
    std::function<void(std::uint32_t vpid, const std::string& what)> dropped;
    /* A message of a DVM job (its number not 0) from daemon `from`: an
     * ExitRecord, RankAbort, JobFailure, OutputChunk, StdinCredit or
     * FenceData. */
    std::function<void(ProcessName from, launch::WireMessage message)> job_message;
  };
  /* Before run(): once every daemon is up and wired (data-plane round,
   * mesh check and reports done), `ready` is called instead of sending a
   * command; the daemons then wait until end_hold(), and SIGINT and SIGTERM
   * are the holder's. */
  void hold(Hold hold) { hold_ = std::move(hold); }
  /* The held daemons are told to end; run() returns once they are gone. */
  void end_hold();
  /* While run() runs: the oob of this launch (its messages may add tags),
   * its job id, secret, and whether daemon `vpid` is up and not lost. */
  oob::Messenger& messenger() const { return *oob_; }
  std::uint32_t job_id() const noexcept { return job_; }
  const std::vector<std::uint8_t>& secret() const noexcept { return secret_; }
  bool daemon_up(std::uint32_t vpid) const { return machine_->is_up(vpid) && !machine_->is_gone(vpid); }
  /* While held: a DVM job's LaunchCommand, SignalRanks or Teardown to
   * every daemon not gone, down the tree; a command gets the data-plane
   * links first (its torch master is its own: rank 0's host differs per
   * job). */
  Status to_daemons(launch::WireMessage message);
  /* While held: `message` to daemon `vpid` alone, on `tag`. */
  Status to_daemon(std::uint32_t vpid, std::uint32_t tag, const launch::WireMessage& message);
  /* While held: MASTER_ADDR for a job whose rank 0 runs on daemon `vpid`
   * (its host's data-plane link), or "" when torch's variables are not
   * set (orcarun_data_plane) or that host has no link. */
  std::string torch_master_address(std::uint32_t vpid) const;
  /* The root of `command`'s pmi collectives: over this launch's routing
   * tree and daemons, held to its bound (pmi_base_max_job_*). */
  std::unique_ptr<pmi::FenceRoot> fence_root(const launch::LaunchCommand& command) const;
  /* While held: `bytes` of daemon `vpid`'s output were taken by a client. */
  void credit_output(std::uint32_t vpid, std::uint64_t bytes) { output_written(vpid, bytes); }

 private:
  struct Daemon {
    std::string host;
    launch::DaemonReport report;
  };

  Status open();
  launch::JobMachine::Hooks machine_hooks();
  launch::Bootstrap bootstrap_for(std::uint32_t vpid) const;
  /* Starts the agent of `vpid`; returns whether the agent is the daemon
   * itself (plm/local). */
  bool launch_daemon(std::uint32_t vpid);
  void launch_all();
  void relay_contact(const launch::DaemonReport& report);
  void daemon_ended_said(const std::string& line);
  bool all_at_once() const { return plm::starts_all_at_once(plan_.plm); }
  void on_hello(ProcessName from, std::span<const std::uint8_t> bytes);
  void on_report(std::span<const std::uint8_t> bytes);
  void on_status(ProcessName from, std::span<const std::uint8_t> bytes);
  void on_output(ProcessName from, std::span<const std::uint8_t> bytes);
  void on_fence(ProcessName from, std::span<const std::uint8_t> bytes);
  void on_agent_exit(std::uint32_t vpid, int wait_status, const std::string& tail);
  /* Every daemon is up (the machine's wired_up): the data-plane round, if
   * any, then start_command. */
  void all_up();
  Status place_rank_cpus();
  Status map_per_object(const std::vector<launch::CpuTopology>& topologies);
  void add_thread_hint(std::vector<std::string>& environment) const;
  void data_plane_answered(const launch::DataPlaneAnswer& answer);
  void mesh_checked(const launch::MeshResult& result);
  /* What was asked for is printed, and the machine sends the command to
   * every child of orcarun that does not have it yet; then stdin. */
  void start_command();
  /* The launch command, made once (with the collectives' root) when the
   * first child of orcarun is sent it. */
  Status prepare_command();
  /* The machine's send_command: to orcarun's child `child`, which relays it
   * to its subtree. */
  Status send_command(std::uint32_t child);
  const std::vector<std::string>& forwarded_environment() const { return plan_.environment; }
  void send_teardown(bool failed, const std::vector<std::uint32_t>& relayed);
  void release_daemon(std::uint32_t vpid);
  void arm(launch::JobTimer timer, std::uint32_t vpid, std::chrono::milliseconds after);
  void cancel(launch::JobTimer timer, std::uint32_t vpid);
  /* Sends `message` to orcarun's children in the tree that are not gone;
   * the first send that failed, if one did (the others are still made). */
  Status broadcast(const launch::WireMessage& message);
  void clear_progress_line();
  void end_progress();
  void show_progress();
  void print_routes();
  void print_timing();
  void print_collectives();
  std::string describe(std::uint32_t vpid) const { return machine_->describe(vpid); }
  ProcessName name(std::uint32_t vpid) const { return ProcessName{job_, vpid}; }
  std::uint32_t daemons() const { return static_cast<std::uint32_t>(plan_.nodes.size()); }
  void show(const Message& message);
  /* orcarun's own text on its stderr, in order with the ranks' (never blocking). */
  void say(std::string_view text);
  void open_output();  // the writers of orcarun's stdout and stderr, their credit, the printer
  void output_written(std::uint32_t vpid, std::uint64_t bytes);

  Process& process_;
  const Options& options_;
  JobPlan plan_;
  std::uint32_t job_ = 0;
  std::vector<std::uint8_t> secret_;
  std::string settings_text_;
  JobParts parts_;
  oob::Messenger* oob_ = nullptr;
  std::unique_ptr<plm::DaemonStarter> launcher_;
  std::string step_program_;  // with a launch of every daemon at once: its program (srun), for messages
  std::unique_ptr<StreamWriter> out_;  // orcarun's stdout and stderr
  std::unique_ptr<StreamWriter> err_;
  std::unique_ptr<iof::CreditLedger> credits_;  // output written, owed to its daemons
  // The chunk being printed: its daemon and bytes, for the one sink write
  // that OutputPrinter::print makes of it.
  std::uint32_t printing_from_ = 0;
  std::uint64_t printing_credit_ = 0;
  std::unique_ptr<iof::OutputPrinter> printer_;
  std::unique_ptr<oob::Outbox> outbox_;  // stdin and output credit to the daemons
  std::unique_ptr<StdinForwarder> stdin_;
  std::unique_ptr<pmi::FenceRoot> fences_;  // from the launch command on
  std::shared_ptr<const std::vector<std::uint8_t>> command_;  // the launch command's bytes, once made
  std::unique_ptr<DataPlaneGather> gather_;  // from every daemon up until the command
  std::vector<launch::RankCpus> rank_cpus_;  // [rank]: its CPUs, when places_cpus(options_)
  std::vector<std::string> tag_hosts_;       // [node]: its printable name, for --output tag-detailed
  std::unique_ptr<Timer> data_plane_timer_;
  std::vector<Daemon> daemon_;  // by vpid; [0] unused
  std::unique_ptr<launch::JobMachine> machine_;
  std::map<std::pair<launch::JobTimer, std::uint32_t>, std::unique_ptr<Timer>> timers_;  // the machine's, made when first armed
  std::unique_ptr<Timer> progress_timer_;
  bool progress_shown_ = false;
  bool bootstrap_checked_ = false;
  bool output_files_failed_ = false;  // one message for a full disk, not one per chunk
  std::optional<Hold> hold_;
  bool held_ = false;  // the daemons are held: hold_->ready was called
  void on_signal(int signo);
  std::unique_ptr<SignalWatch> sigint_;
  std::unique_ptr<SignalWatch> sigterm_;
  // --timing
  std::chrono::steady_clock::time_point t_start_;
  std::optional<std::chrono::steady_clock::time_point> t_agents_, t_first_up_, t_all_up_, t_data_plane_, t_mesh_checked_, t_command_, t_ended_, t_down_;
};

}  // namespace orca::orcarun

#endif
