// ClosingConnections: which of libpmix's client connections a rank has
// closed and libpmix has not yet, read from the kernel's TCP table
// (/proc/self/net/tcp, tcp6).
//
// libpmix 4.2.2, told to deregister a client whose connection it has not
// yet seen close, closes that socket but leaves its read event with
// libevent, and the next connection given the descriptor number is never
// read (its rank hangs in PMIx_Init). A rank's exit does not make the
// close seen: on loopback its FIN may still wait for the kernel's softirq
// thread when the daemon learns of the exit. Before a job's clients are
// deregistered, the daemon waits until no connection to libpmix's
// listening port is half closed: the rank's side in FIN_WAIT1 (its FIN
// in flight) or FIN_WAIT2 (received, libpmix has not closed its side),
// or libpmix's side in CLOSE_WAIT.
#ifndef ORCA_COMPONENTS_PMI_PMIX_CLOSING_CONNECTIONS_H
#define ORCA_COMPONENTS_PMI_PMIX_CLOSING_CONNECTIONS_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace orca::pmi {

/* The port of a PMIx server URI ("pmix-server.4242;tcp4://127.0.0.1:38857",
 * "...;tcp6://[::1]:38857"), and whether it is IPv6; nothing when the
 * text names no TCP port. */
struct ServerPort {
  std::uint16_t port = 0;
  bool ipv6 = false;
  friend bool operator==(ServerPort, ServerPort) = default;
};
std::optional<ServerPort> server_port(std::string_view uri);

/* Connections to `port` in `table` (the text of /proc/net/tcp or tcp6)
 * that one side has closed and the other not yet: client sockets (remote
 * port `port`) in FIN_WAIT1 or FIN_WAIT2, server sockets (local port
 * `port`) in CLOSE_WAIT. Lines it cannot read are skipped. */
std::size_t half_closed(std::string_view table, std::uint16_t port);

/* half_closed() of this process's network namespace's table for
 * `server`; nothing when the table cannot be read. */
std::optional<std::size_t> half_closed_now(ServerPort server);

}  // namespace orca::pmi

#endif
