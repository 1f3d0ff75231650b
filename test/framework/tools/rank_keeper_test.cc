// RankKeeper: the words on orcad's pipe to its keeper (pure), and the
// keeper process itself, started by a stand-in for orcad that the test
// kills, ends cleanly or signals.
#include "orcad/rank_keeper.h"
#include "framework/plm/process_probe.h"
#include "lib/temp_dir.h"

#include <orca/address_sanitizer.h>

#include <gtest/gtest.h>
#include <linux/kcmp.h>
#include <sys/syscall.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace orca::orcad {
namespace {

using Kind = KeeperWord::Kind;

// A ledger with room for a few groups, as the keeper's has for every pid.
struct Ledger {
  explicit Ledger(std::size_t room = 16) : storage(room), directory(kMaxKeeperPath + 1), ledger(storage, directory) {}
  Ledger(const Ledger&) = delete;
  Ledger& operator=(const Ledger&) = delete;
  void feed(std::span<const std::uint8_t> bytes) { ledger.feed(bytes); }
  std::vector<pid_t> groups_to_kill() const {
    const auto g = ledger.groups_to_kill();
    return {g.begin(), g.end()};
  }
  bool ended_cleanly() const { return ledger.ended_cleanly(); }
  bool spoiled() const { return ledger.spoiled(); }
  std::string dir() const { return ledger.directory(); }
  std::vector<pid_t> storage;
  std::vector<char> directory;
  KeeperLedger ledger;
};

std::vector<std::uint8_t> words(std::initializer_list<KeeperWord> ws) {
  std::vector<std::uint8_t> out;
  for (const auto& w : ws) {
    const auto b = encode_word(w);
    out.insert(out.end(), b.begin(), b.end());
  }
  return out;
}

// A Directory word and its path, as RankKeeper::directory writes them.
std::vector<std::uint8_t> directory_word(const std::string& path, std::uint32_t length) {
  auto out = words({{Kind::Directory, static_cast<pid_t>(length)}});
  out.insert(out.end(), path.begin(), path.end());
  return out;
}
std::vector<std::uint8_t> directory_word(const std::string& path) {
  return directory_word(path, static_cast<std::uint32_t>(path.size()));
}

TEST(KeeperWords, EncodeIsFixedAndLittleEndian) {
  const auto b = encode_word({Kind::Watch, 0x01020304});
  EXPECT_EQ((std::array<std::uint8_t, 8>{'O', 'K', 'W', 0, 4, 3, 2, 1}), b);
  EXPECT_EQ('E', encode_word({Kind::End, 0})[2]);
  EXPECT_EQ('F', encode_word({Kind::Forget, 7})[2]);
}

TEST(KeeperLedger, WatchedGroupsAreKilledWithoutTheEndWord) {
  Ledger l;
  l.feed(words({{Kind::Watch, 100}, {Kind::Watch, 200}, {Kind::Watch, 100}}));
  EXPECT_FALSE(l.ended_cleanly());
  EXPECT_EQ((std::vector<pid_t>{100, 200}), l.groups_to_kill());
}

TEST(KeeperLedger, ForgottenGroupsAreNotKilled) {
  Ledger l;
  l.feed(words({{Kind::Watch, 100}, {Kind::Watch, 200}, {Kind::Forget, 100}, {Kind::Forget, 300}}));
  EXPECT_EQ((std::vector<pid_t>{200}), l.groups_to_kill());
}

TEST(KeeperLedger, TheEndWordKillsNothing) {
  Ledger l;
  l.feed(words({{Kind::Watch, 100}, {Kind::End, 0}}));
  EXPECT_TRUE(l.ended_cleanly());
  EXPECT_TRUE(l.groups_to_kill().empty());
}

TEST(KeeperLedger, WordsMayArriveInAnyPieces) {
  const auto all = words({{Kind::Watch, 70000}, {Kind::Watch, 4242}, {Kind::Forget, 70000}});
  for (size_t cut = 0; cut <= all.size(); ++cut) {
    Ledger l;
    l.feed(std::span(all).first(cut));
    l.feed(std::span(all).subspan(cut));
    EXPECT_EQ((std::vector<pid_t>{4242}), l.groups_to_kill()) << "cut at " << cut;
  }
  Ledger bytewise;
  for (std::uint8_t b : all) bytewise.feed(std::span(&b, 1));
  EXPECT_EQ((std::vector<pid_t>{4242}), bytewise.groups_to_kill());
}

TEST(KeeperLedger, AHalfWordAtTheEndIsNotAnEnd) {
  Ledger l;
  auto bytes = words({{Kind::Watch, 100}, {Kind::End, 0}});
  bytes.pop_back();
  l.feed(bytes);
  EXPECT_FALSE(l.ended_cleanly());
  EXPECT_EQ((std::vector<pid_t>{100}), l.groups_to_kill());
}

// kill(-0) is our own group and kill(-1) every process we may signal:
// never a rank's group.
TEST(KeeperLedger, GroupsZeroAndOneAndNegativeSpoilIt) {
  for (pid_t bad : {0, 1, -5}) {
    Ledger l;
    l.feed(words({{Kind::Watch, 100}, {Kind::Watch, bad}, {Kind::Watch, 300}, {Kind::End, 0}}));
    EXPECT_TRUE(l.spoiled()) << bad;
    EXPECT_FALSE(l.ended_cleanly()) << bad;
    EXPECT_EQ((std::vector<pid_t>{100}), l.groups_to_kill()) << bad;
  }
}

TEST(KeeperLedger, ABadCheckOrKindSpoilsIt) {
  auto bad_check = words({{Kind::Watch, 100}, {Kind::Watch, 200}});
  bad_check[8] = 'X';
  auto bad_kind = words({{Kind::Watch, 100}, {Kind::Watch, 200}});
  bad_kind[10] = 'Q';
  for (const auto& bytes : {bad_check, bad_kind}) {
    Ledger l;
    l.feed(bytes);
    l.feed(words({{Kind::End, 0}}));
    EXPECT_TRUE(l.spoiled());
    EXPECT_EQ((std::vector<pid_t>{100}), l.groups_to_kill());
  }
}

// Room freed by a forgotten group is used again; a group beyond the room
// spoils the ledger (the keeper's room is every pid, so it never happens
// there), and the groups before it are still killed.
TEST(KeeperLedger, AGroupBeyondItsRoomSpoilsItAndForgottenRoomIsReused) {
  Ledger l(2);
  l.feed(words({{Kind::Watch, 100}, {Kind::Watch, 200}, {Kind::Forget, 100}, {Kind::Watch, 300}}));
  EXPECT_FALSE(l.spoiled());
  EXPECT_EQ((std::vector<pid_t>{200, 300}), l.groups_to_kill());
  l.feed(words({{Kind::Watch, 400}, {Kind::End, 0}}));
  EXPECT_TRUE(l.spoiled());
  EXPECT_FALSE(l.ended_cleanly());
  EXPECT_EQ((std::vector<pid_t>{200, 300}), l.groups_to_kill());
}

TEST(KeeperLedger, TheJobDirectoryArrivesWholeInAnyPiecesAmongTheWords) {
  auto all = words({{Kind::Watch, 100}});
  const auto dir = directory_word("/tmp/orca-7-1-AbCdEf");
  all.insert(all.end(), dir.begin(), dir.end());
  const auto tail = words({{Kind::Watch, 200}, {Kind::Forget, 100}});
  all.insert(all.end(), tail.begin(), tail.end());
  for (size_t cut = 0; cut <= all.size(); ++cut) {
    Ledger l;
    l.feed(std::span(all).first(cut));
    if (cut < 8 + 8 + 20) {
      EXPECT_EQ("", l.dir()) << "a path not yet whole, cut at " << cut;
    }
    l.feed(std::span(all).subspan(cut));
    EXPECT_FALSE(l.spoiled()) << "cut at " << cut;
    EXPECT_EQ("/tmp/orca-7-1-AbCdEf", l.dir()) << "cut at " << cut;
    EXPECT_EQ((std::vector<pid_t>{200}), l.groups_to_kill()) << "cut at " << cut;
  }
  // A later one replaces it; the clean end still knows it (orcad removed it).
  Ledger l;
  l.feed(directory_word("/tmp/a-long-first-path"));
  l.feed(directory_word("/tmp/b"));
  l.feed(words({{Kind::End, 0}}));
  EXPECT_EQ("/tmp/b", l.dir());
  EXPECT_TRUE(l.ended_cleanly());
}

TEST(KeeperLedger, ADirectoryOfNoLengthTooLongOrWithAZeroByteSpoilsIt) {
  const std::string longest(kMaxKeeperPath, 'x');
  Ledger fits;
  fits.feed(directory_word(longest));
  EXPECT_FALSE(fits.spoiled());
  EXPECT_EQ(longest, fits.dir());
  for (const auto& bytes : {directory_word("", 0), directory_word(longest + "x"), directory_word(std::string("/tmp/a\0b", 8))}) {
    Ledger l;
    l.feed(words({{Kind::Watch, 100}}));
    l.feed(bytes);
    l.feed(words({{Kind::End, 0}}));
    EXPECT_TRUE(l.spoiled());
    EXPECT_FALSE(l.ended_cleanly());
    EXPECT_EQ((std::vector<pid_t>{100}), l.groups_to_kill());
  }
}

// The keeper's room is for every process id this kernel may hand out.
TEST(KeeperLedger, TheKeepersRoomHoldsEveryPidOfThisMachine) {
  std::ifstream in("/proc/sys/kernel/pid_max");
  std::size_t pid_max = 0;
  ASSERT_TRUE(in >> pid_max);
  EXPECT_LE(pid_max, kMaxKeeperGroups);
}

// --- the keeper process -------------------------------------------------------

// A stand-in for orcad: it starts its keeper, a "rank" that sleeps in a
// process group of its own, tells the keeper that group and writes the
// keeper's and the rank's pids to the test; then, if `end_cleanly`, says
// the clean end (and reaps the keeper) and exits, leaving the rank
// running; else it waits to be killed. This test process is a child
// subreaper: the orphaned rank and keeper become its children.
struct FakeDaemon {
  pid_t daemon = -1, keeper = -1, rank = -1;

