// RankKeeper: the words on orcad's pipe to its keeper, and the keeper.
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
#include <utility>

namespace orca::orcad {
namespace {

constexpr std::uint8_t kCheck0 = 'O', kCheck1 = 'K';

bool known_kind(std::uint8_t k) {
  return k == static_cast<std::uint8_t>(KeeperWord::Kind::Watch) ||
         k == static_cast<std::uint8_t>(KeeperWord::Kind::Forget) || k == static_cast<std::uint8_t>(KeeperWord::Kind::End) ||
         k == static_cast<std::uint8_t>(KeeperWord::Kind::Directory);
}

// How long orcad waits for its keeper to exit after the end word.
constexpr std::chrono::milliseconds kExitLimit{1000};

// What the keeper starts with, in its own memory (orcad's stack frame is
// gone by the time the keeper reads it).
struct KeeperStart {
  int fd = -1;
  sigset_t mask{};
  std::span<pid_t> storage;
  std::span<char> directory;
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
  KeeperLedger ledger(start.storage, start.directory);
  std::uint8_t buf[512];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      ledger.feed(std::span<const std::uint8_t>(buf, static_cast<size_t>(n)));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;  // the end (or an error: orcad can no longer tell us anything)
  }
  for (pid_t pgid : ledger.groups_to_kill()) ::kill(-pgid, SIGKILL);
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
constexpr std::size_t kDirectoryArea = 4096;
static_assert(kMaxKeeperPath < kDirectoryArea);

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

std::array<std::uint8_t, kKeeperWordSize> encode_word(const KeeperWord& word) {
  const auto p = static_cast<std::uint32_t>(word.pgid);
  return {kCheck0,
          kCheck1,
          static_cast<std::uint8_t>(word.kind),
          0,
          static_cast<std::uint8_t>(p),
          static_cast<std::uint8_t>(p >> 8),
          static_cast<std::uint8_t>(p >> 16),
          static_cast<std::uint8_t>(p >> 24)};
}

void KeeperLedger::feed(std::span<const std::uint8_t> bytes) noexcept {
  for (std::uint8_t b : bytes) {
    if (spoiled_) return;
    if (path_left_ > 0) {  // a Directory word's path
      if (b == 0) {
        spoiled_ = true;
        return;
      }
      directory_[directory_length_++] = static_cast<char>(b);
      if (--path_left_ == 0) directory_[directory_length_] = '\0';
      continue;
    }
    partial_[have_++] = b;
    if (have_ < kKeeperWordSize) continue;
    have_ = 0;
    const auto& w = partial_;
    const std::uint32_t p = w[4] | (std::uint32_t{w[5]} << 8) | (std::uint32_t{w[6]} << 16) | (std::uint32_t{w[7]} << 24);
    const auto pgid = static_cast<pid_t>(p);
    if (w[0] != kCheck0 || w[1] != kCheck1 || w[3] != 0 || !known_kind(w[2])) {
      spoiled_ = true;
      return;
    }
    const auto kind = static_cast<KeeperWord::Kind>(w[2]);
    if (kind == KeeperWord::Kind::Directory) {
      if (p == 0 || p > kMaxKeeperPath || p >= directory_.size()) {
        spoiled_ = true;
        return;
      }
      directory_length_ = 0;
      path_left_ = p;
      continue;
    }
    if (kind != KeeperWord::Kind::End && pgid <= 1) {
      spoiled_ = true;
      return;
    }
    apply(KeeperWord{kind, pgid});
  }
}

void KeeperLedger::apply(const KeeperWord& word) noexcept {
  const auto kept = storage_.first(count_);
  switch (word.kind) {
    case KeeperWord::Kind::Watch:
      if (std::find(kept.begin(), kept.end(), word.pgid) != kept.end()) break;
      if (count_ == storage_.size()) {
        spoiled_ = true;  // cannot happen with kMaxKeeperGroups of storage
        break;
      }
      storage_[count_++] = word.pgid;
      break;
    case KeeperWord::Kind::Forget:
      count_ = static_cast<std::size_t>(std::remove(kept.begin(), kept.end(), word.pgid) - kept.begin());
      break;
    case KeeperWord::Kind::End:
      ended_ = true;
      break;
    case KeeperWord::Kind::Directory:
      break;  // taken in feed(): its path follows the word
  }
}

std::span<const pid_t> KeeperLedger::groups_to_kill() const noexcept {
  if (ended_cleanly()) return {};
  return groups();
}

Result<KeeperMemory> KeeperMemory::map() {
  KeeperMemory m;
  m.size_ = kGuard + kStack + kStartArea + kDirectoryArea + kMaxKeeperGroups * sizeof(pid_t);
  // Reserved, not committed: only the pages the keeper touches count.
  void* base = ::mmap(nullptr, m.size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) {
    const int err = errno;
    return Message("plm", "keeper-failed", {{"call", "mmap"}, {"why", std::strerror(err)}, {"hint", ""}});
  }
  m.base_ = base;
  ::mprotect(base, kGuard, PROT_NONE);
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

std::span<char> KeeperMemory::directory_storage() const noexcept {
  return {static_cast<char*>(base_) + kGuard + kStack + kStartArea, kDirectoryArea};
}

std::span<pid_t> KeeperMemory::ledger_storage() const noexcept {
  return {reinterpret_cast<pid_t*>(static_cast<char*>(base_) + kGuard + kStack + kStartArea + kDirectoryArea), kMaxKeeperGroups};
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
                                                    .storage = memory.value().ledger_storage(),
                                                    .directory = memory.value().directory_storage()});
  const pid_t pid = start_keeper(memory.value(), start);
  const int start_errno = errno;
  if (pid < 0) {
    return Message("plm", "keeper-failed",
                   {{"call", "clone"}, {"why", std::strerror(start_errno)}, {"hint", plm::limit_hint("fork", start_errno)}});
  }
  read_end.reset();
  // Nonblocking: orcad's loop never waits on its keeper (a full pipe
  // keeps the words in unsent_).
  ::fcntl(write_end.get(), F_SETFL, ::fcntl(write_end.get(), F_GETFL) | O_NONBLOCK);
  return RankKeeper(pid, std::move(write_end), std::move(memory.value()));
}

RankKeeper::RankKeeper(RankKeeper&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      pipe_(std::move(other.pipe_)),
      unsent_(std::move(other.unsent_)),
      memory_(std::move(other.memory_)) {}

RankKeeper::~RankKeeper() { end(); }

void RankKeeper::tell(const KeeperWord& word, std::string_view after) {
  if (!pipe_.valid()) return;
  const auto bytes = encode_word(word);
  unsent_.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  unsent_.append(after);
  flush();
}

void RankKeeper::directory(std::string_view path) {
  if (path.empty() || path.size() > kMaxKeeperPath || path.find('\0') != std::string_view::npos) return;
  tell({KeeperWord::Kind::Directory, static_cast<pid_t>(path.size())}, path);
}

bool RankKeeper::flush() {
  while (!unsent_.empty()) {
    const ssize_t n = ::write(pipe_.get(), unsent_.data(), unsent_.size());
    if (n > 0) {
      unsent_.erase(0, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return false;
    unsent_.clear();  // the keeper is gone (EPIPE): nobody to tell
    return true;
  }
  return true;
}

void RankKeeper::end() {
  if (pid_ <= 0) return;
  tell({KeeperWord::Kind::End, 0});
  // Not all said (the keeper stopped with a full pipe): it must not act on
  // what it has, so it goes now. orcad's ranks' groups are ended already.
  const bool said = unsent_.empty();
  pipe_.reset();
  if (!said) ::kill(pid_, SIGKILL);
  if (!plm::exits_within(pid_, kExitLimit)) ::kill(pid_, SIGKILL);
  while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

}  // namespace orca::orcad
