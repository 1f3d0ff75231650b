// RankKeeper: the ledger orcad shares with its keeper (pure), and the
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

// What orcad and its keeper share, with room for a few groups, and the
// two sides over it: orcad's ledger writes, a fresh one reads (as the
// keeper builds its own over the same memory).
struct Shared {
  explicit Shared(std::size_t room = 16) : slots(room) {}
  Shared(const Shared&) = delete;
  Shared& operator=(const Shared&) = delete;
  std::vector<pid_t> groups_to_kill() const {
    std::vector<pid_t> out;
    KeeperLedger(const_cast<KeeperShared&>(shared), const_cast<std::vector<std::atomic<pid_t>>&>(slots))
        .groups_to_kill([&](pid_t g) { out.push_back(g); });
    return out;
  }
  std::string dir() const {
    return KeeperLedger(const_cast<KeeperShared&>(shared), const_cast<std::vector<std::atomic<pid_t>>&>(slots)).directory();
  }
  KeeperShared shared;
  std::vector<std::atomic<pid_t>> slots;
  KeeperLedger daemon{shared, slots};  // orcad's side
};

TEST(KeeperLedger, WatchedGroupsAreKilledWithoutTheCleanEnd) {
  Shared s;
  EXPECT_TRUE(s.daemon.watch(100));
  EXPECT_TRUE(s.daemon.watch(200));
  EXPECT_TRUE(s.daemon.watch(100));  // once
  EXPECT_FALSE(s.daemon.ended_cleanly());
  EXPECT_EQ((std::vector<pid_t>{100, 200}), s.groups_to_kill());
}

TEST(KeeperLedger, ForgottenGroupsAreNotKilledAndTheirSlotsServeAgain) {
  Shared s;
  s.daemon.watch(100);
  s.daemon.watch(200);
  s.daemon.forget(100);
  s.daemon.forget(300);  // never watched: nothing happens
  EXPECT_EQ((std::vector<pid_t>{200}), s.groups_to_kill());
  s.daemon.watch(400);
  EXPECT_EQ(2u, s.shared.used.load()) << "a forgotten slot was not used again";
  EXPECT_EQ((std::vector<pid_t>{400, 200}), s.groups_to_kill());
}

TEST(KeeperLedger, TheCleanEndKillsNothing) {
  Shared s;
  s.daemon.watch(100);
  s.daemon.end();
  EXPECT_TRUE(s.daemon.ended_cleanly());
  EXPECT_TRUE(s.groups_to_kill().empty());
}

TEST(KeeperLedger, GroupsZeroAndOneAndNegativeAreRefused) {
  for (pid_t bad : {0, 1, -1, -100}) {
    Shared s;
    EXPECT_FALSE(s.daemon.watch(bad)) << bad;
    s.daemon.forget(bad);
    EXPECT_TRUE(s.groups_to_kill().empty()) << bad;
    EXPECT_EQ(0u, s.shared.used.load()) << bad;
  }
}

TEST(KeeperLedger, NoRoomLeftIsRefusedAndForgottenRoomIsUsedAgain) {
  Shared s(2);
  EXPECT_TRUE(s.daemon.watch(10));
  EXPECT_TRUE(s.daemon.watch(11));
  EXPECT_FALSE(s.daemon.watch(12));
  EXPECT_EQ((std::vector<pid_t>{10, 11}), s.groups_to_kill());
  s.daemon.forget(10);
  EXPECT_TRUE(s.daemon.watch(12));
  EXPECT_EQ((std::vector<pid_t>{12, 11}), s.groups_to_kill());
}

TEST(KeeperLedger, ACountBeyondItsSlotsIsNotReadPastThem) {
  // A count the reader cannot trust (the memory is shared) never makes it
  // read beyond the slots it has.
  Shared s(2);
  s.daemon.watch(10);
  s.daemon.watch(11);
  s.shared.used.store(1000);
  EXPECT_EQ((std::vector<pid_t>{10, 11}), s.groups_to_kill());
}

TEST(KeeperLedger, TheJobDirectoryIsNamedWholeAndALaterOneReplacesIt) {
  Shared s;
  EXPECT_EQ("", s.dir());
  EXPECT_TRUE(s.daemon.directory("/tmp/orca-7-1-XyZ"));
  EXPECT_EQ("/tmp/orca-7-1-XyZ", s.dir());
  EXPECT_TRUE(s.daemon.directory("/tmp/b"));
  EXPECT_EQ("/tmp/b", s.dir()) << "a shorter path must not keep the longer one's tail";
  // Named with the clean end or not: only the keeper's use of it differs.
  s.daemon.end();
  EXPECT_EQ("/tmp/b", s.dir());
}

TEST(KeeperLedger, ADirectoryOfNoLengthTooLongOrWithAZeroByteIsRefused) {
  Shared s;
  ASSERT_TRUE(s.daemon.directory("/tmp/kept"));
  EXPECT_FALSE(s.daemon.directory(""));
  EXPECT_FALSE(s.daemon.directory(std::string(kMaxKeeperPath + 1, 'a')));
  EXPECT_FALSE(s.daemon.directory(std::string("/tmp/a\0b", 8)));
  EXPECT_EQ("/tmp/kept", s.dir()) << "a refused path replaced the one named";
  EXPECT_TRUE(s.daemon.directory("/" + std::string(kMaxKeeperPath - 1, 'a')));
  EXPECT_EQ(kMaxKeeperPath, s.dir().size());
}

TEST(KeeperLedger, AHalfWrittenDirectoryIsNoDirectory) {
  // orcad killed while it writes the path: the length is 0 until the
  // bytes are in, and a length whose path is not terminated is refused.
  Shared s;
  s.shared.directory_length.store(5);
  std::memcpy(s.shared.directory, "/tmp/abc", 8);
  EXPECT_EQ("", s.dir());
}

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

  /* `churn`: groups watched and forgotten again after the rank's, 2 ms
   * apart, as ranks that come and go. */
  explicit FakeDaemon(bool end_cleanly, const std::string& directory = {}, int churn = 0) {
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
      for (int i = 0; i < churn; ++i) {
        k.value().watch(1000000 + i);
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        k.value().forget(1000000 + i);
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
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

// Ranks that come and go do not wake the keeper: it sleeps once, in its
// read, until the daemon ends (a word on the pipe per group woke it twice
// a rank). Read from its own /proc figures.
TEST_F(RankKeeperProcess, RanksComingAndGoingDoNotWakeTheKeeper) {
  fake_.emplace(false, std::string(), 20);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // whatever it would do, done
  std::ifstream status("/proc/" + std::to_string(fake_->keeper) + "/status");
  std::string line;
  long voluntary = -1;
  while (std::getline(status, line)) {
    if (line.rfind("voluntary_ctxt_switches:", 0) == 0) voluntary = std::stol(line.substr(24));
  }
  ASSERT_GE(voluntary, 0) << "no voluntary_ctxt_switches in /proc/PID/status";
  EXPECT_LE(voluntary, 3) << "the keeper woke for the ranks that came and went";
  // And it still does its work: the rank's group goes with the daemon.
  ASSERT_NO_FATAL_FAILURE(kill_daemon_and_reap_all("the keeper did not exit"));
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
