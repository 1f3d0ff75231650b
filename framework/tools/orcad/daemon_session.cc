// DaemonSession: orcad's wire-up, ranks, relaying and end.
#include "daemon_session.h"

#include "data_plane_answer.h"
#include "mesh_probe.h"

#include <orca/host_topology.h>
#include <orca/iof.h>
#include <orca/rank_network_env.h>

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <iostream>

namespace orca::orcad {

// After a teardown, how long children's agents may take to end before
// they are killed (their daemons then see their stdin close and go too).
static constexpr std::chrono::milliseconds kEndLimit{5000};

DaemonSession::DaemonSession(Process& process, launch::Bootstrap bootstrap, StartupClock clock, RankKeeper& keeper)
    : process_(process), keeper_(keeper), bootstrap_(std::move(bootstrap)), clock_(clock) {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  hostname_ = name;
}

DaemonSession::~DaemonSession() = default;

std::string DaemonSession::host_of(std::uint32_t vpid) const {
  if (vpid >= 1 && vpid <= bootstrap_.hosts.size()) return bootstrap_.hosts[vpid - 1];
  return "vpid " + std::to_string(vpid);
}

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

void DaemonSession::on_fence(ProcessName from, std::span<const std::uint8_t> bytes) {
  auto m = launch::decode(bytes);
  if (!m || !std::holds_alternative<launch::FenceData>(m.value()) || !pmi_) return;
  const auto& part = std::get<launch::FenceData>(m.value());
  // Only a child's own part counts: the oob names the sender.
  if (part.from != from.vpid || tree_->parent(from.vpid) != bootstrap_.vpid) return;
  pmi_->on_part(part);
}

void DaemonSession::on_pmi_direct(std::span<const std::uint8_t> bytes) {
  auto m = launch::decode(bytes);
  if (!m || !std::holds_alternative<launch::PmiDirect>(m.value()) || !pmi_) return;
  const auto& direct = std::get<launch::PmiDirect>(m.value());
  if (direct.to == bootstrap_.vpid) pmi_->on_direct(direct);
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
  oob_->on_peer_lost([this](ProcessName peer, const std::string& why) {
    if (ending_) return;
    if (peer.vpid == bootstrap_.parent) {
      parent_gone("the oob lost it: " + why);
    } else if (tree_->parent(peer.vpid) == bootstrap_.vpid) {
      report_failure(peer.vpid, "the daemon on " + host_of(peer.vpid) + " (vpid " + std::to_string(peer.vpid) +
                                    ") was lost: " + why);
      // A child we started may be alive but silent: its agent ends now,
      // daemon first (as orcarun does).
      if (launcher_) launcher_->end_lost(peer.vpid);
    }
  });
}

// Our standard input stays open as long as whoever started us lives.
void DaemonSession::watch_parent() {
  parent_watch_ = std::make_unique<IoWatch>(process_.loop(), 0, IoWatch::kRead, [this](short) {
    char buf[256];
    const ssize_t n = ::read(0, buf, sizeof buf);
    if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
      parent_watch_->disable();
      if (!ending_) parent_gone("its standard input (from the agent that started this daemon) closed");
    }
  });
  parent_watch_->enable();
}

