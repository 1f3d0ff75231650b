/*
 * DvmJobMachine: the life of one job on a persistent DVM (orcadvm), as
 * the DVM's controller sees it, from its ranks started to the last one
 * accounted for. Pure, in the shape of JobMachine: events in (the
 * daemons' reports, the client's signals, lost daemons, timers),
 * decisions out through hooks; no I/O, no clock.
 *
 * Unlike JobMachine there is no wire-up and no teardown: the daemons are
 * up before the job and stay after it. The job is over when every rank
 * is accounted for (it ended, or its daemon was lost), or when the drain
 * limit passes after a loss or the client's end; the controller then
 * frees the job's ranks on the daemons (killing any that never reported)
 * and tells the client.
 *
 * Policies, as JobMachine's for the same event:
 *   - A rank that ended badly, an abort, or a failure a daemon found
 *     fails the job: the first sets the exit status and the one message
 *     shown; the other ranks get SIGTERM, and SIGKILL after kill_grace.
 *     After a daemon's failure (some of its ranks may never have started)
 *     the killed ranks get kDrainLimit to report.
 *   - --timeout: job-timeout, status 1, the ranks ended as above.
 *   - The client's first SIGINT/SIGTERM goes to the ranks (with the
 *     grace); their ends decide the status. A second kills them at once.
 *   - A lost daemon with unaccounted ranks of this job fails it
 *     (dvm-job-daemon-lost) and stops the others; once those were killed
 *     (the grace over), they get kDrainLimit to report.
 *   - The client gone: the ranks are killed at once, nothing is shown
 *     (nobody reads it), status 128 + SIGHUP; kDrainLimit to report.
 *   - The DVM ending the job (end()): as a failure, and drained as after
 *     a loss.
 *
 * Messages are orcarun's (help-orcarun.txt), shown to the job's client.
 * Every hook is required. Nothing is called after done().
 */
#ifndef ORCA_LAUNCH_DVM_JOB_MACHINE_H
#define ORCA_LAUNCH_DVM_JOB_MACHINE_H

#include "launch_wire.h"

#include <orca/export.h>
#include <orca/message.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace orca::launch {

/* What the controller knows of the job when its ranks are started. */
struct ORCA_EXPORT DvmJobFacts {
  std::vector<std::string> hosts;          // hosts[v - 1]: daemon v's host
  std::vector<std::uint32_t> rank_daemon;  // rank_daemon[r]: the vpid of rank r's daemon
  std::string command;                     // the program (argv[0]), for messages
  /* MPMD: each program's argv[0] and first rank (empty: `command` is
   * every rank's), as JobFacts. */
  std::vector<std::string> app_commands;
  std::vector<std::uint32_t> app_first_rank;
  std::chrono::milliseconds kill_grace{5000};  // SIGTERM to SIGKILL
  std::optional<double> timeout_seconds;       // --timeout, from start()
};

enum class DvmJobTimer { KillGrace, JobTimeout, Drain };

/* Running: the ranks run as they will. Ending: they were asked to end
 * (a failure, a signal, the client gone). Done: done() was called. */
enum class DvmJobPhase { Running, Ending, Done };

class ORCA_EXPORT DvmJobMachine {
 public:
  struct Hooks {
    /* Signal this job's ranks that still run (not the DVM's others). */
    std::function<void(int signo)> signal_ranks;
    /* To the job's client. */
    std::function<void(const Message&)> show;
    std::function<void(DvmJobTimer, std::chrono::milliseconds)> arm;
    std::function<void(DvmJobTimer)> cancel;
    /* The job is over, with the status its client exits with; called
     * once. Ranks may be left that never reported (after the drain). */
    std::function<void(int exit_status)> done;
  };

  DvmJobMachine(DvmJobFacts facts, Hooks hooks);

  /* The ranks were started: arms the --timeout. A job of no rank is done. */
  void start();
  void on_timer(DvmJobTimer timer);

  // --- reports from the daemons ---
  /* Rank `record.rank` ended; an unknown rank, or one accounted for, is
   * ignored. */
  void rank_ended(const ExitRecord& record);
  /* A rank aborted the job (or broke PMI); its end is reported apart. */
  void rank_aborted(const RankAbort& abort);
  /* A failure daemon `failure.vpid` found, as its help topic and values. */
  void job_failed(const JobFailure& failure);
  /* Daemon `vpid` is lost (what: the oob's or its agent's words). Its
   * ranks of this job are gone; a daemon with none changes nothing. */
  void daemon_lost(std::uint32_t vpid, const std::string& what);

  // --- the DVM ---
  /* The DVM ends the job (it stops, or refuses a host the job uses):
   * `why` is the job's failure if it is the first (status 1), the ranks
   * are stopped as for a failure, and once killed they get kDrainLimit. */
  void end(const Message& why);

  // --- the client ---
  /* The client got SIGINT or SIGTERM (`signo`) and passed it on. */
  void on_signal(int signo);
  /* The client is gone (its connection closed). */
  void client_lost();

  DvmJobPhase phase() const noexcept { return phase_; }
  bool failed() const noexcept { return failed_; }
  int exit_status() const noexcept { return exit_status_; }
  std::uint32_t ranks_left() const noexcept { return ranks_left_; }

 private:
  const std::string& host(std::uint32_t vpid) const;
  /* The first failure sets the status and the message; false if the job
   * had failed already. */
  bool fail(const Message& message, int status);
  /* SIGTERM (or the client's signal) to the ranks, and the grace once. */
  void stop_ranks(int signo);
  void kill_ranks();
  /* Once the ranks were killed after a loss, end() or the client gone. */
  void maybe_arm_drain();
  void account(std::uint32_t rank);
  void maybe_done();
  void finish();

  DvmJobFacts facts_;
  Hooks hooks_;
  std::vector<bool> rank_done_;
  std::uint32_t ranks_left_ = 0;
  DvmJobPhase phase_ = DvmJobPhase::Running;
  int exit_status_ = 0;
  bool failed_ = false;
  bool started_ = false;
  bool client_gone_ = false;
  bool draining_ = false;  // a loss, end() or the client gone: the drain follows the kill
  bool killed_ = false;    // SIGKILL was sent
  // Timers armed and not fired yet (the grace and the drain are armed once:
  // after the grace the ranks were killed, and the drain ends the job).
  bool grace_armed_ = false;
  bool timeout_armed_ = false;
  bool drain_armed_ = false;
  int signals_seen_ = 0;
};

}  // namespace orca::launch

#endif  // ORCA_LAUNCH_DVM_JOB_MACHINE_H
