// UidGate: the SO_PEERCRED check at accept.
#include "uid_gate.h"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>

namespace orca::oob::usock {

UidGate::Verdict UidGate::check(int fd, const std::string& listener, LogThrottle::Clock::time_point now) {
  ucred cred{};
  socklen_t len = sizeof cred;
  std::string who;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof cred) {
    who = std::string("a connection whose peer the kernel does not name (SO_PEERCRED: ") + std::strerror(errno) + ")";
  } else if (cred.uid == owner_) {
    return Verdict{.admitted = true, .source = "pid " + std::to_string(cred.pid)};
  } else {
    who = "a connection of uid " + std::to_string(cred.uid) + " (pid " + std::to_string(cred.pid) + ")";
  }
  Verdict v;
  if (auto unlogged = log_.occurred(now)) {
    v.log_line = "refused " + who + " to " + listener + " at once: only uid " + std::to_string(owner_) +
                 ", this job's own, may connect" + LogThrottle::since(*unlogged) +
                 "; such refusals are logged at most once a second";
  }
  return v;
}

}  // namespace orca::oob::usock
