// JobLaunch: one run of orcarun once the plan is made: start the daemons
// (plm), wait until every one has reported (wire-up), start the command
// everywhere, print its output, collect exit statuses, tear everything
// down, and say what went wrong when something did.
#ifndef ORCA_TOOLS_ORCARUN_JOB_LAUNCH_H
#define ORCA_TOOLS_ORCARUN_JOB_LAUNCH_H

#include "data_plane_gather.h"
#include "early_start.h"
#include "fence_root.h"
#include "orcarun_options.h"
#include "stdin_forwarder.h"

#include <orca/iof_flow.h>
#include <orca/iof_lines.h>
#include <orca/launch_wire.h>
#include <orca/plm.h>
#include <orca/process.h>
#include <orca/rank_map.h>
#include <orca/routed.h>
#include <orca/stream_writer.h>

#include <chrono>
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
  std::vector<std::string> daemon_command;
  std::chrono::milliseconds startup_timeout{60000};
  std::chrono::milliseconds kill_grace{5000};
  std::chrono::milliseconds partial_line_delay{100};
  std::uint64_t output_buffer = 32u << 20;  // iof_base_output_buffer
  pmi::DataBound pmi_bound;  // pmi_base_max_job_keys / _bytes
  std::vector<std::string> data_plane_families;  // orcarun_data_plane; empty: no data-plane round
  std::string no_data_plane_round;               // why orcarun_data_plane_round left the round out ("" : it did not)
  bool start_early = false;                      // each child's subtree gets the command once it is up (early_start.h)
  std::string no_early_start;                    // why not, when it does not
  std::vector<std::string> environment;          // NAME=VALUE forwarded to every rank (-x, -genv, -genvlist)
  bool mesh_check = false;                       // --mesh-check / orcarun_mesh_check
  std::chrono::milliseconds mesh_check_timeout{3000};
  std::vector<std::string> unused_components;  // "framework/component" the daemons do not load (daemon_components.h)
};

class JobLaunch {
 public:
  JobLaunch(Process& process, const Options& options, JobPlan plan,
            std::chrono::steady_clock::time_point started);
  ~JobLaunch();
  /* Runs the job; returns orcarun's exit status. */
  int run();

 private:
  struct Daemon {
    std::string host;
    bool launched = false;
    bool hello = false;
    bool up = false;
    bool gone = false;  // its agent ended or it was lost, or it was released
    bool commanded = false;  // a child of orcarun's that was sent the launch command
    bool released = false;  // done before the job (DaemonDone): told to end, its end is no failure
    launch::DaemonReport report;
    std::string agent_tail;
    bool agent_is_daemon = false;  // orcarun started the daemon itself (plm/local)
    // Lost by the oob while orcarun runs its agent: the agent's exit, which
    // says how the daemon ended, may be a moment behind (until this fires).
    std::unique_ptr<Timer> awaiting_exit;
  };
  enum class Phase { WireUp, Running, Draining, TearingDown, Done };

