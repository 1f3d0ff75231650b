// JobLaunch: wire-up, the command, output, exits and teardown.
#include "job_launch.h"

#include <orca/child_process.h>
#include <orca/mca_forward.h>
#include <orca/oob.h>

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

// After teardown, how long the agents may take to end before they are
// killed.
constexpr std::chrono::milliseconds kTeardownLimit{10000};
// After a daemon failed, how long the ranks elsewhere get to report
// their end (and their last output) once they were killed.
constexpr std::chrono::milliseconds kDrainLimit{3000};
// After a lost daemon's agent was sent SIGTERM, how long it may take to
// end (its daemon ending its ranks first) before it is SIGKILLed.
constexpr std::chrono::milliseconds kLostAgentGrace{1000};
// After the oob lost a daemon that is orcarun's own child, how long orcarun
// waits for its exit (the kernel's word on how it ended) before
// it reports the oob's inference (a refused or reset connection, a silent
// peer) instead.
constexpr std::chrono::milliseconds kAgentExitWait{200};
// When the progress line starts (stderr a terminal only) and how often it changes.
constexpr std::chrono::milliseconds kProgressAfter{2000};
constexpr std::chrono::milliseconds kProgressEvery{250};

int exit_code_of(int wait_status) {
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return WEXITSTATUS(wait_status);
}

// Seconds as the user would write them ("1", "0.5", "60"), not
// std::to_string's "1.000000".
std::string seconds_text(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", seconds);
  return buf;
}

std::string milliseconds_since(Clock::time_point from, std::optional<Clock::time_point> to) {
  if (!to) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%10.1f", static_cast<double>(std::chrono::duration_cast<std::chrono::microseconds>(*to - from).count()) / 1000.0);
  return buf;
}

// A daemon (or its agent, reporting it as a shell does) that died of a
// fault rather than the signals orcarun sends: a bug worth saying, even
// when the job itself is over.
bool crashed(int wait_status) {
  auto fault = [](int sig) { return sig == SIGSEGV || sig == SIGABRT || sig == SIGBUS || sig == SIGFPE || sig == SIGILL; };
  if (WIFSIGNALED(wait_status)) return fault(WTERMSIG(wait_status));
  return WIFEXITED(wait_status) && WEXITSTATUS(wait_status) > 128 && fault(WEXITSTATUS(wait_status) - 128);
}

// What to check when a daemon did not come up or failed, for the
// launcher that started it.
std::string launcher_hint(const std::string& component, const std::string& host) {
  if (component == "rsh") return "If the host cannot be reached, check the host name and plm_rsh_agent (try: AGENT " + host + " true)";
  if (component == "slurm") {
    return "Check what srun printed above and the node's state in Slurm (sinfo -n " + host +
           "); --mca plm rsh starts the daemons through ssh instead";
  }
  return "Check what the daemon printed above (plm/" + component + ")";
}

}  // namespace

JobLaunch::JobLaunch(Process& process, const Options& options, JobPlan plan, Clock::time_point started)
    : process_(process), options_(options), plan_(std::move(plan)), t_start_(started) {
  daemon_.resize(daemons() + 1);
  for (std::uint32_t v = 1; v <= daemons(); ++v) daemon_[v].host = plan_.nodes[v - 1].name;
  rank_done_.assign(plan_.ranks.placements.size(), false);
  ranks_left_ = static_cast<std::uint32_t>(plan_.ranks.placements.size());
  if (plan_.start_early) arrivals_.emplace(*plan_.tree);
}

JobLaunch::~JobLaunch() = default;

void JobLaunch::show(const Message& message) {
  if (printer_) {
    printer_->end_open_line(iof::Stream::Stderr);
    printer_->end_open_line(iof::Stream::Stdout);
  }
  if (progress_shown_) {
    say("\r\033[K");
    progress_shown_ = false;
  }
  std::ostringstream text;
  process_.runtime().help().show(message, text, true);
  say(text.str());
}

void JobLaunch::say(std::string_view text) {
  if (err_) {
    err_->write(text);
  } else {
    std::cerr << text;  // before open(): nothing of the job runs yet
  }
}

// A chunk of daemon `vpid`'s output is written: its credit, once a
// quarter window of it is owed (iof_flow.h).
void JobLaunch::output_written(std::uint32_t vpid, std::uint64_t bytes) {
  if (vpid == 0 || vpid > daemons() || daemon_[vpid].gone) return;
  auto credit = credits_->written(vpid, bytes);
  if (!credit) return;
  auto encoded = launch::encode(launch::OutputCredit{.bytes = static_cast<std::uint32_t>(std::min<std::uint64_t>(*credit, UINT32_MAX))});
  if (encoded) outbox_->post(name(vpid), launch::kTagOutputCredit, std::move(encoded.value()));
}

// orcarun's stdout reader is gone (`orcarun ... | head -1`): the job ends
// as a pipeline's writer does, with 128 + SIGPIPE and nothing more said.
void JobLaunch::output_broken() {
  if (failed_) return;
  failed_ = true;
  exit_status_ = 128 + SIGPIPE;
  if (phase_ == Phase::WireUp) {
    begin_teardown();
    return;
  }
  signal_ranks(SIGTERM);
}

std::string JobLaunch::describe(std::uint32_t vpid) const {
  return printable(daemon_[vpid].host) + " (daemon " + std::to_string(vpid) + ")";
}

