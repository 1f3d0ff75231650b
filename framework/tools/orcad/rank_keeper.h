// RankKeeper: a tiny child of orcad that outlives it, so that what orcad's
// ranks started does not outlive orcad.
//
// Each rank runs in a process group of its own; a rank's own process dies
// with orcad (its parent-death signal), but what the rank started in the
// background does not, and a SIGKILLed orcad can end nothing. Whoever
// survives must: orcarun is not the daemon's parent under plm/rsh (sshd
// is) nor under plm/slurm, and is on another host anyway. The keeper lives
// beside orcad on its host, so it covers every launcher alike.
//
// orcad starts it first thing in main, before the bootstrap is read. It is
// a clone of orcad that shares orcad's memory (CLONE_VM, not a fork): no
// copy of orcad's page tables, and no copy of every page orcad writes
// later, which a fork made orcad pay (about 0.4 ms of CPU and 60 page
// faults a daemon). It has its own descriptor table, working directory,
// signal dispositions and stack, and uses only memory set aside for it
// (KeeperMemory): it never allocates, so orcad's heap and its thread's
// caches are never touched by two processes. Sanitized builds fork it
// (the sanitizers cannot follow code on a stack they do not know).
// The keeper holds only the
// read end of a pipe from orcad: every other descriptor is closed (it
// keeps no agent, session or output channel open), it ignores SIGINT,
// SIGTERM and SIGHUP (a signal to the daemon's group must not end it
// before orcad), and stays in orcad's process group and session, so that
// a SIGKILL of the whole group or agent still ends it.
//
// Nothing crosses the pipe: the keeper sleeps in one read() from its
// start to orcad's end, when the pipe closes. What it must act on is in
// memory both share (KeeperLedger, in KeeperMemory): orcad writes there
// the process group of each rank it starts, forgets a group once it is
// empty (its number may be taken again), names the job's directory in
// TMPDIR if it made one, and marks its clean end before it closes the
// pipe. A pipe that closes without that mark (orcad died: SIGKILL, a
// crash) makes the keeper SIGKILL every group still listed and remove the
// job's directory (what libpmix keeps there would be left behind in every
// user's TMPDIR), then exit; after the mark it just exits, and orcad
// reaps it. (A word on the pipe per group, as before, woke the keeper
// twice a rank: 4% of a daemon's CPU for a one-rank job.)
//
// KeeperLedger is pure and unit tested; RankKeeper is the process around it.
#ifndef ORCA_TOOLS_ORCAD_RANK_KEEPER_H
#define ORCA_TOOLS_ORCAD_RANK_KEEPER_H

#include <orca/result.h>
#include <orca/unique_fd.h>

#include <sys/types.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace orca::orcad {

/* The longest directory path the keeper takes (its storage holds it and a
 * terminating zero). */
inline constexpr std::size_t kMaxKeeperPath = 1023;

/* The most process ids Linux hands out (PID_MAX_LIMIT on 64-bit): the
 * ledger has room for this many groups at once. The memory is reserved,
 * not used: a page is touched per 1024 groups watched at once. */
inline constexpr std::size_t kMaxKeeperGroups = std::size_t{4} * 1024 * 1024;

/* The fixed part of what orcad and its keeper share. Every field is
 * stored with release and loaded with acquire: what orcad stored before it
 * died (a SIGKILL stops it between two instructions, never inside one
 * aligned store) is what the keeper reads. */
struct KeeperShared {
  std::atomic<std::uint32_t> ended{0};             // 1: orcad's clean end
  std::atomic<std::uint32_t> used{0};              // slots [0, used) were ever written
  std::atomic<std::uint32_t> directory_length{0};  // 0: no job directory (yet)
  char directory[kMaxKeeperPath + 1] = {};
};
static_assert(std::atomic<std::uint32_t>::is_always_lock_free && std::atomic<pid_t>::is_always_lock_free &&
              sizeof(std::atomic<pid_t>) == sizeof(pid_t));

/* The groups and the job directory, over the shared memory: orcad writes
 * (one writer: watch, forget, directory, end), the keeper reads once its
 * pipe has closed (groups_to_kill, directory). A group's slot holds it
 * until it is forgotten (then 0), and forgotten slots are used again, so
 * distinct live groups always fit in kMaxKeeperGroups slots. The reading
 * side allocates nothing (the keeper may not). */
class KeeperLedger {
 public:
  KeeperLedger(KeeperShared& shared, std::span<std::atomic<pid_t>> slots) noexcept : shared_(shared), slots_(slots) {}

