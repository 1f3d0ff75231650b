// UidGate over socketpairs and a fake clock: a connection of the owner's
// uid is let through with its process as the source of its handshake
// slot; any other is refused, and the refusals are logged at most once a
// second with a count of the rest. As root, also a real connection from a
// child that became user nobody.
#include "oob/usock/uid_gate.h"

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <grp.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

namespace orca::oob::usock {
namespace {

using namespace std::chrono_literals;

struct Pair {
  Pair() {
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fd) != 0) throw std::runtime_error("socketpair");
  }
  ~Pair() {
    ::close(fd[0]);
    ::close(fd[1]);
  }
  int fd[2];
};

const auto kT0 = LogThrottle::Clock::time_point{} + 1000s;

TEST(UidGate, TheOwnersConnectionsPassKeyedByTheirProcess) {
  UidGate gate(::geteuid());
  Pair p;
  auto v = gate.check(p.fd[0], "@orca/test", kT0);
  EXPECT_TRUE(v.admitted);
  EXPECT_EQ(v.source, "pid " + std::to_string(::getpid()));
  EXPECT_TRUE(v.log_line.empty());
  EXPECT_EQ(gate.refused(), 0u);
}

TEST(UidGate, AnotherUidIsRefusedAndSaysWhoAndWhy) {
  const uid_t other = ::geteuid() + 1;
  UidGate gate(other);
  Pair p;
  auto v = gate.check(p.fd[0], "@orca/7.0/1/abc", kT0);
  EXPECT_FALSE(v.admitted);
  EXPECT_TRUE(v.source.empty());
  const std::string who = "connection of uid " + std::to_string(::geteuid()) + " (pid " + std::to_string(::getpid()) + ")";
  EXPECT_NE(v.log_line.find(who), std::string::npos) << v.log_line;
  EXPECT_NE(v.log_line.find("to @orca/7.0/1/abc at once: only uid " + std::to_string(other) + ", this job's own"),
            std::string::npos)
      << v.log_line;
  EXPECT_EQ(v.log_line.find("more since"), std::string::npos) << "nothing was left out yet: " << v.log_line;
}

TEST(UidGate, RefusalsAreLoggedAtMostOnceASecondCountingTheRest) {
  UidGate gate(::geteuid() + 1);
  Pair p;
  int lines = 0;
  for (int i = 0; i < 1000; ++i) lines += !gate.check(p.fd[0], "@l", kT0 + i * 1ms).log_line.empty();
  EXPECT_EQ(lines, 1);
  auto v = gate.check(p.fd[0], "@l", kT0 + 1000ms);
  EXPECT_NE(v.log_line.find("(999 more since the last such line)"), std::string::npos) << v.log_line;
  EXPECT_EQ(gate.refused(), 1001u);
  // Their own connections are never throttled or counted.
  UidGate mine(::geteuid());
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(mine.check(p.fd[0], "@l", kT0).admitted);
}

TEST(UidGate, ASocketTheKernelCannotNameIsRefused) {
  UidGate gate(::geteuid());
  int pipe_fd[2];
  ASSERT_EQ(::pipe(pipe_fd), 0);
  auto v = gate.check(pipe_fd[0], "@l", kT0);
  ::close(pipe_fd[0]);
  ::close(pipe_fd[1]);
  EXPECT_FALSE(v.admitted);
  EXPECT_NE(v.log_line.find("whose peer the kernel does not name"), std::string::npos) << v.log_line;
}

// The real thing: a child that became nobody connects to an abstract
// listener of ours, as any local user can.
TEST(UidGate, AConnectionFromUserNobodyIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root, to run a child as user nobody (uid 65534)";
  int listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(listener, 0);
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  const std::string name = "orca-test/uid-gate/" + std::to_string(::getpid());
  std::memcpy(sa.sun_path + 1, name.data(), name.size());
  const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  ASSERT_EQ(::bind(listener, reinterpret_cast<const sockaddr*>(&sa), len), 0) << std::strerror(errno);
  ASSERT_EQ(::listen(listener, 4), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (::setgroups(0, nullptr) != 0 || ::setresgid(65534, 65534, 65534) != 0 || ::setresuid(65534, 65534, 65534) != 0) {
      ::_exit(2);
    }
    const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
    if (s < 0 || ::connect(s, reinterpret_cast<const sockaddr*>(&sa), len) != 0) ::_exit(3);
    char byte;
    (void)::read(s, &byte, 1);  // until the parent is done with it
    ::_exit(0);
  }
  const int c = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
  ASSERT_GE(c, 0);
  UidGate gate(0);
  auto v = gate.check(c, "@" + name, kT0);
  ::close(c);
  ::close(listener);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child could not become nobody or connect";
  EXPECT_FALSE(v.admitted);
  EXPECT_NE(v.log_line.find("connection of uid 65534 (pid " + std::to_string(child) + ")"), std::string::npos)
      << v.log_line;
}

}  // namespace
}  // namespace orca::oob::usock
