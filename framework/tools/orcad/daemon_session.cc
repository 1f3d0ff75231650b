// DaemonSession: orcad's start (frameworks, oob, watches), the messages
// it receives and relays, and its run. The tree and the lifecycle are in
// daemon_session_tree.cc, the ranks in daemon_session_ranks.cc, the data
// plane in daemon_session_data_plane.cc.
#include "daemon_session.h"

#include "iof/iof.h"

#include <signal.h>
#include <unistd.h>

namespace orca::orcad {

DaemonSession::DaemonSession(Process& process, launch::Bootstrap bootstrap, StartupClock clock, RankKeeper& keeper)
    : process_(process), keeper_(keeper), bootstrap_(std::move(bootstrap)), clock_(clock) {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  hostname_ = name;
}

DaemonSession::~DaemonSession() = default;

std::string DaemonSession::host_of(std::uint32_t vpid) const { return launch::daemon_host(bootstrap_.hosts, vpid); }

void DaemonSession::up(std::uint32_t tag, const launch::WireMessage& message) { post(0, tag, message); }

void DaemonSession::post(std::uint32_t vpid, std::uint32_t tag, const launch::WireMessage& message) {
  auto bytes = launch::encode(message);
  if (!bytes) {
    process_.runtime().log("plm", "cannot encode a " + std::string(launch::kind_name(message)) + ": " +
                                      bytes.error().summary());
    return;
  }
  outbox_->post(name(vpid), tag, std::move(bytes.value()));
}

Status DaemonSession::start() {
  if (Status st = open_frameworks(); !st) return st;

  if (bootstrap_.vpid == 0) {
    if (Status st = find_own_place(); !st) return st;
  }

  const bool tree_spawn = (bootstrap_.flags & launch::kBootstrapTreeSpawn) != 0 && !tree_->children(bootstrap_.vpid).empty();
  if (tree_spawn) {
    if (Status st = choose_child_launcher(); !st) return st;
  }
  make_machine();

  // What the PMI modules can set up without the job's ranks (libpmix's
  // server, on a thread of its own) starts now, beside the wire-up.
  make_pmi();
  pmi_->warm_up();
  frameworks_opened_ = StartupClock::Clock::now();
  if (Status st = open_oob(); !st) return st;
  receive_from_peers();
  watch_parent();
  watch_signals();
  if (Status st = say_hello(); !st) return st;

  if (tree_spawn) spawn_children();
  return {};
}

// Only the frameworks this daemon uses are declared, and settings that
// nothing here claims are not reported: orcarun checked every setting
// it forwards already, and 64 daemons repeating its warnings would only
// bury them.
Status DaemonSession::open_frameworks() {
  Runtime& rt = process_.runtime();
  auto iof_fw = rt.add_framework(iof::kFramework);
  if (!iof_fw) return iof_fw.error();
  if (auto d = iof::partial_line_delay(rt.registry()); d) partial_delay_ = d.value();
  auto buffer = iof::output_buffer(rt.registry());
  if (!buffer) return buffer.error();
  output_window_.emplace(iof::output_window(buffer.value(), bootstrap_.daemons));
  auto routed_fw = rt.add_framework(routed::kFramework);
  if (!routed_fw) return routed_fw.error();
  if (Status st = routed_fw.value()->open(); !st) return st;
  auto tree = routed::routing_tree(*routed_fw.value(), bootstrap_.daemons);
  if (!tree) return tree.error();
  tree_ = std::move(tree.value());
  return {};
}

// With tree spawn: the plm module that starts our children in the
// routing tree, chosen for the hosts of our whole subtree.
Status DaemonSession::choose_child_launcher() {
  auto plm_fw = plm_framework();
  if (!plm_fw) return plm_fw.error();
  std::vector<std::string> hosts;
  for (std::uint32_t c : tree_->subtree(bootstrap_.vpid)) {
    if (c != bootstrap_.vpid) hosts.push_back(host_of(c));
  }
  auto chosen = plm::choose_module(*plm_fw.value(), hosts);
  if (!chosen) return chosen.error();
  plm_ = chosen.value();
  return {};
}

// The oob, its outbox, and the parent as its first peer.
Status DaemonSession::open_oob() {
  auto oob = process_.open_oob(name(bootstrap_.vpid), bootstrap_.secret);
  if (!oob) return oob.error();
  oob_ = oob.value();
  oob_opened_ = StartupClock::Clock::now();
  outbox_ = std::make_unique<oob::Outbox>(
      *oob_, [this] { resume_output(); },
      [this](ProcessName to, std::uint32_t tag, const Message& why) {
        process_.runtime().log("plm", "dropped a message for " + to.to_string() + " (tag " + std::to_string(tag) +
                                          "): " + why.summary());
      });
  if (Status st = oob_->add_peer(name(bootstrap_.parent), bootstrap_.parent_uri); !st) return st;
  oob_->set_router(routed::make_router(*tree_, name(bootstrap_.vpid)));
  return {};
}

void DaemonSession::receive_from_peers() {
  oob_->on_receive(launch::kTagHello, [this](ProcessName from, std::span<const std::uint8_t> b) { on_hello(from, b); });
  oob_->on_receive(launch::kTagControl, [this](ProcessName, std::span<const std::uint8_t> b) { on_control(b); });
  oob_->on_receive(launch::kTagStdin, [this](ProcessName, std::span<const std::uint8_t> b) { on_stdin(b); });
  oob_->on_receive(launch::kTagOutputCredit, [this](ProcessName from, std::span<const std::uint8_t> b) {
    if (from.vpid == 0) on_output_credit(b);  // only orcarun writes our output
  });
  oob_->on_receive(launch::kTagFence, [this](ProcessName from, std::span<const std::uint8_t> b) { on_fence(from, b); });
  oob_->on_receive(launch::kTagPmiDirect, [this](ProcessName, std::span<const std::uint8_t> b) { on_pmi_direct(b); });
  oob_->on_receive(launch::kTagDirectory, [this](ProcessName, std::span<const std::uint8_t> b) { on_directory(b); });
  oob_->on_peer_lost([this](ProcessName peer, const std::string& why) { machine_->peer_lost(peer.vpid, why); });
}

// Our standard input stays open as long as whoever started us lives.
void DaemonSession::watch_parent() {
  parent_watch_ = std::make_unique<IoWatch>(process_.loop(), 0, IoWatch::kRead, [this](short) {
    char buf[256];
    const ssize_t n = ::read(0, buf, sizeof buf);
    if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
      parent_watch_->disable();
      machine_->input_closed();
    }
  });
  parent_watch_->enable();
}