  /* A rank's process group, right after it was made. False, and nothing
   * kept: a group of 1 or less (kill(-pgid) would reach every process or
   * our own group), or no slot left. A group watched already stays once. */
  bool watch(pid_t pgid);
  /* A group that has no member left: not killed, its slot free again. */
  void forget(pid_t pgid);
  /* The job's directory orcad made (a later one replaces it). False, and
   * nothing kept: empty, longer than kMaxKeeperPath, or holding a zero byte. */
  bool directory(std::string_view path);
  /* Every rank's group was ended by orcad: nothing to kill. */
  void end() noexcept { shared_.ended.store(1, std::memory_order_release); }

  bool ended_cleanly() const noexcept { return shared_.ended.load(std::memory_order_acquire) == 1; }
  /* Calls kill(pgid) for each group to SIGKILL now: every group watched
   * and not forgotten, none after the clean end. */
  template <class Kill>
  void groups_to_kill(Kill&& kill) const noexcept {
    if (ended_cleanly()) return;
    const std::uint32_t used = std::min<std::uint32_t>(shared_.used.load(std::memory_order_acquire),
                                                       static_cast<std::uint32_t>(slots_.size()));
    for (std::uint32_t i = 0; i < used; ++i) {
      const pid_t pgid = slots_[i].load(std::memory_order_acquire);
      if (pgid > 1) kill(pgid);
    }
  }
  /* The job's directory, zero-terminated; "" when none was named. */
  const char* directory() const noexcept;

 private:
  KeeperShared& shared_;
  std::span<std::atomic<pid_t>> slots_;
  std::vector<std::uint32_t> free_;  // orcad's side: slots of forgotten groups
};

/* The memory the keeper runs in: its stack, what it starts with, and the
 * ledger both share; one anonymous mapping, MAP_SHARED so that a forked
 * keeper (sanitized builds) shares it too, unmapped once the keeper is
 * reaped. */
class KeeperMemory {
 public:
  KeeperMemory() = default;
  /* Maps it; errors (area "plm", topic "keeper-failed"): mmap failed. */
  static Result<KeeperMemory> map();
  KeeperMemory(KeeperMemory&& other) noexcept;
  KeeperMemory& operator=(KeeperMemory&& other) noexcept;
  KeeperMemory(const KeeperMemory&) = delete;
  KeeperMemory& operator=(const KeeperMemory&) = delete;
  ~KeeperMemory();

  /* The top of the keeper's stack (16-byte aligned), what it starts
   * with, and the ledger's two parts. */
  void* stack_top() const noexcept;
  void* start_area() const noexcept;
  KeeperShared& shared() const noexcept;
  std::span<std::atomic<pid_t>> slots() const noexcept;

 private:
  void* base_ = nullptr;
  std::size_t size_ = 0;
};

/* The keeper process, from orcad's side. */
class RankKeeper {
 public:
  /* Starts the keeper. Only while this process has a single thread (in
   * sanitized builds, a fork copies only the caller). Errors (area "plm",
   * topic "keeper-failed"): pipe, mmap or clone failed. */
  static Result<RankKeeper> start();
  /* The clean end (end()), unless it was said already. */
  ~RankKeeper();
  RankKeeper(RankKeeper&& other) noexcept;
  RankKeeper& operator=(RankKeeper&&) = delete;
  RankKeeper(const RankKeeper&) = delete;
  RankKeeper& operator=(const RankKeeper&) = delete;

  pid_t pid() const noexcept { return pid_; }
  /* A rank's process group, right after it was made (KeeperLedger::watch). */
  void watch(pid_t pgid) { (void)ledger_.watch(pgid); }
  /* A group that has no member left (kill(-pgid, 0) says ESRCH). */
  void forget(pid_t pgid) { ledger_.forget(pgid); }
  /* The job's directory orcad made: removed with what it holds should
   * orcad die. A path longer than kMaxKeeperPath is not kept. */
  void directory(std::string_view path) { (void)ledger_.directory(path); }
  /* Every rank's group was ended by orcad: the keeper exits without
   * killing anything, and is reaped here (SIGKILLed if it has not exited
   * within a moment, stopped say: it has nothing left to do). */
  void end();

 private:
  RankKeeper(pid_t pid, UniqueFd pipe, KeeperMemory memory)
      : pid_(pid), pipe_(std::move(pipe)), memory_(std::move(memory)), ledger_(memory_.shared(), memory_.slots()) {}

  pid_t pid_ = -1;
  UniqueFd pipe_;        // write end, close-on-exec: closing it is the keeper's cue
  KeeperMemory memory_;  // freed after pid_ is reaped (member order: destroyed after end())
  KeeperLedger ledger_;  // in memory_
};

}  // namespace orca::orcad

#endif