  explicit FakeDaemon(bool end_cleanly, const std::string& directory = {}) {
    int p[2];
    EXPECT_EQ(0, ::pipe(p));
    daemon = ::fork();
    if (daemon == 0) {
      ::close(p[0]);
      ::setpgid(0, 0);  // a group of its own, as under plm/local: the keeper joins it
      auto k = RankKeeper::start();
      if (!k) ::_exit(2);
      const pid_t r = ::fork();
      if (r == 0) {
        ::setpgid(0, 0);
        ::execlp("sleep", "sleep", "60", static_cast<char*>(nullptr));
        ::_exit(127);
      }
      ::setpgid(r, r);
      k.value().watch(r);
      if (!directory.empty()) k.value().directory(directory);
      const pid_t both[2] = {k.value().pid(), r};
      if (::write(p[1], both, sizeof both) != sizeof both) ::_exit(3);
      if (end_cleanly) {
        k.value().end();
        const char done = 'd';
        (void)!::write(p[1], &done, 1);
        ::_exit(0);
      }
      for (;;) ::pause();
    }
    ::close(p[1]);
    pid_t both[2] = {-1, -1};
    EXPECT_EQ(static_cast<ssize_t>(sizeof both), ::read(p[0], both, sizeof both));
    keeper = both[0];
    rank = both[1];
    if (end_cleanly) {
      char done = 0;
      EXPECT_EQ(1, ::read(p[0], &done, 1));
    }
    ::close(p[0]);
  }
};

class RankKeeperProcess : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(0, ::prctl(PR_SET_CHILD_SUBREAPER, 1)); }
  void TearDown() override {
    for (pid_t p : {fake_->rank, fake_->keeper, fake_->daemon}) {
      if (p > 0 && ::kill(p, SIGKILL) == 0) (void)test::reap(p);
    }
  }
  // SIGKILLs the daemon, then reaps it, its rank and its keeper, which
  // must end (`keeper_stuck`: what it means if it does not).
  void kill_daemon_and_reap_all(const char* keeper_stuck) {
    ASSERT_EQ(0, ::kill(fake_->daemon, SIGKILL));
    ASSERT_TRUE(test::reap(fake_->daemon));
    fake_->daemon = -1;
    EXPECT_TRUE(test::reap(fake_->rank));
    fake_->rank = -1;
    ASSERT_TRUE(test::reap(fake_->keeper)) << keeper_stuck;
    fake_->keeper = -1;
  }
  std::optional<FakeDaemon> fake_;
};

