// DvmAdmission: a DVM's jobs, admitted to its slots in submission order.
#include "launch/dvm_admission.h"

#include <algorithm>

namespace orca::launch {

DvmAdmission::DvmAdmission(std::vector<unsigned> slots) : slots_(std::move(slots)), free_(slots_) {}

bool DvmAdmission::fits(const DvmJobRequest& r) const {
  if (r.oversubscribe) return true;
  for (std::size_t h = 0; h < r.slots.size(); ++h) {
    if (r.slots[h] > free(h)) return false;
  }
  return true;
}

void DvmAdmission::take(const DvmJobRequest& r) {
  std::vector<unsigned> taken(free_.size(), 0);
  for (std::size_t h = 0; h < r.slots.size() && h < free_.size(); ++h) {
    taken[h] = std::min(r.slots[h], free_[h]);  // oversubscribed: what is free
    free_[h] -= taken[h];
  }
  held_.emplace(r.id, std::move(taken));
}

Admission DvmAdmission::submit(const DvmJobRequest& request) {
  const bool known = held_.count(request.id) != 0 ||
                     std::any_of(queue_.begin(), queue_.end(), [&](const auto& q) { return q.id == request.id; });
  if (known) return Admission::Never;
  for (std::size_t h = 0; h < request.slots.size(); ++h) {
    if (request.slots[h] == 0) continue;
    // A host the DVM does not have, or more than a host has without sharing.
    if (h >= slots_.size() || (request.slots[h] > slots_[h] && !request.oversubscribe)) return Admission::Never;
  }
  if (queue_.empty() && fits(request)) {
    take(request);
    return Admission::Now;
  }
  if (!request.wait) return Admission::Busy;
  queue_.push_back(request);
  return Admission::Waiting;
}

std::vector<DvmJobId> DvmAdmission::release(DvmJobId id) {
  if (auto it = held_.find(id); it != held_.end()) {
    for (std::size_t h = 0; h < it->second.size(); ++h) free_[h] += it->second[h];
    held_.erase(it);
  } else {
    // A waiting job whose client left: the jobs behind it may fit now.
    auto q = std::find_if(queue_.begin(), queue_.end(), [&](const auto& r) { return r.id == id; });
    if (q == queue_.end()) return {};
    queue_.erase(q);
  }
  std::vector<DvmJobId> admitted;
  while (!queue_.empty() && fits(queue_.front())) {
    take(queue_.front());
    admitted.push_back(queue_.front().id);
    queue_.pop_front();
  }
  return admitted;
}

}  // namespace orca::launch
