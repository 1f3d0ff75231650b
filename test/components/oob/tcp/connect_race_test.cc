// ConnectRace (RFC 8305 over ranked candidates) with a fake timer and a
// simulated clock: the test records every hook call and fires the timer
// itself, so the order of attempts is exact.
#include "oob/tcp/connect_race.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace orca::oob::tcp {
namespace {

using std::chrono::milliseconds;
using namespace std::chrono_literals;
using Outcome = ConnectRace::Outcome;

// One race plus the world it talks to: a simulated clock, a one-shot
// timer that the race arms and cancels, and a log of every hook call.
class Harness {
 public:
  explicit Harness(size_t candidates, milliseconds stagger = 250ms)
      : race(candidates, stagger,
             ConnectRace::Hooks{
                 [this](size_t c) {
                   log.push_back("start " + std::to_string(c));
                   start_times.push_back(now);
                   if (on_start) on_start(c);
                 },
                 [this](size_t c) {
                   log.push_back("cancel " + std::to_string(c));
                   cancelled.push_back(c);
                   if (on_cancel) on_cancel(c);
                 },
                 [this](milliseconds d) {
                   log.push_back("arm " + std::to_string(d.count()));
                   deadline = now + d;
                 },
                 [this]() {
                   log.push_back("disarm");
                   deadline.reset();
                 }}) {}

  // Moves the clock forward by `d`, firing the timer whenever it is due.
  void advance(milliseconds d) {
    const milliseconds target = now + d;
    while (deadline && *deadline <= target) {
      now = *deadline;
      deadline.reset();
      race.on_timer();
    }
    now = target;
  }

  // Hook behaviour the test adds (synchronous failures, re-entry).
  std::function<void(size_t)> on_start;
  std::function<void(size_t)> on_cancel;