TEST_F(RankKeeperProcess, ADaemonKilledTakesItsRanksGroupsWithIt) {
  fake_.emplace(false);
  ASSERT_GT(fake_->rank, 1);
  ASSERT_EQ(0, ::kill(fake_->daemon, SIGKILL));
  auto d = test::reap(fake_->daemon);
  ASSERT_TRUE(d && WIFSIGNALED(*d));
  fake_->daemon = -1;
  auto r = test::reap(fake_->rank);
  ASSERT_TRUE(r) << "the rank still runs after its daemon was killed";
  EXPECT_TRUE(WIFSIGNALED(*r) && WTERMSIG(*r) == SIGKILL);
  fake_->rank = -1;
  auto k = test::reap(fake_->keeper);
  ASSERT_TRUE(k) << "the keeper did not exit";
  EXPECT_TRUE(WIFEXITED(*k) && WEXITSTATUS(*k) == 0);
  fake_->keeper = -1;
}

// SIGTERM to the daemon's whole group (orcarun ending a lost daemon's
// agent) ends the daemon, which does not act on it here; the keeper, in
// the same group, ignores it and still ends the rank.
TEST_F(RankKeeperProcess, TheKeeperOutlivesASigtermToTheDaemonsGroup) {
  fake_.emplace(false);
  ASSERT_EQ(0, ::kill(-fake_->daemon, SIGTERM));
  auto d = test::reap(fake_->daemon);
  ASSERT_TRUE(d && WIFSIGNALED(*d) && WTERMSIG(*d) == SIGTERM);
  fake_->daemon = -1;
  auto r = test::reap(fake_->rank);
  ASSERT_TRUE(r) << "the rank still runs after its daemon was terminated";
  EXPECT_TRUE(WIFSIGNALED(*r) && WTERMSIG(*r) == SIGKILL);
  fake_->rank = -1;
  EXPECT_TRUE(test::reap(fake_->keeper));
  fake_->keeper = -1;
}

