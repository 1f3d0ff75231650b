// FenceCollective: counting one epoch's parts, merging them, and holding
// what they add up to against the job's bound.
#include <orca/pmi.h>

#include <algorithm>

namespace orca::pmi {

FenceCollective::FenceCollective(std::uint32_t contributors, Budget budget)
    : contributors_(contributors), budget_(std::move(budget)) {}

Result<std::optional<FenceCollective::Complete>> FenceCollective::add(std::uint64_t epoch, std::uint32_t contributor,
                                                                      Kvs entries) {
  if (epoch < completed_) {
    return Message("pmi", "fence-repeated", {{"epoch", std::to_string(epoch)}, {"from", std::to_string(contributor)},
                                             {"why", "that collective is already complete"}});
  }
  auto [it, opened] = open_.try_emplace(epoch);
  Open& open = it->second;
  if (std::find(open.from.begin(), open.from.end(), contributor) != open.from.end()) {
    return Message("pmi", "fence-repeated", {{"epoch", std::to_string(epoch)}, {"from", std::to_string(contributor)},
                                             {"why", "it already sent its part of it"}});
  }
  // Only the keys new to the epoch add to it: the first value of a key
  // stays, so the merge is the same whatever the order.
  DataSize added;
  for (const auto& [key, value] : entries) {
    if (!open.merged.contains(key)) added.add(key, value);
  }
  const DataSize total = held_ + merging_ + added;
  if (auto which = budget_.bound.exceeded_by(total)) {
    if (opened) open_.erase(it);
    return over_bound(budget_.component,
                      budget_.source ? budget_.source(contributor) : "part " + std::to_string(contributor), *which,
                      budget_.bound, total);
  }
  open.from.push_back(contributor);
  open.merged.merge(entries);
  open.size = open.size + added;
  merging_ = merging_ + added;
  if (open.from.size() < contributors_) return std::optional<Complete>();
  Complete done{.epoch = epoch, .merged = std::move(open.merged)};
  merging_ = {merging_.keys - open.size.keys, merging_.bytes - open.size.bytes};
  open_.erase(it);
  // Epochs complete in order at every process: each part of epoch e+1
  // comes from a contributor that had epoch e released.
  completed_ = std::max(completed_, epoch + 1);
  return std::optional<Complete>(std::move(done));
}

Status FenceCollective::hold(DataSize size, std::string_view source) {
  held_ = held_ + size;
  if (auto which = budget_.bound.exceeded_by(held_ + merging_)) {
    return over_bound(budget_.component, source, *which, budget_.bound, held_ + merging_);
  }
  return {};
}

}  // namespace orca::pmi
