// oob/tcp module: listening, contact, connect races, address changes.
#include "tcp_module.h"

#include "host_list.h"
#include "tcp_socket.h"

#include <orca/oob_acceptor.h>

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <cstdio>
#include <cstring>
#include <set>

namespace orca::oob::tcp {

namespace {

using reach::address_of;

constexpr size_t kMaxLocal = 4096;
constexpr size_t kFirstLocal = 16;  // a host with more is asked again (fill_from_host)

// A peer's advertised endpoint, as the reachable framework sees it.
orca_reach_endpoint endpoint_of(const Endpoint& e) {
  return reach::to_endpoint(reach::RemoteAddress{e.address, e.prefix_length, e.kind});
}

}  // namespace

// One listening socket; its accept loop is liborca's StreamAcceptor.
struct TcpModule::Listener {
  Listener(TcpModule& module, net::IpAddress bound, std::uint16_t bound_port, UniqueFd socket)
      : address(bound),
        port(bound_port),
        acceptor(*module.loop_, std::move(socket), Endpoint{bound, 0, net::InterfaceKind::Unknown, bound_port}.socket_text(),
                 [&module](UniqueFd c) { module.on_accepted(std::move(c)); },
                 [&module](int level, const std::string& text) { module.log(level, text); }) {}
  net::IpAddress address;  // may be the wildcard
  std::uint16_t port;
  StreamAcceptor acceptor;
};

// One round of connection attempts to a peer.
struct TcpModule::Dialing {
  struct Candidate {
    net::IpAddress local;
    int if_index = 0;
    Endpoint remote;
    std::string reason;
  };
  struct Attempt {
    UniqueFd fd;  // until connected
    std::unique_ptr<IoWatch> connecting;
    std::unique_ptr<Engine::Attempt> handshake;
  };

  Dialing(TcpModule& module, ProcessName peer_name, std::vector<Candidate> list)
      : peer(peer_name),
        candidates(std::move(list)),
        attempts(candidates.size()),
        stagger(*module.loop_, [this] { race->on_timer(); }),
        deadline(*module.loop_, [this, &module] {
          race->abort("no connection within oob_tcp_connect_timeout (" +
                      std::to_string(module.config_.connect_timeout.count()) + " ms)");
          module.round_finished(peer);
        }) {
    ConnectRace::Hooks hooks;
    hooks.start_attempt = [this, &module](size_t i) { begin(module, i); };
    hooks.cancel_attempt = [this](size_t i) {
      // The race has recorded why (another address won, the deadline passed).
      if (attempts[i].handshake) attempts[i].handshake->cancel(race->detail(i));
      attempts[i] = Attempt{};
    };
    hooks.arm_timer = [this](std::chrono::milliseconds d) { stagger.start(d); };
    hooks.cancel_timer = [this] { stagger.cancel(); };
    race = std::make_unique<ConnectRace>(candidates.size(), module.config_.stagger, std::move(hooks));
  }

  void begin(TcpModule& module, size_t i) {
    const Candidate& c = candidates[i];
    module.log(20, "connecting to " + peer.to_string() + " at " + c.remote.socket_text() + " from " +
                       c.local.to_string() + " (" + c.reason + ")");
    auto fd = start_connect(c.local, c.if_index, c.remote.address, c.remote.port);
    if (!fd) {
      fail(module, i, fd.error().arg("call") + " failed: " + fd.error().arg("why"));
      return;
    }
    Attempt& a = attempts[i];
    a.fd = std::move(fd.value());
    a.connecting = std::make_unique<IoWatch>(*module.loop_, a.fd.get(), IoWatch::kWrite,
                                             [this, &module, i](short) { connected(module, i); });
    a.connecting->enable();
  }

