// HandshakePatience and the /proc reading it rests on.
#include "oob/handshake_patience.h"

#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace orca::oob {

PeerProcess peer_process_of(int fd) {
  ucred cred{};
  socklen_t len = sizeof cred;
  sockaddr_storage addr{};
  socklen_t alen = sizeof addr;
  // SO_PEERCRED means something only on unix sockets.
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &alen) != 0 || addr.ss_family != AF_UNIX) return {};
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.pid <= 0) return {};
  if (cred.uid != ::geteuid()) return {.state = PeerProcess::State::Stranger, .pid = cred.pid, .uid = cred.uid};
  PeerProcess out{.state = PeerProcess::State::Gone, .pid = cred.pid, .uid = cred.uid};
  std::ifstream stat("/proc/" + std::to_string(cred.pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return out;
  // The state follows the command name, which may hold ") ": take the last.
  const auto close = text.rfind(") ");
  if (close == std::string::npos || close + 2 >= text.size()) {
    return {.state = PeerProcess::State::Unknown, .pid = cred.pid, .uid = cred.uid};
  }
  switch (text[close + 2]) {
    case 'T':
    case 't':
      out.state = PeerProcess::State::Stopped;
      break;
    case 'Z':
    case 'X':
    case 'x':
      out.state = PeerProcess::State::Gone;
      break;
    default:
      out.state = PeerProcess::State::Running;
  }
  return out;
}

std::optional<std::string> HandshakePatience::period_ended(int periods, const PeerProcess& peer) const {
  const std::string who = "process " + std::to_string(peer.pid);
  switch (peer.state) {
    case PeerProcess::State::Unknown:
      return std::string();  // nothing to go by: the timeout is the rule
    case PeerProcess::State::Stopped:
      return "; its " + who + " is stopped";
    case PeerProcess::State::Gone:
      return "; its " + who + " is gone";
    case PeerProcess::State::Stranger:
      return "; the listener is " + who + " of uid " + std::to_string(peer.uid) +
             ", not this user's (another user holds the socket's name?)";
    case PeerProcess::State::Running:
      break;
  }
  // Waited so far, past the first period: (periods - 1) x timeout.
  // A running peer gets handshake_timeout + patience in all.
  if (timeout_ * (periods - 1) < patience_) return std::nullopt;
  return "; its " + who + " was running all along, but " + std::to_string((timeout_ * periods).count()) +
         " ms passed in all (" + patience_variable_ + ")";
}

}  // namespace orca::oob
