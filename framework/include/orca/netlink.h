/*
 * A minimal rtnetlink client: one socket, request/response and dumps.
 *
 * NetlinkSocket sends a request built with NetlinkRequest and hands every
 * reply message to a callback, until the dump ends (NLMSG_DONE), the
 * kernel acknowledges, or the single answer to a non-dump request arrives.
 * A kernel error comes back as a Message with the errno text. Blocking; a
 * request takes microseconds, and callers on the event loop use it only
 * for such short exchanges.
 */
#ifndef ORCA_NETLINK_H
#define ORCA_NETLINK_H

#include <orca/export.h>
#include <orca/result.h>
#include <orca/unique_fd.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

namespace orca::net {

/* Builds one netlink request: header, a fixed payload struct, attributes. */
class ORCA_EXPORT NetlinkRequest {
 public:
  NetlinkRequest(std::uint16_t type, std::uint16_t flags);

  /* Appends a zeroed T right after the header; call once, before attributes. */
  template <typename T>
  T* payload() {
    const size_t offset = append(nullptr, sizeof(T));
    return reinterpret_cast<T*>(data() + offset);
  }
  void add_attribute(std::uint16_t type, const void* value, size_t length);

  nlmsghdr* header() noexcept { return reinterpret_cast<nlmsghdr*>(data()); }
  size_t size() const noexcept { return header_const()->nlmsg_len; }

 private:
  size_t append(const void* bytes, size_t length);
  char* data() noexcept { return reinterpret_cast<char*>(storage_.data()); }
  const nlmsghdr* header_const() const noexcept { return reinterpret_cast<const nlmsghdr*>(storage_.data()); }
  std::vector<std::uint32_t> storage_;  // 4-byte aligned, as netlink requires
};

/* Calls fn(type, data, length) for every attribute in [first, first+length). */
ORCA_EXPORT void for_each_attribute(const rtattr* first, size_t length,
                                    const std::function<void(std::uint16_t, const void*, size_t)>& fn);

class ORCA_EXPORT NetlinkSocket {
 public:
  using OnMessage = std::function<void(const nlmsghdr*)>;

  /* Opens a NETLINK_ROUTE socket. Errors name the system call and errno. */
  static Result<NetlinkSocket> open();

  /* Sends `request` and delivers each reply to `on_message`. */
  Status exchange(NetlinkRequest& request, const OnMessage& on_message);
  /* Requests that each get exactly one answer (no dumps, no NLM_F_ACK),
   * sent together: several per datagram, the kernel answering each in
   * turn. on_answer(i, message) gets the answer to requests[i], a reply
   * or an NLMSG_ERROR, once each. For batches of lookups (routes toward
   * every host of a job): a system call or two per batch instead of two
   * per request. An error (the socket, not a request) stops the batch. */
  using OnAnswer = std::function<void(size_t, const nlmsghdr*)>;
  Status exchange_each(std::vector<NetlinkRequest>& requests, const OnAnswer& on_answer);

  int fd() const noexcept { return fd_.get(); }

 private:
  explicit NetlinkSocket(UniqueFd fd) : fd_(std::move(fd)) {}
  Status send_to_kernel(const void* bytes, size_t length);
  Result<unsigned int> receive();  // one datagram into buffer_: its length
  UniqueFd fd_;
  std::uint32_t sequence_ = 0;
  // Not zeroed: a zeroed 64 KiB was 16 page faults and a memset per
  // socket; recv writes only the datagram's bytes.
  std::unique_ptr<char[]> buffer_;
  static constexpr size_t kReceiveBytes = 64 * 1024;
};

}  // namespace orca::net

#endif  // ORCA_NETLINK_H
