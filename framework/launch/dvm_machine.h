/*
 * DvmMachine: the life of a persistent DVM (orcadvm) as its controller
 * sees it, between its daemons coming up and its stop: jobs submitted,
 * admitted in order (DvmAdmission), ended; clients that come and go; a
 * lost daemon; the idle limit of a detached DVM. Pure, in the shape of
 * JobMachine: events in, decisions out through hooks, no I/O, no clock
 * (the idle limit is a timer the adapter arms).
 *
 * Policies:
 *   - Submissions before every daemon is up wait for it (or, when the
 *     client will not wait, are refused as busy).
 *   - A lost daemon ends the jobs that use its host, naming it; jobs
 *     waiting for that host are refused. The DVM goes on with the rest
 *     and says so, unless it was started to stop on a loss, or no host
 *     is left.
 *   - A DVM in the foreground ends with its starter. A detached one ends
 *     after its idle limit with no job running or waiting and no client
 *     connected; any job or client cancels the count.
 *   - Stopping ends every running job and refuses every waiting and new
 *     one, then the daemons; the adapter says when they are gone.
 *
 * Messages are the launch area's (help-launch.txt): dvm-busy,
 * dvm-job-too-large, dvm-stopping, dvm-daemon-lost, dvm-goes-on,
 * dvm-idle-stop.
 */
#ifndef ORCA_LAUNCH_DVM_MACHINE_H
#define ORCA_LAUNCH_DVM_MACHINE_H

#include "launch/dvm_admission.h"

#include <orca/export.h>
#include <orca/message.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace orca::launch {

enum class DvmPhase { Starting, Ready, Stopping, Done };

struct ORCA_EXPORT DvmFacts {
  std::vector<std::string> hosts;  // host of daemon v at [v - 1]
  std::vector<unsigned> slots;     // per host
  bool detached = false;           // --daemonize: no starter to end with
  std::chrono::milliseconds idle_limit{0};  // orcadvm_idle_timeout; 0: none
  bool stop_on_loss = false;       // a lost daemon stops the whole DVM
};

class ORCA_EXPORT DvmMachine {
 public:
  struct Hooks {
    std::function<void(DvmJobId)> start_job;                   // admitted: launch its ranks
    std::function<void(DvmJobId, const Message&)> refuse_job;  // never started: tell its client why
    std::function<void(DvmJobId, const Message&)> end_job;     // running: end it, telling its client why
    std::function<void(std::chrono::milliseconds)> arm_idle;
    std::function<void()> cancel_idle;
    std::function<void(const Message&)> show;                  // on the DVM's own output
    std::function<void()> stop_daemons;                        // tear every daemon down
  };

  DvmMachine(DvmFacts facts, Hooks hooks);

  /* Every daemon is up: the jobs submitted meanwhile are admitted in order. */
  void ready();
  void submit(const DvmJobRequest& request);
  /* Job `id`'s ranks are all gone (ended, failed, or ended by end_job). */
  void job_ended(DvmJobId id);
  void client_joined();
  void client_left();
  /* Daemon `vpid` is lost (why: the oob's or the agent's words). */
  void daemon_lost(std::uint32_t vpid, const std::string& why);
  /* `orcadvm stop`, SIGTERM, or the starter of a foreground DVM gone. */
  void stop(const std::string& why);
  void idle_timer();
  /* Every daemon is gone after stop_daemons. */
  void daemons_gone();

  DvmPhase phase() const noexcept { return phase_; }
  std::size_t running() const noexcept { return admission_.running(); }
  std::size_t waiting() const noexcept { return admission_.waiting() + early_.size(); }
  std::size_t hosts_left() const noexcept;
  /* Free slots on host `h` (0 for a lost one), for mapping a new job. */
  unsigned free(std::size_t h) const noexcept { return admission_.free(h); }

 private:
  void admit(const DvmJobRequest& request);
  void start(DvmJobId id);
  void start_all(const std::vector<DvmJobId>& ids);
  void check_idle();
  void disarm_idle();
  Message busy() const;  // dvm-busy, with the counts now
  bool uses(DvmJobId id, std::size_t host) const;

  DvmFacts facts_;
  Hooks hooks_;
  DvmPhase phase_ = DvmPhase::Starting;
  DvmAdmission admission_;
  std::deque<DvmJobRequest> early_;                    // submitted before ready()
  struct Job {
    std::vector<unsigned> slots;  // asked per host
    bool started = false;         // false: waiting for slots
  };
  std::map<DvmJobId, Job> jobs_;  // running or waiting
  std::vector<bool> host_lost_;
  std::size_t clients_ = 0;
  bool idle_armed_ = false;
};

}  // namespace orca::launch

#endif  // ORCA_LAUNCH_DVM_MACHINE_H
