/*
 * Plain TCP sockets as Orca dials and listens: an IpAddress as a
 * sockaddr, a nonblocking connect from a chosen local address (and its
 * interface where allowed), a nonblocking listener. Used by oob/tcp and by
 * orcad's data-plane mesh check. Errors name the call and the address
 * (help-oob.txt [socket-failed]).
 */
#ifndef ORCA_TCP_SOCKETS_H
#define ORCA_TCP_SOCKETS_H

#include <orca/export.h>
#include <orca/ip_address.h>
#include <orca/result.h>
#include <orca/unique_fd.h>

#include <sys/socket.h>

#include <cstdint>

namespace orca::net {

struct ORCA_EXPORT SocketAddress {
  sockaddr_storage storage{};
  socklen_t length = 0;
  const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&storage); }
};

ORCA_EXPORT SocketAddress to_sockaddr(const IpAddress& address, std::uint16_t port);
/* The port a socket is bound to; 0 when unknown. */
ORCA_EXPORT std::uint16_t local_port(int fd);

/* A nonblocking socket bound to `local` (port 0) and, where allowed, to
 * its interface (if_index > 0), connecting to `remote`. Errors:
 * socket/bind/connect. */
ORCA_EXPORT Result<UniqueFd> start_connect(const IpAddress& local, int if_index, const IpAddress& remote,
                                           std::uint16_t port);

/* A nonblocking listening socket on `address` at `port` (0: any). */
ORCA_EXPORT Result<UniqueFd> listen_on(const IpAddress& address, std::uint16_t port);

}  // namespace orca::net

#endif