  void connected(TcpModule& module, size_t i) {
    Attempt& a = attempts[i];
    a.connecting->disable();
    int err = 0;
    socklen_t len = sizeof err;
    if (::getsockopt(a.fd.get(), SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
    if (err != 0) {
      fail(module, i, std::string("connect failed: ") + std::strerror(err));
      return;
    }
    tune_stream(a.fd.get(), module.config_);
    const std::string label = local_text(a.fd.get()) + " -> " + peer_text(a.fd.get());
    a.handshake = module.engine_->dial(std::move(a.fd), peer, label, [this, &module, i](const Status& st) {
      if (st) {
        race->on_succeeded(i);
        module.log(10, "connected to " + peer.to_string() + " via " + candidates[i].remote.socket_text());
        module.round_finished(peer);
      } else {
        fail(module, i, st.error().arg("why"));
      }
    });
  }

  void fail(TcpModule& module, size_t i, std::string why) {
    module.log(20, "attempt " + candidates[i].remote.socket_text() + " failed: " + why);
    race->on_failed(i, std::move(why));
    if (race->finished()) module.round_finished(peer);
  }

  /* Every candidate and what happened to it, for the final error. */
  std::string report() const {
    std::string out;
    for (size_t i = 0; i < candidates.size(); ++i) {
      out += "\n  " + candidates[i].local.to_string() + " -> " + candidates[i].remote.socket_text() + ": ";
      switch (race->outcome(i)) {
        case ConnectRace::Outcome::NotTried: out += "not tried"; break;
        case ConnectRace::Outcome::InFlight: out += "still connecting"; break;
        case ConnectRace::Outcome::Won: out += "connected"; break;
        default: out += race->detail(i); break;
      }
    }
    return out;
  }

  ProcessName peer;
  std::vector<Candidate> candidates;
  std::vector<Attempt> attempts;
  std::string refused;  // for the route report: the pairs the ranking refused that are worth reading
  Timer stagger;
  Timer deadline;
  std::unique_ptr<ConnectRace> race;
  bool reported = false;
};

TcpModule::TcpModule(TcpConfig config)
    : StreamModule("tcp", kPriority, config.engine), config_(std::move(config)) {}

TcpModule::~TcpModule() { stop(); }

Status TcpModule::start(const orca_oob_host& host) {
  start_engine(host);
  finished_ = std::make_unique<EventLoop>(host.base);
  if (Status st = open_listeners(); !st) return st;
  auto watch = net::AddressWatch::start(*loop_, std::chrono::milliseconds(100), [this] { on_addresses_changed(); });
  if (watch) {
    watch_ = std::move(watch.value());
  } else {
    log(10, "address changes will not be noticed: " + watch.error().arg("why"));
  }
  return {};
}

Status TcpModule::open_listeners() {
  std::vector<orca_reach_endpoint> locals;
  orca_mca_reason why{};
  if (select_local(locals, &why) != ORCA_MCA_OK) return Message("oob", "tcp-no-selection", {{"why", why.text}});
  const size_t n = locals.size();
  std::vector<Endpoint> selected;
  local_addresses_.clear();
  for (size_t i = 0; i < n; ++i) {
    const net::IpAddress a = address_of(locals[i]);
    local_addresses_.insert(a);
    const bool v4 = a.family() == net::Family::V4;
    if ((v4 && config_.ipv4) || (!v4 && config_.ipv6))
      selected.push_back(Endpoint{a, locals[i].prefix_length, static_cast<net::InterfaceKind>(locals[i].kind), 0});
  }
  // Listen where asked: on each selected address, or on the wildcard of
  // each family in use (oob_tcp_listen_wildcard).
  std::vector<net::IpAddress> binds;
  if (config_.listen_wildcard) {
    const std::uint8_t zero[16] = {};
    for (const auto& e : selected) {
      const net::IpAddress any(e.address.family(), zero);
      if (std::find(binds.begin(), binds.end(), any) == binds.end()) binds.push_back(any);
    }
  } else {
    for (const auto& e : selected) binds.push_back(e.address);
  }
  std::string skipped;
  for (const auto& a : binds) {
    const bool open_already = std::any_of(listeners_.begin(), listeners_.end(),
                                          [&](const auto& l) { return l->address == a; });
    if (open_already) continue;
    const bool v4 = a.family() == net::Family::V4;
    std::vector<std::uint16_t> ports = ports_of(v4 ? config_.ports_v4 : config_.ports_v6);
    if (ports.empty()) ports.push_back(0);
    std::optional<Message> last;
    for (std::uint16_t port : ports) {
      auto fd = listen_on(a, port);
      if (!fd) {
        last = fd.error();
        continue;
      }
      listeners_.push_back(std::make_unique<Listener>(*this, a, local_port(fd->get()), std::move(fd.value())));
      log(10, "listening on " + Endpoint{a, 0, net::InterfaceKind::Unknown, listeners_.back()->port}.socket_text());
      last.reset();
      break;
    }
    if (last) skipped += " " + a.to_string() + " (" + last->arg("why") + ")";
  }
  // Level 0: always shown; an address left out of the URI must not go unnoticed.
  if (!skipped.empty()) log(0, "cannot listen on (left out of the contact URI):" + skipped);
  // Advertise every selected address that a listener serves, with its port.
  std::vector<Endpoint> advertised;
  for (auto e : selected) {
    for (const auto& l : listeners_) {
      if (l->address == e.address || (l->address.is_unspecified() && l->address.family() == e.address.family())) {
        e.port = l->port;
        advertised.push_back(e);
        break;
      }
    }
  }
  if (advertised.empty()) {
    return Message("oob", "tcp-no-listener", {{"skipped", skipped.empty() ? " (no address selected)" : skipped}});
  }
  contact_ = encode_contact(advertised);
  return {};
}

orca_mca_rc TcpModule::select_local(std::vector<orca_reach_endpoint>& locals, orca_mca_reason* why) {
  return fill_from_host(locals, kFirstLocal, kMaxLocal, [&](orca_reach_endpoint* out, size_t* n) {
    return host_->select_local(host_->host, interface_filter(), out, n, why);
  });
}

void TcpModule::on_addresses_changed() {
  std::vector<orca_reach_endpoint> locals;
  orca_mca_reason why{};
  if (select_local(locals, &why) != ORCA_MCA_OK) return;
  std::set<net::IpAddress> present;
  for (const auto& l : locals) present.insert(address_of(l));
  // Every connection label starts with its local address, listener-side
  // or dialled: closing by that prefix moves them all off a vanished
  // address; the engine then asks again for every peer with messages waiting.
  for (const net::IpAddress& gone : local_addresses_) {
    if (present.count(gone)) continue;
    const std::string a = gone.to_string();
    log(10, "address " + a + " vanished: closing its listener and connections");
    std::erase_if(listeners_, [&](const auto& l) { return l->address == gone; });
    const std::string prefix = gone.family() == net::Family::V6 ? "[" + a + "]:" : a + ":";
    engine_->drop_connections_with_prefix(prefix, "local address " + a + " vanished");
  }
  (void)open_listeners();  // new addresses get listeners (peers learn them from new URIs)
}

Status TcpModule::add_peer(ProcessName peer, const std::string& uri) {
  auto parsed = ContactUri::parse(uri);
  if (!parsed) return parsed.error();
  auto part = parsed->parts.find("tcp");
  if (part == parsed->parts.end()) return Message("oob", "declined", {{"why", "the peer has no tcp address"}});
  auto endpoints = parse_contact(part->second);
  if (!endpoints) return endpoints.error();
  Peer& p = peers_[peer];
  p.endpoints = std::move(endpoints.value());
  p.same_host = parsed->host_identity == host_->host_identity;
  return {};
}

void TcpModule::on_accepted(UniqueFd c) {
  tune_stream(c.get(), config_);
  // A connection's handshake slot is counted by its source address: one
  // client, however many sockets it opens, gets one source's share.
  const std::string label = local_text(c.get()) + " <- " + peer_text(c.get());
  const std::string source = peer_address_text(c.get());
  engine_->accept(std::move(c), label, source);
}

void TcpModule::want_connection(ProcessName peer) {
  auto it = peers_.find(peer);
  if (it == peers_.end()) {
    // A peer that only ever connected to us: it reconnects, we cannot.
    log(10, "no connection to " + peer.to_string() + " and its contact URI is unknown: waiting for it to connect");
    return;
  }
  if (it->second.dialing || (it->second.retry && it->second.retry->pending())) return;  // already on it
  start_round(peer);
}

void TcpModule::start_round(ProcessName peer) {
  Peer& p = peers_.at(peer);
  std::vector<orca_reach_endpoint> remotes;
  for (const auto& e : p.endpoints) remotes.push_back(endpoint_of(e));
  // Room for a pair of each remote with each local address, plus some
  // for addresses new since the listeners opened.
  std::vector<orca_oob_pair> pairs;
  (void)fill_from_host(pairs, remotes.size() * (local_addresses_.size() + 4), std::max<size_t>(1, remotes.size() * 64),
                       [&](orca_oob_pair* out, size_t* count) {
                         return host_->rank(host_->host, interface_filter(), remotes.data(),
                                            remotes.size(), p.same_host ? 1 : 0, out, count);
                       });
  const size_t n = pairs.size();
  std::vector<Dialing::Candidate> candidates;
  std::string refused;
  // For the route report: the refusals worth reading. Pairs of different
  // families, and loopback with anything, are refused on every host.
  std::string notable;
  size_t structural = 0;
  for (size_t i = 0; i < n; ++i) {
    const Endpoint& remote = p.endpoints[pairs[i].remote];
    if (pairs[i].weight <= 0) {
      const std::string line = "\n  " + address_of(pairs[i].local).to_string() + " -> " + remote.socket_text() +
                               ": never tried, " + pairs[i].reason;
      refused += line;
      const net::IpAddress l = address_of(pairs[i].local);
      if (l.family() != remote.address.family() || l.is_loopback() || remote.address.is_loopback()) {
        ++structural;
      } else {
        notable += line;
      }
      continue;
    }
    net::IpAddress local = address_of(pairs[i].local);
    net::IpAddress dest = remote.address;
    if (dest.is_link_local() && dest.family() == net::Family::V6) dest.set_scope_id(static_cast<std::uint32_t>(pairs[i].local.if_index));
    Endpoint target = remote;
    target.address = dest;
    candidates.push_back(Dialing::Candidate{local, pairs[i].local.if_index, target, pairs[i].reason});
  }
  if (candidates.empty()) {
    const std::string why = "no local address can reach any address of " + peer.to_string() + ":" + refused;
    log(1, why);
    host_->peer_lost(host_->host, peer.to_c(), why.c_str());
    return;
  }
  p.dialing = std::make_unique<Dialing>(*this, peer, std::move(candidates));
  if (structural > 0) {
    notable += "\n  (and " + std::to_string(structural) + " pairs of different address families or with loopback)";
  }
  p.dialing->refused = std::move(notable);
  p.dialing->deadline.start(config_.connect_timeout);
  p.dialing->race->start();
  if (p.dialing && p.dialing->race->finished()) round_finished(peer);
}

void TcpModule::round_finished(ProcessName peer) {
  auto it = peers_.find(peer);
  if (it == peers_.end() || !it->second.dialing || it->second.dialing->reported) return;
  Peer& p = it->second;
  Dialing& d = *p.dialing;
  d.reported = true;
  d.deadline.cancel();
  // The data plane's evidence: what each attempt proved. A loser
  // cancelled because another won proves nothing.
  if (host_->link_outcome != nullptr) {
    for (size_t i = 0; i < d.candidates.size(); ++i) {
      const auto outcome = d.race->outcome(i);
      if (outcome != ConnectRace::Outcome::Won && outcome != ConnectRace::Outcome::Failed) continue;
      host_->link_outcome(host_->host, d.candidates[i].local.to_string().c_str(),
                          d.candidates[i].remote.address.to_string().c_str(), outcome == ConnectRace::Outcome::Won ? 1 : 0);
    }
  }
  const bool won = d.race->winner().has_value();
  const std::string report = d.report();
  // The race may be reporting from inside one of its own callbacks.
  finished_->defer([done = std::shared_ptr<Dialing>(std::move(p.dialing))] {});
  if (won) {
    p.failed_rounds = 0;
    // For --report-routes: the winner's reason, then every other pair and
    // what became of it.
    const size_t w = *d.race->winner();
    p.route_note = "chosen: " + d.candidates[w].reason;
    for (size_t i = 0; i < d.candidates.size(); ++i) {
      if (i == w) continue;
      p.route_note += "\n  not used: " + d.candidates[i].local.to_string() + " -> " + d.candidates[i].remote.socket_text() +
                      ": " + (d.race->outcome(i) == ConnectRace::Outcome::NotTried ? std::string("not tried (another won first)")
                                                                                   : d.race->detail(i));
    }
    p.route_note += d.refused;
    // The winning connection may already be gone (closed as a duplicate,
    // or dropped at once): messages still waiting need another round.
    if (!engine_->connected(peer) && engine_->unacknowledged(peer) > 0) {
      if (!p.retry) p.retry = std::make_unique<Timer>(*loop_, [this, peer] { start_round(peer); });
      p.retry->start(config_.retry_backoff);
    }
    return;
  }
  ++p.failed_rounds;
  if (p.failed_rounds > config_.retries) {
    const std::string why = "cannot connect to " + peer.to_string() + " after " + std::to_string(p.failed_rounds) +
                            " rounds; last round:" + report;
    log(1, why);
    p.failed_rounds = 0;
    host_->peer_lost(host_->host, peer.to_c(), why.c_str());
    return;
  }
  const auto backoff = config_.retry_backoff * (1 << std::min(p.failed_rounds - 1, 10));
  log(10, "round " + std::to_string(p.failed_rounds) + " to " + peer.to_string() + " failed; retrying in " +
              std::to_string(backoff.count()) + " ms:" + report);
  if (!p.retry) p.retry = std::make_unique<Timer>(*loop_, [this, peer] { start_round(peer); });
  p.retry->start(backoff);
}

std::string TcpModule::describe(ProcessName peer) const {
  std::string label = StreamModule::describe(peer);
  auto it = peers_.find(peer);
  if (label.empty() || it == peers_.end() || it->second.route_note.empty()) return label;
  return label + "; " + it->second.route_note;
}

void TcpModule::stop() {
  watch_.reset();
  for (auto& [name, p] : peers_) {
    p.dialing.reset();
    p.retry.reset();
  }
  finished_.reset();  // frees the finished rounds not freed yet: their attempts refer to the engine
  listeners_.clear();
  stop_engine();
}

}  // namespace orca::oob::tcp
