// Plain TCP sockets as Orca dials and listens.
#include <orca/tcp_sockets.h>

#include <net/if.h>
#include <netinet/in.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace orca::net {

namespace {

Message socket_error(const std::string& call, const std::string& what) {
  return Message("oob", "socket-failed", {{"call", call}, {"what", what}, {"why", std::strerror(errno)}});
}

}  // namespace

SocketAddress to_sockaddr(const IpAddress& address, std::uint16_t port) {
  SocketAddress sa;
  if (address.family() == Family::V4) {
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

std::uint16_t local_port(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return 0;
  return ss.ss_family == AF_INET ? ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port)
                                 : ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port);
}

Result<UniqueFd> start_connect(const IpAddress& local, int if_index, const IpAddress& remote,
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

Result<UniqueFd> listen_on(const IpAddress& address, std::uint16_t port) {
  UniqueFd fd(::socket(address.af(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return socket_error("socket", address.to_string());
  int one = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (address.family() == Family::V6) ::setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
  const SocketAddress sa = to_sockaddr(address, port);
  if (::bind(fd.get(), sa.get(), sa.length) != 0) return socket_error("bind", address.to_string() + " port " + std::to_string(port));
  if (::listen(fd.get(), 128) != 0) return socket_error("listen", address.to_string());
  return fd;
}

}  // namespace orca::net
