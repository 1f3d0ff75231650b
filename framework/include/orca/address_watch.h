/*
 * AddressWatch: tells when links or addresses of this network namespace
 * come or go, from rtnetlink multicast groups, on the event loop.
 * Bursts (a link going down drops several addresses) are coalesced: the
 * callback runs once, `settle` after the last event of a burst.
 */
#ifndef ORCA_ADDRESS_WATCH_H
#define ORCA_ADDRESS_WATCH_H

#include <orca/event_loop.h>
#include <orca/export.h>
#include <orca/result.h>
#include <orca/unique_fd.h>

#include <chrono>
#include <functional>
#include <memory>

namespace orca::net {

class ORCA_EXPORT AddressWatch {
 public:
  /* Errors: the netlink socket cannot be opened or subscribed. */
  static Result<std::unique_ptr<AddressWatch>> start(EventLoop& loop, std::chrono::milliseconds settle,
                                                     std::function<void()> changed);
  ~AddressWatch();
  AddressWatch(const AddressWatch&) = delete;
  AddressWatch& operator=(const AddressWatch&) = delete;

 private:
  AddressWatch(EventLoop& loop, UniqueFd fd, std::chrono::milliseconds settle, std::function<void()> changed);
  void on_readable();
  UniqueFd fd_;
  std::chrono::milliseconds settle_;
  std::function<void()> changed_;
  IoWatch watch_;
  Timer settle_timer_;
};

}  // namespace orca::net

#endif  // ORCA_ADDRESS_WATCH_H
