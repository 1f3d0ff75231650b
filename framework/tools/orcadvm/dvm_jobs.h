// DvmJobs: the jobs of a DVM's controller (orcarun --dvm). Each submission
// is mapped as a standalone run's would be, on the slots free now when it
// fits there and no job waits, else on every slot (a lost host has none),
// admitted in order by the DvmMachine, and started through
// the held daemons with its own job number; a DvmJobMachine per job decides
// its end from the daemons' reports and its client's signals. Its output
// goes to its client alone, and the client's credit goes back to the
// daemons that sent it, so a client nobody reads (`| less`) holds up only
// what the daemons' windows allow. The DVM is the root of each job's PMI
// collectives (a FenceRoot per job), as orcarun is of its one job's. At
// its end the daemons drop the job
// (Teardown with its number) and the client hears its exit status.
#ifndef ORCA_TOOLS_ORCADVM_DVM_JOBS_H
#define ORCA_TOOLS_ORCADVM_DVM_JOBS_H

#include "tools/orcarun/job_launch.h"

#include "launch/dvm_job_machine.h"
#include "launch/dvm_machine.h"
#include "launch/job_limits.h"
#include "launch/launch_wire.h"
#include "launch/rank_map.h"
#include "pmi/fence_root.h"
#include "runtime/process.h"

#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace orca::orcadvm {

class DvmJobs {
 public:
  struct Context {
    Process& process;
    orcarun::JobLaunch& launch;  // the held daemons
    std::vector<launch::HostSlots> nodes;  // the DVM's hosts; node i is daemon i + 1
    std::chrono::milliseconds kill_grace{5000};
  };
  explicit DvmJobs(Context context);
  ~DvmJobs();
  /* The DvmMachine that admits the jobs; set once, before any submission. */
  void set_machine(launch::DvmMachine& machine) { machine_ = &machine; }

  /* A submission from `client` (whose contact the oob knows). A job that
   * cannot be mapped is refused at once, saying why. */
  void submit(ProcessName client, const launch::DvmSubmit& submit);
  // The DvmMachine's hooks.
  void start(launch::DvmJobId id);
  void refuse(launch::DvmJobId id, const Message& why);
  void end(launch::DvmJobId id, const Message& why);

  /* A DVM job's message from daemon `from` (JobLaunch::Hold::job_message). */
  void from_daemon(ProcessName from, launch::WireMessage message);
  /* A client's SignalRanks or OutputCredit for its own job. */
  void from_client(ProcessName client, const launch::WireMessage& message);
  void client_lost(ProcessName client);
  /* Daemon `vpid` is lost: the jobs with ranks on it end (named), before
   * the DvmMachine is told. */
  void daemon_lost(std::uint32_t vpid, const std::string& what);

 private:
  struct Job;
  Job* find(std::uint32_t id);
  /* The DVM's hosts as a map sees them: a lost one has no slot. */
  std::vector<launch::HostSlots> live_nodes() const;
  /* What a job of `map` adds on this host (its ranks on the daemons here). */
  launch::JobFootprint footprint_here(const launch::RankMap& map) const;
  void tell_client(const Job& job, const launch::WireMessage& message);
  void show(const Job& job, const Message& message);
  void finished(std::uint32_t id, int exit_status);
  void credit_all(Job& job);
  void pass_stdin(const Job& job, const launch::StdinData& data);
  void collect(Job& job, std::uint32_t from, const launch::FenceData& part);
  /* The job's command to its daemons, with its torch master's port once
   * rank 0's daemon gave one (master_port_of). */
  void launch_ranks(Job& job);
  void master_port_of(Job& job, const launch::MasterPort& answer);
  launch::DvmJobMachine::Hooks machine_hooks(std::uint32_t id);
  void arm(std::uint32_t id, launch::DvmJobTimer timer, std::chrono::milliseconds after);

  Context context_;
  launch::DvmMachine* machine_ = nullptr;
  std::map<std::uint32_t, std::unique_ptr<Job>> jobs_;  // waiting or running
  std::vector<std::unique_ptr<Job>> ended_;  // destroyed from the loop, outside their machines' hooks
  Timer reaper_;
  std::vector<bool> lost_;  // [vpid]
  std::uint32_t next_id_ = 1;
};

}  // namespace orca::orcadvm

#endif
