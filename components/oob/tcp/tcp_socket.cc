// Socket helpers of oob/tcp.
#include "tcp_socket.h"

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace orca::oob::tcp {

SocketAddress to_sockaddr(const net::IpAddress& address, std::uint16_t port) {
  SocketAddress sa;
  if (address.family() == net::Family::V4) {
    auto* in = reinterpret_cast<sockaddr_in*>(&sa.storage);
    in->sin_family = AF_INET;
    in->sin_port = htons(port);
    std::memcpy(&in->sin_addr, address.bytes(), 4);
    sa.length = sizeof(sockaddr_in);
  } else {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&sa.storage);
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons(port);
    std::memcpy(&in6->sin6_addr, address.bytes(), 16);
    in6->sin6_scope_id = address.scope_id();
    sa.length = sizeof(sockaddr_in6);
  }
  return sa;
}

namespace {

std::string address_text(const sockaddr_storage& ss) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (ss.ss_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&ss)->sin_addr, buf, sizeof buf);
  } else {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&ss)->sin6_addr, buf, sizeof buf);
  }
  return buf;
}

std::string text_of(const sockaddr_storage& ss) {
  if (ss.ss_family == AF_INET) {
    return address_text(ss) + ":" + std::to_string(ntohs(reinterpret_cast<const sockaddr_in*>(&ss)->sin_port));
  }
  return "[" + address_text(ss) + "]:" + std::to_string(ntohs(reinterpret_cast<const sockaddr_in6*>(&ss)->sin6_port));
}

Message socket_error(const std::string& call, const std::string& what) {
  return Message("oob", "socket-failed", {{"call", call}, {"what", what}, {"why", std::strerror(errno)}});
}

}  // namespace

std::string local_text(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  return ::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) == 0 ? text_of(ss) : "?";
}

std::string peer_text(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  return ::getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) == 0 ? text_of(ss) : "?";
}

std::string peer_address_text(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  return ::getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) == 0 ? address_text(ss) : "?";
}

std::uint16_t local_port(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return 0;
  return ss.ss_family == AF_INET ? ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port)
                                 : ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port);
}

void tune_stream(int fd, const TcpConfig& config) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &config.keepalive_time, sizeof config.keepalive_time);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &config.keepalive_interval, sizeof config.keepalive_interval);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &config.keepalive_probes, sizeof config.keepalive_probes);
  // Data the peer does not acknowledge for this long fails the connection
  // (a black-holed link with a stream on it), as fast as heartbeat silence.
  const std::int64_t ms = user_timeout_ms(config);
  if (ms > 0) {
    const auto value = static_cast<unsigned>(std::min<std::int64_t>(ms, UINT32_MAX));
    ::setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &value, sizeof value);
  }
}

std::int64_t user_timeout_ms(const TcpConfig& config) {
  if (config.user_timeout.count() > 0) return config.user_timeout.count();
  if (config.engine.heartbeat.count() <= 0) return 0;
  return config.engine.heartbeat.count() * std::max(config.engine.heartbeat_misses, 1);
}

Result<UniqueFd> start_connect(const net::IpAddress& local, int if_index, const net::IpAddress& remote,
                               std::uint16_t port) {
  UniqueFd fd(::socket(remote.af(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return socket_error("socket", remote.to_string());
  // Leave through the interface the reachable framework chose; needs
  // CAP_NET_RAW, so without it the source address alone has to do.
  char name[IF_NAMESIZE] = {};
  if (if_index > 0 && if_indextoname(static_cast<unsigned>(if_index), name) != nullptr) {
    ::setsockopt(fd.get(), SOL_SOCKET, SO_BINDTODEVICE, name, static_cast<socklen_t>(std::strlen(name)));
  }
  const SocketAddress src = to_sockaddr(local, 0);
  if (::bind(fd.get(), src.get(), src.length) != 0) return socket_error("bind", local.to_string());
  const SocketAddress dst = to_sockaddr(remote, port);
  if (::connect(fd.get(), dst.get(), dst.length) != 0 && errno != EINPROGRESS) {
    return socket_error("connect", remote.to_string() + " port " + std::to_string(port));
  }
  return fd;
}

Result<UniqueFd> listen_on(const net::IpAddress& address, std::uint16_t port) {
  UniqueFd fd(::socket(address.af(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return socket_error("socket", address.to_string());
  int one = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (address.family() == net::Family::V6) ::setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
  const SocketAddress sa = to_sockaddr(address, port);
  if (::bind(fd.get(), sa.get(), sa.length) != 0) return socket_error("bind", address.to_string() + " port " + std::to_string(port));
  if (::listen(fd.get(), 128) != 0) return socket_error("listen", address.to_string());
  return fd;
}

}  // namespace orca::oob::tcp