  Status open();
  launch::Bootstrap bootstrap_for(std::uint32_t vpid) const;
  void launch_daemon(std::uint32_t vpid);
  void launch_all();
  void relay_contact(const launch::DaemonReport& report);
  void step_ended(int wait_status, const std::string& tail);
  void daemon_ended_said(const std::string& line);
  bool all_at_once() const { return plm::starts_all_at_once(plan_.plm); }
  void launch_children_of(std::uint32_t vpid);
  void on_hello(ProcessName from, std::span<const std::uint8_t> bytes);
  void on_report(std::span<const std::uint8_t> bytes);
  void on_status(ProcessName from, std::span<const std::uint8_t> bytes);
  void on_output(ProcessName from, std::span<const std::uint8_t> bytes);
  void on_fence(ProcessName from, std::span<const std::uint8_t> bytes);
  void job_failed(const launch::JobFailure& failure);
  void daemon_done(std::uint32_t vpid);
  void rank_aborted(const launch::RankAbort& abort);
  void on_agent_exit(std::uint32_t vpid, int wait_status, const std::string& tail);
  void all_up();
  void data_plane_answered(const launch::DataPlaneAnswer& answer);
  void mesh_checked(const launch::MeshResult& result);
  /* Every daemon up and, with the data plane, every host's link chosen:
   * print what was asked for and send the command to every child of
   * orcarun that does not have it yet. */
  void start_command();
  /* The launch command, made once (with the collectives' root and the
   * --timeout timer) when the first child of orcarun is sent it. */
  Status prepare_command();
  /* Sends the command to orcarun's child `child`, which relays it to its
   * subtree (early_start.h): one whose subtree is up before the rest. */
  Status command_child(std::uint32_t child);
  void start_early(std::uint32_t child);
  /* The command could not be made or sent: the job fails, and ends. */
  void command_not_sent(const Message& why);
  const std::vector<std::string>& forwarded_environment() const { return plan_.environment; }
  void rank_ended(const launch::ExitRecord& record);
  void daemon_failed(std::uint32_t vpid, const std::string& message);
  /* The oob lost the daemon of `vpid`: daemon_failed, after a moment for
   * its exit when orcarun is the daemon's parent (agent_is_daemon). */
  void daemon_lost(std::uint32_t vpid, const std::string& message);
  void fail_job(const Message& message, int status);
  void signal_ranks(int signo);
  void on_signal(int signo);
  void begin_teardown();
  void maybe_done();
  /* Sends `message` to orcarun's children in the tree; the first send that
   * failed, if one did (the others are still made). */
  Status broadcast(const launch::WireMessage& message);
  void show_progress();
  void print_routes();
  void print_timing();
  void print_collectives();
  std::string describe(std::uint32_t vpid) const;
  ProcessName name(std::uint32_t vpid) const { return ProcessName{job_, vpid}; }
  std::uint32_t daemons() const { return static_cast<std::uint32_t>(plan_.nodes.size()); }
  void show(const Message& message);
  /* orcarun's own text on its stderr, in order with the ranks' (never blocking). */
  void say(std::string_view text);
  void output_written(std::uint32_t vpid, std::uint64_t bytes);
  void output_broken();

  Process& process_;
  const Options& options_;
  JobPlan plan_;
  std::uint32_t job_ = 0;
  std::vector<std::uint8_t> secret_;
  std::string settings_text_;
  oob::Oob* oob_ = nullptr;
  std::unique_ptr<plm::DaemonLauncher> launcher_;
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
  std::unique_ptr<FenceRoot> fences_;  // from the launch command on
  std::shared_ptr<const std::vector<std::uint8_t>> command_;  // the launch command's bytes, once made
  std::optional<SubtreeArrivals> arrivals_;  // with plan_.start_early
  std::unique_ptr<DataPlaneGather> gather_;  // from every daemon up until the command
  std::unique_ptr<Timer> data_plane_timer_;
  std::vector<Daemon> daemon_;  // by vpid; [0] unused
  std::vector<bool> rank_done_;
  std::uint32_t ranks_left_ = 0;
  std::uint32_t up_count_ = 0;
  Phase phase_ = Phase::WireUp;
  int exit_status_ = 0;
  bool failed_ = false;
  int signals_seen_ = 0;
  std::unique_ptr<Timer> startup_timer_;
  std::unique_ptr<Timer> grace_timer_;
  std::unique_ptr<Timer> timeout_timer_;
  std::unique_ptr<Timer> drain_timer_;
  std::unique_ptr<Timer> teardown_timer_;
  std::unique_ptr<Timer> progress_timer_;
  std::unique_ptr<Timer> lost_kill_timer_;  // SIGKILL to lost daemons' agents that outlived SIGTERM
  bool progress_shown_ = false;
  bool bootstrap_checked_ = false;
  std::unique_ptr<SignalWatch> sigint_;
  std::unique_ptr<SignalWatch> sigterm_;
  // --timing
  std::chrono::steady_clock::time_point t_start_;
  std::optional<std::chrono::steady_clock::time_point> t_agents_, t_first_up_, t_all_up_, t_data_plane_, t_mesh_checked_, t_command_, t_ended_, t_down_;
};

}  // namespace orca::orcarun

#endif
