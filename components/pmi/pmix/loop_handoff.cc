// LoopHandoff: a locked queue and an eventfd.
#include "loop_handoff.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <system_error>

namespace orca::pmi {

LoopHandoff::LoopHandoff(EventLoop& loop) : fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
  if (!fd_.valid()) throw std::system_error(errno, std::generic_category(), "eventfd");
  watch_ = std::make_unique<IoWatch>(loop, fd_.get(), IoWatch::kRead, [this](short) { drain(); });
  watch_->enable();
}

LoopHandoff::~LoopHandoff() = default;

void LoopHandoff::post(std::function<void()> work) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(work));
  }
  const std::uint64_t one = 1;
  // A full counter (2^64 - 2 posts not drained) cannot happen; EAGAIN would
  // only mean the loop is already woken.
  (void)!::write(fd_.get(), &one, sizeof one);
}

void LoopHandoff::drain() {
  std::uint64_t count = 0;
  (void)!::read(fd_.get(), &count, sizeof count);
  std::deque<std::function<void()>> work;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    work.swap(queue_);
  }
  for (auto& w : work) w();
}

}  // namespace orca::pmi
