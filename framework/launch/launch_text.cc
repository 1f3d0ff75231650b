// Text helpers of the launch parsers.
#include "launch/launch_text.h"

#include <orca/host_list.h>

namespace orca::launch {

std::string excerpt(std::string_view text) {
  constexpr std::size_t kShown = 60;
  return text.size() <= kShown ? std::string(text) : std::string(text.substr(0, kShown)) + "...";
}

std::optional<std::uint64_t> parse_whole_number(std::string_view text, std::uint64_t min, std::uint64_t max) {
  if (text.empty()) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    // Stop before the value can overflow: anything above max is refused
    // (the number so far, times ten, plus this digit).
    if (digit > max || value > (max - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  if (value < min || value > max) return std::nullopt;
  return value;
}

std::string valid_slots_text() {
  return "a whole number from 1 to " + std::to_string(kMaxSlotsPerHost);
}

}  // namespace orca::launch
