// FenceCollective: counting one epoch's parts and merging them.
#include <orca/pmi.h>

#include <algorithm>

namespace orca::pmi {

Result<std::optional<FenceCollective::Complete>> FenceCollective::add(std::uint64_t epoch, std::uint32_t contributor,
                                                                      Kvs entries) {
  if (epoch < completed_) {
    return Message("pmi", "fence-repeated", {{"epoch", std::to_string(epoch)}, {"from", std::to_string(contributor)},
                                             {"why", "that collective is already complete"}});
  }
  Open& open = open_[epoch];
  if (std::find(open.from.begin(), open.from.end(), contributor) != open.from.end()) {
    return Message("pmi", "fence-repeated", {{"epoch", std::to_string(epoch)}, {"from", std::to_string(contributor)},
                                             {"why", "it already sent its part of it"}});
  }
  open.from.push_back(contributor);
  // The first value of a key stays: the merge is the same whatever the order.
  open.merged.merge(entries);
  if (open.from.size() < contributors_) return std::optional<Complete>();
  Complete done{.epoch = epoch, .merged = std::move(open.merged)};
  open_.erase(epoch);
  // Epochs complete in order at every process: each part of epoch e+1
  // comes from a contributor that had epoch e released.
  completed_ = std::max(completed_, epoch + 1);
  return std::optional<Complete>(std::move(done));
}

}  // namespace orca::pmi
