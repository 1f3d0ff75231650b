// AddressWatch: rtnetlink link and address notifications.
#include <orca/address_watch.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

namespace orca::net {

Result<std::unique_ptr<AddressWatch>> AddressWatch::start(EventLoop& loop, std::chrono::milliseconds settle,
                                                          std::function<void()> changed) {
  UniqueFd fd(::socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_ROUTE));
  if (!fd.valid()) {
    return Message("net", "netlink-failed", {{"call", "socket(AF_NETLINK)"}, {"why", std::strerror(errno)}});
  }
  sockaddr_nl local{};
  local.nl_family = AF_NETLINK;
  local.nl_groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR;
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) {
    return Message("net", "netlink-failed", {{"call", "bind(RTMGRP_LINK|IFADDR)"}, {"why", std::strerror(errno)}});
  }
  return std::unique_ptr<AddressWatch>(new AddressWatch(loop, std::move(fd), settle, std::move(changed)));
}

AddressWatch::AddressWatch(EventLoop& loop, UniqueFd fd, std::chrono::milliseconds settle,
                           std::function<void()> changed)
    : fd_(std::move(fd)),
      settle_(settle),
      changed_(std::move(changed)),
      watch_(loop, fd_.get(), IoWatch::kRead, [this](short) { on_readable(); }),
      settle_timer_(loop, [this] { changed_(); }) {
  watch_.enable();
}

AddressWatch::~AddressWatch() = default;

void AddressWatch::on_readable() {
  char buf[16384];
  bool any = false;
  while (true) {
    const ssize_t n = ::recv(fd_.get(), buf, sizeof buf, 0);
    if (n > 0) {
      any = true;
      continue;
    }
    // ENOBUFS: the kernel dropped notifications; a full re-read follows
    // anyway, so it is a change like any other.
    if (n < 0 && errno == ENOBUFS) {
      any = true;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;
  }
  if (any) settle_timer_.start(settle_);
}

}  // namespace orca::net
