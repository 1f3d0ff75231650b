// FenceRoot: the last merge of every collective, and its record.
#include "fence_root.h"

#include <algorithm>

namespace orca::pmi {

FenceRoot::FenceRoot(const routed::RoutingTree& tree, const std::vector<std::uint32_t>& ranks_at, DataBound bound,
                     std::vector<std::string> hosts)
    : bound_(bound), hosts_(std::move(hosts)) {
  for (std::uint32_t c : tree.children(0)) {
    std::uint32_t below = 0;
    for (std::uint32_t v : tree.subtree(c)) below += v < ranks_at.size() ? ranks_at[v] : 0;
    if (below > 0) contributors_.push_back(c);
    if (below > 0 && below > (c < ranks_at.size() ? ranks_at[c] : 0)) relays_.push_back(c);
  }
  for (std::uint32_t v = 1; v < ranks_at.size(); ++v) {
    if (ranks_at[v] == 0) continue;
    std::uint32_t hops = 1;
    for (std::uint32_t p = tree.parent(v); p != 0; p = tree.parent(p)) ++hops;
    depth_ = std::max(depth_, hops);
  }
}

Result<std::optional<launch::FenceRelease>> FenceRoot::add(std::uint32_t from, const launch::FenceData& part,
                                                           Clock::time_point now) {
  if (part.from != from || std::find(contributors_.begin(), contributors_.end(), from) == contributors_.end()) {
    return Message("pmi", "fence-stranger", {{"vpid", std::to_string(from)}});
  }
  auto it = collectives_.find(part.component);
  if (it == collectives_.end()) {
    FenceCollective::Budget budget{.component = part.component, .bound = bound_, .source = [this](std::uint32_t v) {
      return part_source(v < hosts_.size() ? hosts_[v] : "vpid " + std::to_string(v),
                              std::find(relays_.begin(), relays_.end(), v) != relays_.end());
    }};
    it = collectives_.emplace(part.component,
                              FenceCollective(static_cast<std::uint32_t>(contributors_.size()), std::move(budget)))
             .first;
  }
  const auto key = std::make_pair(part.component, part.epoch);
  first_part_.emplace(key, now);
  Kvs entries;
  for (const auto& kv : part.entries) entries.emplace(kv.key, kv.value);
  auto done = it->second.add(part.epoch, from, std::move(entries));
  if (!done) return done.error();
  if (!done.value()) return std::optional<launch::FenceRelease>();
  launch::FenceRelease release{.component = part.component, .epoch = part.epoch, .entries = {}};
  Record r{.component = part.component, .epoch = part.epoch, .first_part = first_part_[key], .complete = now};
  first_part_.erase(key);
  release.entries.reserve(done.value()->merged.size());
  for (auto& [k, v] : done.value()->merged) {
    r.bytes += k.size() + v.size();
    release.entries.push_back({k, std::move(v)});
  }
  r.keys = release.entries.size();
  // Within the bound: add() refused any part that would go past it.
  (void)it->second.hold({.keys = r.keys, .bytes = r.bytes}, "a release");
  ++completed_;
  if (records_.size() < kMaxRecords) records_.push_back(std::move(r));
  return std::optional<launch::FenceRelease>(std::move(release));
}

}  // namespace orca::pmi
