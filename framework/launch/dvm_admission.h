/*
 * DvmAdmission: which jobs a persistent DVM (orcadvm) runs now, and which
 * wait for slots, in submission order. No scheduler beyond that: a job
 * never overtakes one submitted before it, even one that needs more.
 *
 * A job asks for a number of slots on each of the DVM's hosts (its map,
 * made against the hosts' slots as for a standalone run). It is admitted
 * when every host has that many free and no job is waiting before it;
 * otherwise it waits, or, when its client asked not to wait, is refused
 * at once. A job that needs more than a host has in all can never run
 * and is refused whatever the client asked. An oversubscribed job takes
 * what is free on its hosts and runs: it asked to share.
 *
 * Pure: no I/O, no clock. The DVM's controller feeds it submissions,
 * job ends and clients that leave, and starts the jobs it admits.
 */
#ifndef ORCA_LAUNCH_DVM_ADMISSION_H
#define ORCA_LAUNCH_DVM_ADMISSION_H

#include <orca/export.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <vector>

namespace orca::launch {

using DvmJobId = std::uint64_t;

struct ORCA_EXPORT DvmJobRequest {
  DvmJobId id = 0;
  std::vector<unsigned> slots;  // per host of the DVM, in its order; shorter: 0 on the rest
  bool wait = true;             // false: refused at once when it cannot start now
  bool oversubscribe = false;   // takes what is free and runs with no more
};

enum class Admission {
  Now,      // admitted: start it
  Waiting,  // queued behind running or earlier jobs
  Busy,     // refused at once: it did not ask to wait
  Never,    // refused: more than a host has in all
};

class ORCA_EXPORT DvmAdmission {
 public:
  /* The DVM's hosts' slots, in its order. */
  explicit DvmAdmission(std::vector<unsigned> slots);

  /* A new job. An id already running or waiting is refused (Never). */
  Admission submit(const DvmJobRequest& request);
  /* Job `id` ended (or its waiting client left): its slots are free, and
   * the waiting jobs that now fit, in order, are admitted and returned
   * (the first that does not fit stops the rest). Unknown ids: nothing. */
  std::vector<DvmJobId> release(DvmJobId id);

  /* Host `h` is gone (its daemon was lost): it has no slot from now on,
   * and a running job's slots there are not given back. The waiting jobs
   * that needed it can never run and are taken out (`never`, in order);
   * those then at the head that fit are admitted (`admitted`). */
  struct HostGone {
    std::vector<DvmJobId> never;
    std::vector<DvmJobId> admitted;
  };
  HostGone remove_host(std::size_t h);

  std::size_t running() const noexcept { return held_.size(); }
  std::size_t waiting() const noexcept { return queue_.size(); }
  /* Free slots on host `h`. */
  unsigned free(std::size_t h) const noexcept { return h < free_.size() ? free_[h] : 0; }

 private:
  bool fits(const DvmJobRequest& r) const;
  bool possible(const DvmJobRequest& r) const;
  void take(const DvmJobRequest& r);
  std::vector<DvmJobId> admit_waiting();

  std::vector<unsigned> slots_;
  std::vector<unsigned> free_;
  std::map<DvmJobId, std::vector<unsigned>> held_;  // running job -> the slots it took
  std::deque<DvmJobRequest> queue_;
};

}  // namespace orca::launch

#endif  // ORCA_LAUNCH_DVM_ADMISSION_H
