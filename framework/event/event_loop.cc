// EventLoop, IoWatch, Timer over libevent.
#include <orca/event_loop.h>

#include <event2/event.h>

#include <new>

namespace orca {

namespace {
timeval to_timeval(std::chrono::microseconds us) {
  us = saturating_microseconds(us);
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(us.count() / 1000000);
  tv.tv_usec = static_cast<suseconds_t>(us.count() % 1000000);
  return tv;
}
}  // namespace

EventLoop::EventLoop() : base_(event_base_new()), owned_(true) {
  if (base_ == nullptr) throw std::bad_alloc();
}

EventLoop::EventLoop(event_base* borrowed) : base_(borrowed), owned_(false) {}

EventLoop::~EventLoop() {
  if (owned_) event_base_free(base_);
}

void EventLoop::run() { event_base_dispatch(base_); }

void EventLoop::stop() { event_base_loopbreak(base_); }

bool EventLoop::run_until(const std::function<bool()>& done, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return false;
    // Wake up at least every 10 ms so that `done` and the limit are checked
    // even when no event arrives.
    const auto slice = std::min<std::chrono::microseconds>(
        std::chrono::duration_cast<std::chrono::microseconds>(deadline - now), std::chrono::milliseconds(10));
    const timeval tv = to_timeval(slice);
    event_base_loopexit(base_, &tv);
    event_base_dispatch(base_);
  }
  return true;
}

IoWatch::IoWatch(EventLoop& loop, int fd, short what, Callback callback)
    : callback_(std::move(callback)),
      ev_(event_new(loop.base(), fd, static_cast<short>(what | EV_PERSIST), &IoWatch::trampoline, this)) {
  if (ev_ == nullptr) throw std::bad_alloc();
}

IoWatch::~IoWatch() { event_free(ev_); }

void IoWatch::enable() {
  if (!enabled_) event_add(ev_, nullptr);
  enabled_ = true;
}

void IoWatch::disable() {
  if (enabled_) event_del(ev_);
  enabled_ = false;
}

void IoWatch::trampoline(int /*fd*/, short what, void* self) {
  // Copy: the callback may destroy this watch.
  Callback cb = static_cast<IoWatch*>(self)->callback_;
  cb(what);
}

Timer::Timer(EventLoop& loop, std::function<void()> callback)
    : callback_(std::move(callback)), ev_(evtimer_new(loop.base(), &Timer::trampoline, this)) {
  if (ev_ == nullptr) throw std::bad_alloc();
}

Timer::~Timer() { event_free(ev_); }

void Timer::start_after(std::chrono::microseconds after) {
  const timeval tv = to_timeval(after);
  evtimer_add(ev_, &tv);
}

void Timer::cancel() { evtimer_del(ev_); }

bool Timer::pending() const { return evtimer_pending(ev_, nullptr) != 0; }

void Timer::trampoline(int /*fd*/, short /*what*/, void* self) {
  std::function<void()> cb = static_cast<Timer*>(self)->callback_;
  cb();
}

}  // namespace orca
