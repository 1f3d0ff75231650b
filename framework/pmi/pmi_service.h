// PmiService: the pmi framework in one orcad, for one job it runs (a
// standalone orcad runs job 0 only; a DVM's daemon one service per job,
// each its own modules' handles, collectives and directory).
//
// Every selected pmi module serves every rank of this node (orca/pmi.h),
// except that a DVM job (job != 0) is served only by the modules that can
// serve several jobs at once (many_jobs):
// before a rank starts, each adds its environment (and a descriptor to
// inherit) to the rank's spawn spec. The service runs this daemon's part
// of every module's collectives: a FenceCollective per component expects
// one part from this node's ranks (when it has any) and one from each
// child in the routing tree whose subtree has ranks; the merged part goes
// up to the tree parent (orcarun at the top, which releases it down to
// every daemon). It also keeps how far each rank got with PMI, so a rank
// that exits after init and before finalize is reported as such.
//
// A daemon whose subtree has no ranks takes no part. Children's parts are
// accepted from children only.
//
// Every collective FenceCollective holds to the job's bound on each
// component's data (pmi_base_max_job_keys / _bytes), with what this
// daemon keeps: every release, and the bytes delivered to it point to
// point. A part, release or delivery past it, or a rank a module names
// (host over_bound), ends the job (Hooks::failed, once) and this daemon
// takes no more of the job's data.
#ifndef ORCA_PMI_PMI_SERVICE_H
#define ORCA_PMI_PMI_SERVICE_H

#include "launch/launch_wire.h"
#include "launch/rank_network_env.h"
#include "pmi_modules.h"
#include "runtime/process.h"

#include <orca/child_process.h>
#include <orca/pmi.h>
#include <orca/routed.h>

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace orca::pmi {

class ORCA_EXPORT PmiService {
 public:
  struct Hooks {
    /* This subtree's part of a collective, for the tree parent. */
    std::function<void(const launch::FenceData& part)> up;
    /* A rank asked to end the job, or broke its protocol. */
    std::function<void(const launch::RankAbort& abort)> abort;
    /* Bytes for a module on another daemon. */
    std::function<void(const launch::PmiDirect& direct)> direct;
    /* The collective cannot go on (a repeated part, data past the
     * bound): end the job. Called once. */
    std::function<void(const Message& why)> failed;
    /* The job's directory was made (`path`): whoever outlives a killed
     * daemon removes it. Optional. */
    std::function<void(const std::string& path)> made_directory;
  };

  /* `modules` outlives the service; `job`: 0 for a standalone run's job,
   * a DVM job's number otherwise (it is on every message the service
   * sends). */
  PmiService(Process& process, const launch::Bootstrap& bootstrap, const routed::RoutingTree& tree, PmiModules& modules,
             std::uint32_t job, Hooks hooks);
  ~PmiService();
  PmiService(const PmiService&) = delete;
  PmiService& operator=(const PmiService&) = delete;

  /* Early, before the wire-up and long before the job's command: opens
   * the framework and lets each module set up what needs no ranks
   * (pmi/pmix starts libpmix's server, some 4 ms of CPU, on a thread of
   * its own), beside the wire-up instead of after the command. A failure
   * is logged: start() does it all again and reports what fails. */
  void warm_up();
  /* Opens the framework (when this node has ranks) and starts every
   * module for the job. Errors: the framework does not open, a module
   * refuses the job (named). */
  Status start(const launch::LaunchCommand& command);
  /* What every module gives one rank: its settings (PMI_*, PMIX_*, in the
   * modules' order) and the descriptors it inherits. */
  struct RankSetup {
    std::vector<launch::EnvironmentSetting> settings;
    std::vector<int> inherit_fds;
  };
  /* Errors: a module refuses the rank (pmi/rank-prepare-failed). */
  Result<RankSetup> prepare(std::uint32_t rank);
  void started(std::uint32_t rank, bool ok);
  void ended(std::uint32_t rank);
  launch::PmiProgress progress(std::uint32_t rank) const;
  /* Whether any pmi module serves this node's ranks: then another rank
   * may still ask it for theirs (a direct modex) after they ended. */
  bool serves_ranks() const noexcept { return !served_.empty(); }
  /* Whether a module asked for the job's directory: it keeps state
   * outside this process (libpmix's files), and its own end must run. */
  bool keeps_outside_state() const noexcept { return !tmpdir_.empty(); }

  /* A child's part (kTagFence), a release (control), direct bytes. */
  void on_part(const launch::FenceData& part);
  void on_release(const launch::FenceRelease& release);
  void on_direct(const launch::PmiDirect& direct);
  /* The job ends: every module drops its connections. */
  void end();

 private:
  struct Served;
  void contribute(const std::string& component, std::uint32_t contributor, std::uint64_t epoch, Kvs entries);
  FenceCollective& collective(const std::string& component);
  void fail(const Message& why);
  /* The job as the modules see it (orca_pmi_job), and what it points into. */
  struct JobView {
    JobView() = default;
    JobView(const JobView&) = delete;  // job points into it
    JobView& operator=(const JobView&) = delete;
    std::string name;
    std::vector<const char*> hosts;
    orca_pmi_job job{};
  };
  /* Fills `view` in place (job points into it): size 0 and no rank arrays
   * before the command (warm_up). */
  void describe_job(JobView& view, std::uint32_t size, const std::uint32_t* rank_node,
                    const std::uint32_t* local_rank) const;
  Status open_modules();  // the framework opened and served_ made, once
  void log(const std::string& text) const;  // at pmi_base_verbose >= 1
  std::string host_of(std::uint32_t vpid) const;
  void rank_event(Served& served, std::uint32_t rank, orca_pmi_rank_event event, int status, const char* text);
  static void host_contribute(void* host, uint64_t epoch, const orca_pmi_entry* entries, size_t count);
  static void host_rank_event(void* host, uint32_t rank, orca_pmi_rank_event event, int status, const char* text);
  static void host_send(void* host, uint32_t node, const uint8_t* bytes, size_t length);
  static void host_log(void* host, int level, const char* text);
  static void host_over_bound(void* host, uint32_t rank, orca_pmi_bound which, uint64_t total);
  static const char* host_job_directory(void* host, orca_mca_reason* why);

  Process& process_;
  const launch::Bootstrap& bootstrap_;
  const routed::RoutingTree& tree_;
  PmiModules& modules_;
  std::uint32_t job_;
  Hooks hooks_;
  bool opened_ = false;
  std::vector<std::unique_ptr<Served>> served_;
  std::map<std::string, FenceCollective, std::less<>> collectives_;
  std::map<std::uint32_t, launch::PmiProgress> progress_;
  std::uint32_t contributors_ = 0;
  std::uint32_t subtree_ranks_ = 0;
  std::vector<std::uint32_t> children_with_ranks_;
  std::vector<std::uint32_t> relays_;  // those of them with ranks below them, not only their own
  DataBound bound_;
  bool failed_ = false;
  std::string tmpdir_;                       // made when a module first asks (job_directory)
  std::optional<Message> directory_error_;  // why it could not be made
  bool started_ = false;
};

}  // namespace orca::pmi

#endif
