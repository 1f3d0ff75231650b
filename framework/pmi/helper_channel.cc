// HelperChannel: framed HelperMessages on a nonblocking socket.
#include "helper_channel.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace orca::pmi {

HelperChannel::HelperChannel(EventLoop& loop, UniqueFd fd, Hooks hooks)
    : loop_(loop), fd_(std::move(fd)), hooks_(std::move(hooks)) {
  const int flags = ::fcntl(fd_.get(), F_GETFL);
  if (flags >= 0) ::fcntl(fd_.get(), F_SETFL, flags | O_NONBLOCK);
  read_watch_ = std::make_unique<IoWatch>(loop_, fd_.get(), IoWatch::kRead, [this](short) { on_readable(); });
  write_watch_ = std::make_unique<IoWatch>(loop_, fd_.get(), IoWatch::kWrite, [this](short) {
    if (!write_some()) close("the helper channel could not be written: " + std::string(std::strerror(errno)));
  });
  read_watch_->enable();
}

HelperChannel::~HelperChannel() {
  read_watch_.reset();
  write_watch_.reset();
}

bool HelperChannel::send(const HelperMessage& message) {
  if (closed_) return false;
  std::vector<std::uint8_t> frame = encode_helper(message);
  if (out_at_ == out_.size()) {
    out_.clear();
    out_at_ = 0;
  }
  out_.insert(out_.end(), frame.begin(), frame.end());
  if (!write_some()) {
    close("the helper channel could not be written: " + std::string(std::strerror(errno)));
    return false;
  }
  return true;
}

// False on an error (errno set); what is left waits for the write watch.
bool HelperChannel::write_some() {
  while (out_at_ < out_.size()) {
    const ssize_t n = ::send(fd_.get(), out_.data() + out_at_, out_.size() - out_at_, MSG_NOSIGNAL);
    if (n > 0) {
      out_at_ += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!write_watch_->enabled()) write_watch_->enable();
      return true;
    }
    return false;
  }
  out_.clear();
  out_at_ = 0;
  if (write_watch_->enabled()) write_watch_->disable();
  return true;
}

bool HelperChannel::read_some(std::string& why) {
  std::uint8_t buffer[64 * 1024];
  for (;;) {
    const ssize_t n = ::recv(fd_.get(), buffer, sizeof buffer, 0);
    if (n > 0) {
      in_.insert(in_.end(), buffer, buffer + n);
      if (static_cast<std::size_t>(n) < sizeof buffer) return true;
      continue;
    }
    if (n == 0) {
      why = "the other end closed the helper channel";
      return false;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
    why = "the helper channel could not be read: " + std::string(std::strerror(errno));
    return false;
  }
}

bool HelperChannel::take_frames(std::string& why, const std::function<bool(const HelperMessage&)>* wanted,
                                std::optional<HelperMessage>* got) {
  std::size_t at = 0;
  bool ok = true;
  while (in_.size() - at >= 4) {
    const std::uint32_t length = (std::uint32_t{in_[at]} << 24) | (std::uint32_t{in_[at + 1]} << 16) |
                                 (std::uint32_t{in_[at + 2]} << 8) | std::uint32_t{in_[at + 3]};
    if (length == 0 || length > kMaxHelperFrame) {
      why = "a helper frame of " + std::to_string(length) + " bytes";
      ok = false;
      break;
    }
    if (in_.size() - at - 4 < length) break;
    auto message = decode_helper(std::span<const std::uint8_t>(in_.data() + at + 4, length));
    at += 4 + length;
    if (!message) {
      why = message.error().summary();
      ok = false;
      break;
    }
    if (wanted != nullptr && !got->has_value() && (*wanted)(message.value())) {
      *got = std::move(message.value());
    } else {
      held_.push_back(std::move(message.value()));
    }
  }
  in_.erase(in_.begin(), in_.begin() + static_cast<std::ptrdiff_t>(at));
  return ok;
}

void HelperChannel::on_readable() {
  std::string why;
  const bool more = read_some(why);
  if (!take_frames(why, nullptr, nullptr)) {
    close(why);
    return;
  }
  hand_on_held();
  if (!more && !closed_) close(why);
}

void HelperChannel::hand_on_held() {
  // A hook may end what owns this channel: check after each.
  const std::weak_ptr<bool> alive = alive_;
  while (!held_.empty()) {
    HelperMessage m = std::move(held_.front());
    held_.pop_front();
    hooks_.message(std::move(m));
    if (alive.expired()) return;
  }
}

std::optional<HelperMessage> HelperChannel::await(const std::function<bool(const HelperMessage&)>& wanted,
                                                  std::chrono::milliseconds limit, Meanwhile meanwhile) {
  std::optional<HelperMessage> got;
  const std::weak_ptr<bool> alive = alive_;
  if (meanwhile == Meanwhile::kHandOn) {
    hand_on_held();  // what came before, first
    if (alive.expired()) return got;
  }
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!closed_ && !got) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{.fd = fd_.get(), .events = static_cast<short>(POLLIN | (out_at_ < out_.size() ? POLLOUT : 0)), .revents = 0};
    const int n = ::poll(&p, 1, static_cast<int>(left.count()));
    if (n < 0 && errno != EINTR) break;
    if (n <= 0) continue;
    if ((p.revents & POLLOUT) != 0 && !write_some()) {
      close("the helper channel could not be written: " + std::string(std::strerror(errno)));
      break;
    }
    if ((p.revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      std::string why;
      const bool more = read_some(why);
      if (!take_frames(why, &wanted, &got)) {
        close(why);
        break;
      }
      if (!more && !got) close(why);
      if (meanwhile == Meanwhile::kHandOn) {
        hand_on_held();
        if (alive.expired()) return got;
      }
    }
  }
  // What came meanwhile goes on from the loop, after this call returned.
  if (!held_.empty()) {
    loop_.defer([this, alive] {
      if (!alive.expired()) hand_on_held();
    });
  }
  return got;
}

void HelperChannel::shut() {
  if (closed_) return;
  closed_ = true;
  held_.clear();
  read_watch_->disable();
  if (write_watch_->enabled()) write_watch_->disable();
  ::shutdown(fd_.get(), SHUT_RDWR);
}

void HelperChannel::close(const std::string& why) {
  if (closed_) return;
  closed_ = true;
  closed_why_ = why;
  read_watch_->disable();
  if (write_watch_->enabled()) write_watch_->disable();
  ::shutdown(fd_.get(), SHUT_RDWR);
  const std::weak_ptr<bool> alive = alive_;
  loop_.defer([this, alive] {
    if (alive.expired()) return;
    hand_on_held();
    if (alive.expired()) return;
    if (hooks_.closed) hooks_.closed(closed_why_);
  });
}

}  // namespace orca::pmi
