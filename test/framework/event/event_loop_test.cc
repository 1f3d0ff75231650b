// EventLoop: deferred calls (order, after the current callback, from
// inside a deferred call, dropped with a view), signal watches, child
// watches (exit codes, signals, children that exited before the watch, no
// zombie left), SIGPIPE ignored, and exceptions from callbacks reported to
// the error handler instead of reaching libevent.
#include <orca/event_loop.h>
#include <orca/unique_fd.h>

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace orca {
namespace {

using namespace std::chrono_literals;

/* A forked child that sleeps `delay`, then exits with `code`; or waits to
 * be killed when `code` < 0. */
pid_t spawn(int code, std::chrono::milliseconds delay = 0ms) {
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork");
  if (pid == 0) {
    if (code < 0) {
      for (;;) ::pause();
    }
    if (delay.count() > 0) ::usleep(static_cast<useconds_t>(delay.count() * 1000));
    ::_exit(code);
  }
  return pid;
}

/* True when `pid` is neither running nor a zombie of ours. */
bool reaped(pid_t pid) {
  int status = 0;
  errno = 0;
  return ::waitpid(pid, &status, WNOHANG) == -1 && errno == ECHILD;
}

class EventLoopTest : public ::testing::Test {
 protected:
  EventLoopTest() {
    loop_.set_error_handler([this](const std::string& text) { errors_.push_back(text); });
  }
  EventLoop loop_;
  std::vector<std::string> errors_;
};

TEST_F(EventLoopTest, DeferRunsAfterTheCurrentCallbackInOrder) {
  std::vector<std::string> seen;
  Timer timer(loop_, [&] {
    loop_.defer([&] { seen.push_back("a"); });
    loop_.defer([&] { seen.push_back("b"); });
    loop_.defer([&] { seen.push_back("c"); });
    seen.push_back("timer returns");
  });
  timer.start(0ms);
  ASSERT_TRUE(loop_.run_until([&] { return seen.size() == 4; }, 2s));
  EXPECT_EQ(seen, (std::vector<std::string>{"timer returns", "a", "b", "c"}));
}

TEST_F(EventLoopTest, DeferOutsideACallbackRunsOnTheLoop) {
  bool ran = false;
  loop_.defer([&] { ran = true; });
  EXPECT_FALSE(ran);
  EXPECT_TRUE(loop_.run_until([&] { return ran; }, 2s));
}

TEST_F(EventLoopTest, DeferFromADeferredCallRunsInALaterPass) {
  std::vector<std::string> seen;
  loop_.defer([&] {
    seen.push_back("first");
    loop_.defer([&] { seen.push_back("deferred by first"); });
    seen.push_back("first returns");  // not run recursively
  });
  loop_.defer([&] { seen.push_back("second"); });
  ASSERT_TRUE(loop_.run_until([&] { return seen.size() == 4; }, 2s));
  EXPECT_EQ(seen, (std::vector<std::string>{"first", "first returns", "second", "deferred by first"}));
}

TEST_F(EventLoopTest, DeferFreesAnObjectFromInsideItsOwnCallback) {
  // The pattern of the oob engine: an object whose own timer decides it
  // must go hands itself to a deferred call.
  struct Owner {
    Owner(EventLoop& loop, std::shared_ptr<Owner>& slot)
        : timer(loop, [this, &loop, &slot] {
            loop.defer([gone = std::move(slot)] {});
            still_here = true;  // this callback goes on safely
          }) {}
    Timer timer;
    bool still_here = false;
  };
  std::shared_ptr<Owner> slot;
  slot = std::make_shared<Owner>(loop_, slot);
  std::weak_ptr<Owner> watch = slot;
  slot->timer.start(0ms);
  ASSERT_TRUE(loop_.run_until([&] { return watch.expired(); }, 2s));
  EXPECT_EQ(slot, nullptr);
}

TEST_F(EventLoopTest, AViewsQueueIsDroppedUnrunWhenTheViewGoes) {
  auto view = std::make_unique<EventLoop>(loop_.base());
  bool ran = false;
  auto token = std::make_shared<int>(0);
  std::weak_ptr<int> held = token;
  view->defer([&ran, token = std::move(token)] { ran = true; });
  EXPECT_FALSE(held.expired());
  view.reset();
  EXPECT_TRUE(held.expired());  // destroyed with the view
  bool later = false;
  loop_.defer([&] { later = true; });
  ASSERT_TRUE(loop_.run_until([&] { return later; }, 2s));
  EXPECT_FALSE(ran);
}

TEST_F(EventLoopTest, AViewRunsItsDeferredCallsOnTheSharedBase) {
  EventLoop view(loop_.base());
  std::vector<int> seen;
  view.defer([&] { seen.push_back(1); });
  loop_.defer([&] { seen.push_back(2); });
  ASSERT_TRUE(loop_.run_until([&] { return seen.size() == 2; }, 2s));
}

TEST_F(EventLoopTest, AViewMayBeDestroyedByItsOwnDeferredCall) {
  auto view = std::make_unique<EventLoop>(loop_.base());
  bool second_ran = false;
  bool done = false;
  view->defer([&] { view.reset(); });
  view->defer([&] { second_ran = true; });
  loop_.defer([&] { done = true; });
  ASSERT_TRUE(loop_.run_until([&] { return done; }, 2s));
  EXPECT_EQ(view, nullptr);
  EXPECT_FALSE(second_ran);
}

TEST_F(EventLoopTest, SignalWatchSeesRaisedSignals) {
  int usr1 = 0, term = 0;
  SignalWatch on_usr1(loop_, SIGUSR1, [&] { ++usr1; });
  SignalWatch on_term(loop_, SIGTERM, [&] { ++term; });
  EXPECT_TRUE(on_usr1.enabled());
  ::raise(SIGUSR1);
  ASSERT_TRUE(loop_.run_until([&] { return usr1 == 1; }, 2s));
  ::raise(SIGTERM);
  ASSERT_TRUE(loop_.run_until([&] { return term == 1; }, 2s));
  EXPECT_EQ(usr1, 1);
}

TEST_F(EventLoopTest, SignalWatchMayBeDisabledByItsOwnCallback) {
  // Two arrivals before the loop looks: one call, which disables the watch
  // (inside libevent's signal dispatch that would leave a dangling pointer
  // in the event; valgrind sees the write through it).
  int calls = 0;
  std::unique_ptr<SignalWatch> watch;
  watch = std::make_unique<SignalWatch>(loop_, SIGUSR1, [&] {
    ++calls;
    watch->disable();
  });
  ::raise(SIGUSR1);
  ::raise(SIGUSR1);
  ASSERT_TRUE(loop_.run_until([&] { return calls > 0; }, 2s));
  loop_.run_until([] { return false; }, 20ms);
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(watch->enabled());
  watch->enable();
  ::raise(SIGUSR1);
  ASSERT_TRUE(loop_.run_until([&] { return calls == 2; }, 2s));
  watch.reset();
}

TEST_F(EventLoopTest, SignalWatchUnwatchedIgnoreLeavesTheSignalIgnored) {
  // SIGUSR2's default is death: the test process survives the raises
  // while the watch is disabled and after it is gone only if the signal
  // is ignored then.
  int calls = 0;
  auto watch = std::make_unique<SignalWatch>(loop_, SIGUSR2, [&] { ++calls; }, SignalWatch::Unwatched::kIgnore);
  ::raise(SIGUSR2);
  ASSERT_TRUE(loop_.run_until([&] { return calls == 1; }, 2s));
  watch->disable();
  ::raise(SIGUSR2);
  watch->enable();
  loop_.run_until([] { return false; }, 20ms);
  EXPECT_EQ(calls, 1);
  watch.reset();
  ::raise(SIGUSR2);
  struct sigaction now {};
  ASSERT_EQ(::sigaction(SIGUSR2, nullptr, &now), 0);
  EXPECT_EQ(now.sa_handler, SIG_IGN);
  ::signal(SIGUSR2, SIG_DFL);
}

TEST_F(EventLoopTest, SignalWatchRestoresTheDefaultByDefault) {
  auto watch = std::make_unique<SignalWatch>(loop_, SIGUSR2, [] {});
  watch.reset();
  struct sigaction now {};
  ASSERT_EQ(::sigaction(SIGUSR2, nullptr, &now), 0);
  EXPECT_EQ(now.sa_handler, SIG_DFL);
}

TEST_F(EventLoopTest, ChildWatchReportsExitCodes) {
  for (int code : {0, 3}) {
    const pid_t pid = spawn(code, 20ms);
    int status = -1, calls = 0;
    ChildWatch watch(loop_, pid, [&](int s) {
      status = s;
      ++calls;
    });
    ASSERT_TRUE(loop_.run_until([&] { return calls > 0; }, 5s)) << "exit " << code;
    EXPECT_EQ(calls, 1);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), code);
    EXPECT_FALSE(watch.watching());
    EXPECT_TRUE(reaped(pid));
  }
  EXPECT_TRUE(errors_.empty());
}

