// HandshakePatience: whether a connection waits on past a
// handshake_timeout without a handshake. An overloaded peer (a parent on
// a host with a thousand daemons starting, or a child starved of CPU)
// answers late; a stopped or dead one never does, and only those are
// given up at once. Only a peer process the kernel names and that is of
// this uid (a unix socket) is waited for: over TCP, and for another
// user's process, the timeout alone rules.
// A listener that accepted is no evidence of life: a stopped process's
// kernel still accepts into its backlog. The process itself is.
#ifndef ORCA_OOB_HANDSHAKE_PATIENCE_H
#define ORCA_OOB_HANDSHAKE_PATIENCE_H

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>

namespace orca::oob {

/* What the kernel says of the process at the other end of a socket. */
struct PeerProcess {
  /* Stranger: another uid's process (a squatter on the socket's name);
   * it is never waited for. */
  enum class State { Unknown, Running, Stopped, Gone, Stranger };
  State state = State::Unknown;  // Unknown: not a unix socket, or no pid to read
  pid_t pid = 0;
  uid_t uid = 0;
};

/* The process that listened on the other end of unix socket `fd`
 * (SO_PEERCRED), and its state from /proc/<pid>/stat: stopped or traced
 * ('T', 't'), gone (a zombie, or no such process), or running (anything
 * else: runnable, sleeping, in disk wait); Stranger when its uid is not
 * this process's. Unknown for other sockets. */
PeerProcess peer_process_of(int fd);

/* The decision, pure: at the end of each handshake_timeout period that
 * passed without a handshake. */
class HandshakePatience {
 public:
  /* `timeout`: handshake_timeout; `patience`: how long past it a running
   * peer is waited for (0: never), set by `patience_variable`. */
  HandshakePatience(std::chrono::milliseconds timeout, std::chrono::milliseconds patience, std::string patience_variable)
      : timeout_(timeout), patience_(patience), patience_variable_(std::move(patience_variable)) {}

  /* Called when period number `periods` (1, 2, ...) has ended. nullopt:
   * wait one more period; else the reason to give up, for the message
   * that follows "no handshake within <variable> (<timeout> ms)". */
  std::optional<std::string> period_ended(int periods, const PeerProcess& peer) const;

 private:
  std::chrono::milliseconds timeout_;
  std::chrono::milliseconds patience_;
  std::string patience_variable_;
};

}  // namespace orca::oob

#endif
