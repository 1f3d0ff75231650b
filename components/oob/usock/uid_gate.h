// UidGate: who may hold a handshake on a usock listener. Only processes of
// the listener's own (effective) uid: the kernel says who connected
// (SO_PEERCRED, which cannot be forged), so another user's connection is
// closed at accept, before the engine allocates anything or gives it a
// handshake slot. Root is no exception (root can read the job's secret
// anyway, and become the user; one rule is simpler, and a root job's
// peers are root). Refusals are logged at most once a second
// (LogThrottle), each line counting the ones it did not show.
//
// Pure apart from the one getsockopt: tested over socketpairs.
#ifndef ORCA_COMPONENTS_OOB_USOCK_UID_GATE_H
#define ORCA_COMPONENTS_OOB_USOCK_UID_GATE_H

#include <orca/log_throttle.h>

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace orca::oob::usock {

class UidGate {
 public:
  explicit UidGate(uid_t owner, std::chrono::milliseconds log_period = std::chrono::seconds(1))
      : owner_(owner), log_(log_period) {}

  struct Verdict {
    bool admitted = false;
    std::string source;    // admitted: "pid N", the key of its handshake slot
    std::string log_line;  // refused: a line to log now (level 0); empty: counted, not logged
  };
  /* Who connected socket `fd` (accepted on `listener`, which names it in
   * the line) and whether it may stay. A socket whose peer the kernel
   * cannot name is refused too. */
  Verdict check(int fd, const std::string& listener, LogThrottle::Clock::time_point now);

  uid_t owner() const noexcept { return owner_; }
  /* Connections refused so far. */
  std::uint64_t refused() const noexcept { return log_.total(); }

 private:
  uid_t owner_;
  LogThrottle log_;
};

}  // namespace orca::oob::usock

#endif
