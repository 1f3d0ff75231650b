// JobLaunch: the adapter between the loop and the JobMachine: wire-up,
// the command, output, exits and teardown as I/O.
#include "job_launch.h"

#include "mca/var/mca_forward.h"

#include <orca/child_process.h>
#include "oob/oob_host.h"
#include "plm/daemon_launcher.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <sstream>
#include <random>

namespace orca::orcarun {
namespace {

using Clock = std::chrono::steady_clock;
using launch::JobMachine;
using launch::JobPhase;
using launch::JobTimer;

// When the progress line starts (stderr a terminal only).
constexpr std::chrono::milliseconds kProgressAfter{2000};

launch::JobFacts job_facts(const JobPlan& plan, const Options& options) {
  launch::JobFacts facts{.tree = &*plan.tree,
                         .command = options.command.empty() ? std::string() : options.command[0],
                         .plm_component = plan.plm.component,
                         .failure_hint = [chosen = plan.plm](const std::string& host) {
                           return plm::failure_hint(chosen, host);
                         },
                         .all_at_once = plm::starts_all_at_once(plan.plm),
                         .tree_spawn = plan.tree_spawn,
                         .start_early = plan.start_early,
                         .startup_timeout = plan.startup_timeout,
                         .kill_grace = plan.kill_grace,
                         .timeout_seconds = options.timeout_seconds};
  for (const auto& n : plan.nodes) facts.hosts.push_back(n.name);
  if (plan.apps.size() > 1) {
    for (const auto& a : plan.apps) {
      facts.app_commands.push_back(a.argv.empty() ? std::string() : a.argv[0]);
      facts.app_first_rank.push_back(a.first_rank);
    }
  }
  for (const auto& p : plan.ranks.placements) facts.rank_daemon.push_back(static_cast<std::uint32_t>(p.node + 1));
  return facts;
}

}  // namespace

JobParts process_parts(Process& process) {
  return {.open_oob = [&process](ProcessName self, std::vector<std::uint8_t> secret) -> Result<oob::Messenger*> {
            auto oob = process.open_oob(self, std::move(secret));
            if (!oob) return oob.error();
            return static_cast<oob::Messenger*>(oob.value());
          },
          .make_starter = [&process](std::uint32_t max_concurrent, plm::DaemonStarter::Hooks hooks) {
            return std::unique_ptr<plm::DaemonStarter>(
                std::make_unique<plm::DaemonLauncher>(process.loop(), max_concurrent, std::move(hooks)));
          }};
}

JobLaunch::JobLaunch(Process& process, const Options& options, JobPlan plan, Clock::time_point started, JobParts parts)
    : process_(process), options_(options), plan_(std::move(plan)), parts_(std::move(parts)), t_start_(started) {
  daemon_.resize(daemons() + 1);
  for (std::uint32_t v = 1; v <= daemons(); ++v) daemon_[v].host = plan_.nodes[v - 1].name;
  machine_ = std::make_unique<JobMachine>(job_facts(plan_, options_), machine_hooks());
}

JobLaunch::~JobLaunch() = default;

// The machine's decisions, as I/O.
JobMachine::Hooks JobLaunch::machine_hooks() {
  return {.launch_daemon = [this](std::uint32_t v) { return launch_daemon(v); },
          .wired_up = [this] { all_up(); },
          .send_command = [this](std::uint32_t c) { return send_command(c); },
          .signal_ranks = [this](int signo) { (void)broadcast(launch::SignalRanks{.signal = signo}); },
          .release_daemon = [this](std::uint32_t v) { release_daemon(v); },
          .send_teardown = [this](bool failed, const std::vector<std::uint32_t>& relayed) { send_teardown(failed, relayed); },
          .signal_agent = [this](std::uint32_t v, int signo) { launcher_->signal(v, signo); },
          .end_lost_agent = [this](std::uint32_t v) { launcher_->end_lost(v); },
          .signal_all_agents = [this](int signo) { launcher_->signal_all(signo); },
          .agent_runs = [this](std::uint32_t v) { return launcher_->runs(v); },
          .agents_running = [this] { return launcher_->running(); },
          .arm = [this](JobTimer t, std::uint32_t v, std::chrono::milliseconds after) { arm(t, v, after); },
          .cancel = [this](JobTimer t, std::uint32_t v) { cancel(t, v); },
          .show = [this](const Message& m) { show(m); },
          .done =
              [this] {
                if (!t_down_) t_down_ = Clock::now();
                process_.loop().stop();
              },
          .dropped = [this](std::uint32_t v, const std::string& what) { hold_->dropped(v, what); }};
}

void JobLaunch::arm(JobTimer timer, std::uint32_t vpid, std::chrono::milliseconds after) {
  auto& t = timers_[{timer, vpid}];
  if (!t) t = std::make_unique<Timer>(process_.loop(), [this, timer, vpid] { machine_->on_timer(timer, vpid); });
  t->start(after);
}

void JobLaunch::cancel(JobTimer timer, std::uint32_t vpid) {
  if (auto it = timers_.find({timer, vpid}); it != timers_.end()) it->second->cancel();
}

Status JobLaunch::open() {
  std::random_device random;
  job_ = (random() & 0x7fffffffu) | 1u;
  const std::string secret_hex = oob::new_job_secret_hex();
  for (size_t i = 0; i + 1 < secret_hex.size(); i += 2) {
    secret_.push_back(static_cast<std::uint8_t>(std::stoul(secret_hex.substr(i, 2), nullptr, 16)));
  }
  settings_text_ = mca::encode_settings(mca::forwardable_settings(process_.runtime().registry()));
  auto oob = parts_.open_oob(name(0), secret_);
  if (!oob) return oob.error();
  oob_ = oob.value();
  oob_->set_router(routed::make_router(*plan_.tree, name(0)));

  open_output();

  oob_->on_receive(launch::kTagHello, [this](ProcessName from, std::span<const std::uint8_t> b) { on_hello(from, b); });
  oob_->on_receive(launch::kTagReport, [this](ProcessName, std::span<const std::uint8_t> b) { on_report(b); });
  oob_->on_receive(launch::kTagStatus, [this](ProcessName from, std::span<const std::uint8_t> b) { on_status(from, b); });
  oob_->on_receive(launch::kTagOutput, [this](ProcessName from, std::span<const std::uint8_t> b) { on_output(from, b); });
  oob_->on_receive(launch::kTagFence, [this](ProcessName from, std::span<const std::uint8_t> b) { on_fence(from, b); });
  oob_->on_receive(launch::kTagCredit, [this](ProcessName from, std::span<const std::uint8_t> b) {
    auto m = launch::decode(b);
    if (m && launch::job_of(m.value()) != 0) {
      if (held_ && hold_->job_message) hold_->job_message(from, std::move(m.value()));
      return;
    }
    if (m && stdin_) {
      if (auto* c = std::get_if<launch::StdinCredit>(&m.value())) stdin_->credit(c->bytes);
    }
  });
  oob_->on_peer_lost([this](ProcessName peer, const std::string& why) {
    if (machine_->node().role_of(peer.vpid) != launch::PeerRole::Below) return;
    machine_->daemon_lost(peer.vpid, "the oob lost the daemon on " + describe(peer.vpid) + ": " + why);
  });

  plm::DaemonStarter::Hooks hooks;
  hooks.on_exit = [this](std::uint32_t vpid, int status, const std::string& tail) { on_agent_exit(vpid, status, tail); };
  hooks.on_output = [this](std::uint32_t vpid, const std::string& line) {
    if (printer_) printer_->end_open_line(iof::Stream::Stderr);
    // A line a daemon relays from its own children already names its host.
    const bool named = line.rfind("[orcad ", 0) == 0;
    // One launch for every daemon: its lines are srun's or any daemon's.
    const std::string who = vpid == plm::DaemonStarter::kEveryDaemon ? "[orcad via " + printable(step_program_) + "] "
                                                                       : "[orcad " + printable(daemon_[vpid].host) + "] ";
    say((named ? std::string() : who) + printable(line) + "\n");
    if (vpid == plm::DaemonStarter::kEveryDaemon) daemon_ended_said(line);
  };
  hooks.on_failed_start = [this](std::uint32_t vpid, const Message& why) {
    if (vpid == plm::DaemonStarter::kEveryDaemon) {
      machine_->fail(why, 1);
      return;
    }
    machine_->daemon_failed(vpid, "cannot start the agent for " + describe(vpid) + ": " + plm::spawn_failure_text(why));
  };
  launcher_ = parts_.make_starter(plan_.plm.module->max_concurrent(plan_.plm.module->self), std::move(hooks));
  sigint_ = std::make_unique<SignalWatch>(process_.loop(), SIGINT, [this] { on_signal(SIGINT); });
  sigterm_ = std::make_unique<SignalWatch>(process_.loop(), SIGTERM, [this] { on_signal(SIGTERM); });
  return {};
}

int JobLaunch::run() {
  if (Status st = open(); !st) {
    show(st.error());
    return 1;
  }
  machine_->start();
  t_agents_ = launcher_->last_start();
  if (::isatty(2) && machine_->phase() == JobPhase::WireUp) {
    progress_timer_ = std::make_unique<Timer>(process_.loop(), [this] { show_progress(); });
    progress_timer_->start(kProgressAfter);
  }
  if (machine_->phase() != JobPhase::Done) process_.loop().run();
  if (options_.report_routes) print_collectives();
  if (options_.timing) print_timing();
  // What the job printed and a slow reader has not taken yet: all of it,
  // in order, before orcarun exits.
  out_->flush_blocking();
  err_->flush_blocking();
  return machine_->exit_status();
}

void JobLaunch::end_hold() { machine_->begin_teardown(); }

void JobLaunch::on_signal(int signo) {
  if (held_ && machine_->phase() == JobPhase::WireUp) {
    hold_->signalled(signo);
    return;
  }
  machine_->on_signal(signo);
}

void JobLaunch::on_hello(ProcessName from, std::span<const std::uint8_t> bytes) {
  auto m = launch::decode(bytes);
  if (!m || !std::holds_alternative<launch::DaemonReport>(m.value())) return;
  const auto& hello = std::get<launch::DaemonReport>(m.value());
  if (!machine_->node().is_childs_hello(from.vpid, hello.vpid)) return;
  if (Status st = oob_->add_peer(from, hello.contact_uri); !st) {
    machine_->daemon_failed(from.vpid, "cannot reach the daemon on " + describe(from.vpid) + ": " + st.error().summary());
    return;
  }
  machine_->hello(from.vpid);
  launcher_->daemon_up(from.vpid);
}

void JobLaunch::on_report(std::span<const std::uint8_t> bytes) {
  auto m = launch::decode(bytes);
  if (!m || !std::holds_alternative<launch::DaemonReport>(m.value())) return;
  auto& report = std::get<launch::DaemonReport>(m.value());
  if (report.vpid == 0 || report.vpid > daemons() || machine_->is_up(report.vpid)) return;
  const std::uint32_t vpid = report.vpid;
  daemon_[vpid].report = std::move(report);
  // A daemon below another never says hello to orcarun: its report, come
  // up the tree, is what ends its launch's turn in flight.
  launcher_->daemon_up(vpid);
  if (!t_first_up_) t_first_up_ = Clock::now();
  if (all_at_once()) relay_contact(daemon_[vpid].report);
  machine_->up(vpid);
}

void JobLaunch::start_command() {
  if (options_.report_routes) {
    print_routes();
    if (gather_) say(gather_->report(forwarded_environment()));
  }
  if (options_.report_topology) {
    for (std::uint32_t v = 1; v <= daemons(); ++v) {
      std::string text = "topology of " + describe(v) + ":\n";
      for (const auto& n : daemon_[v].report.notes) text += "  " + printable(n) + "\n";
      say(text);
    }
  }
  if (hold_) {
    held_ = true;
    machine_->hold();
    hold_->ready();
    return;
  }
  if (!machine_->command_ready()) return;
  // stdin: to the daemons of the ranks that read it.
  std::vector<ProcessName> targets;
  std::uint64_t readers = 0;
  for (const auto& p : plan_.ranks.placements) {
    const bool reads = options_.stdin_target == StdinTarget::All ||
                       (options_.stdin_target == StdinTarget::Rank && p.rank == options_.stdin_rank);
    if (!reads) continue;
    ++readers;
    const ProcessName n = name(static_cast<std::uint32_t>(p.node + 1));
    if (std::find(targets.begin(), targets.end(), n) == targets.end()) targets.push_back(n);
  }
  if (!targets.empty()) {
    stdin_ = std::make_unique<StdinForwarder>(process_.loop(), *outbox_, std::move(targets), readers);
  }
}

Status JobLaunch::prepare_command() {
  if (command_) return {};
  launch::LaunchCommand command;
  command.apps = plan_.apps;
  command.environment = forwarded_environment();
  if (gather_) gather_->fill(command);
  command.size = static_cast<std::uint32_t>(plan_.ranks.placements.size());
  command.placements = launch::rank_placements(plan_.ranks);
  for (const auto& r : rank_cpus_) command.cpus.push_back(launch::cpu_list_text(r.cpus));
  add_thread_hint(command.environment);
  command.merge_stderr = options_.merge_stderr;
  switch (options_.stdin_target) {
    case StdinTarget::None: command.stdin_target = launch::kStdinNone; break;
    case StdinTarget::All: command.stdin_target = launch::kStdinAll; break;
    case StdinTarget::Rank: command.stdin_target = static_cast<std::int32_t>(options_.stdin_rank); break;
  }
  auto bytes = launch::encode(launch::WireMessage(command));
  if (!bytes) return bytes.error();
  command_ = std::make_shared<const std::vector<std::uint8_t>>(std::move(bytes.value()));
  fences_ = fence_root(command);
  t_command_ = Clock::now();
  // Ranks print from here on: the progress line would cut into their lines.
  end_progress();
  return {};
}

Status JobLaunch::send_command(std::uint32_t child) {
  if (Status made = prepare_command(); !made) return made;
  if (!oob_->knows(name(child))) return {};
  return oob_->send(name(child), launch::kTagControl, command_);
}

// Told to end: a daemon's connection closing is its end, not a loss to
// dial again (each redial was a route ranking and a refused connect).
void JobLaunch::send_teardown(bool failed, const std::vector<std::uint32_t>& relayed) {
  end_progress();
  stdin_.reset();
  launcher_->cancel_waiting();
  (void)broadcast(launch::Teardown{.signal = SIGKILL, .reason = failed ? "the job failed" : "the job is done"});
  for (std::uint32_t c : relayed) oob_->forget_peer(name(c));
}

void JobLaunch::release_daemon(std::uint32_t vpid) {
  auto bytes = launch::encode(launch::Teardown{.signal = SIGKILL, .reason = "its ranks are done"});
  if (bytes) outbox_->post(name(vpid), launch::kTagControl, std::move(bytes.value()));
  // Its connection closing is now its end, not a loss to dial again.
  oob_->forget_peer(name(vpid));
}

void JobLaunch::on_agent_exit(std::uint32_t vpid, int wait_status, const std::string& tail) {
  if (vpid == JobMachine::kEveryDaemon) {
    machine_->step_ended(wait_status, tail, step_program_);
  } else {
    machine_->agent_exited(vpid, wait_status, tail);
  }
}

Status JobLaunch::broadcast(const launch::WireMessage& message) {
  auto bytes = launch::encode(message);
  if (!bytes) return bytes.error();
  auto shared = std::make_shared<const std::vector<std::uint8_t>>(std::move(bytes.value()));
  Status first;
  for (std::uint32_t c : plan_.tree->children(0)) {
    if (!oob_->knows(name(c)) || machine_->is_gone(c)) continue;
    if (Status st = oob_->send(name(c), launch::kTagControl, shared); !st && first) first = st;
  }
  return first;
}

void JobLaunch::on_status(ProcessName from, std::span<const std::uint8_t> bytes) {
  auto m = launch::decode(bytes);
  if (!m) return;
  if (launch::job_of(m.value()) != 0) {
    if (held_ && hold_->job_message) hold_->job_message(from, std::move(m.value()));
    return;
  }
  if (auto* record = std::get_if<launch::ExitRecord>(&m.value())) {
    machine_->rank_ended(*record);
    if (machine_->ranks_left() == 0 && !t_ended_) t_ended_ = Clock::now();
  } else if (auto* failure = std::get_if<launch::DaemonFailure>(&m.value())) {
    machine_->daemon_failed(failure->vpid, failure->message);
  } else if (auto* abort = std::get_if<launch::RankAbort>(&m.value())) {
    machine_->rank_aborted(*abort);
  } else if (auto* job_failure = std::get_if<launch::JobFailure>(&m.value())) {
    machine_->job_failed(*job_failure);
  } else if (auto* answer = std::get_if<launch::DataPlaneAnswer>(&m.value())) {
    data_plane_answered(*answer);
  } else if (auto* mesh = std::get_if<launch::MeshResult>(&m.value())) {
    mesh_checked(*mesh);
  } else if (auto* done = std::get_if<launch::DaemonDone>(&m.value())) {
    if (done->vpid == from.vpid) machine_->daemon_done(done->vpid);  // only of itself: the oob names the sender
  }
}

std::unique_ptr<pmi::FenceRoot> JobLaunch::fence_root(const launch::LaunchCommand& command) const {
  std::vector<std::string> hosts(daemons() + 1);
  for (std::uint32_t v = 1; v <= daemons(); ++v) hosts[v] = printable(daemon_[v].host);
  return std::make_unique<pmi::FenceRoot>(*plan_.tree, launch::ranks_per_daemon(command.placements, daemons()),
                                          plan_.pmi_bound, std::move(hosts));
}

void JobLaunch::on_fence(ProcessName from, std::span<const std::uint8_t> bytes) {
  auto m = launch::decode(bytes);
  if (m && launch::job_of(m.value()) != 0) {
    if (held_ && hold_->job_message) hold_->job_message(from, std::move(m.value()));
    return;
  }
  // From the command on: with an early start, still in WireUp.
  if (!m || !std::holds_alternative<launch::FenceData>(m.value()) || !fences_ ||
      (machine_->phase() != JobPhase::Running && machine_->phase() != JobPhase::WireUp)) {
    return;
  }
  auto release = fences_->add(from.vpid, std::get<launch::FenceData>(m.value()), Clock::now());
  if (!release) {
    machine_->fail_and_stop_ranks(release.error(), 1);
    return;
  }
  if (release.value()) (void)broadcast(*release.value());
}

}  // namespace orca::orcarun
