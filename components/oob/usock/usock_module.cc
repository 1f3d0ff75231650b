// oob/usock module.
#include "usock_module.h"

#include <orca/oob_random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace orca::oob::usock {

namespace {

// Abstract names: "@" in the contact stands for the leading NUL.
sockaddr_un abstract_address(const std::string& name, socklen_t* length) {
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  const size_t n = std::min(name.size(), sizeof sa.sun_path - 1);
  std::memcpy(sa.sun_path + 1, name.data(), n);
  *length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
  return sa;
}

Message socket_error(const std::string& call) {
  return Message("oob", "socket-failed", {{"call", call}, {"what", "unix socket"}, {"why", std::strerror(errno)}});
}

}  // namespace

UsockModule::~UsockModule() { stop(); }

Status UsockModule::start(const orca_oob_host& host) {
  start_engine(host);

  // A random part keeps a restarted process from colliding with a name
  // the kernel still holds.
  std::uint8_t nonce[6];
  if (std::string why; !random_bytes(nonce, &why)) {
    return Message("oob", "socket-failed", {{"call", "getrandom"}, {"what", "a unique unix socket name"}, {"why", why}});
  }
  char hex[13];
  for (int i = 0; i < 6; ++i) std::snprintf(hex + 2 * i, 3, "%02x", nonce[i]);
  name_ = "orca/" + ProcessName::from_c(host.self).to_string() + "/" + std::to_string(::getpid()) + "/" + hex;
  UniqueFd listener(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!listener.valid()) return socket_error("socket(AF_UNIX)");
  socklen_t len = 0;
  const sockaddr_un sa = abstract_address(name_, &len);
  if (::bind(listener.get(), reinterpret_cast<const sockaddr*>(&sa), len) != 0) return socket_error("bind");
  // Why an abstract name, which anyone on this host (in this network
  // namespace) can connect to, and not a socket file in a 0700 directory,
  // which the kernel would refuse to strangers at connect(): the
  // abstract name needs no directory (where? $TMPDIR may be shared, on
  // NFS, or too long for sun_path) and leaves nothing behind when the
  // process is SIGKILLed, where a file and its directory would stay until
  // something cleans them up; and it lives in the network namespace,
  // which is what the host identity a peer checks already includes. The
  // price: strangers can connect. Their connections are refused at
  // accept (on_accepted), before they get a handshake slot or a byte of
  // buffer, so all they can hold is room in the listen backlog: bounded
  // by the kernel (SOMAXCONN, below), and drained as fast as accept(),
  // one getsockopt and close() go, up to StreamAcceptor::kBatch a wakeup.
  // A stranger who connects faster than that fills the backlog, and a
  // daemon's connect() meets EAGAIN: want_connection retries it for up to
  // handshake_timeout, so the flood delays the daemon, nothing more.
  if (::listen(listener.get(), SOMAXCONN) != 0) return socket_error("listen");
  acceptor_ = std::make_unique<StreamAcceptor>(
      *loop_, std::move(listener), "@" + name_, [this](UniqueFd c) { on_accepted(std::move(c)); },
      [this](int level, const std::string& text) { log(level, text); });
  contact_ = "usock=@" + name_;
  return {};
}

void UsockModule::on_accepted(UniqueFd c) {
  // Another uid's connection closes here, before the engine sees it. Every
  // local client has the same address: the handshake slots of the others
  // are counted by the process the kernel says each is.
  UidGate::Verdict v = gate_.check(c.get(), "@" + name_, LogThrottle::Clock::now());
  if (!v.admitted) {
    if (!v.log_line.empty()) log(0, v.log_line);
    return;  // c closes here
  }
  engine_->accept(std::move(c), "@" + name_ + " <- local", v.source);
}

Status UsockModule::add_peer(ProcessName peer, const std::string& uri) {
  auto parsed = ContactUri::parse(uri);
  if (!parsed) return parsed.error();
  if (parsed->host_identity != host_->host_identity) {
    return Message("oob", "declined", {{"why", "the peer is on another host (or network namespace)"}},
                   ErrorKind::Declined);
  }
  auto part = parsed->parts.find("usock");
  if (part == parsed->parts.end()) {
    return Message("oob", "declined", {{"why", "the peer has no usock address"}}, ErrorKind::Declined);
  }
  if (part->second.size() < 2 || part->second.front() != '@') {
    return Message("oob", "bad-uri", {{"uri", "usock=" + part->second}, {"why", "not an abstract socket name (@...)"}});
  }
  peers_[peer] = part->second.substr(1);
  return {};
}

void UsockModule::want_connection(ProcessName peer) {
  auto it = peers_.find(peer);
  if (it == peers_.end() || dialing_.count(peer)) return;
  BacklogWait& wait = backlog_waits_[peer];
  if (wait.timer && wait.timer->pending()) return;  // retried when it fires
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  socklen_t len = 0;
  const sockaddr_un sa = abstract_address(it->second, &len);
  if (!fd.valid() || ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&sa), len) != 0) {
    const int err = errno;
    if (fd.valid() && err == EAGAIN && wait_for_backlog(peer, wait)) return;
    std::string why = "cannot connect to @" + it->second + ": " + std::strerror(err);
    if (err == EAGAIN) {
      why += ": its listen backlog stayed full for " + std::to_string(engine_->config().handshake_timeout.count()) +
             " ms (" + engine_->config().variable("handshake_timeout") + "; is another local user flooding it?)";
    }
    wait.since.reset();
    host_->peer_lost(host_->host, peer.to_c(), why.c_str());
    return;
  }
  wait.since.reset();
  dialing_[peer] = nullptr;  // a placeholder: the outcome may come before dial() returns
  auto attempt = engine_->dial(std::move(fd), peer, "local -> @" + it->second, [this, peer](const Status& st) {
    // Freed after this callback returns; the engine no longer needs it.
    auto done = dialing_.extract(peer);
    (void)done;
    if (!st) host_->peer_lost(host_->host, peer.to_c(), st.error().arg("why").c_str());
  });
  if (auto slot = dialing_.find(peer); slot != dialing_.end()) slot->second = std::move(attempt);
}

bool UsockModule::wait_for_backlog(ProcessName peer, BacklogWait& wait) {
  // A nonblocking connect to a unix listener whose backlog is full fails
  // at once (EAGAIN), where TCP would retransmit its SYN: try again soon,
  // 1 ms doubling up to 100 ms, for up to handshake_timeout.
  const auto now = std::chrono::steady_clock::now();
  if (!wait.since) {
    wait.since = now;
    wait.delay = std::chrono::milliseconds(1);
  } else if (now - *wait.since >= engine_->config().handshake_timeout) {
    return false;
  }
  if (!wait.timer) wait.timer = std::make_unique<Timer>(*loop_, [this, peer] { want_connection(peer); });
  log(wait.delay.count() == 1 ? 10 : 20, "the listen backlog of " + peer.to_string() + " is full; connecting again in " +
                                             std::to_string(wait.delay.count()) + " ms");
  wait.timer->start(wait.delay);
  wait.delay = std::min(wait.delay * 2, std::chrono::milliseconds(100));
  return true;
}

void UsockModule::stop() {
  backlog_waits_.clear();
  dialing_.clear();
  acceptor_.reset();
  stop_engine();
}

}  // namespace orca::oob::usock
