// LogThrottle: one line per period, and a count of the rest.
#include <orca/log_throttle.h>

namespace orca {

std::optional<std::uint64_t> LogThrottle::occurred(Clock::time_point now) {
  ++total_;
  if (last_ && now - *last_ < period_) {
    ++unlogged_;
    return std::nullopt;
  }
  last_ = now;
  const std::uint64_t skipped = unlogged_;
  unlogged_ = 0;
  return skipped;
}

std::string LogThrottle::since(std::uint64_t unlogged) {
  return unlogged == 0 ? std::string() : " (" + std::to_string(unlogged) + " more since the last such line)";
}

}  // namespace orca
