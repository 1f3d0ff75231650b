// NodeKvs: the job's KVS on this node, its barriers, and the bound.
#include "node_kvs.h"

#include <utility>

namespace orca::pmi {

NodeKvs::NodeKvs(std::uint32_t ranks, DataBound bound) : ranks_(ranks), bound_(bound) {}

NodeKvs::Entered NodeKvs::enter(std::uint64_t epoch, std::uint32_t rank, Kvs puts) {
  auto [it, opened] = barriers_.try_emplace(epoch);
  Barrier& barrier = it->second;
  // Only keys new to the job count, and only they go on.
  std::erase_if(puts, [this](const auto& kv) { return kvs_->contains(kv.first); });
  DataSize added;
  for (const auto& [key, value] : puts) {
    if (!barrier.puts.contains(key)) added.add(key, value);
  }
  const DataSize total = size_ + open_ + added;
  if (auto which = bound_.exceeded_by(total)) {
    if (opened) barriers_.erase(it);
    return OverBound{.rank = rank, .which = *which, .total = *which == ORCA_PMI_BOUND_KEYS ? total.keys : total.bytes};
  }
  ++barrier.in;
  barrier.puts.merge(puts);
  barrier.size = barrier.size + added;
  open_ = open_ + added;
  if (auto part = complete(it)) return std::move(*part);
  return Waiting{};
}

std::optional<NodeKvs::Part> NodeKvs::complete(std::map<std::uint64_t, Barrier>::iterator it) {
  if (it->second.in < ranks_) return std::nullopt;
  Part part{.epoch = it->first, .puts = std::move(it->second.puts)};
  open_ = {.keys = open_.keys - it->second.size.keys, .bytes = open_.bytes - it->second.size.bytes};
  barriers_.erase(it);
  return part;
}

std::vector<NodeKvs::Part> NodeKvs::leave() {
  if (ranks_ > 0) --ranks_;
  // Barriers the other ranks entered already no longer wait for it.
  std::vector<Part> parts;
  for (auto it = barriers_.begin(); it != barriers_.end();) {
    auto next = std::next(it);
    if (auto part = complete(it)) parts.push_back(std::move(*part));
    it = next;
  }
  return parts;
}

void NodeKvs::release(Kvs entries) {
  const DataSize before = DataSize::of(entries);
  // What stays in `entries` was there already (the first value stays).
  kvs_->merge(entries);
  const DataSize kept = DataSize::of(entries);
  size_ = size_ + DataSize{.keys = before.keys - kept.keys, .bytes = before.bytes - kept.bytes};
}

}  // namespace orca::pmi