TEST_F(EventLoopTest, ChildWatchReportsAKillingSignal) {
  const pid_t pid = spawn(-1);
  int status = -1;
  bool called = false;
  ChildWatch watch(loop_, pid, [&](int s) {
    status = s;
    called = true;
  });
  ASSERT_FALSE(loop_.run_until([&] { return called; }, 50ms));  // still running
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  ASSERT_TRUE(loop_.run_until([&] { return called; }, 5s));
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  EXPECT_TRUE(reaped(pid));
}

TEST_F(EventLoopTest, ChildWatchReapsAChildThatExitedBeforeIt) {
  const pid_t pid = spawn(5);
  // Wait until it is a zombie, without reaping it.
  siginfo_t info{};
  ASSERT_EQ(::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT), 0);
  int status = -1;
  ChildWatch watch(loop_, pid, [&](int s) { status = s; });
  ASSERT_TRUE(loop_.run_until([&] { return !watch.watching(); }, 5s));
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 5);
  EXPECT_TRUE(reaped(pid));
}

TEST_F(EventLoopTest, TwoChildrenAtOnce) {
  const pid_t first = spawn(1, 30ms);
  const pid_t second = spawn(2, 30ms);
  int status_first = -1, status_second = -1;
  ChildWatch a(loop_, first, [&](int s) { status_first = s; });
  ChildWatch b(loop_, second, [&](int s) { status_second = s; });
  ASSERT_TRUE(loop_.run_until([&] { return !a.watching() && !b.watching(); }, 5s));
  ASSERT_TRUE(WIFEXITED(status_first) && WIFEXITED(status_second));
  EXPECT_EQ(WEXITSTATUS(status_first), 1);
  EXPECT_EQ(WEXITSTATUS(status_second), 2);
  EXPECT_TRUE(reaped(first));
  EXPECT_TRUE(reaped(second));
}

