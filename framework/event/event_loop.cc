// EventLoop, IoWatch, Timer, SignalWatch, ChildWatch over libevent.
#include <orca/event_loop.h>

#include <event2/event.h>

#include <sys/stat.h>
#include <sys/wait.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <map>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include <orca/unique_fd.h>  // ORCA_UNIQUE_FD_CHECKS: the same builds check watches

namespace orca {

namespace event_detail {

struct ErrorSink {
  EventLoop::ErrorHandler handler;

  void report(const std::string& text) const noexcept {
    if (handler) {
      try {
        handler(text);
        return;
      } catch (...) {
        // Falls through to the default: the report must not be lost.
      }
    }
    std::fprintf(stderr, "orca: %s\n", text.c_str());
  }
};

struct LoopState {
  ~LoopState() {
    if (deferred != nullptr) event_free(deferred);
  }
  event* deferred = nullptr;  // activated while `queue` waits to run
  bool scheduled = false;
  std::deque<std::function<void()>> queue;
  std::map<pid_t, ChildWatch*> children;
  std::unique_ptr<SignalWatch> sigchld;  // made with the first ChildWatch; enabled while any exists
  bool child_check_deferred = false;
};

}  // namespace event_detail

namespace {

using event_detail::ErrorSink;

timeval to_timeval(std::chrono::microseconds us) {
  us = saturating_microseconds(us);
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(us.count() / 1000000);
  tv.tv_usec = static_cast<suseconds_t>(us.count() % 1000000);
  return tv;
}

/* Runs `body` (a callback called from libevent) so that nothing it throws
 * reaches libevent: it is reported to `sink` as "an exception escaped
 * <where()>: <what>". */
template <class Where, class Body>
void guarded(const ErrorSink& sink, Where where, Body&& body) noexcept {
  const char* what = nullptr;
  try {
    body();
    return;
  } catch (const std::exception& e) {
    try {
      sink.report("an exception escaped " + where() + ": " + e.what());
      return;
    } catch (...) {
      what = e.what();
    }
  } catch (...) {
    try {
      sink.report("an exception escaped " + where() + " (not a std::exception)");
      return;
    } catch (...) {
    }
  }
  // Building the text failed (out of memory): still one line.
  std::fprintf(stderr, "orca: an exception escaped an event loop callback: %s\n", what ? what : "(unknown)");
}

}  // namespace

EventLoop::EventLoop() : base_(event_base_new()), owned_(true) {
  if (base_ == nullptr) throw std::bad_alloc();
  // A write to a closed socket must come back as EPIPE: the process is not
  // to die of it.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGPIPE, &ignore, nullptr);
  try {
    init();
  } catch (...) {
    event_base_free(base_);
    throw;
  }
}

EventLoop::EventLoop(event_base* borrowed) : base_(borrowed), owned_(false) { init(); }

void EventLoop::init() {
  errors_ = std::make_shared<ErrorSink>();
  state_ = std::make_shared<event_detail::LoopState>();
  state_->deferred = event_new(base_, -1, 0, &EventLoop::run_deferred, this);
  if (state_->deferred == nullptr) throw std::bad_alloc();
}

EventLoop::~EventLoop() {
  event_detail::LoopState& st = *state_;
  // Deferred calls not run yet are destroyed, not run, while the rest of
  // this object still works: what they own may defer or unwatch as it goes.
  while (!st.queue.empty()) {
    auto dropped = std::move(st.queue);
    st.queue.clear();
  }
  for (auto& [pid, watch] : st.children) {
    watch->loop_ = nullptr;
    watch->watching_ = false;
  }
  st.children.clear();
  st.sigchld.reset();
  // Frees the deferred-call event; a pass running now sees it expire.
  state_.reset();
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

void EventLoop::set_error_handler(ErrorHandler handler) { errors_->handler = std::move(handler); }

void EventLoop::defer(std::function<void()> fn) {
  if (!fn) return;
  event_detail::LoopState& st = *state_;
  st.queue.push_back(std::move(fn));
  if (!st.scheduled) {
    st.scheduled = true;
    event_active(st.deferred, 0, 0);
  }
}

void EventLoop::run_deferred(int /*fd*/, short /*what*/, void* self) {
  auto* loop = static_cast<EventLoop*>(self);
  // A deferred call may destroy this EventLoop (a view owned by what it
  // frees): `alive` tells, and nothing here is touched after that.
  const std::weak_ptr<event_detail::LoopState> alive = loop->state_;
  const std::shared_ptr<ErrorSink> errors = loop->errors_;
  event_detail::LoopState& st = *loop->state_;
  st.scheduled = false;
  // Only the calls queued before this pass: what they defer goes to the
  // next pass (defer() has activated the event again).
  for (size_t n = st.queue.size(); n > 0 && !st.queue.empty(); --n) {
    std::function<void()> fn = std::move(st.queue.front());
    st.queue.pop_front();
    guarded(*errors, [] { return std::string("a deferred call"); }, [&] {
      fn();
      fn = nullptr;  // what it owns goes now, still inside the guard
    });
    fn = nullptr;
    if (alive.expired()) return;
  }
}

void EventLoop::reap_children() {
  const std::weak_ptr<event_detail::LoopState> alive = state_;
  const std::shared_ptr<ErrorSink> errors = errors_;
  std::vector<pid_t> pids;
  for (const auto& entry : state_->children) pids.push_back(entry.first);
  for (pid_t pid : pids) {
    if (alive.expired()) return;  // a callback destroyed this loop
    event_detail::LoopState& st = *state_;
    auto it = st.children.find(pid);
    if (it == st.children.end()) continue;  // an earlier callback stopped watching it
    int status = 0;
    pid_t r;
    do {
      r = ::waitpid(pid, &status, WNOHANG);
    } while (r < 0 && errno == EINTR);
    if (r == 0) continue;  // still running
    const int err = errno;
    ChildWatch* watch = it->second;
    st.children.erase(it);
    watch->watching_ = false;
    if (st.children.empty()) st.sigchld->disable();
    if (r < 0) {
      errors->report("a ChildWatch stopped watching process " + std::to_string(pid) + ": waitpid failed (" +
                     std::strerror(err) + "): not a child of this process, or reaped elsewhere");
      continue;
    }
    guarded(*errors, [pid] { return "the child watch callback of process " + std::to_string(pid); }, [&] {
      // Copied: the callback may destroy the watch.
      ChildWatch::Callback cb = watch->callback_;
      cb(status);
    });
  }
}

IoWatch::IoWatch(EventLoop& loop, int fd, short what, Callback callback)
    : callback_(std::move(callback)),
      errors_(loop.errors_),
      ev_(event_new(loop.base(), fd, static_cast<short>(what | EV_PERSIST), &IoWatch::trampoline, this)) {
  if (ev_ == nullptr) throw std::bad_alloc();
}

IoWatch::~IoWatch() {
  if (enabled_) check_same_file("destroyed");
  event_free(ev_);
}

void IoWatch::check_same_file(const char* when) const {
#ifdef ORCA_UNIQUE_FD_CHECKS
  if (watched_ino_ == 0) return;
  const int fd = event_get_fd(ev_);
  struct stat st {};
  // Closed but not reused is left to UniqueFd's own check: an owner that
  // closes its descriptor just before destroying its watch is harmless.
  if (::fstat(fd, &st) != 0) return;
  if (static_cast<std::uint64_t>(st.st_dev) == watched_dev_ && static_cast<std::uint64_t>(st.st_ino) == watched_ino_) {
    return;
  }
  std::fprintf(stderr,
               "orca: an enabled IoWatch on descriptor %d was %s after that descriptor was closed and reused "
               "for another file: it would fire for someone else's descriptor\n",
               fd, when);
  __sanitizer_print_stack_trace();
  std::abort();
#else
  (void)when;
#endif
}

void IoWatch::enable() {
  if (enabled_) return;
  // A refused add (a descriptor closed under us, the epoll watch limit)
  // leaves the watch off and says so: marked on, it would never fire and
  // the job would wait for it without a word.
  if (event_add(ev_, nullptr) != 0) {
    const int err = errno;
    errors_->report("cannot watch descriptor " + std::to_string(event_get_fd(ev_)) + " on the event loop: " +
                    std::strerror(err));
    return;
  }
  enabled_ = true;
#ifdef ORCA_UNIQUE_FD_CHECKS
  struct stat st {};
  if (::fstat(event_get_fd(ev_), &st) == 0) {
    watched_dev_ = static_cast<std::uint64_t>(st.st_dev);
    watched_ino_ = static_cast<std::uint64_t>(st.st_ino);
  }
#endif
}

void IoWatch::disable() {
  if (enabled_) {
    check_same_file("disabled");
    event_del(ev_);
  }
  enabled_ = false;
}

void IoWatch::trampoline(int fd, short what, void* self) {
  auto* watch = static_cast<IoWatch*>(self);
  watch->check_same_file("called back");
  // Copied: the callback may destroy this watch.
  const std::shared_ptr<ErrorSink> errors = watch->errors_;
  guarded(*errors, [fd] { return "an I/O watch callback (fd " + std::to_string(fd) + ")"; }, [&] {
    Callback cb = watch->callback_;
    cb(what);
  });
}

Timer::Timer(EventLoop& loop, std::function<void()> callback)
    : callback_(std::move(callback)), errors_(loop.errors_), ev_(evtimer_new(loop.base(), &Timer::trampoline, this)) {
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
  auto* timer = static_cast<Timer*>(self);
  const std::shared_ptr<ErrorSink> errors = timer->errors_;
  guarded(*errors, [] { return std::string("a timer callback"); }, [&] {
    std::function<void()> cb = timer->callback_;
    cb();
  });
}

// The callback does not run inside libevent's signal dispatch: that keeps
// a pointer into its own stack frame in the event while it calls back, and
// an event_del() of the signal from the callback (disable(), or the last
// ChildWatch going) would leave it dangling for the next event_del() to
// write through. The signal only activates `fire_`, whose callback is
// free to do anything, and several arrivals become one call.
SignalWatch::SignalWatch(EventLoop& loop, int signo, std::function<void()> callback, Unwatched unwatched)
    : callback_(std::move(callback)),
      errors_(loop.errors_),
      signo_(signo),
      ev_(evsignal_new(loop.base(), signo, &SignalWatch::on_signal, this)),
      fire_(event_new(loop.base(), -1, 0, &SignalWatch::trampoline, this)) {
  bool ignored_here = false;
  if (unwatched == Unwatched::kIgnore) {
    // libevent saves the disposition it finds when it starts watching and
    // puts it back when the last watch goes: found SIG_IGN, it restores
    // SIG_IGN, with no moment of the default in between. A handler that is
    // already there (libevent's, for another watch) is left alone.
    struct sigaction now {};
    if (::sigaction(signo, nullptr, &now) == 0 && now.sa_handler == SIG_DFL) {
      struct sigaction ignore {};
      ignore.sa_handler = SIG_IGN;
      sigemptyset(&ignore.sa_mask);
      ignored_here = ::sigaction(signo, &ignore, nullptr) == 0;
    }
  }
  if (ev_ == nullptr || fire_ == nullptr || event_add(ev_, nullptr) != 0) {
    if (ignored_here) ::signal(signo, SIG_DFL);  // no watch: as it was
    const bool allocated = ev_ != nullptr && fire_ != nullptr;
    if (ev_ != nullptr) event_free(ev_);
    if (fire_ != nullptr) event_free(fire_);
    if (!allocated) throw std::bad_alloc();
    throw std::invalid_argument("cannot watch signal " + std::to_string(signo));
  }
  enabled_ = true;
}

SignalWatch::~SignalWatch() {
  event_free(fire_);
  event_free(ev_);
}

void SignalWatch::enable() {
  if (enabled_) return;
  if (event_add(ev_, nullptr) != 0) {
    errors_->report("cannot watch signal " + std::to_string(signo_) + " on the event loop");
    return;
  }
  enabled_ = true;
}

void SignalWatch::disable() {
  if (enabled_) {
    event_del(ev_);
    event_del(fire_);  // an arrival not called back yet is dropped
  }
  enabled_ = false;
}

void SignalWatch::on_signal(int /*signo*/, short /*what*/, void* self) {
  // Activating an active event only merges: one call for the lot.
  event_active(static_cast<SignalWatch*>(self)->fire_, EV_SIGNAL, 0);
}

void SignalWatch::trampoline(int /*fd*/, short /*what*/, void* self) {
  auto* watch = static_cast<SignalWatch*>(self);
  const std::shared_ptr<ErrorSink> errors = watch->errors_;
  const int signo = watch->signo_;
  guarded(*errors, [signo] { return "a signal watch callback (signal " + std::to_string(signo) + ")"; }, [&] {
    std::function<void()> cb = watch->callback_;
    cb();
  });
}

ChildWatch::ChildWatch(EventLoop& loop, pid_t pid, Callback callback)
    : loop_(&loop), pid_(pid), callback_(std::move(callback)) {
  if (pid <= 0) throw std::invalid_argument("a ChildWatch needs a child's process id, not " + std::to_string(pid));
  event_detail::LoopState& st = *loop.state_;
  if (!st.children.emplace(pid, this).second) {
    throw std::logic_error("process " + std::to_string(pid) + " is watched already on this event loop");
  }
  try {
    if (st.sigchld) {
      st.sigchld->enable();
    } else {
      st.sigchld = std::make_unique<SignalWatch>(loop, SIGCHLD, [&loop] { loop.reap_children(); });
    }
    // A child that exited before SIGCHLD was watched signalled nobody: look
    // once, on the loop (the caller may not be ready for the callback yet).
    if (!st.child_check_deferred) {
      loop.defer([&loop] {
        loop.state_->child_check_deferred = false;
        loop.reap_children();
      });
      st.child_check_deferred = true;
    }
  } catch (...) {
    st.children.erase(pid);
    if (st.children.empty() && st.sigchld) st.sigchld->disable();
    throw;
  }
}

ChildWatch::~ChildWatch() {
  if (loop_ == nullptr || !watching_) return;
  event_detail::LoopState& st = *loop_->state_;
  st.children.erase(pid_);
  if (st.children.empty() && st.sigchld) st.sigchld->disable();
}

}  // namespace orca
