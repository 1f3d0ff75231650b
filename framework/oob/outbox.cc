// Outbox: ordered sends that wait out back-pressure.
#include "oob/oob_outbox.h"

namespace orca::oob {

Outbox::Outbox(Messenger& oob, std::function<void()> on_drained, ErrorHandler on_error)
    : oob_(oob), on_drained_(std::move(on_drained)), on_error_(std::move(on_error)),
      ready_token_(oob.on_peer_ready([this](ProcessName) {
        if (!queue_.empty()) flush();
      })) {}

Outbox::~Outbox() { oob_.cancel_peer_ready(ready_token_); }

bool Outbox::try_send(ProcessName to, std::uint32_t tag, const std::vector<std::uint8_t>& bytes) {
  Status st = oob_.send(to, tag, bytes);
  if (st) return true;
  if (st.failed_with(ErrorKind::Busy)) return false;
  if (on_error_) on_error_(to, tag, st.error());
  return true;  // dropped: it will never go
}

void Outbox::post(ProcessName to, std::uint32_t tag, std::vector<std::uint8_t> bytes) {
  if (queue_.empty() && try_send(to, tag, bytes)) return;
  queue_.push_back(Item{to, tag, std::move(bytes)});  // the refusal's peer_ready flushes it
}

void Outbox::flush() {
  while (!queue_.empty()) {
    const Item& item = queue_.front();
    if (!try_send(item.to, item.tag, item.bytes)) return;  // again at that refusal's peer_ready
    queue_.pop_front();
  }
  if (on_drained_) on_drained_();
}

}  // namespace orca::oob
