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

}  // namespace orca::oob::tcp
