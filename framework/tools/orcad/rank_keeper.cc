// RankKeeper: the ledger orcad shares with its keeper, and the keeper.
#include "rank_keeper.h"

#include <orca/address_sanitizer.h>
#include <orca/child_process.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <signal.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <new>
#include <utility>

namespace orca::orcad {
namespace {

// How long orcad waits for its keeper to exit after its clean end.
constexpr std::chrono::milliseconds kExitLimit{1000};

// What the keeper starts with, in its own memory (orcad's stack frame is
// gone by the time the keeper reads it).
struct KeeperStart {
  int fd = -1;
  sigset_t mask{};
  KeeperShared* shared = nullptr;
  std::span<std::atomic<pid_t>> slots;
};

// Removes `name` (in directory `parent`) and what it holds, without
// following a symbolic link, at most `depth` directories down; no
// allocation (the keeper's stack only: 2 KiB a level). True when it is
// gone. Entries are read again from the start while a pass removes one
// (removing while reading may skip some); a pass that removes none ends
// it, so what cannot go (too deep, not ours) is left, not retried forever.
bool remove_tree_at(int parent, const char* name, int depth) {
  if (::unlinkat(parent, name, 0) == 0) return true;
  if (errno != EISDIR) return errno == ENOENT;  // a file or link that stays, or gone already
  if (depth > 0) {
    const int fd = ::openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
      alignas(8) char buf[2048];
      for (bool removed = true; removed;) {
        removed = false;
        ::lseek(fd, 0, SEEK_SET);
        for (;;) {
          const ssize_t n = ::getdents64(fd, buf, sizeof buf);
          if (n <= 0) break;
          for (ssize_t off = 0; off < n;) {
            const auto* d = reinterpret_cast<const dirent64*>(buf + off);
            off += d->d_reclen;
            if (std::strcmp(d->d_name, ".") == 0 || std::strcmp(d->d_name, "..") == 0) continue;
            if (remove_tree_at(fd, d->d_name, depth - 1)) removed = true;
          }
        }
      }
      ::close(fd);
    }
  }
  return ::unlinkat(parent, name, AT_REMOVEDIR) == 0;
}

// libpmix's rendezvous and shared-memory files sit two levels down.
constexpr int kRemoveDepth = 8;

// The keeper itself, on its own stack: no thread but this one, no
// libevent, no allocation (it shares orcad's memory, and orcad's heap and
// thread caches are orcad's alone). The C library calls it makes touch
// errno, which it shares with orcad's thread: only failures write it, and
// while orcad lives none of these fails (read restarts after a stop, every
// signal that could interrupt it is ignored).
int keeper_main(void* arg) {
  const KeeperStart& start = *static_cast<const KeeperStart*>(arg);
  const int fd = start.fd;
  ::prctl(PR_SET_NAME, "orcad-keeper");  // not counted as an orcad by ps -C orcad
  // A signal to the daemon's group (SIGTERM from orcarun, SIGHUP from the
  // kernel when the group is orphaned with a stopped member, Ctrl-C) must
  // not end the keeper before orcad: orcad may still die uncleanly after
  // it. SIGKILL of the group still ends it.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU}) ::sigaction(s, &ignore, nullptr);
  ::sigprocmask(SIG_SETMASK, &start.mask, nullptr);  // blocked since before the clone: none came in between
  // Hold nothing of orcad's: not its stdin from the agent, not its output
  // to orcarun or sshd (which would keep a session open after orcad), no
  // socket, and no directory busy. The descriptor table and working
  // directory are the keeper's own copies.
  if (fd > 0) ::syscall(SYS_close_range, 0u, static_cast<unsigned>(fd - 1), 0u);
  ::syscall(SYS_close_range, static_cast<unsigned>(fd + 1), ~0u, 0u);
  (void)!::chdir("/");
  const KeeperLedger ledger(*start.shared, start.slots);
  // One sleep until orcad's end closes the pipe (nothing is written on it).
  std::uint8_t buf[64];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0 || (n < 0 && errno == EINTR)) continue;
    break;  // the end (or an error: orcad can no longer be watched)
  }
  ledger.groups_to_kill([](pid_t pgid) { ::kill(-pgid, SIGKILL); });
  // After the ranks: nothing of the job writes there any more.
  if (!ledger.ended_cleanly() && ledger.directory()[0] == '/') (void)remove_tree_at(AT_FDCWD, ledger.directory(), kRemoveDepth);
  ::_exit(0);
}

