// PmiHelper: one pmi module of a DVM's daemon run in a helper process, a
// fork of the daemon ("orcad-pmi"), so that what the module's library
// keeps after a job (libpmix 4.2.2 keeps some 5 kB of each Open MPI rank
// it served, freed only by its own end, and cannot be restarted within a
// process) is given back: the helper is replaced by a fresh one when no
// job uses it and its memory grew past pmi_base_helper_growth.
//
// To the daemon's PmiServices it is a module like any other (module()):
// each call goes to the helper as a message (helper_wire.h), and what the
// helper's module calls back (contribute, rank events, sends, logs, the
// bound) comes back as messages, handed to the job's host on the loop.
// Two calls wait for their answer, blocking the loop for as long as the
// helper takes: job_start (whose answer also holds each of this node's
// ranks' environment, so that rank_prepare needs no round trip) and, the
// first time, the helper's start. warm_up only sends.
//
// The helper lost (killed, crashed) ends each job it served with a rank
// event naming it; the next job starts a new helper.
//
// A module whose ranks inherit a descriptor (pmi/simple's PMI_FD) cannot
// run so: the helper refuses its job, naming pmi_base_helper.
#ifndef ORCA_PMI_PMI_HELPER_H
#define ORCA_PMI_PMI_HELPER_H

#include "helper_channel.h"
#include "helper_wire.h"

#include <orca/event_loop.h>
#include <orca/pmi.h>

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace orca::pmi {

class ORCA_EXPORT PmiHelper {
 public:
  struct Settings {
    std::string component;           // "pmix"
    std::uint64_t growth_bytes = 0;  // pmi_base_helper_growth: replaced past this, when idle
    /* A line for the daemon's log, shown at pmi_base_verbose >= level. */
    std::function<void(int level, const std::string& text)> log;
  };
  /* `real` is the module the helper runs (it outlives this object). The
   * helper starts at the first warm_up or job_start. */
  PmiHelper(EventLoop& loop, const orca_pmi_module& real, Settings settings);
  ~PmiHelper();
  PmiHelper(const PmiHelper&) = delete;
  PmiHelper& operator=(const PmiHelper&) = delete;

  /* The module the daemon calls instead of `real`. */
  const orca_pmi_module* module() const noexcept { return &proxy_; }
  /* The helper's process (0: none now). */
  pid_t pid() const noexcept { return pid_; }
  /* How many helpers were started so far. */
  std::uint32_t starts() const noexcept { return starts_; }

 private:
  struct Job;
  static orca_mca_rc call_warm_up(void* self, const orca_pmi_host* host, const orca_pmi_job* job, orca_mca_reason* why);
  static void call_warm_end(void* self);
  static orca_mca_rc call_job_start(void* self, const orca_pmi_host* host, const orca_pmi_job* job, void** served,
                                    orca_mca_reason* why);
  static orca_mca_rc call_rank_prepare(void* served, uint32_t rank, const orca_pmi_environment* env, int* inherit,
                                       orca_mca_reason* why);
  static void call_rank_started(void* served, uint32_t rank, int started);
  static void call_rank_ended(void* served, uint32_t rank);
  static void call_release(void* served, uint64_t epoch, const orca_pmi_entry* entries, size_t count);
  static void call_deliver(void* served, uint32_t node, const uint8_t* bytes, size_t length);
  static void call_job_end(void* served);

  /* A helper running now, started if need be; false with why. */
  bool running(std::string& why);
  void stop();  // the helper told to end (its channel closed); reaped when it exits
  void on_message(HelperMessage message);
  void on_closed(const std::string& why);
  void reaped(pid_t pid, int status);
  /* The running helper is gone (`what`: how): its jobs are ended. */
  void lost(const std::string& what);
  /* No job left: a helper grown past the bound is replaced. */
  void replace_if_grown();
  void send(const HelperMessage& message);
  static HelperJob with_directory(const orca_pmi_host& host, const orca_pmi_job& job);

  EventLoop& loop_;
  const orca_pmi_module& real_;
  Settings settings_;
  orca_pmi_module proxy_{};
  pid_t pid_ = 0;
  std::unique_ptr<HelperChannel> channel_;
  std::map<pid_t, std::unique_ptr<ChildWatch>> watches_;  // every helper started, until reaped
  std::map<std::uint32_t, std::unique_ptr<Job>> jobs_;
  std::uint32_t next_id_ = 1;
  std::optional<HelperJob> warm_job_;  // what warm_up was given: a new helper is warmed up with it
  std::optional<std::uint64_t> base_rss_;  // the helper's RSS after its first job
  std::optional<std::string> closed_why_;  // its channel closed (why), its exit not yet seen
  std::unique_ptr<Timer> exit_wait_;       // then kills it after kExitWait
  bool killed_ = false;                    // so it was
  std::uint32_t starts_ = 0;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

/* The helper process's side: runs `real` for the daemon at the other end
 * of `fd` until it closes, then exits. Called in the child right after
 * fork; never returns. */
[[noreturn]] ORCA_EXPORT void run_pmi_helper(int fd, const orca_pmi_module& real, const std::string& component);

}  // namespace orca::pmi

#endif
