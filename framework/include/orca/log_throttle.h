/*
 * LogThrottle: at most one log line per period about an event that may
 * recur without end (refused connections during a flood, say), counting
 * the occurrences it kept out of the log so that the next line can say
 * how many there were. Pure: the caller passes the time (the steady clock,
 * or a test's fake one); not thread-safe (one per event loop).
 */
#ifndef ORCA_LOG_THROTTLE_H
#define ORCA_LOG_THROTTLE_H

#include <orca/export.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace orca {

class ORCA_EXPORT LogThrottle {
 public:
  using Clock = std::chrono::steady_clock;

  explicit LogThrottle(std::chrono::milliseconds period = std::chrono::seconds(1)) : period_(period) {}

  /* One occurrence at `now`. An empty result: do not log it (it is
   * counted). Otherwise log it now, with the number of occurrences not
   * logged since the previous line (see since()). The first occurrence is
   * always logged. */
  std::optional<std::uint64_t> occurred(Clock::time_point now);

  /* Occurrences not logged since the last line (for a last word when the
   * source of the events goes away). */
  std::uint64_t unlogged() const noexcept { return unlogged_; }
  /* Every occurrence so far, logged or not. */
  std::uint64_t total() const noexcept { return total_; }

  /* " (N more since the last such line)", or "" when N is 0: the suffix
   * for a line that occurred() let through. */
  static std::string since(std::uint64_t unlogged);

 private:
  std::chrono::milliseconds period_;
  std::optional<Clock::time_point> last_;
  std::uint64_t unlogged_ = 0;
  std::uint64_t total_ = 0;
};

}  // namespace orca

#endif  // ORCA_LOG_THROTTLE_H
