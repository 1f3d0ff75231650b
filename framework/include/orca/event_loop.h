/*
 * EventLoop, IoWatch, Timer, SignalWatch and ChildWatch: RAII over
 * libevent.
 *
 * A process runs one EventLoop on one thread; every Orca callback (socket
 * readiness, timers, signals, child exits, deferred calls, oob deliveries)
 * runs on it, so nothing here locks. Each watch removes its libevent event
 * on destruction, so an object that owns one can never be called back after
 * it is gone. Callbacks may destroy the watch or timer that called them.
 *
 * Exceptions never unwind through libevent: every callback (of a watch, a
 * timer, a deferred call) runs inside a catch-all; what it throws is
 * reported to the error handler of the EventLoop the watch was made with
 * (set_error_handler; by default one line on stderr) and the loop goes on.
 */
#ifndef ORCA_EVENT_LOOP_H
#define ORCA_EVENT_LOOP_H

#include <orca/export.h>

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

struct event_base;
struct event;

namespace orca {

namespace event_detail {
struct ErrorSink;  // an EventLoop's error handler, shared with its watches
struct LoopState;  // deferred calls and child watches
}  // namespace event_detail

class ChildWatch;

class ORCA_EXPORT EventLoop {
 public:
  /* A loop of its own. Sets SIGPIPE to SIG_IGN for the whole process: a
   * write to a socket whose peer has gone must fail with EPIPE, not kill
   * the process. */
  EventLoop();
  /* A non-owning view of a loop made elsewhere (a component is handed the
   * process's event_base across the C boundary). A view has its own
   * deferred calls, child watches and error handler; destroying it drops
   * them (see defer()) and leaves the base and its other events alone. */
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

  /* Runs `fn` on the loop once the current callback has returned: the way
   * to free an object whose own callback is still on the stack. Calls run
   * in the order deferred; a call deferred by a deferred call runs in a
   * later pass, never recursively. (A call that keeps deferring itself
   * keeps the loop from polling.) Destroying this EventLoop object destroys
   * the calls not run yet without running them: an object that owns a view
   * of the loop and defers work on it is sure that none of that work
   * outlives it. `fn` must be copyable (std::function): hold a unique_ptr
   * in a std::shared_ptr to defer its destruction. */
  void defer(std::function<void()> fn);

  using ErrorHandler = std::function<void(const std::string& text)>;
  /* Receives what a callback of this loop's watches, timers and deferred
   * calls threw, as one line of text, after it was caught; the loop then
   * goes on. Empty: the default, one line on stderr. A handler that throws
   * falls back to the default. */
  void set_error_handler(ErrorHandler handler);

 private:
  friend class IoWatch;
  friend class Timer;
  friend class SignalWatch;
  friend class ChildWatch;
  void init();  // the parts both constructors share
  static void run_deferred(int fd, short what, void* self);
  /* Reaps the watched children that have exited and calls their watches. */
  void reap_children();

  event_base* base_;
  bool owned_;
  std::shared_ptr<event_detail::ErrorSink> errors_;
  std::shared_ptr<event_detail::LoopState> state_;  // shared only for liveness checks (weak_ptr)
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

  /* Watches persistently until disable(). If libevent refuses (the fd is
   * not open, the epoll watch limit), the watch stays off (enabled() is
   * false) and the loop's error handler is told. */
  void enable();
  void disable();
  bool enabled() const noexcept { return enabled_; }

 private:
  static void trampoline(int fd, short what, void* self);
  /* Sanitized builds: stops the process with a stack when the watched
   * descriptor is now another file than the one it was when watched (it
   * was closed under an enabled watch and its number reused), since the
   * watch would then fire for someone else's descriptor. */
  void check_same_file(const char* when) const;
  Callback callback_;
  std::shared_ptr<event_detail::ErrorSink> errors_;
  event* ev_;
  bool enabled_ = false;
  // The watched file's identity when enabled (sanitized builds only; kept
  // in every build so that the layout does not depend on the flags).
  std::uint64_t watched_dev_ = 0;
  std::uint64_t watched_ino_ = 0;
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
  std::shared_ptr<event_detail::ErrorSink> errors_;
  event* ev_;
};

/* A signal (SIGINT, SIGTERM, ...), delivered on the loop: the callback runs
 * from the loop, not from the signal handler, so it may do anything,
 * disabling or destroying this watch included. Several arrivals before the
 * loop gets to them are reported once. libevent delivers signals to one
 * event_base per process at a time. */
class ORCA_EXPORT SignalWatch {
 public:
  /* What the signal does while no watch of it is enabled (this one
   * disabled or destroyed): what it did before this watch (kRestore), or
   * nothing (kIgnore, if it had its default action). kIgnore is for a
   * process that must finish its cleanup once it stopped watching: a
   * second SIGTERM must not kill it and leave its files behind. The
   * switch is atomic: libevent gives back the disposition it found. */
  enum class Unwatched { kRestore, kIgnore };
  /* Watching from construction on. */
  SignalWatch(EventLoop& loop, int signo, std::function<void()> callback, Unwatched unwatched = Unwatched::kRestore);
  ~SignalWatch();
  SignalWatch(const SignalWatch&) = delete;
  SignalWatch& operator=(const SignalWatch&) = delete;

  void enable();
  void disable();
  bool enabled() const noexcept { return enabled_; }

 private:
  static void on_signal(int signo, short what, void* self);
  static void trampoline(int fd, short what, void* self);
  std::function<void()> callback_;
  std::shared_ptr<event_detail::ErrorSink> errors_;
  int signo_;
  event* ev_;    // the signal
  event* fire_;  // activated by it: the callback runs outside libevent's signal dispatch
  bool enabled_ = false;
};

/* The exit of one child process. When it exits (or is killed) the loop
 * reaps it (waitpid) and calls the callback once with the raw wait status
 * (WIFEXITED, WEXITSTATUS, WIFSIGNALED, WTERMSIG apply): the child never
 * stays a zombie. A child that exited before the watch was made is reaped
 * too, on the loop, shortly after. Only watched pids are reaped; children
 * waited for elsewhere are left alone. All the ChildWatches of an
 * EventLoop object share one SIGCHLD SignalWatch it holds while any
 * exists.
 *
 * Destroying the watch before the child exits stops watching: reaping it
 * is then the caller's business. A pid that turns out not to be a child
 * (waitpid says ECHILD: reaped elsewhere, or never ours) is dropped and
 * reported to the loop's error handler without calling the callback.
 * The EventLoop should outlive it; if it does not, the watch just stops. */
class ORCA_EXPORT ChildWatch {
 public:
  using Callback = std::function<void(int wait_status)>;

  /* Throws std::invalid_argument for pid <= 0 and std::logic_error when
   * `loop` already watches `pid`. */
  ChildWatch(EventLoop& loop, pid_t pid, Callback callback);
  ~ChildWatch();
  ChildWatch(const ChildWatch&) = delete;
  ChildWatch& operator=(const ChildWatch&) = delete;

  pid_t pid() const noexcept { return pid_; }
  /* Until the child is reaped (or found not to be a child). */
  bool watching() const noexcept { return watching_; }

 private:
  friend class EventLoop;
  EventLoop* loop_;  // null once the loop is gone
  pid_t pid_;
  Callback callback_;
  bool watching_ = true;
};

}  // namespace orca

#endif  // ORCA_EVENT_LOOP_H