void DaemonSession::watch_signals() {
  // SIGTERM (from whoever started us) ends this daemon as the loss of
  // its parent does: ranks first, then children.
  // Once the watches are gone (the loop has ended, the job's files go with
  // the objects after them), SIGTERM and SIGHUP are ignored: a tree parent
  // ending too sends SIGTERM, maybe more than once, and by default one
  // would kill this daemon with its tmpdir still there.
  sigterm_ = std::make_unique<SignalWatch>(
      process_.loop(), SIGTERM,
      [this] {
        if (ending_) return;
        // Said first, before the ranks' ends: the cause is this daemon's end
        // (a batch system ending its step, an administrator), not the ranks.
        report_failure(bootstrap_.vpid, "this daemon was sent SIGTERM while the job ran (by whoever started it, the "
                                        "batch system or a user); it killed its ranks and exited");
        end_at_once();
      },
      SignalWatch::Unwatched::kIgnore);
  // SIGHUP too: the kernel sends it (then SIGCONT) to a stopped daemon
  // whose agent died, its process group orphaned, and a hung-up session
  // means the same; by default it would kill this daemon before it ended
  // its ranks' process groups, leaving what they started running.
  sighup_ = std::make_unique<SignalWatch>(
      process_.loop(), SIGHUP, [this] { if (!ending_) end_at_once(); }, SignalWatch::Unwatched::kIgnore);
}

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
  hooks.on_exit = [this](std::uint32_t vpid, int status, const std::string& tail) { child_agent_ended(vpid, status, tail); };
  hooks.on_output = [this](std::uint32_t vpid, const std::string& line) {
    // One write per line (stderr is unbuffered): never torn if this daemon is killed.
    const std::string text = "[orcad " + printable(host_of(vpid)) + "] " + printable(line) + "\n";
    std::cerr.write(text.data(), static_cast<std::streamsize>(text.size())).flush();
  };
  hooks.on_failed_start = [this](std::uint32_t vpid, const Message& why) {
    report_failure(vpid, "cannot start the agent for " + host_of(vpid) + ": " + plm::spawn_failure_text(why));
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
    launcher_->launch({.vpid = child, .host = host_of(child), .argv = std::move(argv.value()), .bootstrap = std::move(frame.value())});
  }
}

void DaemonSession::on_hello(ProcessName from, std::span<const std::uint8_t> bytes) {
  auto m = launch::decode(bytes);
  if (!m || !std::holds_alternative<launch::DaemonReport>(m.value())) return;
  const auto& hello = std::get<launch::DaemonReport>(m.value());
  if (hello.vpid != from.vpid || tree_->parent(from.vpid) != bootstrap_.vpid) return;
  if (Status st = oob_->add_peer(from, hello.contact_uri); !st) {
    report_failure(from.vpid, "cannot add the daemon on " + host_of(from.vpid) + " as a peer: " + st.error().summary());
    return;
  }
  if (launcher_) launcher_->daemon_up(from.vpid);
}

launch::DaemonReport DaemonSession::who_we_are() const {
  launch::DaemonReport r{.vpid = bootstrap_.vpid, .hostname = hostname_, .contact_uri = oob_->contact_uri()};
  if (auto uri = oob::ContactUri::parse(oob_->contact_uri()); uri) r.host_identity = uri->host_identity;
  return r;
}