// SIGTERM (from whoever started us) ends this daemon as the loss of its
// parent does: ranks first, then children; so does SIGHUP, which the
// kernel sends (then SIGCONT) to a stopped daemon whose agent died, and by
// default would kill it before it ended its ranks' process groups.
void DaemonSession::watch_signals() {
  // Once the watches are gone (the loop has ended, the job's files go with
  // the objects after them), SIGTERM and SIGHUP are ignored: a tree parent
  // ending too sends SIGTERM, maybe more than once, and by default one
  // would kill this daemon with its tmpdir still there.
  sigterm_ = std::make_unique<SignalWatch>(
      process_.loop(), SIGTERM, [this] { machine_->on_signal(SIGTERM); }, SignalWatch::Unwatched::kIgnore);
  sighup_ = std::make_unique<SignalWatch>(
      process_.loop(), SIGHUP, [this] { machine_->on_signal(SIGHUP); }, SignalWatch::Unwatched::kIgnore);
}

void DaemonSession::on_control(std::span<const std::uint8_t> bytes) {
  // Down the tree first, as it came: our children act on it in parallel.
  for (std::uint32_t child : tree_->children(bootstrap_.vpid)) {
    if (oob_->knows(name(child))) (void)oob_->send(name(child), launch::kTagControl, bytes);
  }
  auto m = launch::decode(bytes);
  if (!m) {
    process_.runtime().log("plm", "a malformed control message: " + m.error().summary());
    return;
  }
  if (auto* command = std::get_if<launch::LaunchCommand>(&m.value())) {
    launch_ranks(*command);
  } else if (auto* sig = std::get_if<launch::SignalRanks>(&m.value())) {
    if (auto it = jobs_.find(sig->job); it != jobs_.end()) it->second->signal(sig->signal);
  } else if (auto* end = std::get_if<launch::Teardown>(&m.value())) {
    if (end->job != 0) {
      end_dvm_job(end->job);
    } else {
      machine_->teardown(end->signal);
    }
  } else if (auto* release = std::get_if<launch::FenceRelease>(&m.value())) {
    if (pmi::PmiService* pmi = pmi_of(release->job)) pmi->on_release(*release);
  }
}

void DaemonSession::report_failure(std::uint32_t vpid, const std::string& message) {
  up(launch::kTagStatus, launch::DaemonFailure{.vpid = vpid, .host = host_of(vpid), .message = message});
}

int DaemonSession::run() {
  if (Status st = start(); !st) {
    process_.fail(st.error());
    return 1;
  }
  process_.loop().run();
  return machine_->exit_status();
}

}  // namespace orca::orcad
