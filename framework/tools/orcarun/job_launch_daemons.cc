// JobLaunch: starting the daemons: each one's bootstrap and agent, or one
// launch of every daemon (srun), and what that launch says of them.
#include "job_launch.h"

#include <signal.h>

namespace orca::orcarun {

launch::Bootstrap JobLaunch::bootstrap_for(std::uint32_t vpid) const {
  const std::uint32_t parent = vpid == plm::DaemonStarter::kEveryDaemon ? 0 : plan_.tree->parent(vpid);
  launch::Bootstrap b{.job = job_,
                      .vpid = vpid,
                      .daemons = daemons(),
                      .parent = parent,
                      .parent_uri = parent == 0 ? oob_->contact_uri() : daemon_[parent].report.contact_uri,
                      .secret = secret_,
                      .settings = settings_text_,
                      .daemon_command = plan_.daemon_command,
                      .flags = (plan_.tree_spawn ? launch::kBootstrapTreeSpawn : 0u) |
                               (plan_.dvm ? launch::kBootstrapDvm : 0u) |
                               (options_.report_topology ? launch::kBootstrapReportTopology : 0u) |
                               (places_cpus(options_) ? launch::kBootstrapReportCpus : 0u)};
  b.launched_at_us = launch::monotonic_microseconds();
  b.unused_components = plan_.unused_components;
  if (options_.working_directory) b.working_directory = plan_.working_directory;
  b.hosts.reserve(daemons());
  for (const auto& n : plan_.nodes) b.hosts.push_back(n.name);
  return b;
}

bool JobLaunch::launch_daemon(std::uint32_t vpid) {
  if (vpid == launch::JobMachine::kEveryDaemon) {
    launch_all();
    return false;
  }
  // The first bootstrap is made here too, to find what would be wrong
  // with every one (a field above its bound, the same for all); each is
  // made as its agent starts: a queued launch holds no bootstrap (each
  // names every host of the job).
  if (!bootstrap_checked_) {
    bootstrap_checked_ = true;
    if (auto frame = launch::bootstrap_frame(bootstrap_for(vpid)); !frame) {
      machine_->fail(frame.error(), 1);
      return false;
    }
  }
  const std::string& host = daemon_[vpid].host;
  auto argv = plm::daemon_command(plan_.plm, host, plan_.daemon_command);
  if (!argv) {
    machine_->fail(argv.error(), 1);
    return false;
  }
  // The agent's words are the daemon's own (plm/local): its exit is the
  // daemon's, and says how the daemon ended.
  const bool agent_is_daemon = argv.value() == plan_.daemon_command;
  launcher_->launch({.vpid = vpid,
                     .host = host,
                     .argv = std::move(argv.value()),
                     .bootstrap = {},
                     .make_bootstrap = [this, vpid] {
                       auto frame = launch::bootstrap_frame(bootstrap_for(vpid));
                       return frame ? std::move(frame.value()) : std::vector<std::uint8_t>();
                     }});
  return agent_is_daemon;
}

// A launcher that starts every daemon at once (plm/slurm: one srun step)
// gets one bootstrap, with vpid 0, which it hands to every daemon (in
// their environment, or on standard input if it is large); each finds
// its own vpid. The daemons below another in the routing tree learn
// their parent's contact URI later, on the same standard input (on_report).
// srun gets SIGTERM if orcarun dies, and never SIGKILL: SIGTERM makes it
// cancel the step, while a SIGKILLed srun leaves the step running.
void JobLaunch::launch_all() {
  std::vector<std::string> hosts;
  for (std::uint32_t v = 1; v <= daemons(); ++v) hosts.push_back(daemon_[v].host);
  auto frame = launch::bootstrap_frame(bootstrap_for(plm::DaemonStarter::kEveryDaemon));
  if (!frame) {
    machine_->fail(frame.error(), 1);
    return;
  }
  auto argv = plm::all_daemons_command(plan_.plm, hosts, plan_.daemon_command);
  if (!argv) {
    machine_->fail(argv.error(), 1);
    return;
  }
  step_program_ = argv->front();
  plm::DaemonStarter::Launch l{.vpid = plm::DaemonStarter::kEveryDaemon,
                                .host = {},
                                .argv = std::move(argv.value()),
                                .bootstrap = {},
                                .environment = {},
                                .parent_death_signal = SIGTERM,
                                .kill_signal = SIGTERM};
  // In the environment, the bootstrap travels with the launch itself;
  // srun forwards standard input only once every task runs.
  if (frame->size() <= launch::kMaxEnvironmentBootstrap) {
    l.environment.push_back(std::string(launch::kBootstrapVariable) + "=" + launch::bootstrap_text(frame.value()));
  } else {
    l.bootstrap = std::move(frame.value());
  }
  launcher_->launch(std::move(l));
}

// A line of the launch of every daemon saying that one of them ended
// (srun: "srun: error: h3: task 1: Killed"): that daemon failed.
void JobLaunch::daemon_ended_said(const std::string& line) {
  const std::string host = plm::ended_host(plan_.plm, line);
  if (host.empty()) return;
  machine_->step_said_ended(host, printable(step_program_) + " reports that its task there ended: " + printable(line));
}

// The contact URI of daemon `vpid`, just up, to the daemons started at
// the same time whose parent it is.
void JobLaunch::relay_contact(const launch::DaemonReport& report) {
  if (plan_.tree->children(report.vpid).empty()) return;
  auto frame = launch::stdin_frame(launch::DaemonReport{.vpid = report.vpid, .contact_uri = report.contact_uri});
  if (!frame) {
    machine_->fail(frame.error(), 1);
    return;
  }
  (void)launcher_->send(plm::DaemonStarter::kEveryDaemon, std::move(frame.value()));
}

}  // namespace orca::orcarun
