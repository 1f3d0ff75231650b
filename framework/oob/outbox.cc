// Outbox: ordered sends that wait out back-pressure.
#include <orca/oob_outbox.h>

namespace orca::oob {

// Short enough that a burst of output is not held up, long enough that a
// full peer queue is not polled in a busy loop.
static constexpr std::chrono::milliseconds kRetry{2};

Outbox::Outbox(EventLoop& loop, Oob& oob, std::function<void()> on_drained, ErrorHandler on_error)
    : oob_(oob), on_drained_(std::move(on_drained)), on_error_(std::move(on_error)), retry_(loop, [this] { flush(); }) {}

bool Outbox::try_send(ProcessName to, std::uint32_t tag, const std::vector<std::uint8_t>& bytes) {
  Status st = oob_.send(to, tag, bytes);
  if (st) return true;
  if (st.error().topic() == "peer-busy") return false;
  if (on_error_) on_error_(to, tag, st.error());
  return true;  // dropped: it will never go
}

void Outbox::post(ProcessName to, std::uint32_t tag, std::vector<std::uint8_t> bytes) {
  if (queue_.empty() && try_send(to, tag, bytes)) return;
  queue_.push_back(Item{to, tag, std::move(bytes)});
  if (!retry_.pending()) retry_.start(kRetry);
}

void Outbox::flush() {
  while (!queue_.empty()) {
    const Item& item = queue_.front();
    if (!try_send(item.to, item.tag, item.bytes)) {
      retry_.start(kRetry);
      return;
    }
    queue_.pop_front();
  }
  if (on_drained_) on_drained_();
}

}  // namespace orca::oob
