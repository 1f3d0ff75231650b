/*
 * Outbox: messages to send in order, whatever the oob's back-pressure.
 *
 * Oob::send refuses a message when a peer's queue is full; a caller that
 * must not lose or reorder messages (a daemon's output, then the exit of
 * the rank that wrote it) puts them here instead. post() sends at once
 * when nothing waits, otherwise queues behind what waits; a refused
 * message is retried on a short timer, and the ones behind it wait for it.
 * `waiting()` lets the producer stop reading (pipes) while the outbox is
 * not empty, so memory stays bounded by what one read produces.
 */
#ifndef ORCA_OOB_OUTBOX_H
#define ORCA_OOB_OUTBOX_H

#include <orca/event_loop.h>
#include <orca/export.h>
#include <orca/oob.h>

#include <deque>
#include <functional>
#include <memory>
#include <vector>

namespace orca::oob {

class ORCA_EXPORT Outbox {
 public:
  /* `on_drained` runs when the queue becomes empty again (may be empty). */
  Outbox(EventLoop& loop, Oob& oob, std::function<void()> on_drained = {});
  void post(ProcessName to, std::uint32_t tag, std::vector<std::uint8_t> bytes);
  size_t waiting() const noexcept { return queue_.size(); }

 private:
  struct Item {
    ProcessName to;
    std::uint32_t tag;
    std::vector<std::uint8_t> bytes;
  };
  void flush();
  Oob& oob_;
  std::function<void()> on_drained_;
  std::deque<Item> queue_;
  Timer retry_;
};

}  // namespace orca::oob

#endif  // ORCA_OOB_OUTBOX_H