// The keeper's stack, below what it starts with and its ledger's storage,
// with an inaccessible page under it: an overflow faults, it does not
// write into orcad's memory.
constexpr std::size_t kGuard = 4096;
constexpr std::size_t kStack = 64 * 1024;
constexpr std::size_t kStartArea = 4096;
constexpr std::size_t kSharedArea = 4096;
static_assert(sizeof(KeeperShared) <= kSharedArea);

// Starts keeper_main in a process of its own: sharing this process's
// memory, or a fork of it in sanitized builds. Every signal is blocked
// across it, so that none (a SIGTERM to the daemon's group) reaches the
// keeper before it ignores it; orcad gets what came meanwhile once its
// mask is back. Returns -1 with errno.
pid_t start_keeper(const KeeperMemory& memory, KeeperStart* start) {
  sigset_t all;
  sigfillset(&all);
  ::sigprocmask(SIG_SETMASK, &all, &start->mask);
#ifdef ORCA_ADDRESS_SANITIZER
  const pid_t pid = ::fork();
  if (pid == 0) keeper_main(start);
#else
  const pid_t pid = ::clone(keeper_main, memory.stack_top(), CLONE_VM | SIGCHLD, start);
#endif
  const int clone_errno = errno;
  ::sigprocmask(SIG_SETMASK, &start->mask, nullptr);
  errno = clone_errno;
  return pid;
}

}  // namespace

bool KeeperLedger::watch(pid_t pgid) {
  if (pgid <= 1) return false;
  const std::uint32_t used = shared_.used.load(std::memory_order_relaxed);  // ours alone to write
  for (std::uint32_t i = 0; i < used; ++i) {
    if (slots_[i].load(std::memory_order_relaxed) == pgid) return true;
  }
  if (!free_.empty()) {
    slots_[free_.back()].store(pgid, std::memory_order_release);
    free_.pop_back();
    return true;
  }
  if (used == slots_.size()) return false;  // cannot happen with kMaxKeeperGroups slots
  slots_[used].store(pgid, std::memory_order_release);
  shared_.used.store(used + 1, std::memory_order_release);
  return true;
}

void KeeperLedger::forget(pid_t pgid) {
  if (pgid <= 1) return;
  const std::uint32_t used = shared_.used.load(std::memory_order_relaxed);
  for (std::uint32_t i = 0; i < used; ++i) {
    if (slots_[i].load(std::memory_order_relaxed) != pgid) continue;
    slots_[i].store(0, std::memory_order_release);
    free_.push_back(i);
    return;
  }
}

bool KeeperLedger::directory(std::string_view path) {
  if (path.empty() || path.size() > kMaxKeeperPath || path.find('\0') != std::string_view::npos) return false;
  // Unnamed while the bytes change: a keeper that reads now (orcad killed
  // right here) removes nothing rather than half a path.
  shared_.directory_length.store(0, std::memory_order_release);
  std::memcpy(shared_.directory, path.data(), path.size());
  shared_.directory[path.size()] = '\0';
  shared_.directory_length.store(static_cast<std::uint32_t>(path.size()), std::memory_order_release);
  return true;
}

const char* KeeperLedger::directory() const noexcept {
  const std::uint32_t n = shared_.directory_length.load(std::memory_order_acquire);
  return n > 0 && n <= kMaxKeeperPath && shared_.directory[n] == '\0' ? shared_.directory : "";
}

