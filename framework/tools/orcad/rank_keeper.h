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
// a SIGKILL of the whole group or agent still ends it. orcad writes on the
// pipe the process group of each rank it starts, and a group to forget
// once it is empty (its number may be taken again). When the pipe reaches
// its end without orcad's "clean end" word first (orcad died: SIGKILL, a
// crash), the keeper SIGKILLs every group it was told of, removes the
// job's directory in TMPDIR if orcad made one (what libpmix keeps there
// would be left behind in every user's TMPDIR), then exits; on the clean
// end word it just exits (orcad removed the directory), and orcad reaps it.
//
// The words on the pipe (KeeperWord, encode_word, KeeperLedger) are pure
// and unit tested; RankKeeper is the process around them.
#ifndef ORCA_TOOLS_ORCAD_RANK_KEEPER_H
#define ORCA_TOOLS_ORCAD_RANK_KEEPER_H

#include <orca/result.h>
#include <orca/unique_fd.h>

#include <sys/types.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace orca::orcad {

/* One word from orcad to its keeper. */
struct KeeperWord {
  enum class Kind : std::uint8_t {
    Watch = 'W',   // a rank's process group: SIGKILL it should orcad die
    Forget = 'F',  // that group ended: its number may be reused
    End = 'E',     // orcad ends cleanly: kill nothing (pgid unused)
    Directory = 'D',  // the job's directory: its path's length in pgid, the path's bytes follow
  };
  Kind kind = Kind::End;
  pid_t pgid = 0;
};

/* Eight bytes: "OK" (a check), the kind, a zero byte, the pgid as four
 * bytes little-endian. Fixed size and below PIPE_BUF: each write is whole
 * (a Directory word and its path are written at once too). */
inline constexpr std::size_t kKeeperWordSize = 8;
std::array<std::uint8_t, kKeeperWordSize> encode_word(const KeeperWord& word);
/* The longest directory path the keeper takes (its storage holds it and a
 * terminating zero). */
inline constexpr std::size_t kMaxKeeperPath = 1023;

/* What the keeper knows: the groups to kill, and whether orcad ended
 * cleanly. Fed the bytes from the pipe as they come, in any pieces. It
 * allocates nothing: the groups are kept in `storage`, which the keeper
 * sizes for every process id the kernel can hand out (kMaxKeeperGroups),
 * so that distinct live groups always fit. */
class KeeperLedger {
 public:
  /* `directory` holds the job directory's path (kMaxKeeperPath + 1 bytes). */
  KeeperLedger(std::span<pid_t> storage, std::span<char> directory) noexcept : storage_(storage), directory_(directory) {}
  /* Takes bytes off the pipe. A malformed word (a bad check or kind, or a
   * group id of 1 or less, which kill(-pgid) would make every process or
   * our own group) spoils the ledger: later words are ignored, and the
   * end will not count as clean. So does a group beyond the storage
   * (kept: the groups before it), and a Directory word whose length is 0,
   * longer than kMaxKeeperPath or than the storage, or whose path holds a
   * zero byte. A later Directory word replaces an earlier one. */
  void feed(std::span<const std::uint8_t> bytes) noexcept;
  /* The pipe's end: SIGKILL these groups (none after a clean end). */
  std::span<const pid_t> groups_to_kill() const noexcept;
  bool ended_cleanly() const noexcept { return ended_ && !spoiled_; }
  bool spoiled() const noexcept { return spoiled_; }
  std::span<const pid_t> groups() const noexcept { return storage_.first(count_); }
  /* The job's directory, zero-terminated; "" when orcad made none (or its
   * path has not arrived whole). */
  const char* directory() const noexcept { return directory_length_ > 0 && path_left_ == 0 ? directory_.data() : ""; }

 private:
  void apply(const KeeperWord& word) noexcept;

  std::span<pid_t> storage_;
  std::span<char> directory_;
  std::size_t directory_length_ = 0;
  std::size_t path_left_ = 0;  // bytes of a Directory word's path still to come
  std::size_t count_ = 0;
  std::array<std::uint8_t, kKeeperWordSize> partial_{};
  std::size_t have_ = 0;
  bool ended_ = false;
  bool spoiled_ = false;
};

/* The most process ids Linux hands out (PID_MAX_LIMIT on 64-bit): the
 * keeper's ledger has room for this many groups. The memory is reserved,
 * not used: a page is touched per 1024 groups watched at once. */
inline constexpr std::size_t kMaxKeeperGroups = std::size_t{4} * 1024 * 1024;

/* The memory the keeper runs in: its stack, what it starts with, and its
 * ledger's storage; one private anonymous mapping, unmapped once the
 * keeper is reaped. */
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
   * with, and its ledger's storage. */
  void* stack_top() const noexcept;
  void* start_area() const noexcept;
  std::span<pid_t> ledger_storage() const noexcept;
  std::span<char> directory_storage() const noexcept;

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
  /* A rank's process group, right after it was made. */
  void watch(pid_t pgid) { tell({KeeperWord::Kind::Watch, pgid}); }
  /* A group that has no member left (kill(-pgid, 0) says ESRCH). */
  void forget(pid_t pgid) { tell({KeeperWord::Kind::Forget, pgid}); }
  /* The job's directory orcad made: removed with what it holds should
   * orcad die. A path longer than kMaxKeeperPath is not told. */
  void directory(std::string_view path);
  /* Every rank's group was ended by orcad: the keeper exits without
   * killing anything, and is reaped here (SIGKILLed if it has not exited
   * within a moment, stopped say: it has nothing left to do). */
  void end();

 private:
  RankKeeper(pid_t pid, UniqueFd pipe, KeeperMemory memory)
      : pid_(pid), pipe_(std::move(pipe)), memory_(std::move(memory)) {}
  void tell(const KeeperWord& word, std::string_view after = {});
  bool flush();  // false: bytes are still waiting (the pipe is full)

  pid_t pid_ = -1;
  UniqueFd pipe_;        // write end, nonblocking, close-on-exec
  std::string unsent_;   // words the full pipe did not take yet (rare: a stopped keeper)
  KeeperMemory memory_;  // freed after pid_ is reaped (member order: destroyed after end())
};

}  // namespace orca::orcad

#endif
