// LogThrottle with a fake clock: one line per period, the rest counted and
// reported by the next line.
#include <orca/log_throttle.h>

#include <gtest/gtest.h>

#include <chrono>

namespace orca {
namespace {

using namespace std::chrono_literals;

TEST(LogThrottle, OneLineASecondAndTheNextCountsWhatWasNotLogged) {
  LogThrottle t;
  const auto t0 = LogThrottle::Clock::time_point{} + 100s;
  ASSERT_EQ(t.occurred(t0), std::optional<std::uint64_t>(0)) << "the first is always logged";
  for (int i = 1; i <= 999; ++i) EXPECT_FALSE(t.occurred(t0 + i * 1ms).has_value()) << i;
  EXPECT_EQ(t.unlogged(), 999u);
  EXPECT_EQ(t.occurred(t0 + 1000ms), std::optional<std::uint64_t>(999));
  EXPECT_EQ(t.unlogged(), 0u);
  // Quiet for a while: the next one is logged at once, with nothing to add.
  EXPECT_EQ(t.occurred(t0 + 60s), std::optional<std::uint64_t>(0));
  EXPECT_EQ(t.total(), 1002u);
}

TEST(LogThrottle, ARunOfEventsGivesAtMostOneLinePerPeriod) {
  LogThrottle t(250ms);
  const auto t0 = LogThrottle::Clock::time_point{} + 1s;
  int lines = 0;
  std::uint64_t counted = 0;
  for (int i = 0; i < 100000; ++i) {  // 100,000 over 10 s
    if (auto n = t.occurred(t0 + i * 100us)) {
      ++lines;
      counted += 1 + *n;
    }
  }
  EXPECT_LE(lines, 41);
  EXPECT_GE(lines, 40);
  EXPECT_EQ(counted + t.unlogged(), 100000u) << "every event is logged or counted";
}

TEST(LogThrottle, TheSuffixSaysHowManyMore) {
  EXPECT_EQ(LogThrottle::since(0), "");
  EXPECT_EQ(LogThrottle::since(17), " (17 more since the last such line)");
}

}  // namespace
}  // namespace orca