TEST_F(RankKeeperProcess, AfterTheCleanEndTheKeeperKillsNothing) {
  fake_.emplace(true);
  auto d = test::reap(fake_->daemon);
  ASSERT_TRUE(d && WIFEXITED(*d) && WEXITSTATUS(*d) == 0);
  fake_->daemon = -1;
  // The daemon reaped its keeper in end(): it is no process of ours now.
  EXPECT_EQ(-1, ::waitpid(fake_->keeper, nullptr, WNOHANG));
  fake_->keeper = -1;
  // The rank still sleeps (the fake daemon left it, unlike orcad).
  int status = 0;
  EXPECT_EQ(0, ::waitpid(fake_->rank, &status, WNOHANG));
  ASSERT_EQ(0, ::kill(fake_->rank, SIGKILL));
  EXPECT_TRUE(test::reap(fake_->rank));
  fake_->rank = -1;
}

// The job's directory as libpmix leaves it: files two levels down, and a
// symbolic link to a file outside, which must survive (not followed).
struct JobDirectory {
  test::TempDir root;
  std::string path = (root.path() / "orca-7-1-XyZ").string();
  std::string outside = root.write("outside/keep", "not the job's");
  JobDirectory() {
    root.write("orca-7-1-XyZ/pmix_dstor_ds12_1/initial-pmix_shared-segment-0", "segment");
    root.write("orca-7-1-XyZ/pmix_dstor_ds21_1/smlockseg", "lock");
    root.write("orca-7-1-XyZ/rendezvous", "");
    std::filesystem::create_directories(path + "/empty/deeper");
    std::filesystem::create_symlink(root.path() / "outside", path + "/link-to-outside");
  }
};

