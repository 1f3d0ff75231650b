// NetlinkSocket: request/response and dumps over rtnetlink.
#include <orca/netlink.h>

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace orca::net {

NetlinkRequest::NetlinkRequest(std::uint16_t type, std::uint16_t flags) {
  append(nullptr, sizeof(nlmsghdr));
  header()->nlmsg_type = type;
  header()->nlmsg_flags = flags;
}

size_t NetlinkRequest::append(const void* bytes, size_t length) {
  const size_t offset = storage_.empty() ? 0 : NLMSG_ALIGN(header_const()->nlmsg_len);
  const size_t end = NLMSG_ALIGN(offset + length);
  storage_.resize((end + 3) / 4, 0);
  if (bytes != nullptr) std::memcpy(data() + offset, bytes, length);
  header()->nlmsg_len = static_cast<std::uint32_t>(offset + length);
  return offset;
}

void NetlinkRequest::add_attribute(std::uint16_t type, const void* value, size_t length) {
  rtattr attr{};
  attr.rta_type = type;
  attr.rta_len = static_cast<unsigned short>(RTA_LENGTH(length));
  const size_t offset = append(nullptr, RTA_LENGTH(length));
  std::memcpy(data() + offset, &attr, sizeof attr);
  std::memcpy(data() + offset + RTA_LENGTH(0), value, length);
}

void for_each_attribute(const rtattr* first, size_t length,
                        const std::function<void(std::uint16_t, const void*, size_t)>& fn) {
  auto remaining = static_cast<int>(length);
  for (const rtattr* a = first; RTA_OK(a, remaining); a = RTA_NEXT(a, remaining)) {
    fn(a->rta_type, RTA_DATA(a), RTA_PAYLOAD(a));
  }
}

Result<NetlinkSocket> NetlinkSocket::open() {
  UniqueFd fd(::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE));
  if (!fd.valid()) {
    return Message("net", "netlink-failed", {{"call", "socket(AF_NETLINK)"}, {"why", std::strerror(errno)}});
  }
  // Strict checking makes the kernel filter dumps by the request's fields.
  int one = 1;
  ::setsockopt(fd.get(), SOL_NETLINK, NETLINK_GET_STRICT_CHK, &one, sizeof one);
  ::setsockopt(fd.get(), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof one);
  sockaddr_nl local{};
  local.nl_family = AF_NETLINK;
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) {
    return Message("net", "netlink-failed", {{"call", "bind(AF_NETLINK)"}, {"why", std::strerror(errno)}});
  }
  return NetlinkSocket(std::move(fd));
}

Status NetlinkSocket::send_to_kernel(const void* bytes, size_t length) {
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (::sendto(fd_.get(), bytes, length, 0, reinterpret_cast<sockaddr*>(&kernel), sizeof kernel) < 0) {
    return Message("net", "netlink-failed", {{"call", "sendto(netlink)"}, {"why", std::strerror(errno)}});
  }
  return {};
}

Result<unsigned int> NetlinkSocket::receive() {
  if (!buffer_) buffer_ = std::make_unique_for_overwrite<char[]>(kReceiveBytes);
  while (true) {
    const ssize_t n = ::recv(fd_.get(), buffer_.get(), kReceiveBytes, 0);
    if (n >= 0) return static_cast<unsigned int>(n);
    if (errno != EINTR) {
      return Message("net", "netlink-failed", {{"call", "recv(netlink)"}, {"why", std::strerror(errno)}});
    }
  }
}

Status NetlinkSocket::exchange(NetlinkRequest& request, const OnMessage& on_message) {
  nlmsghdr* req = request.header();
  req->nlmsg_seq = ++sequence_;
  req->nlmsg_flags |= NLM_F_REQUEST;
  if (Status st = send_to_kernel(req, request.size()); !st) return st;
  while (true) {
    auto got = receive();
    if (!got) return got.error();
    bool finished = false;
    auto remaining = got.value();
    for (auto* h = reinterpret_cast<const nlmsghdr*>(buffer_.get()); NLMSG_OK(h, remaining);
         h = NLMSG_NEXT(h, remaining)) {
      if (h->nlmsg_seq != sequence_) continue;  // a stale answer to an earlier request
      if (h->nlmsg_type == NLMSG_DONE) {
        finished = true;
        break;
      }
      if (h->nlmsg_type == NLMSG_ERROR) {
        const auto* err = static_cast<const nlmsgerr*>(NLMSG_DATA(h));
        if (err->error == 0) {
          finished = true;
          break;
        }
        return Message("net", "netlink-error", {{"why", std::strerror(-err->error)}, {"errno", std::to_string(-err->error)}});
      }
      on_message(h);
      if (!(h->nlmsg_flags & NLM_F_MULTI)) finished = true;
    }
    if (finished) return {};
  }
}

Status NetlinkSocket::exchange_each(std::vector<NetlinkRequest>& requests, const OnAnswer& on_answer) {
  // Batches small enough that every answer (an error answer quotes its
  // request) fits the socket's default receive buffer.
  constexpr size_t kBatch = 32;
  std::vector<char> out;
  std::vector<bool> answered;
  for (size_t begin = 0; begin < requests.size(); begin += kBatch) {
    const size_t n = std::min(kBatch, requests.size() - begin);
    const std::uint32_t first = sequence_ + 1;
    out.clear();
    for (size_t i = 0; i < n; ++i) {
      nlmsghdr* req = requests[begin + i].header();
      req->nlmsg_seq = ++sequence_;
      req->nlmsg_flags |= NLM_F_REQUEST;
      const size_t at = out.size();
      out.resize(at + NLMSG_ALIGN(req->nlmsg_len), 0);
      std::memcpy(out.data() + at, req, req->nlmsg_len);
    }
    if (Status st = send_to_kernel(out.data(), out.size()); !st) return st;
    answered.assign(n, false);
    size_t left = n;
    while (left > 0) {
      auto got = receive();
      if (!got) return got.error();
      auto remaining = got.value();
      for (auto* h = reinterpret_cast<const nlmsghdr*>(buffer_.get()); NLMSG_OK(h, remaining);
           h = NLMSG_NEXT(h, remaining)) {
        const std::uint32_t i = h->nlmsg_seq - first;  // wraps for a stale answer: out of range
        if (i >= n || answered[i]) continue;
        answered[i] = true;
        --left;
        on_answer(begin + i, h);
      }
    }
  }
  return {};
}

}  // namespace orca::net