TEST_F(EventLoopTest, ADestroyedChildWatchLeavesTheChildAlone) {
  const pid_t pid = spawn(-1);
  bool called = false;
  {
    ChildWatch watch(loop_, pid, [&](int) { called = true; });
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);  // still ours to reap
  loop_.run_until([] { return false; }, 50ms);
  EXPECT_FALSE(called);
}

TEST_F(EventLoopTest, ChildWatchOfANonChildIsReported) {
  bool called = false;
  ChildWatch watch(loop_, ::getppid(), [&](int) { called = true; });
  ASSERT_TRUE(loop_.run_until([&] { return !watch.watching(); }, 2s));
  EXPECT_FALSE(called);
  ASSERT_EQ(errors_.size(), 1u);
  EXPECT_NE(errors_[0].find(std::to_string(::getppid())), std::string::npos) << errors_[0];
}

TEST_F(EventLoopTest, ChildWatchRejectsBadAndDuplicatePids) {
  EXPECT_THROW(ChildWatch(loop_, 0, [](int) {}), std::invalid_argument);
  const pid_t pid = spawn(0);
  ChildWatch watch(loop_, pid, [](int) {});
  EXPECT_THROW(ChildWatch(loop_, pid, [](int) {}), std::logic_error);
  ASSERT_TRUE(loop_.run_until([&] { return !watch.watching(); }, 5s));
  EXPECT_TRUE(reaped(pid));
}

TEST(EventLoopSigpipe, AnOwningLoopIgnoresSigpipe) {
  ::signal(SIGPIPE, SIG_DFL);
  EventLoop loop;
  struct sigaction now {};
  ASSERT_EQ(::sigaction(SIGPIPE, nullptr, &now), 0);
  EXPECT_EQ(now.sa_handler, SIG_IGN);
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  ::close(sv[1]);
  errno = 0;
  const char byte = 'x';
  EXPECT_EQ(::write(sv[0], &byte, 1), -1);  // and this process is still here
  EXPECT_EQ(errno, EPIPE);
  ::close(sv[0]);
}

