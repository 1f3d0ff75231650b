// RankKeeper: the words on orcad's pipe to its keeper, and the keeper.
#include "rank_keeper.h"

#include <orca/child_process.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>

namespace orca::orcad {
namespace {

constexpr std::uint8_t kCheck0 = 'O', kCheck1 = 'K';

bool known_kind(std::uint8_t k) {
  return k == static_cast<std::uint8_t>(KeeperWord::Kind::Watch) ||
         k == static_cast<std::uint8_t>(KeeperWord::Kind::Forget) || k == static_cast<std::uint8_t>(KeeperWord::Kind::End);
}

// How long orcad waits for its keeper to exit after the end word.
constexpr std::chrono::milliseconds kExitLimit{1000};

// The keeper itself, in the child of fork: no thread but this one, no
// libevent, no allocation but the ledger's list of groups.
[[noreturn]] void keeper_main(int fd, const sigset_t& mask) {
  ::prctl(PR_SET_NAME, "orcad-keeper");  // not counted as an orcad by ps -C orcad
  // A signal to the daemon's group (SIGTERM from orcarun, SIGHUP from the
  // kernel when the group is orphaned with a stopped member, Ctrl-C) must
  // not end the keeper before orcad: orcad may still die uncleanly after
  // it. SIGKILL of the group still ends it.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU}) ::sigaction(s, &ignore, nullptr);
  ::sigprocmask(SIG_SETMASK, &mask, nullptr);  // blocked since before fork: none came in between
  // Hold nothing of orcad's: not its stdin from the agent, not its output
  // to orcarun or sshd (which would keep a session open after orcad), no
  // socket, and no directory busy.
  if (fd > 0) ::syscall(SYS_close_range, 0u, static_cast<unsigned>(fd - 1), 0u);
  ::syscall(SYS_close_range, static_cast<unsigned>(fd + 1), ~0u, 0u);
  (void)!::chdir("/");
  KeeperLedger ledger;
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
  ::_exit(0);
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

void KeeperLedger::feed(std::span<const std::uint8_t> bytes) {
  for (std::uint8_t b : bytes) {
    if (spoiled_) return;
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
    if (kind != KeeperWord::Kind::End && pgid <= 1) {
      spoiled_ = true;
      return;
    }
    apply(KeeperWord{kind, pgid});
  }
}

void KeeperLedger::apply(const KeeperWord& word) {
  switch (word.kind) {
    case KeeperWord::Kind::Watch:
      if (std::find(groups_.begin(), groups_.end(), word.pgid) == groups_.end()) groups_.push_back(word.pgid);
      break;
    case KeeperWord::Kind::Forget:
      groups_.erase(std::remove(groups_.begin(), groups_.end(), word.pgid), groups_.end());
      break;
    case KeeperWord::Kind::End:
      ended_ = true;
      break;
  }
}

std::vector<pid_t> KeeperLedger::groups_to_kill() const {
  if (ended_cleanly()) return {};
  return groups_;
}

Result<RankKeeper> RankKeeper::start() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    const int err = errno;
    return Message("plm", "keeper-failed",
                   {{"call", "pipe"}, {"why", std::strerror(err)}, {"hint", plm::limit_hint("pipe", err)}});
  }
  UniqueFd read_end(fds[0]), write_end(fds[1]);
  // Every signal is blocked across fork, so that none (a SIGTERM to the
  // daemon's group) reaches the keeper before it ignores it; orcad gets
  // what came meanwhile once its mask is back.
  sigset_t all, before;
  sigfillset(&all);
  ::sigprocmask(SIG_SETMASK, &all, &before);
  const pid_t pid = ::fork();
  if (pid == 0) keeper_main(read_end.get(), before);
  const int fork_errno = errno;
  ::sigprocmask(SIG_SETMASK, &before, nullptr);
  if (pid < 0) {
    return Message("plm", "keeper-failed",
                   {{"call", "fork"}, {"why", std::strerror(fork_errno)}, {"hint", plm::limit_hint("fork", fork_errno)}});
  }
  read_end.reset();
  // Nonblocking: orcad's loop never waits on its keeper (a full pipe
  // keeps the words in unsent_).
  ::fcntl(write_end.get(), F_SETFL, ::fcntl(write_end.get(), F_GETFL) | O_NONBLOCK);
  return RankKeeper(pid, std::move(write_end));
}

RankKeeper::RankKeeper(RankKeeper&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)), pipe_(std::move(other.pipe_)), unsent_(std::move(other.unsent_)) {}

RankKeeper::~RankKeeper() { end(); }

void RankKeeper::tell(const KeeperWord& word) {
  if (!pipe_.valid()) return;
  const auto bytes = encode_word(word);
  unsent_.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  flush();
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
  const auto deadline = std::chrono::steady_clock::now() + kExitLimit;
  for (;;) {
    const pid_t r = ::waitpid(pid_, nullptr, WNOHANG);
    if (r == pid_ || (r < 0 && errno != EINTR)) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid_, SIGKILL);
      while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    ::usleep(1000);
  }
  pid_ = -1;
}

}  // namespace orca::orcad