Status JobLaunch::open() {
  std::random_device random;
  job_ = (random() & 0x7fffffffu) | 1u;
  const std::string secret_hex = oob::new_job_secret_hex();
  for (size_t i = 0; i + 1 < secret_hex.size(); i += 2) {
    secret_.push_back(static_cast<std::uint8_t>(std::stoul(secret_hex.substr(i, 2), nullptr, 16)));
  }
  settings_text_ = mca::encode_settings(mca::forwardable_settings(process_.runtime().registry()));
  auto oob = process_.open_oob(name(0), secret_);
  if (!oob) return oob.error();
  oob_ = oob.value();
  oob_->set_router(routed::make_router(*plan_.tree, name(0)));

  // The ranks' output: every chunk's bytes are credited to its daemon
  // once written; a stdout nobody reads any more ends the job, a stderr
  // nobody reads only loses what goes there.
  out_ = std::make_unique<StreamWriter>(
      process_.loop(), 1,
      StreamWriter::Hooks{.written = [this](std::uint32_t v, std::uint64_t n) { output_written(v, n); },
                          .broken = [this] { output_broken(); }});
  err_ = std::make_unique<StreamWriter>(
      process_.loop(), 2, StreamWriter::Hooks{.written = [this](std::uint32_t v, std::uint64_t n) { output_written(v, n); }, .broken = {}});
  const std::uint64_t window = iof::output_window(plan_.output_buffer, daemons());
  credits_ = std::make_unique<iof::CreditLedger>(window);
  outbox_ = std::make_unique<oob::Outbox>(*oob_);
  auto sink = [this](StreamWriter& w) {
    return [this, &w](std::string_view t) {
      w.write(t, printing_from_, std::exchange(printing_credit_, 0));
    };
  };
  iof::OutputPrinter::Sinks sinks{.out = sink(*out_), .err = sink(*err_)};
  printer_ = std::make_unique<iof::OutputPrinter>(std::move(sinks), options_.tag_output);

  oob_->on_receive(launch::kTagHello, [this](ProcessName from, std::span<const std::uint8_t> b) { on_hello(from, b); });
  oob_->on_receive(launch::kTagReport, [this](ProcessName, std::span<const std::uint8_t> b) { on_report(b); });
  oob_->on_receive(launch::kTagStatus, [this](ProcessName from, std::span<const std::uint8_t> b) { on_status(from, b); });
  oob_->on_receive(launch::kTagOutput, [this](ProcessName from, std::span<const std::uint8_t> b) { on_output(from, b); });
  oob_->on_receive(launch::kTagFence, [this](ProcessName from, std::span<const std::uint8_t> b) { on_fence(from, b); });
  oob_->on_receive(launch::kTagCredit, [this](ProcessName, std::span<const std::uint8_t> b) {
    auto m = launch::decode(b);
    if (m && stdin_) {
      if (auto* c = std::get_if<launch::StdinCredit>(&m.value())) stdin_->credit(c->bytes);
    }
  });
  oob_->on_peer_lost([this](ProcessName peer, const std::string& why) {
    if (peer.vpid == 0 || peer.vpid > daemons() || phase_ == Phase::TearingDown || phase_ == Phase::Done) return;
    daemon_lost(peer.vpid, "the oob lost the daemon on " + describe(peer.vpid) + ": " + why);
  });

  plm::DaemonLauncher::Hooks hooks;
  hooks.on_exit = [this](std::uint32_t vpid, int status, const std::string& tail) { on_agent_exit(vpid, status, tail); };
  hooks.on_output = [this](std::uint32_t vpid, const std::string& line) {
    if (printer_) printer_->end_open_line(iof::Stream::Stderr);
    // A line a daemon relays from its own children already names its host.
    const bool named = line.rfind("[orcad ", 0) == 0;
    // One launch for every daemon: its lines are srun's or any daemon's.
    const std::string who = vpid == plm::DaemonLauncher::kEveryDaemon ? "[orcad via " + printable(step_program_) + "] "
                                                                       : "[orcad " + printable(daemon_[vpid].host) + "] ";
    say((named ? std::string() : who) + printable(line) + "\n");
    if (vpid == plm::DaemonLauncher::kEveryDaemon) daemon_ended_said(line);
  };
  hooks.on_failed_start = [this](std::uint32_t vpid, const Message& why) {
    if (vpid == plm::DaemonLauncher::kEveryDaemon) {
      fail_job(why, 1);
      return;
    }
    daemon_failed(vpid, "cannot start the agent for " + describe(vpid) + ": " + plm::spawn_failure_text(why));
  };
  launcher_ = std::make_unique<plm::DaemonLauncher>(process_.loop(), plan_.plm.module->max_concurrent(plan_.plm.module->self),
                                                    std::move(hooks));
  sigint_ = std::make_unique<SignalWatch>(process_.loop(), SIGINT, [this] { on_signal(SIGINT); });
  sigterm_ = std::make_unique<SignalWatch>(process_.loop(), SIGTERM, [this] { on_signal(SIGTERM); });
  return {};
}

launch::Bootstrap JobLaunch::bootstrap_for(std::uint32_t vpid) const {
  const std::uint32_t parent = vpid == plm::DaemonLauncher::kEveryDaemon ? 0 : plan_.tree->parent(vpid);
  launch::Bootstrap b{.job = job_,
                      .vpid = vpid,
                      .daemons = daemons(),
                      .parent = parent,
                      .parent_uri = parent == 0 ? oob_->contact_uri() : daemon_[parent].report.contact_uri,
                      .secret = secret_,
                      .settings = settings_text_,
                      .daemon_command = plan_.daemon_command,
                      .flags = (plan_.tree_spawn ? launch::kBootstrapTreeSpawn : 0u) |
                               (options_.report_topology ? launch::kBootstrapReportTopology : 0u)};
  b.launched_at_us = launch::monotonic_microseconds();
  b.unused_components = plan_.unused_components;
  b.hosts.reserve(daemons());
  for (const auto& n : plan_.nodes) b.hosts.push_back(n.name);
  return b;
}

