// Socket helpers of oob/tcp: addresses, options, nonblocking connect.
#ifndef ORCA_COMPONENTS_OOB_TCP_SOCKET_H
#define ORCA_COMPONENTS_OOB_TCP_SOCKET_H

#include "tcp_config.h"

#include <orca/ip_address.h>
#include <orca/result.h>
#include <orca/unique_fd.h>

#include <sys/socket.h>

#include <cstdint>
#include <string>

namespace orca::oob::tcp {

struct SocketAddress {
  sockaddr_storage storage{};
  socklen_t length = 0;
  const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&storage); }
};

SocketAddress to_sockaddr(const net::IpAddress& address, std::uint16_t port);
/* "10.0.0.1:5000" / "[fd00::1]:5000" of a socket's own or peer address. */
std::string local_text(int fd);
std::string peer_text(int fd);
/* The peer's address alone ("10.0.0.2", "fd00::2"), "?" when unknown. */
std::string peer_address_text(int fd);
std::uint16_t local_port(int fd);

/* TCP_NODELAY, keepalive and TCP_USER_TIMEOUT as configured; best effort. */
void tune_stream(int fd, const TcpConfig& config);
/* The TCP_USER_TIMEOUT tune_stream sets: oob_tcp_user_timeout, or else
 * heartbeat x heartbeat_misses; 0 when neither applies. */
std::int64_t user_timeout_ms(const TcpConfig& config);

/* A nonblocking socket bound to `local` (port 0) and, where allowed, to
 * its interface, connecting to `remote`. Errors: socket/bind/connect. */
Result<UniqueFd> start_connect(const net::IpAddress& local, int if_index, const net::IpAddress& remote,
                               std::uint16_t port);

/* A nonblocking listening socket on `address` at `port` (0: any). */
Result<UniqueFd> listen_on(const net::IpAddress& address, std::uint16_t port);

}  // namespace orca::oob::tcp

#endif