TEST_F(EventLoopTest, ExceptionsFromCallbacksAreReportedAndTheLoopGoesOn) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
  Timer throwing_timer(loop_, [] { throw std::runtime_error("boom from a timer"); });
  IoWatch throwing_watch(loop_, sv[0], IoWatch::kRead, [&](short) {
    throwing_watch.disable();
    throw std::runtime_error("boom from a watch");
  });
  bool after = false;
  Timer later(loop_, [&] {
    loop_.defer([] { throw 42; });
    after = true;
  });
  throwing_watch.enable();
  throwing_timer.start(0ms);
  ASSERT_EQ(::write(sv[1], "x", 1), 1);
  later.start(20ms);
  ASSERT_TRUE(loop_.run_until([&] { return after && errors_.size() == 3; }, 2s));
  ASSERT_EQ(errors_.size(), 3u);
  auto has = [&](const std::string& needle) {
    for (const auto& e : errors_) {
      if (e.find(needle) != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(has("a timer callback: boom from a timer"));
  EXPECT_TRUE(has("an I/O watch callback (fd " + std::to_string(sv[0]) + "): boom from a watch"));
  EXPECT_TRUE(has("a deferred call (not a std::exception)"));
  // Still running.
  bool again = false;
  throwing_timer.start(0ms);
  Timer fine(loop_, [&] { again = true; });
  fine.start(5ms);
  EXPECT_TRUE(loop_.run_until([&] { return again; }, 2s));
  EXPECT_EQ(errors_.size(), 4u);
  ::close(sv[0]);
  ::close(sv[1]);
}

TEST(EventLoopErrors, TheDefaultHandlerWritesOneLineToStderr) {
  EventLoop loop;
  bool ran = false;
  Timer timer(loop, [&] {
    ran = true;
    throw std::runtime_error("unhandled");
  });
  timer.start(0ms);
  ::testing::internal::CaptureStderr();
  loop.run_until([&] { return ran; }, 2s);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "orca: an exception escaped a timer callback: unhandled\n");
}

TEST(EventLoopErrors, AThrowingHandlerFallsBackToStderr) {
  EventLoop loop;
  loop.set_error_handler([](const std::string&) { throw std::runtime_error("handler failed"); });
  bool ran = false;
  loop.defer([&] {
    ran = true;
    throw std::runtime_error("first");
  });
  ::testing::internal::CaptureStderr();
  loop.run_until([&] { return ran; }, 2s);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "orca: an exception escaped a deferred call: first\n");
}

// A watch libevent refuses (its descriptor closed under it) stays off and
// is reported, so that nobody waits for a readiness that cannot come; the
// same watch works once there is a descriptor to watch again.
TEST_F(EventLoopTest, AWatchOfAClosedDescriptorStaysOffAndIsReported) {
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  const int closed = fds[0];
  ::close(fds[0]);
  IoWatch watch(loop_, closed, IoWatch::kWrite, [](short) {});
  watch.enable();
  EXPECT_FALSE(watch.enabled());
  ASSERT_EQ(errors_.size(), 1u);
  EXPECT_NE(errors_[0].find("cannot watch descriptor " + std::to_string(closed)), std::string::npos) << errors_[0];
  EXPECT_NE(errors_[0].find("Bad file descriptor"), std::string::npos) << errors_[0];
  watch.disable();  // harmless on a watch that never started
  ::close(fds[1]);
}

TEST(IoWatchDeathTest, AWatchWhoseDescriptorWasClosedAndReusedStopsASanitizedBuild) {
#ifndef ORCA_UNIQUE_FD_CHECKS
  GTEST_SKIP() << "only sanitized builds check watched descriptors";
#else
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        EventLoop loop;
        int first[2];
        if (::pipe(first) != 0) std::abort();
        IoWatch watch(loop, first[0], IoWatch::kRead, [](short) {});
        watch.enable();
        ::close(first[0]);  // closed under the enabled watch...
        int second[2];
        if (::pipe(second) != 0 || second[0] != first[0]) std::abort();  // ...and its number reused
        watch.disable();
      },
      "an enabled IoWatch on descriptor [0-9]+ was disabled after that descriptor was closed and reused");
#endif
}

TEST(IoWatch, ClosingTheDescriptorJustBeforeDestroyingItsWatchIsAllowed) {
  EventLoop loop;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  {
    IoWatch watch(loop, fds[0], IoWatch::kRead, [](short) {});
    watch.enable();
    ::close(fds[0]);  // an owner whose descriptor member goes first
  }
  ::close(fds[1]);
}

}  // namespace
}  // namespace orca
