// PeerChannel bookkeeping.
#include "oob/peer_channel.h"

namespace orca::oob {

namespace {
constexpr std::uint64_t kAckEveryMessages = 64;
constexpr std::uint64_t kAckEveryBytes = 1u << 20;
}  // namespace

Status PeerChannel::would_accept(size_t size) const {
  if (!queue_.empty() && queued_bytes_ + size > queue_limit_) {
    return Message("oob", "send-queue-full",
                   {{"queued", std::to_string(queued_bytes_)}, {"limit", std::to_string(queue_limit_)}},
                   ErrorKind::Busy);
  }
  return {};
}

Result<std::uint64_t> PeerChannel::enqueue(std::uint32_t tag, Payload payload) {
  if (Status st = would_accept(payload.size()); !st) return st.error();
  queued_bytes_ += payload.size();
  const std::uint64_t seq = next_seq_++;
  queue_.push_back(OutgoingMessage{seq, tag, std::move(payload)});
  return seq;
}

void PeerChannel::acknowledge(std::uint64_t cumulative) {
  // A peer cannot have delivered what was never numbered; a larger value
  // is bogus and must not push the cursor past future messages.
  if (cumulative >= next_seq_) cumulative = next_seq_ - 1;
  while (!queue_.empty() && queue_.front().seq <= cumulative) {
    queued_bytes_ -= queue_.front().payload.size();
    queue_.pop_front();
  }
  if (send_cursor_ <= cumulative) send_cursor_ = cumulative + 1;
}

void PeerChannel::restart_from(std::uint64_t peer_delivered) {
  acknowledge(peer_delivered);
  send_cursor_ = queue_.empty() ? next_seq_ : queue_.front().seq;
}

const OutgoingMessage* PeerChannel::next_to_send() const {
  if (queue_.empty() || send_cursor_ >= next_seq_) return nullptr;
  // The queue holds consecutive numbers from front().seq.
  return &queue_[send_cursor_ - queue_.front().seq];
}

void PeerChannel::mark_sent() {
  if (send_cursor_ < next_seq_) ++send_cursor_;
}

PeerChannel::Arrival PeerChannel::on_data(std::uint64_t seq, size_t bytes) {
  if (seq <= delivered_) return Arrival::Duplicate;
  if (seq != delivered_ + 1) return Arrival::Gap;
  delivered_ = seq;
  bytes_since_ack_ += bytes;
  return Arrival::Deliver;
}

bool PeerChannel::ack_due() const noexcept {
  return delivered_ - acked_ >= kAckEveryMessages || bytes_since_ack_ >= kAckEveryBytes;
}

}  // namespace orca::oob
