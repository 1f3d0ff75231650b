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

// Whether the job could ever run: every host it asks of is there and has
// that many slots in all (or it shares).
bool DvmAdmission::possible(const DvmJobRequest& r) const {
  for (std::size_t h = 0; h < r.slots.size(); ++h) {
    if (r.slots[h] == 0) continue;
    if (h >= slots_.size() || slots_[h] == 0 || (r.slots[h] > slots_[h] && !r.oversubscribe)) return false;
  }
  return true;
}

Admission DvmAdmission::submit(const DvmJobRequest& request) {
  const bool known = held_.count(request.id) != 0 ||
                     std::any_of(queue_.begin(), queue_.end(), [&](const auto& q) { return q.id == request.id; });
  if (known || !possible(request)) return Admission::Never;
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
    for (std::size_t h = 0; h < it->second.size(); ++h) {
      if (slots_[h] != 0) free_[h] += it->second[h];  // a host gone keeps none
    }
    held_.erase(it);
  } else {
    // A waiting job whose client left: the jobs behind it may fit now.
    auto q = std::find_if(queue_.begin(), queue_.end(), [&](const auto& r) { return r.id == id; });
    if (q == queue_.end()) return {};
    queue_.erase(q);
  }
  return admit_waiting();
}

std::vector<DvmJobId> DvmAdmission::admit_waiting() {
  std::vector<DvmJobId> admitted;
  while (!queue_.empty() && fits(queue_.front())) {
    take(queue_.front());
    admitted.push_back(queue_.front().id);
    queue_.pop_front();
  }
  return admitted;
}

DvmAdmission::HostGone DvmAdmission::remove_host(std::size_t h) {
  HostGone out;
  if (h >= slots_.size()) return out;
  slots_[h] = 0;
  free_[h] = 0;
  std::deque<DvmJobRequest> kept;
  for (auto& r : queue_) {
    if (possible(r)) {
      kept.push_back(std::move(r));
    } else {
      out.never.push_back(r.id);
    }
  }
  queue_.swap(kept);
  out.admitted = admit_waiting();
  return out;
}

}  // namespace orca::launch
