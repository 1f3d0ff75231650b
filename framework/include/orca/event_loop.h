/*
 * EventLoop, IoWatch and Timer: RAII over libevent.
 *
 * A process runs one EventLoop on one thread; every Orca callback (socket
 * readiness, timers, oob deliveries) runs on it, so nothing here locks.
 * IoWatch and Timer remove their libevent event on destruction, so an
 * object that owns one can never be called back after it is gone.
 * Callbacks may destroy the watch or timer that called them.
 */
#ifndef ORCA_EVENT_LOOP_H
#define ORCA_EVENT_LOOP_H

#include <orca/export.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

struct event_base;
struct event;

namespace orca {

class ORCA_EXPORT EventLoop {
 public:
  EventLoop();
  /* A non-owning view of a loop made elsewhere (a component is handed the
   * process's event_base across the C boundary). */
  explicit EventLoop(event_base* borrowed);
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  event_base* base() const noexcept { return base_; }
  /* Runs until stop() or until nothing is left to wait for. */
  void run();
  /* Runs until `done()` is true, checking after every batch of events, or
   * until `limit` passes; returns done(). For tests and tools. */
  bool run_until(const std::function<bool()>& done, std::chrono::milliseconds limit);
  /* Makes run() return after the current callbacks. */
  void stop();

 private:
  event_base* base_;
  bool owned_;
};

/* Readiness of one file descriptor. */
class ORCA_EXPORT IoWatch {
 public:
  enum : short { kRead = 0x02, kWrite = 0x04 };  // EV_READ, EV_WRITE
  using Callback = std::function<void(short what)>;

  IoWatch(EventLoop& loop, int fd, short what, Callback callback);
  ~IoWatch();
  IoWatch(const IoWatch&) = delete;
  IoWatch& operator=(const IoWatch&) = delete;

  /* Watches persistently until disable(). */
  void enable();
  void disable();
  bool enabled() const noexcept { return enabled_; }

 private:
  static void trampoline(int fd, short what, void* self);
  Callback callback_;
  event* ev_;
  bool enabled_ = false;
};

/* `d` in microseconds, clamped to [0, kMaxTimerDelay]: a duration from a
 * setting near its type's limit must not wrap into the past. */
inline constexpr std::chrono::microseconds kMaxTimerDelay = std::chrono::hours(24 * 365 * 30);
template <class Rep, class Period>
constexpr std::chrono::microseconds saturating_microseconds(std::chrono::duration<Rep, Period> d) {
  const double us = std::chrono::duration<double, std::micro>(d).count();
  if (!(us > 0)) return std::chrono::microseconds(0);
  if (us >= static_cast<double>(kMaxTimerDelay.count())) return kMaxTimerDelay;
  return std::chrono::microseconds(static_cast<std::int64_t>(us));
}

/* A one-shot timer; start() again to re-arm. */
class ORCA_EXPORT Timer {
 public:
  Timer(EventLoop& loop, std::function<void()> callback);
  ~Timer();
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  /* Fires once after `after` (saturated: negative is now, huge is
   * kMaxTimerDelay). */
  template <class Rep, class Period>
  void start(std::chrono::duration<Rep, Period> after) {
    start_after(saturating_microseconds(after));
  }
  void cancel();
  bool pending() const;

 private:
  void start_after(std::chrono::microseconds after);
  static void trampoline(int fd, short what, void* self);
  std::function<void()> callback_;
  event* ev_;
};

}  // namespace orca

#endif  // ORCA_EVENT_LOOP_H
