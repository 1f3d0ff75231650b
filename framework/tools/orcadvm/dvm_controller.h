// DvmController: `orcadvm start`, as the adapter of a DvmMachine
// (launch/dvm_machine.h). The daemons start and wire up as a job's do
// (orcarun's JobLaunch, held once they are all up: routes, data plane and
// reports as with orcarun); then the contact file is written and the
// controller answers its clients (orcadvm status, stop, orcarun --dvm: the
// jobs are DvmJobs') over the oob, each having proven the DVM's secret in
// the oob handshake. It stops on orcadvm
// stop, SIGINT, SIGTERM or SIGHUP, or, detached, after its idle limit
// (orcadvm_idle_timeout) with no client; the contact file goes first (no
// new client finds a stopping DVM), then the daemons. A daemon lost once
// the DVM is up is dropped (with those below it in the routing tree, which
// end when their parent goes, each named), and the DVM goes on with the
// rest; with none left it stops, exiting 1. A detached DVM says what it
// has to say once up in its log (launch/dvm_contact.h), which goes with it
// when it ends as asked and stays when it ends by itself.
#ifndef ORCA_TOOLS_ORCADVM_DVM_CONTROLLER_H
#define ORCA_TOOLS_ORCADVM_DVM_CONTROLLER_H

#include "dvm_jobs.h"

#include "tools/orcarun/job_launch.h"

#include "launch/dvm_machine.h"
#include "launch/launch_wire.h"
#include "runtime/process.h"

#include <chrono>
#include <functional>
#include <memory>
#include <set>
#include <string>

namespace orca::orcadvm {

struct ControllerSettings {
  bool detached = false;                    // --daemonize
  std::chrono::milliseconds idle_limit{0};  // orcadvm_idle_timeout; detached only
  std::string contact_directory;            // where the contact file goes (dvm_contact_directory)
  /* The DVM is up and its contact file written: print the ready line; a
   * detached start's parent may now return, and what the DVM says from
   * now on goes to `log` (launch::dvm_log_path; empty: not detached). */
  std::function<void(const std::string& ready_line, const std::string& log)> announce;
};

class DvmController {
 public:
  DvmController(Process& process, const orcarun::Options& options, orcarun::JobPlan plan,
                std::chrono::steady_clock::time_point started, ControllerSettings settings);
  ~DvmController();
  /* Runs until the DVM stopped and its daemons are gone; returns orcadvm's
   * exit status (0: stopped as asked). */
  int run();

 private:
  void ready();
  void on_request(ProcessName from, std::span<const std::uint8_t> bytes);
  bool add_client(ProcessName from, const std::string& uri);
  void answer(ProcessName to, bool stopping);
  void client_lost(ProcessName peer);
  /* A daemon failed or was lost after the DVM was up: the DvmMachine
   * decides whether the DVM goes on with the rest. */
  void daemon_lost(std::uint32_t vpid, const std::string& what);
  void stop(const std::string& why);
  void remove_contact();
  launch::DvmMachine::Hooks machine_hooks();

  Process& process_;
  ControllerSettings settings_;
  std::vector<std::string> hosts_;
  std::vector<unsigned> slots_;
  std::unique_ptr<orcarun::JobLaunch> launch_;
  std::unique_ptr<launch::DvmMachine> machine_;
  std::unique_ptr<DvmJobs> jobs_;  // after launch_, whose oob it uses
  std::string contact_path_;  // written while the DVM is ready
  std::string log_path_;      // a detached DVM's, once up: kept after an end not asked for
  std::set<ProcessName> clients_;
  std::unique_ptr<Timer> idle_timer_;
  std::unique_ptr<SignalWatch> sighup_;
  std::chrono::steady_clock::time_point ready_at_;
  bool stopping_ = false;
  int exit_status_ = 0;  // 1: it stopped because its daemons were lost
};

}  // namespace orca::orcadvm

#endif
