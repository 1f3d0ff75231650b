// PeerChannel: per-peer sequence numbers, cumulative acknowledgements,
// resend after reconnect and duplicate suppression (no I/O; the Engine
// drives it). One channel per peer outlives any number of connections.
#ifndef ORCA_OOB_PEER_CHANNEL_H
#define ORCA_OOB_PEER_CHANNEL_H

#include <orca/oob_engine.h>
#include <orca/result.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

namespace orca::oob {

struct OutgoingMessage {
  std::uint64_t seq;
  std::uint32_t tag;
  // Shared with the connection writing it: an acknowledgement may arrive
  // (over another connection) while the bytes are still being written.
  Payload payload;
};

class PeerChannel {
 public:
  /* `queue_limit` bounds the bytes held (unsent plus unacknowledged); a
   * single message is always accepted when the queue is empty. */
  explicit PeerChannel(std::uint64_t queue_limit) : queue_limit_(queue_limit) {}

  // --- sending ---------------------------------------------------------
  /* Queues a message, numbering it. Error "send-queue-full", of kind
   * ErrorKind::Busy, beyond the limit: the caller retries later. */
  Result<std::uint64_t> enqueue(std::uint32_t tag, Payload payload);
  Result<std::uint64_t> enqueue(std::uint32_t tag, std::vector<std::uint8_t> bytes) {
    return enqueue(tag, Payload(std::move(bytes)));
  }
  /* The error enqueue() would return for `size` more bytes, if any. */
  Status would_accept(size_t size) const;
  /* The peer delivered everything up to `cumulative`: forget it. */
  void acknowledge(std::uint64_t cumulative);
  /* A new connection starts: after the peer said how far it delivered,
   * everything after that is sent again, in order. */
  void restart_from(std::uint64_t peer_delivered);
  /* The next message to write on the current connection, or null. */
  const OutgoingMessage* next_to_send() const;
  void mark_sent();
  std::uint64_t queued_bytes() const noexcept { return queued_bytes_; }
  size_t unacknowledged() const noexcept { return queue_.size(); }
  bool idle() const noexcept { return queue_.empty(); }

  // --- receiving -------------------------------------------------------
  enum class Arrival { Deliver, Duplicate, Gap };
  /* Classifies an arriving sequence number; Deliver advances delivered(). */
  Arrival on_data(std::uint64_t seq, size_t bytes);
  std::uint64_t delivered() const noexcept { return delivered_; }
  /* Whether a standalone ACK should go out now (enough delivered since
   * the last ack the peer saw), or can wait for a timer or piggyback. */
  bool ack_due() const noexcept;
  bool ack_pending() const noexcept { return delivered_ > acked_; }
  /* The peer sent `seq` again: it never saw our acknowledgement of it
   * (it went out on a connection that died), so one is owed again. */
  void peer_missed_ack(std::uint64_t seq) noexcept {
    if (seq > 0 && seq - 1 < acked_) acked_ = seq - 1;
  }
  /* Every frame carries delivered(): the peer has now seen it. */
  void ack_sent() noexcept {
    acked_ = delivered_;
    bytes_since_ack_ = 0;
  }

 private:
  std::uint64_t queue_limit_;
  std::deque<OutgoingMessage> queue_;  // unacknowledged, by seq
  std::uint64_t next_seq_ = 1;
  std::uint64_t send_cursor_ = 1;      // seq of the next message to write
  std::uint64_t queued_bytes_ = 0;
  std::uint64_t delivered_ = 0;
  std::uint64_t acked_ = 0;
  std::uint64_t bytes_since_ack_ = 0;
};

}  // namespace orca::oob

#endif
