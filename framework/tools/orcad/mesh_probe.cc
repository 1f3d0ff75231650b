// MeshProbe and MeshListener: the full-mesh check's two sides.
#include "mesh_probe.h"

#include <orca/tcp_sockets.h>

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace orca::orcad {

Result<std::unique_ptr<MeshListener>> MeshListener::open(EventLoop& loop, const net::IpAddress& address) {
  auto fd = net::listen_on(address, 0);
  if (!fd) return fd.error();
  return std::unique_ptr<MeshListener>(new MeshListener(loop, std::move(fd.value())));
}

MeshListener::MeshListener(EventLoop& loop, UniqueFd fd) : fd_(std::move(fd)), port_(net::local_port(fd_.get())) {
  // Accept and close at once: the check needs the handshake only, and a
  // full backlog would turn other hosts' connects into time-outs.
  watch_ = std::make_unique<IoWatch>(loop, fd_.get(), IoWatch::kRead, [this](short) {
    for (int i = 0; i < 64; ++i) {
      UniqueFd peer(::accept4(fd_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
      if (!peer.valid()) break;
    }
  });
  watch_->enable();
}

struct MeshProbe::Dial {
  UniqueFd fd;
  std::unique_ptr<IoWatch> watch;
  std::unique_ptr<Timer> timer;
};

MeshProbe::MeshProbe(EventLoop& loop, std::vector<net::IpAddress> locals, std::vector<Target> targets,
                     size_t concurrency, std::chrono::milliseconds timeout, Done done)
    : loop_(loop),
      locals_(std::move(locals)),
      targets_(std::move(targets)),
      concurrency_(concurrency == 0 ? 1 : concurrency),
      timeout_(timeout),
      done_(std::move(done)),
      deferred_(std::make_unique<EventLoop>(loop.base())) {
  dials_.resize(targets_.size());
  start_next();
  if (targets_.empty()) deferred_->defer([this] { done_(failures_); });
}

MeshProbe::~MeshProbe() = default;

void MeshProbe::start_next() {
  while (in_flight_ < concurrency_ && next_ < targets_.size()) {
    const size_t i = next_++;
    const Target& t = targets_[i];
    const auto local = std::find_if(locals_.begin(), locals_.end(),
                                    [&](const net::IpAddress& a) { return a.family() == t.address.family(); });
    if (local == locals_.end()) {
      finished(i, std::string("this host's data-plane interface has no ") +
                      (t.address.family() == net::Family::V6 ? "IPv6" : "IPv4") +
                      " address, so its ranks cannot reach this one either");
      continue;
    }
    auto fd = net::start_connect(*local, 0, t.address, t.port);
    if (!fd) {
      finished(i, fd.error().arg("call") + ": " + fd.error().arg("why"));
      continue;
    }
    auto dial = std::make_unique<Dial>();
    dial->fd = std::move(fd.value());
    dial->watch = std::make_unique<IoWatch>(loop_, dial->fd.get(), IoWatch::kWrite, [this, i](short) {
      int err = 0;
      socklen_t len = sizeof err;
      if (::getsockopt(dials_[i]->fd.get(), SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
      finished(i, err == 0 ? std::string() : std::string(std::strerror(err)));
    });
    dial->timer = std::make_unique<Timer>(loop_, [this, i] {
      finished(i, "timed out after " + std::to_string(timeout_.count()) + " ms");
    });
    dial->watch->enable();
    dial->timer->start(timeout_);
    dials_[i] = std::move(dial);
    ++in_flight_;
  }
}

void MeshProbe::finished(size_t i, const std::string& why) {
  if (dials_[i]) {
    // From inside its own watch or timer: free it after this callback, and
    // silence both now, so that a write-ready that fires again before then
    // cannot count this target twice.
    dials_[i]->watch->disable();
    dials_[i]->timer->cancel();
    deferred_->defer([gone = std::shared_ptr<Dial>(std::move(dials_[i]))] {});
    --in_flight_;
  }
  if (!why.empty()) {
    const Target& t = targets_[i];
    const std::string where = t.address.family() == net::Family::V6 ? "[" + t.address.to_string() + "]" : t.address.to_string();
    failures_.push_back(t.name + " " + where + ":" + std::to_string(t.port) + ": " + why);
  }
  ++done_count_;
  start_next();
  if (done_count_ == targets_.size()) deferred_->defer([this] { done_(failures_); });
}

}  // namespace orca::orcad
