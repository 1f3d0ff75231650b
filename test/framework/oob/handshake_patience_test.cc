// HandshakePatience: a running peer is waited for up to the patience, a
// stopped or gone one never past the timeout, an unknown one (TCP) by the
// timeout alone; and peer_process_of reads those states off real
// processes at the other end of real sockets.
#include "oob/handshake_patience.h"

#include <gtest/gtest.h>

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>

namespace orca::oob {
namespace {

using namespace std::chrono_literals;
using State = PeerProcess::State;

TEST(HandshakePatience, ARunningPeerIsWaitedForUpToThePatience) {
  const HandshakePatience p(5000ms, 15000ms, "oob_usock_handshake_patience");
  const PeerProcess running{.state = State::Running, .pid = 42};
  EXPECT_FALSE(p.period_ended(1, running));  // 5 s
  EXPECT_FALSE(p.period_ended(2, running));  // 10 s
  EXPECT_FALSE(p.period_ended(3, running));  // 15 s
  const auto why = p.period_ended(4, running);  // 20 s = timeout + patience
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("process 42 was running all along"), std::string::npos) << *why;
  EXPECT_NE(why->find("20000 ms passed in all (oob_usock_handshake_patience)"), std::string::npos) << *why;
}

TEST(HandshakePatience, AStoppedOrGonePeerIsGivenUpAtTheTimeout) {
  const HandshakePatience p(5000ms, 60000ms, "x_handshake_patience");
  const auto stopped = p.period_ended(1, {.state = State::Stopped, .pid = 7});
  ASSERT_TRUE(stopped);
  EXPECT_EQ(*stopped, "; its process 7 is stopped");
  const auto gone = p.period_ended(1, {.state = State::Gone, .pid = 8});
  ASSERT_TRUE(gone);
  EXPECT_EQ(*gone, "; its process 8 is gone");
  // A peer that stops after being waited for is given up at once too.
  EXPECT_FALSE(p.period_ended(1, {.state = State::Running, .pid = 9}));
  EXPECT_TRUE(p.period_ended(2, {.state = State::Stopped, .pid = 9}));
}

TEST(HandshakePatience, AnotherUsersListenerIsNeverWaitedFor) {
  const HandshakePatience p(5000ms, 60000ms, "x_handshake_patience");
  const auto why = p.period_ended(1, {.state = State::Stranger, .pid = 5, .uid = 65534});
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("process 5 of uid 65534, not this user's"), std::string::npos) << *why;
}

TEST(HandshakePatience, NothingToGoByMeansTheTimeoutAlone) {
  const HandshakePatience p(5000ms, 60000ms, "x_handshake_patience");
  const auto why = p.period_ended(1, {});
  ASSERT_TRUE(why);
  EXPECT_EQ(*why, "");
}

TEST(HandshakePatience, NoPatienceGivesUpAtTheTimeout) {
  const HandshakePatience p(5000ms, 0ms, "x_handshake_patience");
  EXPECT_TRUE(p.period_ended(1, {.state = State::Running, .pid = 1}));
}

// A listener in a forked child, and this process connected to it.
struct ListeningChild {
  pid_t pid = -1;
  int fd = -1;
  /* `uid` >= 0: the child listens as that user (needs root). */
  explicit ListeningChild(int uid = -1) {
    int ready[2];
    if (::pipe(ready) != 0) return;
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    const std::string name = "orca-patience-test-" + std::to_string(::getpid());
    std::memcpy(sa.sun_path + 1, name.data(), name.size());
    const socklen_t len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
    pid = ::fork();
    if (pid == 0) {
      if (uid >= 0 && ::setuid(static_cast<uid_t>(uid)) != 0) ::_exit(1);
      const int l = ::socket(AF_UNIX, SOCK_STREAM, 0);
      if (::bind(l, reinterpret_cast<sockaddr*>(&sa), len) != 0 || ::listen(l, 4) != 0) ::_exit(1);
      (void)!::write(ready[1], "x", 1);
      for (;;) ::pause();  // never accepts: the backlog holds the connection
    }
    char c;
    (void)!::read(ready[0], &c, 1);
    ::close(ready[0]);
    ::close(ready[1]);
    fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&sa), len) != 0) {
      ::close(fd);
      fd = -1;
    }
  }
  ~ListeningChild() {
    if (fd >= 0) ::close(fd);
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  }
};

TEST(PeerProcessOf, NamesTheListenerAndSeesItStopAndDie) {
  ListeningChild child;
  ASSERT_GT(child.pid, 0);
  ASSERT_GE(child.fd, 0);
  PeerProcess p = peer_process_of(child.fd);
  EXPECT_EQ(p.pid, child.pid);
  EXPECT_EQ(p.state, State::Running);

  ASSERT_EQ(::kill(child.pid, SIGSTOP), 0);
  siginfo_t info{};
  ASSERT_EQ(::waitid(P_PID, static_cast<id_t>(child.pid), &info, WSTOPPED | WNOWAIT), 0);
  EXPECT_EQ(peer_process_of(child.fd).state, State::Stopped);

  ASSERT_EQ(::kill(child.pid, SIGKILL), 0);
  ASSERT_EQ(::waitid(P_PID, static_cast<id_t>(child.pid), &info, WEXITED | WNOWAIT), 0);  // a zombie now
  EXPECT_EQ(peer_process_of(child.fd).state, State::Gone);
  ::waitpid(child.pid, nullptr, 0);
  child.pid = -1;
  EXPECT_EQ(peer_process_of(child.fd).state, State::Gone);  // reaped: no such process
}

TEST(PeerProcessOf, AnotherUsersListenerIsAStranger) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to listen as another user";
  ListeningChild child(65534);
  ASSERT_GT(child.pid, 0);
  ASSERT_GE(child.fd, 0);
  const PeerProcess p = peer_process_of(child.fd);
  EXPECT_EQ(p.state, State::Stranger);
  EXPECT_EQ(p.pid, child.pid);
  EXPECT_EQ(p.uid, 65534u);
}

TEST(PeerProcessOf, ATcpSocketIsUnknown) {
  const int l = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(l, reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0);
  ASSERT_EQ(::listen(l, 1), 0);
  socklen_t len = sizeof sa;
  ASSERT_EQ(::getsockname(l, reinterpret_cast<sockaddr*>(&sa), &len), 0);
  const int c = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_EQ(::connect(c, reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0);
  EXPECT_EQ(peer_process_of(c).state, State::Unknown);
  ::close(c);
  ::close(l);
}

}  // namespace
}  // namespace orca::oob