void JobLaunch::launch_daemon(std::uint32_t vpid) {
  Daemon& d = daemon_[vpid];
  if (d.launched) return;
  d.launched = true;
  // The first bootstrap is made here too, to find what would be wrong
  // with every one (a field above its bound, the same for all); each is
  // made as its agent starts: a queued launch holds no bootstrap (each
  // names every host of the job).
  if (!bootstrap_checked_) {
    bootstrap_checked_ = true;
    if (auto frame = launch::bootstrap_frame(bootstrap_for(vpid)); !frame) {
      fail_job(frame.error(), 1);
      return;
    }
  }
  auto argv = plm::daemon_command(plan_.plm, d.host, plan_.daemon_command);
  if (!argv) {
    fail_job(argv.error(), 1);
    return;
  }
  // The agent's words are the daemon's own (plm/local): its exit is the
  // daemon's, and says how the daemon ended.
  d.agent_is_daemon = argv.value() == plan_.daemon_command;
  launcher_->launch({.vpid = vpid,
                     .host = d.host,
                     .argv = std::move(argv.value()),
                     .bootstrap = {},
                     .make_bootstrap = [this, vpid] {
                       auto frame = launch::bootstrap_frame(bootstrap_for(vpid));
                       return frame ? std::move(frame.value()) : std::vector<std::uint8_t>();
                     }});
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
  for (std::uint32_t v = 1; v <= daemons(); ++v) {
    daemon_[v].launched = true;
    hosts.push_back(daemon_[v].host);
  }
  auto frame = launch::bootstrap_frame(bootstrap_for(plm::DaemonLauncher::kEveryDaemon));
  if (!frame) {
    fail_job(frame.error(), 1);
    return;
  }
  auto argv = plm::all_daemons_command(plan_.plm, hosts, plan_.daemon_command);
  if (!argv) {
    fail_job(argv.error(), 1);
    return;
  }
  step_program_ = argv->front();
  plm::DaemonLauncher::Launch l{.vpid = plm::DaemonLauncher::kEveryDaemon,
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
// (srun: "srun: error: h3: task 1: Killed"): that daemon failed. It comes
// before the launcher ends the others, whose ranks' ends would otherwise
// be taken for the cause.
void JobLaunch::daemon_ended_said(const std::string& line) {
  const std::string host = plm::ended_host(plan_.plm, line);
  if (host.empty()) return;
  for (std::uint32_t v = 1; v <= daemons(); ++v) {
    if (daemon_[v].host == host) {
      daemon_failed(v, printable(step_program_) + " reports that its task there ended: " + printable(line));
      return;
    }
  }
}

// The contact URI of daemon `vpid`, just up, to the daemons started at
// the same time whose parent it is.
void JobLaunch::relay_contact(const launch::DaemonReport& report) {
  if (plan_.tree->children(report.vpid).empty()) return;
  auto frame = launch::stdin_frame(launch::DaemonReport{.vpid = report.vpid, .contact_uri = report.contact_uri});
  if (!frame) {
    fail_job(frame.error(), 1);
    return;
  }
  (void)launcher_->send(plm::DaemonLauncher::kEveryDaemon, std::move(frame.value()));
}

// Without tree spawn orcarun starts every daemon, each once its parent in
// the routing tree is up (a daemon connects to its parent, so the parent's
// contact URI must be known first).
void JobLaunch::launch_children_of(std::uint32_t vpid) {
  for (std::uint32_t c : plan_.tree->children(vpid)) launch_daemon(c);
}

int JobLaunch::run() {
  if (Status st = open(); !st) {
    show(st.error());
    return 1;
  }
  if (all_at_once()) {
    launch_all();
  } else {
    launch_children_of(0);  // with tree spawn they start the rest, else on_report does
  }
  t_agents_ = launcher_->last_start();
  startup_timer_ = std::make_unique<Timer>(process_.loop(), [this] {
    std::string missing, first;
    for (std::uint32_t v = 1; v <= daemons(); ++v) {
      if (daemon_[v].up) continue;
      missing += "\n  " + describe(v) + (daemon_[v].launched ? "" : ": not started (its parent never came up)");
      if (first.empty()) first = printable(daemon_[v].host);
    }
    fail_job(Message("orcarun", "startup-timeout",
                     {{"hint", launcher_hint(plan_.plm.component, first)},
                      {"seconds", seconds_text(static_cast<double>(plan_.startup_timeout.count()) / 1000.0)},
                      {"up", std::to_string(up_count_)},
                      {"daemons", std::to_string(daemons())},
                      {"missing", missing}}),
             1);
  });
  startup_timer_->start(plan_.startup_timeout);
  if (::isatty(2)) {
    progress_timer_ = std::make_unique<Timer>(process_.loop(), [this] { show_progress(); });
    progress_timer_->start(kProgressAfter);
  }
  if (phase_ != Phase::Done) process_.loop().run();
  if (options_.report_routes) print_collectives();
  if (options_.timing) print_timing();
  // What the job printed and a slow reader has not taken yet: all of it,
  // in order, before orcarun exits.
  out_->flush_blocking();
  err_->flush_blocking();
  return exit_status_;
}

void JobLaunch::on_hello(ProcessName from, std::span<const std::uint8_t> bytes) {
  auto m = launch::decode(bytes);
  if (!m || !std::holds_alternative<launch::DaemonReport>(m.value())) return;
  const auto& hello = std::get<launch::DaemonReport>(m.value());
  if (hello.vpid != from.vpid || from.vpid == 0 || from.vpid > daemons() || plan_.tree->parent(from.vpid) != 0) return;
  if (Status st = oob_->add_peer(from, hello.contact_uri); !st) {
    daemon_failed(from.vpid, "cannot reach the daemon on " + describe(from.vpid) + ": " + st.error().summary());
    return;
  }
  daemon_[from.vpid].hello = true;
  launcher_->daemon_up(from.vpid);
}

void JobLaunch::on_report(std::span<const std::uint8_t> bytes) {
  auto m = launch::decode(bytes);
  if (!m || !std::holds_alternative<launch::DaemonReport>(m.value())) return;
  auto& report = std::get<launch::DaemonReport>(m.value());
  if (report.vpid == 0 || report.vpid > daemons()) return;
  const std::uint32_t vpid = report.vpid;
  Daemon& d = daemon_[vpid];
  if (d.up) return;
  d.up = true;
  d.report = std::move(report);
  // A daemon below another never says hello to orcarun: its report, come
  // up the tree, is what ends its launch's turn in flight.
  launcher_->daemon_up(vpid);
  ++up_count_;
  if (!t_first_up_) t_first_up_ = Clock::now();
  if (all_at_once()) {
    relay_contact(d.report);
  } else if (!plan_.tree_spawn && phase_ == Phase::WireUp) {
    // Not during the teardown: a daemon started after it would not hear it.
    launch_children_of(d.report.vpid);
  }
  if (arrivals_ && phase_ == Phase::WireUp && !failed_) {
    if (const auto child = arrivals_->arrived(vpid)) start_early(*child);
  }
  if (up_count_ == daemons() && phase_ == Phase::WireUp) all_up();
}

// A part of the tree is up and nothing holds the job for the rest
// (early_start.h): its ranks start now. Until every daemon is up the
// phase stays WireUp, so a failure, a signal or the start-up timeout
// still ends the job by its teardown, which ends these ranks too.
void JobLaunch::start_early(std::uint32_t child) {
  if (Status sent = command_child(child); !sent) command_not_sent(sent.error());
}

// Else the job would wait forever for ranks no daemon starts (an
// environment forwarded past oob_*_max_msg_size, say).
void JobLaunch::command_not_sent(const Message& why) {
  fail_job(Message("orcarun", "command-not-sent", {{"why", why.arg("why").empty() ? why.summary() : why.arg("why")}}), 1);
  begin_teardown();
}

void JobLaunch::all_up() {
  t_all_up_ = Clock::now();
  t_agents_ = launcher_->last_start();  // the last agent orcarun itself started
  startup_timer_.reset();
  progress_timer_.reset();
  if (progress_shown_) {
    say("\r\033[K");
    progress_shown_ = false;
  }
  if (plan_.data_plane_families.empty()) {
    start_command();
    return;
  }
  // The data plane: each distinct host's first daemon chooses its host's
  // link from the other hosts' addresses; the command waits for them all.
  std::vector<DataPlaneGather::DaemonAt> at;
  for (std::uint32_t v = 1; v <= daemons(); ++v) at.push_back({.vpid = v, .host = printable(daemon_[v].host), .report = &daemon_[v].report});
  const std::uint32_t rank0 = plan_.ranks.placements.empty() ? 1 : static_cast<std::uint32_t>(plan_.ranks.placements[0].node + 1);
  gather_ = std::make_unique<DataPlaneGather>(plan_.data_plane_families, at, rank0, plan_.mesh_check, forwarded_environment());
  auto bytes = launch::encode(gather_->directory());
  if (!bytes) {
    fail_job(bytes.error(), 1);
    begin_teardown();
    return;
  }
  auto shared = std::make_shared<const std::vector<std::uint8_t>>(std::move(bytes.value()));
  for (std::uint32_t v : gather_->asked()) {
    if (Status st = oob_->send(name(v), launch::kTagDirectory, shared); !st) {
      // Through the tree, a busy next hop may refuse for a moment: the
      // outbox retries (copying is fine here, once per host).
      outbox_->post(name(v), launch::kTagDirectory, *shared);
    }
  }
  data_plane_timer_ = std::make_unique<Timer>(process_.loop(), [this] {
    std::string missing;
    for (std::uint32_t v : gather_->asked()) {
      if (!gather_->answered(v)) missing += "\n  " + describe(v);
    }
    fail_job(Message("orcarun", "data-plane-timeout",
                     {{"seconds", seconds_text(static_cast<double>(plan_.startup_timeout.count()) / 1000.0)}, {"missing", missing}}),
             1);
    begin_teardown();
  });
  data_plane_timer_->start(plan_.startup_timeout);
}

void JobLaunch::data_plane_answered(const launch::DataPlaneAnswer& answer) {
  if (!gather_ || phase_ != Phase::WireUp || failed_ || gather_->complete()) return;
  if (!gather_->take(answer)) return;
  data_plane_timer_.reset();
  t_data_plane_ = Clock::now();
  if (!plan_.mesh_check || gather_->asked().size() < 2) {
    start_command();
    return;
  }
  // The full-mesh check: every host dials every other host's link, 16 at
  // a time, before any rank can hang on a pair that does not connect.
  constexpr std::uint32_t kMeshConcurrency = 16;
  const launch::MeshCheck check = gather_->mesh_check(kMeshConcurrency, plan_.mesh_check_timeout);
  auto bytes = launch::encode(check);
  if (!bytes) {
    fail_job(bytes.error(), 1);
    begin_teardown();
    return;
  }
  for (std::uint32_t v : gather_->asked()) outbox_->post(name(v), launch::kTagDirectory, bytes.value());
  const auto rounds = static_cast<std::int64_t>((check.targets.size() + kMeshConcurrency - 1) / kMeshConcurrency);
  data_plane_timer_ = std::make_unique<Timer>(process_.loop(), [this] {
    fail_job(Message("orcarun", "mesh-check-failed",
                     {{"pairs", "\n  (not every host reported its check in time)"}}), 1);
    begin_teardown();
  });
  data_plane_timer_->start(plan_.mesh_check_timeout * (rounds + 1) + std::chrono::seconds(5));
}

void JobLaunch::mesh_checked(const launch::MeshResult& result) {
  if (!gather_ || phase_ != Phase::WireUp || failed_ || !gather_->complete()) return;
  if (!gather_->take_mesh(result)) return;
  data_plane_timer_.reset();
  t_mesh_checked_ = Clock::now();
  if (const auto failures = gather_->mesh_failures(); !failures.empty()) {
    std::string pairs;
    for (const auto& f : failures) pairs += "\n  " + printable(f);
    fail_job(Message("orcarun", "mesh-check-failed", {{"pairs", pairs}}), 1);
    begin_teardown();
    return;
  }
  start_command();
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
  phase_ = Phase::Running;
  Status sent = prepare_command();
  for (std::uint32_t c : plan_.tree->children(0)) {
    if (!sent) break;
    if (!daemon_[c].commanded) sent = command_child(c);
  }
  if (!sent) {
    command_not_sent(sent.error());
    return;
  }
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
  command.argv = options_.command;
  command.environment = forwarded_environment();
  if (gather_) gather_->fill(command);
  command.size = static_cast<std::uint32_t>(plan_.ranks.placements.size());
  for (const auto& p : plan_.ranks.placements) {
    command.placements.push_back({.rank = p.rank, .daemon = static_cast<std::uint32_t>(p.node + 1), .local_rank = p.local_rank});
  }
  char cwd[4096];
  if (::getcwd(cwd, sizeof cwd) != nullptr) command.directory = cwd;
  switch (options_.stdin_target) {
    case StdinTarget::None: command.stdin_target = launch::kStdinNone; break;
    case StdinTarget::All: command.stdin_target = launch::kStdinAll; break;
    case StdinTarget::Rank: command.stdin_target = static_cast<std::int32_t>(options_.stdin_rank); break;
  }
  auto bytes = launch::encode(launch::WireMessage(command));
  if (!bytes) return bytes.error();
  command_ = std::make_shared<const std::vector<std::uint8_t>>(std::move(bytes.value()));
  std::vector<std::string> hosts(daemons() + 1);
  for (std::uint32_t v = 1; v <= daemons(); ++v) hosts[v] = printable(daemon_[v].host);
  fences_ = std::make_unique<FenceRoot>(*plan_.tree, launch::ranks_per_daemon(command.placements, daemons()),
                                        plan_.pmi_bound, std::move(hosts));
  t_command_ = Clock::now();
  // Ranks print from here on: the progress line would cut into their lines.
  progress_timer_.reset();
  if (progress_shown_) {
    say("\r\033[K");
    progress_shown_ = false;
  }
  if (options_.timeout_seconds) {
    timeout_timer_ = std::make_unique<Timer>(process_.loop(), [this] {
      fail_job(Message("orcarun", "job-timeout", {{"seconds", seconds_text(*options_.timeout_seconds)}}), 0);
      signal_ranks(SIGTERM);
    });
    timeout_timer_->start(std::chrono::duration<double>(*options_.timeout_seconds));
  }
  return {};
}

Status JobLaunch::command_child(std::uint32_t child) {
  if (Status made = prepare_command(); !made) return made;
  Daemon& d = daemon_[child];
  if (d.commanded || d.gone || !oob_->knows(name(child))) return {};
  d.commanded = true;
  return oob_->send(name(child), launch::kTagControl, command_);
}

Status JobLaunch::broadcast(const launch::WireMessage& message) {
  auto bytes = launch::encode(message);
  if (!bytes) return bytes.error();
  auto shared = std::make_shared<const std::vector<std::uint8_t>>(std::move(bytes.value()));
  Status first;
  for (std::uint32_t c : plan_.tree->children(0)) {
    if (!oob_->knows(name(c)) || daemon_[c].gone) continue;
    if (Status st = oob_->send(name(c), launch::kTagControl, shared); !st && first) first = st;
  }
  return first;
}

void JobLaunch::on_output(ProcessName from, std::span<const std::uint8_t> bytes) {
  auto m = launch::decode(bytes);
  if (!m) return;
  auto* chunk = std::get_if<launch::OutputChunk>(&m.value());
  if (!chunk || from.vpid == 0 || from.vpid > daemons()) return;
  const std::string_view text(reinterpret_cast<const char*>(chunk->bytes.data()), chunk->bytes.size());
  // print() makes one sink write of a chunk that is not empty; the sink
  // takes the credit with it.
  printing_from_ = from.vpid;
  printing_credit_ = chunk->bytes.size();
  printer_->print(chunk->rank, chunk->stream == launch::Stream::Stdout ? iof::Stream::Stdout : iof::Stream::Stderr, text,
                  chunk->partial);
  printing_from_ = 0;
  printing_credit_ = 0;
}

void JobLaunch::on_status(ProcessName from, std::span<const std::uint8_t> bytes) {
  auto m = launch::decode(bytes);
  if (!m) return;
  if (auto* record = std::get_if<launch::ExitRecord>(&m.value())) {
    rank_ended(*record);
  } else if (auto* failure = std::get_if<launch::DaemonFailure>(&m.value())) {
    if (failure->vpid >= 1 && failure->vpid <= daemons()) daemon_failed(failure->vpid, failure->message);
  } else if (auto* abort = std::get_if<launch::RankAbort>(&m.value())) {
    rank_aborted(*abort);
  } else if (auto* job_failure = std::get_if<launch::JobFailure>(&m.value())) {
    job_failed(*job_failure);
  } else if (auto* answer = std::get_if<launch::DataPlaneAnswer>(&m.value())) {
    data_plane_answered(*answer);
  } else if (auto* mesh = std::get_if<launch::MeshResult>(&m.value())) {
    mesh_checked(*mesh);
  } else if (auto* done = std::get_if<launch::DaemonDone>(&m.value())) {
    if (done->vpid == from.vpid) daemon_done(done->vpid);  // only of itself: the oob names the sender
  }
}

// A daemon whose part of the job is over (DaemonDone) ends now, if what
// orcarun knows agrees: it is a child of orcarun's own (a deeper one would
// leave its parent reporting it lost) and every rank placed on it ended.
// From here it counts as gone: nothing more is sent to it, and its end
// (connection, agent) is no failure; a crash at its end still is.
void JobLaunch::daemon_done(std::uint32_t vpid) {
  if (vpid == 0 || vpid > daemons()) return;
  Daemon& d = daemon_[vpid];
  // Early started (WireUp), a daemon can be done before the last is up.
  const bool commanded_early = phase_ == Phase::WireUp && d.commanded;
  if (phase_ != Phase::Running && phase_ != Phase::Draining && !commanded_early) return;
  if (d.gone || plan_.tree->parent(vpid) != 0 || !plan_.tree->children(vpid).empty()) return;
  for (const auto& p : plan_.ranks.placements) {
    if (p.node + 1 == vpid && !rank_done_[p.rank]) return;
  }
  auto bytes = launch::encode(launch::Teardown{.signal = SIGKILL, .reason = "its ranks are done"});
  if (!bytes) return;
  d.released = true;
  d.gone = true;
  outbox_->post(name(vpid), launch::kTagControl, std::move(bytes.value()));
  // Its connection closing is now its end, not a loss to dial again.
  oob_->forget_peer(name(vpid));
}

void JobLaunch::on_fence(ProcessName from, std::span<const std::uint8_t> bytes) {
  auto m = launch::decode(bytes);
  // From the command on: with an early start, still in WireUp.
  if (!m || !std::holds_alternative<launch::FenceData>(m.value()) || !fences_ ||
      (phase_ != Phase::Running && phase_ != Phase::WireUp)) {
    return;
  }
  auto release = fences_->add(from.vpid, std::get<launch::FenceData>(m.value()), Clock::now());
  if (!release) {
    fail_job(release.error(), 1);
    signal_ranks(SIGTERM);
    return;
  }
  if (release.value()) (void)broadcast(*release.value());
}

void JobLaunch::job_failed(const launch::JobFailure& failure) {
  if (failed_ || failure.vpid < 1 || failure.vpid > daemons()) return;
  // The daemon's message, made safe to show: a help file and topic named
  // by [a-z0-9-] only (no path), its values printable.
  const auto name = [](std::string text) {
    std::erase_if(text, [](char c) { return !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'); });
    return text;
  };
  Message::Args args;
  for (const auto& kv : failure.args) args.emplace_back(printable(kv.key), printable(kv.value));
  fail_job(Message(name(failure.area), name(failure.topic), std::move(args)), 1);
  signal_ranks(SIGTERM);
}

void JobLaunch::rank_aborted(const launch::RankAbort& abort) {
  if (abort.rank >= plan_.ranks.placements.size() || failed_) return;
  const std::uint32_t vpid = static_cast<std::uint32_t>(plan_.ranks.placements[abort.rank].node + 1);
  const std::string rank = std::to_string(abort.rank), host = printable(daemon_[vpid].host);
  if (abort.broke) {
    fail_job(Message("orcarun", "rank-broke-pmi", {{"rank", rank}, {"host", host}, {"why", printable(abort.message)}}), 1);
  } else {
    fail_job(Message("orcarun", "rank-aborted", {{"rank", rank}, {"host", host}, {"status", std::to_string(abort.status)},
                                                 {"message", abort.message.empty() ? std::string() : ": " + printable(abort.message)}}),
             abort.status);
  }
  signal_ranks(SIGTERM);
}

void JobLaunch::rank_ended(const launch::ExitRecord& record) {
  if (record.rank >= rank_done_.size() || rank_done_[record.rank]) return;
  rank_done_[record.rank] = true;
  --ranks_left_;
  const bool ok = record.started && WIFEXITED(record.wait_status) && WEXITSTATUS(record.wait_status) == 0;
  // An MPI rank that exits, even with 0, between init and finalize leaves
  // its peers waiting for it in their next collective.
  const bool unfinished = ok && record.pmi == launch::PmiProgress::Initialized;
  if ((!ok || unfinished) && !failed_) {
    const auto& p = plan_.ranks.placements[record.rank];
    const std::uint32_t vpid = static_cast<std::uint32_t>(p.node + 1);
    if (unfinished) {
      fail_job(Message("orcarun", "rank-exited-unfinalized",
                       {{"rank", std::to_string(record.rank)}, {"host", printable(daemon_[vpid].host)},
                        {"command", printable(options_.command[0])}}),
               1);
    } else if (!record.started) {
      fail_job(Message("orcarun", "rank-not-started",
                       {{"rank", std::to_string(record.rank)}, {"host", printable(daemon_[vpid].host)},
                        {"command", printable(options_.command[0])}, {"why", printable(record.message)}}),
               127);
    } else {
      fail_job(Message("orcarun", "rank-failed",
                       {{"rank", std::to_string(record.rank)}, {"host", printable(daemon_[vpid].host)},
                        {"how", plm::describe_wait_status(record.wait_status)}, {"command", printable(options_.command[0])}}),
               exit_code_of(record.wait_status));
    }
    if (ranks_left_ > 0) {
      signal_ranks(SIGTERM);
    }
  }
  if (ranks_left_ == 0) {
    t_ended_ = Clock::now();
    begin_teardown();
  }
}

void JobLaunch::daemon_lost(std::uint32_t vpid, const std::string& message) {
  Daemon& d = daemon_[vpid];
  if (d.gone || d.awaiting_exit) return;
  // When orcarun runs the daemon itself (plm/local: the agent is the
  // daemon), a daemon SIGKILLed is noticed by the oob (its connection
  // refused) before its exit is reaped: that exit, "killed by signal 9",
  // is the better report. A daemon that is alive but silent (stopped)
  // does not exit: after the wait it is reported lost as before. An agent
  // that is not the daemon (ssh) would only say how it ended itself.
  if (d.agent_is_daemon && launcher_->runs(vpid)) {
    d.awaiting_exit = std::make_unique<Timer>(process_.loop(), [this, vpid, message] { daemon_failed(vpid, message); });
    d.awaiting_exit->start(kAgentExitWait);
    return;
  }
  daemon_failed(vpid, message);
}

void JobLaunch::daemon_failed(std::uint32_t vpid, const std::string& message) {
  if (phase_ == Phase::TearingDown || phase_ == Phase::Done) return;
  Daemon& d = daemon_[vpid];
  if (d.gone) return;
  d.gone = true;
  // Held to the end of this call: this may be its callback, whose
  // capture `message` refers to (a Timer allows being freed there).
  const std::unique_ptr<Timer> waited = std::move(d.awaiting_exit);
  // Read before fail_job: during wire-up it begins the teardown, and the
  // rest of this (a drain of the ranks) must not overwrite that phase.
  const bool wiring_up = phase_ == Phase::WireUp;
  fail_job(Message("orcarun", "daemon-failed", {{"host", printable(d.host)}, {"vpid", std::to_string(vpid)},
                                                 {"what", printable(message)},
                                                 {"hint", launcher_hint(plan_.plm.component, printable(d.host))}}),
           1);
  if (wiring_up) {
    begin_teardown();
    return;
  }
  if (phase_ == Phase::TearingDown || phase_ == Phase::Done) return;
  // The lost daemon itself may be alive but silent (stopped, or behind a
  // black hole): its agent goes now, not at the end of the teardown. With
  // ssh that closes the daemon's stdin, which ends it once it runs again.
  // Daemon first (end_lost: it ends its ranks' groups), SIGKILL if the
  // agent is still there after kLostAgentGrace.
  // With one launch for every daemon, its end is the end of all of them:
  // the teardown does that (srun's --kill-on-bad-exit ends a step whose
  // daemon died by itself).
  if (!all_at_once()) launcher_->end_lost(vpid);
  if (!all_at_once() && !lost_kill_timer_) {
    lost_kill_timer_ = std::make_unique<Timer>(process_.loop(), [this] {
      for (std::uint32_t v = 1; v <= daemons(); ++v) {
        if (daemon_[v].gone) launcher_->signal(v, SIGKILL);
      }
    });
  }
  if (lost_kill_timer_) lost_kill_timer_->start(kLostAgentGrace);
  // Daemons orcarun started below it lost their parent: end them now
  // rather than when their own connection attempts give up.
  for (std::uint32_t v : plan_.tree->subtree(vpid)) {
    if (v != vpid && daemon_[v].launched && !all_at_once()) launcher_->signal(v, SIGTERM);
  }
  // The ranks of that daemon's subtree are gone with it.
  for (std::uint32_t v : plan_.tree->subtree(vpid)) {
    daemon_[v].gone = true;
    for (const auto& p : plan_.ranks.placements) {
      if (p.node + 1 == v && !rank_done_[p.rank]) {
        rank_done_[p.rank] = true;
        --ranks_left_;
      }
    }
  }
  if (ranks_left_ == 0) {
    begin_teardown();
    return;
  }
  signal_ranks(SIGKILL);
  phase_ = Phase::Draining;
  drain_timer_ = std::make_unique<Timer>(process_.loop(), [this] { begin_teardown(); });
  drain_timer_->start(kDrainLimit);
}

void JobLaunch::fail_job(const Message& message, int status) {
  if (failed_) return;
  failed_ = true;
  exit_status_ = status != 0 ? status : 1;
  show(message);
  if (phase_ == Phase::WireUp) begin_teardown();
}

void JobLaunch::signal_ranks(int signo) {
  if (phase_ == Phase::WireUp || phase_ == Phase::TearingDown || phase_ == Phase::Done) return;
  (void)broadcast(launch::SignalRanks{.signal = signo});
  if (signo != SIGKILL && !grace_timer_) {
    grace_timer_ = std::make_unique<Timer>(process_.loop(), [this] { (void)broadcast(launch::SignalRanks{.signal = SIGKILL}); });
    grace_timer_->start(plan_.kill_grace);
  }
}

void JobLaunch::on_signal(int signo) {
  ++signals_seen_;
  if (phase_ == Phase::WireUp) {
    // Started early (orcarun_start_early), some ranks may run already.
    const char* ranks = command_ ? "and with them the ranks already started on those that were up" : "and no rank was started";
    show(Message("orcarun", "interrupted-wire-up", {{"signal", ::strsignal(signo)},
                                                    {"up", std::to_string(up_count_)},
                                                    {"daemons", std::to_string(daemons())},
                                                    {"ranks", ranks}}));
    failed_ = true;
    exit_status_ = 128 + signo;
    begin_teardown();
    return;
  }
  if (signals_seen_ >= 2) {
    (void)broadcast(launch::SignalRanks{.signal = SIGKILL});
    if (phase_ == Phase::TearingDown) launcher_->signal_all(SIGKILL);
    return;
  }
  signal_ranks(signo);
}

void JobLaunch::begin_teardown() {
  if (phase_ == Phase::TearingDown || phase_ == Phase::Done) return;
  phase_ = Phase::TearingDown;
  startup_timer_.reset();
  progress_timer_.reset();
  drain_timer_.reset();
  timeout_timer_.reset();
  grace_timer_.reset();
  stdin_.reset();
  launcher_->cancel_waiting();
  (void)broadcast(launch::Teardown{.signal = SIGKILL, .reason = failed_ ? "the job failed" : "the job is done"});
  // Told to end: a daemon's connection closing is its end, not a loss to
  // dial again (each redial was a route ranking and a refused connect).
  for (std::uint32_t c : plan_.tree->children(0)) oob_->forget_peer(name(c));
  // A daemon that has not said hello yet cannot hear the teardown: its
  // agent is told directly (a daemon still starting just ends). So is one
  // started here below another daemon that has not reported yet: its
  // parent relays the teardown only to the children it knows, and may not
  // know it (without tree spawn orcarun is its agent's parent; with tree
  // spawn, signal() finds no agent of it here and the parent's daemon does
  // the same for its own).
  // With one launch for every daemon (srun), SIGTERM to it cancels the
  // whole step: that is the teardown of a step that did not come up.
  for (std::uint32_t v = 1; v <= daemons(); ++v) {
    const bool reached = plan_.tree->parent(v) == 0 ? daemon_[v].hello : daemon_[v].up;
    if (daemon_[v].launched && !reached) {
      launcher_->signal(all_at_once() ? plm::DaemonLauncher::kEveryDaemon : v, SIGTERM);
      if (all_at_once()) break;
    }
  }
  teardown_timer_ = std::make_unique<Timer>(process_.loop(), [this] {
    launcher_->signal_all(SIGKILL);
    phase_ = Phase::Done;
    process_.loop().stop();
  });
  teardown_timer_->start(kTeardownLimit);
  maybe_done();
}

void JobLaunch::on_agent_exit(std::uint32_t vpid, int wait_status, const std::string& tail) {
  if (vpid == plm::DaemonLauncher::kEveryDaemon) {
    step_ended(wait_status, tail);
    return;
  }
  Daemon& d = daemon_[vpid];
  d.agent_tail = tail;
  if ((phase_ == Phase::TearingDown || phase_ == Phase::Done || d.released) && crashed(wait_status)) {
    show(Message("orcarun", "daemon-crashed-at-end",
                 {{"host", printable(d.host)}, {"vpid", std::to_string(vpid)}, {"how", plm::describe_wait_status(wait_status)},
                  {"printed", tail.empty() ? std::string("nothing") : printable(tail)}}));
    if (!failed_) exit_status_ = 1;
    failed_ = true;
  }
  if (phase_ != Phase::TearingDown && phase_ != Phase::Done && !d.gone) {
    const std::string printed = tail.empty() ? std::string("it printed nothing") : "it printed:\n" + tail;
    if (!d.up) {
      daemon_failed(vpid, "its agent (" + printable(plan_.plm.component) + ") " + plm::describe_wait_status(wait_status) +
                              " before the daemon reported; " + printed);
    } else {
      daemon_failed(vpid, "its daemon ended early: the agent " + plm::describe_wait_status(wait_status) + "; " + printed);
    }
  }
  maybe_done();
}

// The one launch of every daemon (srun) ended: at the end of the job,
// after the daemons; any earlier, every daemon is gone with it (srun
// --kill-on-bad-exit ends the step when one daemon dies).
void JobLaunch::step_ended(int wait_status, const std::string& tail) {
  const bool early = phase_ != Phase::TearingDown && phase_ != Phase::Done;
  if (!early && !crashed(wait_status)) {
    maybe_done();
    return;
  }
  std::string when = "as the job ended";
  if (phase_ == Phase::WireUp) {
    std::string missing;
    for (std::uint32_t v = 1; v <= daemons(); ++v) {
      if (!daemon_[v].up) missing += (missing.empty() ? "" : ", ") + printable(daemon_[v].host);
    }
    when = "while the daemons were starting (" + std::to_string(up_count_) + " of " + std::to_string(daemons()) +
           " up; not up: " + missing + ")";
  } else if (early) {
    when = "while the job ran";
  }
  const Message m("orcarun", "daemons-step-ended",
                  {{"component", printable(plan_.plm.component)},
                   {"program", printable(step_program_)},
                   {"how", plm::describe_wait_status(wait_status)},
                   {"when", when},
                   {"printed", tail.empty() ? std::string("nothing") : printable(tail)}});
  if (!early) {
    show(m);  // a daemon died of a fault at the end: a bug worth saying
    if (!failed_) exit_status_ = 1;
    failed_ = true;
  } else {
    fail_job(m, 1);
    for (std::uint32_t v = 1; v <= daemons(); ++v) daemon_[v].gone = true;
    std::fill(rank_done_.begin(), rank_done_.end(), true);
    ranks_left_ = 0;
    begin_teardown();
  }
  maybe_done();
}

void JobLaunch::maybe_done() {
  if (phase_ != Phase::TearingDown) return;
  if (launcher_->running() > 0) return;
  t_down_ = Clock::now();
  teardown_timer_.reset();
  phase_ = Phase::Done;
  process_.loop().stop();
}

void JobLaunch::show_progress() {
  std::string waiting;
  int listed = 0;
  for (std::uint32_t v = 1; v <= daemons() && listed < 8; ++v) {
    if (daemon_[v].up) continue;
    waiting += (listed++ ? ", " : "") + printable(daemon_[v].host);
  }
  if (listed == 8 && daemons() - up_count_ > 8) waiting += " ...";
  say("\r\033[Kdaemons up " + std::to_string(up_count_) + "/" + std::to_string(daemons()) + "; waiting for " +
                   waiting);
  progress_shown_ = true;
  progress_timer_->start(kProgressEvery);
}

void JobLaunch::print_routes() {
  std::string text = "routes (" + std::to_string(daemons()) + (daemons() == 1 ? " daemon" : " daemons") + ", routed/" + plan_.routed_component + ", plm/" +
                     plan_.plm.component + (plan_.tree_spawn ? ", tree spawn" : "") + "):\n";
  for (std::uint32_t v = 1; v <= daemons(); ++v) {
    const auto& r = daemon_[v].report;
    const std::uint32_t parent = plan_.tree->parent(v);
    // The host as the job names it; the machine's own name when it differs.
    std::string where = printable(daemon_[v].host);
    if (!r.hostname.empty() && r.hostname != daemon_[v].host && daemon_[v].host.find('#') == std::string::npos) {
      where += " [" + printable(r.hostname) + "]";
    }
    text += "  daemon " + std::to_string(v) + " on " + where +
            " -> " + (parent == 0 ? std::string("orcarun") : "daemon " + std::to_string(parent)) + ": " +
            (r.route.empty() ? std::string("(no connection recorded)") : printable(r.route)) + "\n";
  }
  say(text);
}

void JobLaunch::print_collectives() {
  if (!fences_ || fences_->completed() == 0) return;
  const auto& records = fences_->records();
  std::string text = "collectives (" + std::to_string(fences_->completed()) + ", each up the routing tree and back down, " +
                     std::to_string(fences_->depth()) + (fences_->depth() == 1 ? " hop" : " hops") + " each way):\n";
  for (const auto& r : records) {
    char line[200];
    std::snprintf(line, sizeof line, "  pmi/%s collective %llu: %zu keys, %zu bytes, released to %u daemons\n",
                  r.component.c_str(), static_cast<unsigned long long>(r.epoch), r.keys, r.bytes, daemons());
    text += line;
  }
  if (fences_->completed() > records.size()) {
    text += "  (" + std::to_string(fences_->completed() - records.size()) + " more not shown)\n";
  }
  say(text);
}

void JobLaunch::print_timing() {
  std::string text = "timing (ms since orcarun started):\n";
  text += "  agents started    " + milliseconds_since(t_start_, t_agents_) + "\n";
  text += "  first daemon up   " + milliseconds_since(t_start_, t_first_up_) + "\n";
  text += "  all daemons up    " + milliseconds_since(t_start_, t_all_up_) + "\n";
  if (t_data_plane_) text += "  data plane chosen " + milliseconds_since(t_start_, t_data_plane_) + "\n";
  if (t_mesh_checked_) text += "  mesh checked      " + milliseconds_since(t_start_, t_mesh_checked_) + "\n";
  text += "  command started   " + milliseconds_since(t_start_, t_command_) + "\n";
  if (fences_) {
    for (const auto& r : fences_->records()) {
      const std::string label = "pmi/" + r.component + " fence " + std::to_string(r.epoch);
      char line[200];
      std::snprintf(line, sizeof line, "  %-17s %s (first part %s)\n", label.c_str(),
                    milliseconds_since(t_start_, r.complete).c_str(), milliseconds_since(t_start_, r.first_part).c_str());
      text += line;
    }
  }
  text += "  command ended     " + milliseconds_since(t_start_, t_ended_) + "\n";
  text += "  teardown done     " + milliseconds_since(t_start_, t_down_) + "\n";
  if (!plan_.no_data_plane_round.empty()) text += printable(plan_.no_data_plane_round) + "\n";
  text += plan_.start_early ? "ranks started as each part of the routing tree came up (orcarun_start_early)\n"
                            : "ranks held until every daemon was up: " + printable(plan_.no_early_start) + "\n";
  // Each daemon's own start-up, median and slowest over the daemons.
  const size_t phases = std::size(launch::kStartupPhases);
  std::vector<std::vector<std::uint32_t>> per_phase(phases);
  for (std::uint32_t v = 1; v <= daemons(); ++v) {
    const auto& s = daemon_[v].report.startup_us;
    if (!daemon_[v].up || s.size() != phases) continue;
    for (size_t i = 0; i < phases; ++i) per_phase[i].push_back(s[i]);
  }
  if (!per_phase[0].empty()) {
    const size_t n = per_phase[0].size();
    text += "orcad start-up (ms, median / slowest of " + std::to_string(n) + (n == 1 ? " daemon" : " daemons") + "):\n";
    for (size_t i = 0; i < phases; ++i) {
      auto& values = per_phase[i];
      std::sort(values.begin(), values.end());
      char line[160];
      std::snprintf(line, sizeof line, "  %-24s %8.1f / %8.1f\n", launch::kStartupPhases[i],
                    values[values.size() / 2] / 1000.0, values.back() / 1000.0);
      text += line;
    }
  }
  say(text);
}

}  // namespace orca::orcarun
