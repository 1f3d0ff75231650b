// DaemonSession: its place in the tree: the hello to the parent and the
// report once connected, the children it starts (tree spawn) and welcomes,
// and the DaemonMachine that decides its life.
#include "daemon_session.h"

#include "data_plane_answer.h"

#include "net/cpu_probe.h"
#include "net/host_topology.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <iostream>

namespace orca::orcad {
namespace {

// Whether a rank could chdir into `dir`; errno says why not. access()
// alone says "Permission denied" for a file (X_OK), where chdir would say
// "Not a directory".
bool can_enter(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return false;
  if (!S_ISDIR(st.st_mode)) {
    errno = ENOTDIR;
    return false;
  }
  return ::access(dir.c_str(), X_OK) == 0;
}

}  // namespace

Status DaemonSession::say_hello() {
  // The report needs the route the connection to the parent took: it is
  // sent once the oob has made it, in the same write as the hello.
  oob_->on_peer_connected([this](ProcessName peer) {
    if (peer == name(bootstrap_.parent)) report_up();
  });
  // Hello first: it opens the connection to the parent.
  auto bytes = launch::encode(who_we_are());
  if (!bytes) return bytes.error();
  outbox_->post(name(bootstrap_.parent), launch::kTagHello, std::move(bytes.value()));
  return {};
}

Result<mca::Framework*> DaemonSession::plm_framework() {
  if (plm_fw_ != nullptr) return plm_fw_;
  auto fw = process_.runtime().add_framework(plm::kFramework);
  if (!fw) return fw.error();
  if (Status st = fw.value()->open(); !st) return st.error();
  plm_fw_ = fw.value();
  return plm_fw_;
}

// One bootstrap for every daemon (plm/slurm's one srun step): which one
// this is comes from what the launcher put in our environment, and the
// parent from the routing tree.
Status DaemonSession::find_own_place() {
  auto fw = plm_framework();
  if (!fw) return fw.error();
  auto vpid = plm::vpid_from_launcher(*fw.value(), bootstrap_.hosts);
  if (!vpid) return vpid.error();
  bootstrap_.vpid = vpid->vpid;
  started_by_ = vpid->launcher;
  bootstrap_.parent = tree_->parent(bootstrap_.vpid);
  if (bootstrap_.parent != 0) return await_parent_contact();
  return {};
}

// A parent other than orcarun started with us: its contact URI follows
// on standard input once it is up (orcarun relays every parent's to all).
// Until then there is nothing this daemon can do, so it waits here.
Status DaemonSession::await_parent_contact() {
  constexpr int kLimitMs = 60000;
  for (;;) {
    auto m = launch::read_stdin_message(0, kLimitMs);
    if (!m) {
      return Message("plm", "no-parent-contact",
                     {{"parent", std::to_string(bootstrap_.parent)}, {"host", host_of(bootstrap_.parent)}, {"why", m.error().arg("why")}});
    }
    const auto* contact = std::get_if<launch::DaemonReport>(&m.value());
    if (contact != nullptr && contact->vpid == bootstrap_.parent && !contact->contact_uri.empty()) {
      bootstrap_.parent_uri = contact->contact_uri;
      return {};
    }
  }
}

void DaemonSession::spawn_children() {
  plm::DaemonLauncher::Hooks hooks;
  hooks.on_exit = [this](std::uint32_t vpid, int status, const std::string& tail) {
    machine_->child_agent_exited(vpid, status, tail);
  };
  hooks.on_output = [this](std::uint32_t vpid, const std::string& line) {
    // One write per line (stderr is unbuffered): never torn if this daemon is killed.
    const std::string text = "[orcad " + printable(host_of(vpid)) + "] " + printable(line) + "\n";
    std::cerr.write(text.data(), static_cast<std::streamsize>(text.size())).flush();
  };
  hooks.on_failed_start = [this](std::uint32_t vpid, const Message& why) {
    machine_->child_not_started(vpid, plm::spawn_failure_text(why));
  };
  const std::uint32_t cap = plm_->module->max_concurrent(plm_->module->self);
  launcher_ = std::make_unique<plm::DaemonLauncher>(process_.loop(), cap, std::move(hooks));
  for (std::uint32_t child : tree_->children(bootstrap_.vpid)) {
    launch::Bootstrap b = bootstrap_;
    b.vpid = child;
    b.parent = bootstrap_.vpid;
    b.parent_uri = oob_->contact_uri();
    b.launched_at_us = launch::monotonic_microseconds();
    auto frame = launch::bootstrap_frame(b);
    auto argv = plm::daemon_command(*plm_, host_of(child), bootstrap_.daemon_command);
    if (!frame || !argv) {
      report_failure(child, (frame ? argv.error() : frame.error()).summary());
      continue;
    }
    machine_->child_launched(child);
    launcher_->launch({.vpid = child, .host = host_of(child), .argv = std::move(argv.value()), .bootstrap = std::move(frame.value())});
  }
}

void DaemonSession::on_hello(ProcessName from, std::span<const std::uint8_t> bytes) {
  auto m = launch::decode(bytes);
  if (!m || !std::holds_alternative<launch::DaemonReport>(m.value())) return;
  const auto& hello = std::get<launch::DaemonReport>(m.value());
  if (!machine_->node().is_childs_hello(from.vpid, hello.vpid)) return;
  if (Status st = oob_->add_peer(from, hello.contact_uri); !st) {
    machine_->child_unreachable(from.vpid, st.error().summary());
    return;
  }
  machine_->child_welcomed(from.vpid);
  if (launcher_) launcher_->daemon_up(from.vpid);
}

launch::DaemonReport DaemonSession::who_we_are() const {
  launch::DaemonReport r{.vpid = bootstrap_.vpid, .hostname = hostname_, .contact_uri = oob_->contact_uri()};
  if (auto uri = oob::ContactUri::parse(oob_->contact_uri()); uri) r.host_identity = uri->host_identity;
  return r;
}

void DaemonSession::report_up() {
  if (!machine_->connected_to_parent()) return;  // a reconnect to the parent: reported already
  // --wdir: a host that cannot enter it fails the wire-up, before any rank
  // of the job starts (orcarun holds the command until every daemon is up).
  if (const std::string& dir = bootstrap_.working_directory; !dir.empty() && !can_enter(dir)) {
    const std::string why = std::strerror(errno);
    up(launch::kTagStatus, launch::JobFailure{.vpid = bootstrap_.vpid,
                                              .area = "orcarun",
                                              .topic = "working-directory-missing",
                                              .args = {{"directory", dir}, {"host", host_of(bootstrap_.vpid)}, {"why", why}}});
    return;
  }
  launch::DaemonReport report = who_we_are();
  report.route = oob_->route(name(bootstrap_.parent));
  if (auto addresses = data_plane_addresses(*oob_)) report.addresses = std::move(addresses.value());
  if ((bootstrap_.flags & launch::kBootstrapReportTopology) != 0) {
    auto summary = net::topology_summary();
    if (summary) report.notes = std::move(summary.value());
    else report.notes.push_back("no topology: " + summary.error().summary());
  }
  if ((bootstrap_.flags & launch::kBootstrapReportCpus) != 0) {
    auto cpus = net::probe_cpus();
    if (cpus) report.cpus = launch::encode_cpu_topology(cpus.value());
    else report.cpus_error = cpus.error().summary();
  }
  const auto now = StartupClock::Clock::now();
  auto us = [](auto from, auto to) {
    const auto d = std::chrono::duration_cast<std::chrono::microseconds>(to - from).count();
    return static_cast<std::uint32_t>(std::clamp<std::int64_t>(d, 0, UINT32_MAX));
  };
  // Agent to main: the parent's clock at launch against ours at main; the
  // same clock only on the same machine (a namespace host), else 0.
  std::uint32_t agent_to_main = 0;
  const auto now_us = static_cast<std::int64_t>(launch::monotonic_microseconds());
  const std::int64_t main_us = now_us - std::chrono::duration_cast<std::chrono::microseconds>(now - clock_.main).count();
  const std::int64_t spawn = main_us - static_cast<std::int64_t>(bootstrap_.launched_at_us);
  if (bootstrap_.launched_at_us != 0 && spawn >= 0 && spawn < 600LL * 1000000) agent_to_main = static_cast<std::uint32_t>(spawn);
  report.startup_us = {agent_to_main,
                       us(clock_.main, clock_.bootstrap_read),
                       us(clock_.bootstrap_read, clock_.process_created),
                       us(clock_.process_created, frameworks_opened_),
                       us(frameworks_opened_, oob_opened_),
                       us(oob_opened_, now)};
  up(launch::kTagReport, report);
}

launch::DaemonMachine::Hooks DaemonSession::machine_hooks() {
  return {
      .report_failure = [this](std::uint32_t vpid, const std::string& message) { report_failure(vpid, message); },
      .report_exit = [this](const launch::ExitRecord& record) { up(launch::kTagStatus, record); },
      .say_done = [this] { up(launch::kTagStatus, launch::DaemonDone{.vpid = bootstrap_.vpid}); },
      .signal_ranks =
          [this](int signo) {
            for (auto& [id, job] : jobs_) job->signal(signo);
          },
      .end_lost_agent = [this](std::uint32_t vpid) { if (launcher_) launcher_->end_lost(vpid); },
      .signal_agent = [this](std::uint32_t vpid, int signo) { if (launcher_) launcher_->signal(vpid, signo); },
      .signal_all_agents = [this](int signo) { if (launcher_) launcher_->signal_all(signo); },
      .cancel_launches = [this] { if (launcher_) launcher_->cancel_waiting(); },
      .forget_child = [this](std::uint32_t vpid) { oob_->forget_peer(name(vpid)); },
      .arm = [this](launch::DaemonTimer timer, std::chrono::milliseconds after) { arm(timer, after); },
      .cancel =
          [this](launch::DaemonTimer timer) {
            if (auto it = timers_.find(timer); it != timers_.end()) it->second->cancel();
          },
      .log = [this](const std::string& text) { process_.runtime().log("plm", text); },
      .stop = [this] { process_.loop().stop(); },
      .ranks_running =
          [this] { return std::any_of(jobs_.begin(), jobs_.end(), [](const auto& j) { return j.second->running(); }); },
      .ranks_idle = [this] { return std::all_of(jobs_.begin(), jobs_.end(), [](const auto& j) { return j.second->idle(); }); },
      .pmi_serves_ranks = [this] { return pmi_ && pmi_->serves_ranks(); },
      .agents_running = [this] { return launcher_ ? launcher_->running() : std::size_t{0}; },
  };
}

void DaemonSession::make_machine() {
  machine_ = std::make_unique<launch::DaemonMachine>(
      launch::DaemonFacts{.tree = &*tree_, .self = bootstrap_.vpid, .hosts = bootstrap_.hosts}, machine_hooks());
}

void DaemonSession::arm(launch::DaemonTimer timer, std::chrono::milliseconds after) {
  auto& t = timers_[timer];
  if (!t) t = std::make_unique<Timer>(process_.loop(), [this, timer] { machine_->on_timer(timer); });
  t->start(after);
}

}  // namespace orca::orcad
