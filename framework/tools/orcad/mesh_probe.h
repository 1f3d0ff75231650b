// MeshProbe: the optional full-mesh check from this host's side. It
// connects from this host's data-plane interface to every other host's
// data-plane address (the listener each of them holds for the check), at
// most `concurrency` at once, each within `timeout`, and reports the
// targets that did not connect. Each dial leaves from the first of
// `locals` (the chosen address, then the chosen interface's others) of
// the target's family: hosts may choose different families on a
// dual-stack network, and a library on this host, bound to the
// interface, would reach an IPv6 peer from the interface's IPv6 address.
// A connection counts once the kernel completed the handshake: that is
// what a library's own connect would see. MeshListener is the
// other side: a listener on this host's address that accepts and closes.
#ifndef ORCA_TOOLS_ORCAD_MESH_PROBE_H
#define ORCA_TOOLS_ORCAD_MESH_PROBE_H

#include <orca/event_loop.h>
#include <orca/ip_address.h>
#include <orca/result.h>
#include <orca/unique_fd.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace orca::orcad {

class MeshListener {
 public:
  /* Errors: the socket could not be made (named). */
  static Result<std::unique_ptr<MeshListener>> open(EventLoop& loop, const net::IpAddress& address);
  std::uint16_t port() const noexcept { return port_; }

 private:
  MeshListener(EventLoop& loop, UniqueFd fd);
  UniqueFd fd_;
  std::uint16_t port_ = 0;
  std::unique_ptr<IoWatch> watch_;
};

class MeshProbe {
 public:
  struct Target {
    std::string name;
    net::IpAddress address;
    std::uint16_t port = 0;
  };
  /* Called once, from the loop, with "NAME ADDRESS:PORT: why" per target
   * that did not connect. The probe must not be destroyed from it (its
   * deferred calls are running): drop it later. */
  using Done = std::function<void(std::vector<std::string> failures)>;

  MeshProbe(EventLoop& loop, std::vector<net::IpAddress> locals, std::vector<Target> targets, size_t concurrency,
            std::chrono::milliseconds timeout, Done done);
  ~MeshProbe();
  MeshProbe(const MeshProbe&) = delete;
  MeshProbe& operator=(const MeshProbe&) = delete;

 private:
  struct Dial;
  void start_next();
  void finished(size_t target, const std::string& why);

  EventLoop& loop_;
  std::vector<net::IpAddress> locals_;
  std::vector<Target> targets_;
  size_t concurrency_;
  std::chrono::milliseconds timeout_;
  Done done_;
  std::vector<std::unique_ptr<Dial>> dials_;  // by target; null: not started or done
  size_t next_ = 0;
  size_t in_flight_ = 0;
  size_t done_count_ = 0;
  std::vector<std::string> failures_;
  std::unique_ptr<EventLoop> deferred_;  // the report runs after the callback that found it
};

}  // namespace orca::orcad

#endif