void DaemonSession::report_up() {
  if (reported_) return;  // a reconnect to the parent: reported already
  reported_ = true;
  launch::DaemonReport report = who_we_are();
  report.route = oob_->route(name(bootstrap_.parent));
  if (auto addresses = data_plane_addresses(*oob_, process_.runtime().registry())) report.addresses = std::move(addresses.value());
  if ((bootstrap_.flags & launch::kBootstrapReportTopology) != 0) {
    auto summary = net::topology_summary();
    if (summary) report.notes = std::move(summary.value());
    else report.notes.push_back("no topology: " + summary.error().summary());
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

void DaemonSession::on_directory(std::span<const std::uint8_t> bytes) {
  auto m = launch::decode(bytes);
  if (!m) return;
  if (const auto* check = std::get_if<launch::MeshCheck>(&m.value())) {
    start_mesh_check(*check);
    return;
  }
  const auto* directory = std::get_if<launch::HostDirectory>(&m.value());
  if (directory == nullptr || ranks_launched_) return;  // a directory after the command is no news
  DirectoryAnswer chosen =
      answer_directory(*oob_, process_.runtime().registry(), *directory, who_we_are().host_identity, bootstrap_.vpid);
  launch::DataPlaneAnswer& answer = chosen.wire;
  data_plane_sources_ = std::move(chosen.sources);
  if (directory->mesh_check && !data_plane_sources_.empty()) {
    // The other hosts' side of the check, on the chosen address: held
    // until the command comes.
    if (auto listener = MeshListener::open(process_.loop(), data_plane_sources_.front())) {
      mesh_listener_ = std::move(listener.value());
      answer.check_port = mesh_listener_->port();
    } else {
      answer.others.push_back("no listener for the mesh check: " + listener.error().summary());
    }
  }
  up(launch::kTagStatus, answer);
}

void DaemonSession::start_mesh_check(const launch::MeshCheck& check) {
  if (mesh_probe_ || ranks_launched_) return;  // a check after the command is no news
  const std::string mine = who_we_are().host_identity;
  std::vector<MeshProbe::Target> targets;
  for (const auto& t : check.targets) {
    auto address = net::IpAddress::parse(t.address);
    if (t.identity == mine || !address || t.port == 0 || t.port > 65535) continue;
    targets.push_back({.name = t.name, .address = *address, .port = static_cast<std::uint16_t>(t.port)});
  }
  if (data_plane_sources_.empty()) {
    // Nothing to dial from: every target fails, and says why.
    launch::MeshResult result{.vpid = bootstrap_.vpid, .failures = {}};
    for (const auto& t : targets) result.failures.push_back(t.name + ": this host has no data-plane address to connect from");
    up(launch::kTagStatus, result);
    return;
  }
  mesh_probe_ = std::make_unique<MeshProbe>(
      process_.loop(), data_plane_sources_, std::move(targets), check.concurrency,
      std::chrono::milliseconds(check.timeout_ms), [this](std::vector<std::string> failures) {
        up(launch::kTagStatus, launch::MeshResult{.vpid = bootstrap_.vpid, .failures = std::move(failures)});
      });
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
    for (auto& [rank, r] : ranks_) r->signal(sig->signal);
  } else if (auto* end = std::get_if<launch::Teardown>(&m.value())) {
    begin_end(end->signal);
  } else if (auto* release = std::get_if<launch::FenceRelease>(&m.value())) {
    if (pmi_) pmi_->on_release(*release);
  }
}

void DaemonSession::make_pmi() {
  if (pmi_) return;
  PmiService::Hooks pmi_hooks;
  pmi_hooks.up = [this](const launch::FenceData& part) { post(tree_->parent(bootstrap_.vpid), launch::kTagFence, part); };
  pmi_hooks.abort = [this](const launch::RankAbort& abort) { up(launch::kTagStatus, abort); };
  pmi_hooks.direct = [this](const launch::PmiDirect& direct) { post(direct.to, launch::kTagPmiDirect, direct); };
  pmi_hooks.failed = [this](const Message& why) {
    // The job's failure, not this daemon's: orcarun shows the message.
    launch::JobFailure failure{.vpid = bootstrap_.vpid, .area = why.area(), .topic = why.topic(), .args = {}};
    for (const auto& [key, value] : why.args()) failure.args.push_back({key, value});
    up(launch::kTagStatus, failure);
  };
  pmi_hooks.made_directory = [this](const std::string& path) { keeper_.directory(path); };
  pmi_ = std::make_unique<PmiService>(process_, bootstrap_, *tree_, std::move(pmi_hooks));
}

// What every rank of this node shares at the launch command.
struct DaemonSession::NodeLaunch {
  std::vector<const launch::RankPlacement*> mine;
  std::vector<std::string> base_env;
  launch::RankLink link;
  launch::TorchMaster master;
  std::vector<std::uint32_t> ranks_at;
  std::vector<std::uint32_t> node_ranks;
};

void DaemonSession::launch_ranks(const launch::LaunchCommand& command) {
  std::vector<const launch::RankPlacement*> mine;
  for (const auto& p : command.placements) {
    if (p.daemon == bootstrap_.vpid) mine.push_back(&p);
  }
  if (ranks_launched_) return;  // one job per daemon: a repeated command is ignored
  ranks_launched_ = true;
  // The check is over: its listener and dials give their ports back.
  mesh_listener_.reset();
  mesh_probe_.reset();
  make_pmi();
  if (Status st = pmi_->start(command); !st) {
    // No rank starts: without its PMI server an MPI rank would wait forever.
    report_failure(bootstrap_.vpid, "cannot serve the job's ranks PMI: " + st.error().summary());
    return;
  }
  const NodeLaunch node = node_launch(command, std::move(mine));
  for (const launch::RankPlacement* p : node.mine) {
    plm::SpawnSpec spec = rank_spec(command, node, *p);
    if (Status st = pmi_->prepare(p->rank, spec); !st) {
      report_failure(bootstrap_.vpid, "cannot prepare rank " + std::to_string(p->rank) + " for PMI: " + st.error().summary());
      return;
    }
    start_rank(p->rank, spec);
  }
  say_done_if_idle();  // a node with no rank of the job
}

DaemonSession::NodeLaunch DaemonSession::node_launch(const launch::LaunchCommand& command,
                                                     std::vector<const launch::RankPlacement*> mine) const {
  NodeLaunch node{.mine = std::move(mine), .base_env = plm::current_environment()};
  // This host's data-plane link, as orcarun gathered it.
  const std::string identity = who_we_are().host_identity;
  for (const auto& l : command.links) {
    if (l.identity != identity) continue;
    node.link = {.interface = l.interface, .address = l.address, .prefix_length = static_cast<int>(l.prefix_length), .rdma = l.rdma};
  }
  node.master = {.address = command.master_address, .port = command.master_port};
  node.ranks_at = launch::ranks_per_daemon(command.placements, bootstrap_.daemons);
  for (const launch::RankPlacement* p : node.mine) node.node_ranks.push_back(p->rank);
  std::sort(node.node_ranks.begin(), node.node_ranks.end());
  return node;
}

plm::SpawnSpec DaemonSession::rank_spec(const launch::LaunchCommand& command, const NodeLaunch& node,
                                        const launch::RankPlacement& p) const {
  plm::SpawnSpec spec;
  spec.argv = command.argv;
  spec.environment = node.base_env;
  for (const auto& e : command.environment) {
    const auto eq = e.find('=');
    if (eq != std::string::npos) plm::set_environment(spec.environment, e.substr(0, eq), e.substr(eq + 1));
  }
  plm::set_environment(spec.environment, "ORCA_RANK", std::to_string(p.rank));
  plm::set_environment(spec.environment, "ORCA_SIZE", std::to_string(command.size));
  plm::set_environment(spec.environment, "ORCA_LOCAL_RANK", std::to_string(p.local_rank));
  plm::set_environment(spec.environment, "ORCA_LOCAL_SIZE", std::to_string(node.mine.size()));
  plm::set_environment(spec.environment, "ORCA_NODE", std::to_string(bootstrap_.vpid - 1));
  for (const auto& [key, value] : launch::rank_identity_variables({.rank = p.rank,
                                                                  .size = command.size,
                                                                  .local_rank = p.local_rank,
                                                                  .local_size = static_cast<std::uint32_t>(node.mine.size()),
                                                                  .node = bootstrap_.vpid - 1})) {
    plm::set_environment(spec.environment, key, value);
  }
  for (const auto& [key, value] : launch::network_variables(node.link, node.master, command.families, spec.environment).set) {
    plm::set_environment(spec.environment, key, value);
  }
  if (started_by_) {
    const orca_plm_rank_place place{.rank = p.rank,
                                    .local_rank = p.local_rank,
                                    .size = command.size,
                                    .node_ranks = node.node_ranks.data(),
                                    .node_rank_count = node.node_ranks.size(),
                                    .ranks_per_daemon = node.ranks_at.data() + 1,  // [0] is orcarun's
                                    .daemons = bootstrap_.daemons};
    plm::apply_environment(spec.environment, plm::rank_environment(*started_by_, bootstrap_.hosts, place));
  }
  if (!command.directory.empty() && ::access(command.directory.c_str(), X_OK) == 0) spec.directory = command.directory;
  spec.pipe_input = command.stdin_target == launch::kStdinAll ||
                    command.stdin_target == static_cast<std::int32_t>(p.rank);
  spec.parent_death_signal = SIGKILL;
  return spec;
}

void DaemonSession::start_rank(std::uint32_t rank_id, const plm::SpawnSpec& spec) {
  auto rank = std::make_unique<RankProcess>(process_.loop(), rank_id, spec, partial_delay_, rank_hooks());
  if (rank->process_group() > 0) keeper_.watch(rank->process_group());
  pmi_->started(rank_id, rank->started());
  ranks_.emplace(rank_id, std::move(rank));
}

RankProcess::Hooks DaemonSession::rank_hooks() {
  RankProcess::Hooks hooks;
  hooks.output = [this](std::uint32_t rank, launch::Stream stream, std::string_view text, bool partial) {
    launch::OutputChunk chunk{.rank = rank, .stream = stream, .partial = partial,
                              .bytes = std::vector<std::uint8_t>(text.begin(), text.end())};
    up(launch::kTagOutput, chunk);
    output_window_->sent(text.size());
    if (!output_may_flow()) {
      for (auto& [r, proc] : ranks_) proc->pause_output();
    }
  };
  hooks.exited = [this](const launch::ExitRecord& record) {
    // A group with no member left is free for the kernel to give out
    // again: the keeper must not kill its next owner. One that still has
    // members (the rank's background children) stays watched, and its
    // RankProcess kills it at the end.
    if (auto it = ranks_.find(record.rank); it != ranks_.end() && it->second->group_gone()) {
      keeper_.forget(it->second->process_group());
    }
    // What its PMI connection still held (an abort) goes up first.
    pmi_->ended(record.rank);
    if (parent_gone_) {
      maybe_finish();
      return;
    }
    launch::ExitRecord r = record;
    r.pmi = pmi_->progress(record.rank);
    if (!r.started) {
      r.wait_status = 127 << 8;
    }
    up(launch::kTagStatus, r);
    say_done_if_idle();
    maybe_finish();
  };
  hooks.stdin_written = [this](std::uint32_t n) { up(launch::kTagCredit, launch::StdinCredit{.bytes = n}); };
  return hooks;
}

void DaemonSession::on_stdin(std::span<const std::uint8_t> bytes) {
  auto m = launch::decode(bytes);
  if (!m || !std::holds_alternative<launch::StdinData>(m.value())) return;
  const auto& data = std::get<launch::StdinData>(m.value());
  // Every rank here that reads stdin gets the bytes; each credits what
  // it took, and orcarun counts one window per rank that reads.
  for (auto& [rank, r] : ranks_) {
    if (r->reads_stdin()) r->write_stdin(data.bytes, data.eof);
  }
}

void DaemonSession::on_output_credit(std::span<const std::uint8_t> bytes) {
  auto m = launch::decode(bytes);
  if (!m || !std::holds_alternative<launch::OutputCredit>(m.value())) return;
  output_window_->credited(std::get<launch::OutputCredit>(m.value()).bytes);
  resume_output();
}

bool DaemonSession::output_may_flow() const { return outbox_->waiting() == 0 && output_window_->open(); }

void DaemonSession::resume_output() {
  if (!output_may_flow()) return;
  for (auto& [rank, r] : ranks_) r->resume_output();
}

void DaemonSession::child_agent_ended(std::uint32_t vpid, int status, const std::string& tail) {
  if (!ending_) {
    report_failure(vpid, "the agent for " + host_of(vpid) + " (vpid " + std::to_string(vpid) + ") " +
                             plm::describe_wait_status(status) +
                             (tail.empty() ? std::string(", printing nothing") : ", printing:\n" + tail));
  }
  maybe_finish();
}

void DaemonSession::report_failure(std::uint32_t vpid, const std::string& message) {
  up(launch::kTagStatus, launch::DaemonFailure{.vpid = vpid, .host = host_of(vpid), .message = message});
}

void DaemonSession::parent_gone(const std::string& why) {
  // Once: sending the report below may itself find the parent lost, and
  // the oob says so from inside the send.
  if (parent_gone_) return;
  parent_gone_ = true;
  ending_ = true;
  process_.runtime().log("plm", "the parent of this daemon is gone (" + why + "); killing its ranks and exiting");
  // If orcarun can still hear us (only the agent's session died), the
  // cause is this daemon's end, not its ranks' SIGKILL: say so first, and
  // send no exit records that would read as the ranks failing.
  report_failure(bootstrap_.vpid, "this daemon's parent is gone (" + why + "); it killed its ranks and exited");
  end_at_once();
}

void DaemonSession::end_at_once() {
  exit_status_ = 1;
  ending_ = true;
  for (auto& [rank, r] : ranks_) r->signal(SIGKILL);
  // Our children must end their ranks before they go: SIGTERM makes an
  // orcad end as here (and ends an agent, which closes its daemon's
  // stdin). A SIGKILLed orcad kills nothing, and the parent-death signal
  // reaches only each rank's own process, not what the rank started.
  if (launcher_) {
    launcher_->cancel_waiting();
    launcher_->signal_all(SIGTERM);
  }
  end_limit_ = std::make_unique<Timer>(process_.loop(), [this] {
    if (launcher_) launcher_->signal_all(SIGKILL);
    process_.loop().stop();
  });
  end_limit_->start(kEndLimit);
  maybe_finish();
}

void DaemonSession::begin_end(int signo) {
  if (ending_) return;
  ending_ = true;
  for (auto& [rank, r] : ranks_) r->signal(signo != 0 ? signo : SIGKILL);
  for (std::uint32_t child : tree_->children(bootstrap_.vpid)) {
    if (oob_->knows(name(child))) {
      // Relayed the teardown (on_control): its connection closing is its
      // end, not a loss to dial again.
      oob_->forget_peer(name(child));
    } else if (launcher_) {
      // Children that have not said hello did not get the teardown relayed.
      launcher_->signal(child, SIGTERM);
    }
  }
  end_limit_ = std::make_unique<Timer>(process_.loop(), [this] {
    if (launcher_) launcher_->signal_all(SIGKILL);
    process_.loop().stop();
  });
  end_limit_->start(kEndLimit);
  maybe_finish();
}

// This daemon's part of the job is over when every rank of it ended with
// nothing left in its process group, no rank of it reads orcarun's stdin
// (orcarun counts on its credit), no pmi module serves them (another rank
// may still ask for their data), and no daemon relays through it. It says
// so once; orcarun answers with a Teardown to it alone, so that it ends
// now instead of with the job's last rank (srun ends a step only when
// every task has, and a host is free sooner).
void DaemonSession::say_done_if_idle() {
  if (done_said_ || !ranks_launched_ || ending_ || bootstrap_.parent != 0 || launcher_ ||
      !tree_->children(bootstrap_.vpid).empty() || (pmi_ && pmi_->serves_ranks())) {
    return;
  }
  for (const auto& [rank, r] : ranks_) {
    if (r->running() || r->reads_stdin() || !r->group_gone()) return;
  }
  done_said_ = true;
  up(launch::kTagStatus, launch::DaemonDone{.vpid = bootstrap_.vpid});
}

void DaemonSession::maybe_finish() {
  if (!ending_) return;
  for (auto& [rank, r] : ranks_) {
    if (r->running()) return;
  }
  if (launcher_ && launcher_->running() > 0) return;
  process_.loop().stop();
}

int DaemonSession::run() {
  if (Status st = start(); !st) {
    process_.fail(st.error());
    return 1;
  }
  process_.loop().run();
  return exit_status_;
}

}  // namespace orca::orcad