Result<KeeperMemory> KeeperMemory::map() {
  KeeperMemory m;
  m.size_ = kGuard + kStack + kStartArea + kSharedArea + kMaxKeeperGroups * sizeof(pid_t);
  // Reserved, not committed: only the pages touched count. Shared, so
  // that a forked keeper (sanitized builds) reads what orcad writes.
  void* base = ::mmap(nullptr, m.size_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) {
    const int err = errno;
    return Message("plm", "keeper-failed", {{"call", "mmap"}, {"why", std::strerror(err)}, {"hint", ""}});
  }
  m.base_ = base;
  ::mprotect(base, kGuard, PROT_NONE);
  std::construct_at(reinterpret_cast<KeeperShared*>(static_cast<char*>(base) + kGuard + kStack + kStartArea));
  return m;
}

KeeperMemory::KeeperMemory(KeeperMemory&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)), size_(std::exchange(other.size_, 0)) {}

KeeperMemory& KeeperMemory::operator=(KeeperMemory&& other) noexcept {
  if (this != &other) {
    if (base_ != nullptr) ::munmap(base_, size_);
    base_ = std::exchange(other.base_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

KeeperMemory::~KeeperMemory() {
  if (base_ != nullptr) ::munmap(base_, size_);
}

void* KeeperMemory::stack_top() const noexcept { return static_cast<char*>(base_) + kGuard + kStack; }

void* KeeperMemory::start_area() const noexcept { return stack_top(); }

KeeperShared& KeeperMemory::shared() const noexcept {
  return *std::launder(reinterpret_cast<KeeperShared*>(static_cast<char*>(base_) + kGuard + kStack + kStartArea));
}

std::span<std::atomic<pid_t>> KeeperMemory::slots() const noexcept {
  // Zero-filled, never constructed one by one (that would touch all 16 MiB):
  // an atomic pid_t is a pid_t in memory (rank_keeper.h), 0 an empty slot.
  return {reinterpret_cast<std::atomic<pid_t>*>(static_cast<char*>(base_) + kGuard + kStack + kStartArea + kSharedArea),
          kMaxKeeperGroups};
}

Result<RankKeeper> RankKeeper::start() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    const int err = errno;
    return Message("plm", "keeper-failed",
                   {{"call", "pipe"}, {"why", std::strerror(err)}, {"hint", plm::limit_hint("pipe", err)}});
  }
  UniqueFd read_end(fds[0]), write_end(fds[1]);
  auto memory = KeeperMemory::map();
  if (!memory) return memory.error();
  static_assert(sizeof(KeeperStart) <= kStartArea);
  KeeperStart* start = std::construct_at(static_cast<KeeperStart*>(memory.value().start_area()),
                                        KeeperStart{.fd = read_end.get(),
                                                    .mask = {},
                                                    .shared = &memory.value().shared(),
                                                    .slots = memory.value().slots()});
  const pid_t pid = start_keeper(memory.value(), start);
  const int start_errno = errno;
  if (pid < 0) {
    return Message("plm", "keeper-failed",
                   {{"call", "clone"}, {"why", std::strerror(start_errno)}, {"hint", plm::limit_hint("fork", start_errno)}});
  }
  read_end.reset();
  return RankKeeper(pid, std::move(write_end), std::move(memory.value()));
}

RankKeeper::RankKeeper(RankKeeper&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      pipe_(std::move(other.pipe_)),
      memory_(std::move(other.memory_)),
      ledger_(std::move(other.ledger_)) {}

RankKeeper::~RankKeeper() { end(); }

void RankKeeper::end() {
  if (pid_ <= 0) return;
  ledger_.end();
  pipe_.reset();  // the keeper wakes, sees the clean end, and exits
  if (!plm::exits_within(pid_, kExitLimit)) ::kill(pid_, SIGKILL);
  while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

}  // namespace orca::orcad