TEST_F(RankKeeperProcess, ADaemonKilledHasItsJobDirectoryRemoved) {
  JobDirectory job;
  fake_.emplace(false, job.path);
  ASSERT_NO_FATAL_FAILURE(kill_daemon_and_reap_all("the keeper did not exit"));
  EXPECT_FALSE(std::filesystem::exists(job.path)) << "the keeper left the job's directory";
  EXPECT_TRUE(std::filesystem::exists(job.outside)) << "the keeper followed a link out of the job's directory";
}

// What the keeper cannot remove (here: deeper than the 8 levels it goes)
// is left, and the keeper still ends: it does not retry it forever.
TEST_F(RankKeeperProcess, WhatTheKeeperCannotRemoveIsLeftAndItStillEnds) {
  JobDirectory job;
  std::string deep = job.path;
  for (int level = 0; level < 12; ++level) deep += "/d" + std::to_string(level);
  std::filesystem::create_directories(deep);
  job.root.write(std::filesystem::relative(deep + "/bottom", job.root.path()).string(), "too deep");
  fake_.emplace(false, job.path);
  ASSERT_NO_FATAL_FAILURE(kill_daemon_and_reap_all("the keeper did not end with a tree it cannot remove"));
  EXPECT_FALSE(std::filesystem::exists(job.path + "/rendezvous")) << "what it could remove is still there";
  EXPECT_TRUE(std::filesystem::exists(deep + "/bottom"));
}

TEST_F(RankKeeperProcess, AfterTheCleanEndTheJobDirectoryIsTheDaemons) {
  JobDirectory job;
  fake_.emplace(true, job.path);
  ASSERT_TRUE(test::reap(fake_->daemon));
  fake_->daemon = -1;
  fake_->keeper = -1;  // reaped by the daemon's end()
  EXPECT_TRUE(std::filesystem::exists(job.path + "/pmix_dstor_ds12_1/initial-pmix_shared-segment-0"));
  ASSERT_EQ(0, ::kill(fake_->rank, SIGKILL));
  EXPECT_TRUE(test::reap(fake_->rank));
  fake_->rank = -1;
}

// The keeper runs in the daemon's own memory: no copy of its page tables
// at the start, and none of the pages the daemon writes afterwards.
// Sanitized builds fork it instead.
TEST_F(RankKeeperProcess, TheKeeperSharesTheDaemonsMemory) {
#ifdef ORCA_ADDRESS_SANITIZER
  GTEST_SKIP() << "sanitized builds fork the keeper";
#else
  fake_.emplace(false);
  const long same = ::syscall(SYS_kcmp, fake_->daemon, fake_->keeper, KCMP_VM, 0, 0);
  if (same < 0 && errno == ENOSYS) GTEST_SKIP() << "this kernel has no kcmp (CONFIG_KCMP)";
  EXPECT_EQ(0, same) << "kcmp: " << std::strerror(errno);
  EXPECT_NE(0, ::syscall(SYS_kcmp, fake_->daemon, fake_->keeper, KCMP_FILES, 0, 0)) << "its descriptors must be its own";
#endif
}

// The keeper holds nothing but its pipe: not the daemon's stdin, stdout
// or stderr (an agent's session would stay open while it lives).
TEST_F(RankKeeperProcess, TheKeeperHoldsOnlyItsPipe) {
  fake_.emplace(false);
  std::vector<std::string> fds;
  const std::string dir = "/proc/" + std::to_string(fake_->keeper) + "/fd";
  for (int i = 0; i < 50 && fds.size() != 1; ++i) {  // until it has closed the rest
    fds.clear();
    if (DIR* d = ::opendir(dir.c_str())) {
      while (dirent* e = ::readdir(d)) {
        if (e->d_name[0] != '.') fds.emplace_back(e->d_name);
      }
      ::closedir(d);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(1u, fds.size());
  char target[256] = {};
  ASSERT_GT(::readlink((dir + "/" + fds[0]).c_str(), target, sizeof target - 1), 0);
  EXPECT_EQ(0, std::string(target).rfind("pipe:", 0)) << target;
}

}  // namespace
}  // namespace orca::orcad
