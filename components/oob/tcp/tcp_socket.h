// Socket helpers of oob/tcp: addresses, options, nonblocking connect.
#ifndef ORCA_COMPONENTS_OOB_TCP_SOCKET_H
#define ORCA_COMPONENTS_OOB_TCP_SOCKET_H

#include "tcp_config.h"

#include <orca/ip_address.h>
#include <orca/result.h>
#include <orca/tcp_sockets.h>
#include <orca/unique_fd.h>

#include <sys/socket.h>

#include <cstdint>
#include <string>

namespace orca::oob::tcp {

// The plain TCP socket calls are liborca's (orca/tcp_sockets.h): orcad's
// data-plane check dials the same way.
using net::listen_on;
using net::local_port;
using net::SocketAddress;
using net::start_connect;
using net::to_sockaddr;

/* "10.0.0.1:5000" / "[fd00::1]:5000" of a socket's own or peer address. */
std::string local_text(int fd);
std::string peer_text(int fd);
/* The peer's address alone ("10.0.0.2", "fd00::2"), "?" when unknown. */
std::string peer_address_text(int fd);

/* TCP_NODELAY, keepalive and TCP_USER_TIMEOUT as configured; best effort. */
void tune_stream(int fd, const TcpConfig& config);
/* The TCP_USER_TIMEOUT tune_stream sets: oob_tcp_user_timeout, or else
 * heartbeat x heartbeat_misses; 0 when neither applies. */
std::int64_t user_timeout_ms(const TcpConfig& config);

}  // namespace orca::oob::tcp

#endif
