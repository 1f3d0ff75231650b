/*
 * Outbox: messages to send in order, whatever the oob's back-pressure.
 *
 * Messenger::send refuses a message when a peer's queue is full; a
 * caller that must not lose or reorder messages (a daemon's output, then
 * the exit of the rank that wrote it) puts them here instead. post()
 * sends at once when nothing waits, otherwise queues behind what waits; a
 * refused message is retried when the messenger says its neighbour has
 * room again (on_peer_ready), and the ones behind it wait for it. Only
 * back-pressure (ErrorKind::Busy) is waited out: a message a retry cannot
 * cure (no route, a bad tag, too large) is dropped and handed to
 * `on_error`, and the ones behind it go on.
 * `waiting()` lets the producer stop reading (pipes) while the outbox is
 * not empty, so memory stays bounded by what one read produces.
 */
#ifndef ORCA_OOB_OOB_OUTBOX_H
#define ORCA_OOB_OOB_OUTBOX_H

#include <orca/event_loop.h>
#include <orca/export.h>
#include "oob/messenger.h"

#include <deque>
#include <functional>
#include <memory>
#include <vector>

namespace orca::oob {

class ORCA_EXPORT Outbox {
 public:
  using ErrorHandler = std::function<void(ProcessName to, std::uint32_t tag, const Message& why)>;
  /* `on_drained` runs when the queue becomes empty again; `on_error` for
   * a dropped message (default: nothing; either may be empty). */
  explicit Outbox(Messenger& oob, std::function<void()> on_drained = {}, ErrorHandler on_error = {});
  ~Outbox();
  Outbox(const Outbox&) = delete;
  Outbox& operator=(const Outbox&) = delete;
  void post(ProcessName to, std::uint32_t tag, std::vector<std::uint8_t> bytes);
  size_t waiting() const noexcept { return queue_.size(); }

 private:
  struct Item {
    ProcessName to;
    std::uint32_t tag;
    std::vector<std::uint8_t> bytes;
  };
  void flush();
  /* Sends one; false when it must wait (back-pressure). */
  bool try_send(ProcessName to, std::uint32_t tag, const std::vector<std::uint8_t>& bytes);
  Messenger& oob_;
  std::function<void()> on_drained_;
  ErrorHandler on_error_;
  std::deque<Item> queue_;
  size_t ready_token_;  // Messenger::on_peer_ready
};

}  // namespace orca::oob

#endif  // ORCA_OOB_OOB_OUTBOX_H
