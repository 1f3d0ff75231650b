// Output flow control: the window each daemon computes and the credits
// orcarun owes (iof_flow.h).
#include "iof_flow.h"

#include <algorithm>

namespace orca::iof {

std::uint64_t output_window(std::uint64_t budget, std::uint32_t daemons) noexcept {
  const std::uint64_t share = budget / std::max<std::uint32_t>(daemons, 1);
  return std::clamp(share, kMinWindow, kMaxWindow);
}

std::optional<std::uint64_t> CreditLedger::written(std::uint32_t daemon, std::uint64_t bytes) {
  if (bytes == 0) return std::nullopt;
  std::uint64_t& owed = owed_[daemon];
  owed += bytes;
  if (owed < threshold_) return std::nullopt;
  const std::uint64_t credit = owed;
  owed_.erase(daemon);
  return credit;
}

std::uint64_t CreditLedger::owed(std::uint32_t daemon) const {
  auto it = owed_.find(daemon);
  return it == owed_.end() ? 0 : it->second;
}

}  // namespace orca::iof