  milliseconds now{0};
  std::optional<milliseconds> deadline;
  std::vector<std::string> log;
  std::vector<milliseconds> start_times;
  std::vector<size_t> cancelled;
  ConnectRace race;
};

using Log = std::vector<std::string>;
using Order = std::vector<size_t>;

TEST(ConnectRace, StartBeginsCandidateZeroAndArmsTheStagger) {
  Harness h(3);
  h.race.start();
  EXPECT_EQ(h.log, (Log{"arm 250", "start 0"}));
  EXPECT_EQ(h.race.started(), Order{0});
  EXPECT_EQ(h.race.outcome(0), Outcome::InFlight);
  EXPECT_EQ(h.race.outcome(1), Outcome::NotTried);
  EXPECT_EQ(h.race.outcome(2), Outcome::NotTried);
  EXPECT_FALSE(h.race.finished());
  EXPECT_FALSE(h.race.winner().has_value());
  ASSERT_TRUE(h.deadline.has_value());
  EXPECT_EQ(*h.deadline, 250ms);
}

TEST(ConnectRace, EachTimerStartsTheNextAndTheLastArmsNothing) {
  Harness h(3, 100ms);
  h.race.start();
  h.race.on_timer();
  EXPECT_EQ(h.race.started(), (Order{0, 1}));
  EXPECT_EQ(h.race.outcome(1), Outcome::InFlight);
  h.race.on_timer();
  EXPECT_EQ(h.race.started(), (Order{0, 1, 2}));
  EXPECT_EQ(h.log, (Log{"arm 100", "start 0", "arm 100", "start 1", "start 2"}));
  // Nothing left: a stray timer does nothing.
  h.race.on_timer();
  EXPECT_EQ(h.log.size(), 5u);
  EXPECT_EQ(h.race.started(), (Order{0, 1, 2}));
  EXPECT_FALSE(h.race.finished());
}

TEST(ConnectRace, SingleCandidateArmsNoTimer) {
  Harness h(1);
  h.race.start();
  EXPECT_EQ(h.log, Log{"start 0"});
  h.race.on_succeeded(0);
  EXPECT_TRUE(h.race.finished());
  EXPECT_EQ(h.race.winner(), 0u);
  EXPECT_TRUE(h.cancelled.empty());
  EXPECT_EQ(h.race.outcome(0), Outcome::Won);
}

TEST(ConnectRace, AFailureStartsTheNextAtOnceAndReArmsTheTimer) {
  Harness h(3);
  h.race.start();
  h.advance(100ms);
  h.race.on_failed(0, "connection refused");
  EXPECT_EQ(h.log, (Log{"arm 250", "start 0", "disarm", "arm 250", "start 1"}));
  EXPECT_EQ(h.race.outcome(0), Outcome::Failed);
  EXPECT_EQ(h.race.detail(0), "connection refused");
  EXPECT_EQ(h.race.outcome(1), Outcome::InFlight);
  // The stagger counts from the failure, not from the first start.
  ASSERT_TRUE(h.deadline.has_value());
  EXPECT_EQ(*h.deadline, 350ms);
  h.advance(249ms);  // t = 349
  EXPECT_EQ(h.race.started(), (Order{0, 1}));
  h.advance(1ms);  // t = 350
  EXPECT_EQ(h.race.started(), (Order{0, 1, 2}));
  EXPECT_EQ(h.start_times, (std::vector<milliseconds>{0ms, 100ms, 350ms}));
}

TEST(ConnectRace, AFailureWhenEverythingStartedDoesNotTouchTheTimer) {
  Harness h(2);
  h.race.start();
  h.race.on_timer();  // 0 and 1 in flight, nothing left to start
  const size_t before = h.log.size();
  h.race.on_failed(1, "no route");
  EXPECT_EQ(h.log.size(), before);  // 0 still in flight: no start, no timer call
  EXPECT_FALSE(h.race.finished());
  EXPECT_EQ(h.race.outcome(1), Outcome::Failed);
  h.race.on_succeeded(0);
  EXPECT_TRUE(h.race.finished());
  EXPECT_EQ(h.race.winner(), 0u);
  EXPECT_TRUE(h.cancelled.empty());  // the failed one is not cancelled
}

TEST(ConnectRace, FirstSuccessWinsAndCancelsExactlyTheOthersInFlight) {
  Harness h(5);
  h.race.start();
  h.race.on_timer();
  h.race.on_timer();
  h.race.on_timer();  // 0..3 in flight
  h.race.on_failed(2, "refused");  // starts 4 at once
  ASSERT_EQ(h.race.started(), (Order{0, 1, 2, 3, 4}));
  h.race.on_failed(4, "refused");
  // In flight: 0, 1, 3. Failed: 2, 4.
  h.race.on_succeeded(1);
  EXPECT_TRUE(h.race.finished());
  EXPECT_EQ(h.race.winner(), 1u);
  EXPECT_EQ(h.cancelled, (Order{0, 3}));
  EXPECT_EQ(h.race.outcome(0), Outcome::Cancelled);
  EXPECT_EQ(h.race.outcome(1), Outcome::Won);
  EXPECT_EQ(h.race.outcome(2), Outcome::Failed);
  EXPECT_EQ(h.race.outcome(3), Outcome::Cancelled);
  EXPECT_EQ(h.race.outcome(4), Outcome::Failed);
  EXPECT_EQ(h.race.detail(0), "cancelled: another address won");
  EXPECT_EQ(h.race.detail(3), "cancelled: another address won");
  EXPECT_EQ(h.race.detail(2), "refused");
  EXPECT_FALSE(h.deadline.has_value());
}

TEST(ConnectRace, NotTriedCandidatesAreNotCancelledOnAWin) {
  Harness h(4);
  h.race.start();
  h.race.on_timer();  // 0, 1 in flight; 2, 3 not tried
  h.race.on_succeeded(0);
  EXPECT_EQ(h.cancelled, Order{1});
  EXPECT_EQ(h.race.outcome(2), Outcome::NotTried);
  EXPECT_EQ(h.race.outcome(3), Outcome::NotTried);
  EXPECT_EQ(h.race.detail(2), "");
  EXPECT_FALSE(h.deadline.has_value());
  // The timer was cancelled, but even a late firing starts nothing.
  h.race.on_timer();
  EXPECT_EQ(h.race.started(), (Order{0, 1}));
}

TEST(ConnectRace, AfterTheWinEverythingElseIsIgnored) {
  Harness h(3);
  h.race.start();
  h.race.on_timer();
  h.race.on_timer();
  h.race.on_succeeded(2);
  const Log after_win = h.log;
  h.race.on_succeeded(0);
  h.race.on_succeeded(1);
  h.race.on_failed(0, "late");
  h.race.on_failed(2, "late");
  h.race.on_timer();
  h.race.abort("deadline");
  EXPECT_EQ(h.log, after_win);
  EXPECT_EQ(h.race.winner(), 2u);
  EXPECT_EQ(h.race.outcome(0), Outcome::Cancelled);
  EXPECT_EQ(h.race.outcome(1), Outcome::Cancelled);
  EXPECT_EQ(h.race.outcome(2), Outcome::Won);
  EXPECT_EQ(h.race.detail(0), "cancelled: another address won");
}

TEST(ConnectRace, ReportsForCandidatesNotInFlightAreIgnored) {
  Harness h(3);
  h.race.start();
  h.race.on_succeeded(2);  // never started
  h.race.on_failed(1, "x");  // never started
  EXPECT_FALSE(h.race.finished());
  EXPECT_EQ(h.race.outcome(1), Outcome::NotTried);
  EXPECT_EQ(h.race.outcome(2), Outcome::NotTried);
  EXPECT_EQ(h.race.started(), Order{0});
  h.race.on_failed(0, "first");
  h.race.on_failed(0, "second");  // already failed
  EXPECT_EQ(h.race.detail(0), "first");
  EXPECT_EQ(h.race.started(), (Order{0, 1}));
  EXPECT_THROW(h.race.on_failed(3, "out of range"), std::out_of_range);
}

TEST(ConnectRace, AllFailedFinishesWithoutAWinner) {
  Harness h(3);
  h.race.start();
  h.race.on_failed(0, "refused");
  h.race.on_failed(1, "unreachable");
  EXPECT_FALSE(h.race.finished());
  h.race.on_failed(2, "timed out");
  EXPECT_TRUE(h.race.finished());
  EXPECT_FALSE(h.race.winner().has_value());
  EXPECT_EQ(h.race.started(), (Order{0, 1, 2}));
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(h.race.outcome(i), Outcome::Failed) << i;
  EXPECT_EQ(h.race.detail(0), "refused");
  EXPECT_EQ(h.race.detail(1), "unreachable");
  EXPECT_EQ(h.race.detail(2), "timed out");
  EXPECT_TRUE(h.cancelled.empty());
  EXPECT_FALSE(h.deadline.has_value());
  EXPECT_EQ(h.log.back(), "disarm");
}

TEST(ConnectRace, SynchronousFailuresRecurseInRankOrder) {
  Harness h(4);
  h.on_start = [&](size_t c) {
    if (c < 2) h.race.on_failed(c, "sync " + std::to_string(c));
  };
  h.race.start();
  EXPECT_EQ(h.race.started(), (Order{0, 1, 2}));
  EXPECT_EQ(h.race.outcome(0), Outcome::Failed);
  EXPECT_EQ(h.race.outcome(1), Outcome::Failed);
  EXPECT_EQ(h.race.outcome(2), Outcome::InFlight);
  EXPECT_EQ(h.race.outcome(3), Outcome::NotTried);
  EXPECT_EQ(h.race.detail(1), "sync 1");
  EXPECT_EQ(h.log, (Log{"arm 250", "start 0", "disarm", "arm 250", "start 1", "disarm", "arm 250", "start 2"}));
  // The timer is armed exactly once, for the stagger after candidate 2.
  ASSERT_TRUE(h.deadline.has_value());
  EXPECT_EQ(*h.deadline, 250ms);
  EXPECT_EQ(h.start_times, (std::vector<milliseconds>{0ms, 0ms, 0ms}));
  h.advance(250ms);
  EXPECT_EQ(h.race.started(), (Order{0, 1, 2, 3}));
  EXPECT_FALSE(h.deadline.has_value());
}

TEST(ConnectRace, AllSynchronousFailuresFinishTheRace) {
  Harness h(3);
  h.on_start = [&](size_t c) { h.race.on_failed(c, "EADDRNOTAVAIL"); };
  h.race.start();
  EXPECT_TRUE(h.race.finished());
  EXPECT_FALSE(h.race.winner().has_value());
  EXPECT_EQ(h.race.started(), (Order{0, 1, 2}));
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(h.race.outcome(i), Outcome::Failed) << i;
  EXPECT_FALSE(h.deadline.has_value());  // no stale timer left behind
}

TEST(ConnectRace, SynchronousSuccessLeavesNoTimer) {
  Harness h(3);
  h.on_start = [&](size_t c) { h.race.on_succeeded(c); };
  h.race.start();
  EXPECT_TRUE(h.race.finished());
  EXPECT_EQ(h.race.winner(), 0u);
  EXPECT_EQ(h.race.started(), Order{0});
  EXPECT_FALSE(h.deadline.has_value());
}

TEST(ConnectRace, ACancelHookThatReportsFailureIsIgnored) {
  Harness h(3);
  h.on_cancel = [&](size_t c) { h.race.on_failed(c, "closed"); };
  h.race.start();
  h.race.on_timer();
  h.race.on_timer();
  h.race.on_succeeded(1);
  EXPECT_EQ(h.cancelled, (Order{0, 2}));
  EXPECT_EQ(h.race.outcome(0), Outcome::Cancelled);
  EXPECT_EQ(h.race.outcome(2), Outcome::Cancelled);
  EXPECT_EQ(h.race.detail(0), "cancelled: another address won");
}

TEST(ConnectRace, AbortFailsInFlightAndMarksTheRestNotTried) {
  Harness h(4);
  h.race.start();
  h.race.on_timer();                // 0, 1 in flight
  h.race.on_failed(1, "refused");   // starts 2 at once
  h.race.abort("the connect timeout passed");
  EXPECT_TRUE(h.race.finished());
  EXPECT_FALSE(h.race.winner().has_value());
  EXPECT_EQ(h.cancelled, (Order{0, 2}));
  EXPECT_EQ(h.race.outcome(0), Outcome::Failed);
  EXPECT_EQ(h.race.detail(0), "the connect timeout passed");
  EXPECT_EQ(h.race.outcome(1), Outcome::Failed);
  EXPECT_EQ(h.race.detail(1), "refused");
  EXPECT_EQ(h.race.outcome(2), Outcome::Failed);
  EXPECT_EQ(h.race.detail(2), "the connect timeout passed");
  EXPECT_EQ(h.race.outcome(3), Outcome::NotTried);
  EXPECT_EQ(h.race.detail(3), "not tried: the connect timeout passed");
  EXPECT_FALSE(h.deadline.has_value());
  // Nothing after the abort changes anything.
  const Log after_abort = h.log;
  h.race.on_succeeded(0);
  h.race.on_timer();
  h.race.abort("again");
  EXPECT_EQ(h.log, after_abort);
  EXPECT_FALSE(h.race.winner().has_value());
  EXPECT_EQ(h.race.detail(3), "not tried: the connect timeout passed");
}

TEST(ConnectRace, AbortBeforeStartMarksEverythingNotTried) {
  Harness h(2);
  h.race.abort("stopped");
  EXPECT_TRUE(h.race.finished());
  EXPECT_EQ(h.race.detail(0), "not tried: stopped");
  EXPECT_EQ(h.race.detail(1), "not tried: stopped");
  EXPECT_TRUE(h.cancelled.empty());
  h.race.start();
  EXPECT_TRUE(h.race.started().empty());
}

TEST(ConnectRace, ZeroCandidatesFinishAtOnce) {
  Harness h(0);
  h.race.start();
  EXPECT_TRUE(h.race.finished());
  EXPECT_FALSE(h.race.winner().has_value());
  EXPECT_TRUE(h.race.started().empty());
  EXPECT_TRUE(h.log.empty());
  EXPECT_FALSE(h.deadline.has_value());
}

TEST(ConnectRace, BlackHoledFirstCandidateLosesToTheSecond) {
  Harness h(2);
  h.race.start();        // t = 0: candidate 0, which never answers
  h.advance(250ms);      // t = 250: the stagger starts candidate 1
  EXPECT_EQ(h.race.started(), (Order{0, 1}));
  h.advance(30ms);
  h.race.on_succeeded(1);  // t = 280
  EXPECT_TRUE(h.race.finished());
  EXPECT_EQ(h.race.winner(), 1u);
  EXPECT_EQ(h.race.started(), (Order{0, 1}));
  EXPECT_EQ(h.start_times, (std::vector<milliseconds>{0ms, 250ms}));
  EXPECT_EQ(h.cancelled, Order{0});
  EXPECT_EQ(h.race.outcome(0), Outcome::Cancelled);
  EXPECT_EQ(h.race.outcome(1), Outcome::Won);
}

TEST(ConnectRace, NothingAnswersAttemptsStartEveryStagger) {
  Harness h(3);
  h.race.start();
  h.advance(10000ms);
  EXPECT_EQ(h.race.started(), (Order{0, 1, 2}));
  EXPECT_EQ(h.start_times, (std::vector<milliseconds>{0ms, 250ms, 500ms}));
  EXPECT_FALSE(h.deadline.has_value());  // the last start arms nothing
  EXPECT_FALSE(h.race.finished());       // the deadline is the caller's (abort)
}

TEST(ConnectRace, ZeroStaggerStillGoesInRankOrder) {
  Harness h(3, 0ms);
  h.race.start();
  h.advance(0ms);
  EXPECT_EQ(h.race.started(), (Order{0, 1, 2}));
  EXPECT_EQ(h.start_times, (std::vector<milliseconds>{0ms, 0ms, 0ms}));
}

}  // namespace
}  // namespace orca::oob::tcp
