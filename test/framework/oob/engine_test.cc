// The oob stream Engine over socketpairs, without root: the handshake to
// established, raced dials that must leave both ends on one connection,
// the pending-connection caps, no per-peer state before the secret is
// proven, and an idle peer's closed connection reported for reconnection.
#include <orca/event_loop.h>
#include <orca/oob_engine.h>

#include "oob/frame_codec.h"

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace orca::oob {
namespace {

using namespace std::chrono_literals;

const ProcessName kA{7, 1};
const ProcessName kB{7, 2};

std::pair<UniqueFd, UniqueFd> stream_pair() {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) != 0) throw std::runtime_error("socketpair");
  return {UniqueFd(sv[0]), UniqueFd(sv[1])};
}

/* One process's engine and what it saw. */
struct Side {
  Side(EventLoop& loop, ProcessName self, EngineConfig base = {}) {
    base.self = self;
    base.secret = {1, 2, 3, 4, 5, 6, 7, 8};
    EngineCallbacks cb;
    cb.deliver = [this](ProcessName from, std::uint32_t, std::span<const std::uint8_t> bytes) {
      ++delivered;
      last_from = from;
      last_size = bytes.size();
    };
    cb.want_connection = [this](ProcessName peer) { wanted.push_back(peer); };
    cb.log = [this](int, const std::string& text) { log.push_back(text); };
    engine = std::make_unique<Engine>(loop, std::move(base), std::move(cb));
  }
  size_t log_count(const std::string& needle) const {
    size_t n = 0;
    for (const auto& l : log) n += l.find(needle) != std::string::npos;
    return n;
  }
  std::unique_ptr<Engine> engine;
  size_t delivered = 0;
  ProcessName last_from;
  size_t last_size = 0;
  std::vector<ProcessName> wanted;
  std::vector<std::string> log;
};

class EngineTest : public ::testing::Test {
 protected:
  EventLoop loop_;
};

TEST_F(EngineTest, HandshakeThenMessagesInOrder) {
  Side a(loop_, kA), b(loop_, kB);
  auto [fa, fb] = stream_pair();
  ASSERT_TRUE(b.engine->accept(std::move(fb), "b <- a", "a"));
  bool done = false;
  Status outcome = Message("test", "not-yet");
  auto attempt = a.engine->dial(std::move(fa), kB, "a -> b", [&](Status st) {
    done = true;
    outcome = st;
  });
  ASSERT_TRUE(loop_.run_until([&] { return done && b.engine->connected(kA); }, 5s));
  ASSERT_TRUE(outcome.ok()) << outcome.error().summary();
  EXPECT_EQ(b.engine->pending(), 0u);
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(a.engine->send(kB, 1, Payload(std::vector<std::uint8_t>(64, 1))).ok());
  ASSERT_TRUE(loop_.run_until([&] { return b.delivered == 100; }, 5s));
  EXPECT_EQ(b.last_from, kA);
  ASSERT_TRUE(loop_.run_until([&] { return a.engine->unacknowledged(kB) == 0; }, 5s));
}

TEST_F(EngineTest, RacedDialsLeaveBothEndsOnTheSameConnection) {
  // What oob/tcp's race does with stagger 0: several connections to one
  // peer handshake at once; the first to finish wins and the rest are
  // cancelled in its callback. The server must keep the client's winner.
  for (int round = 0; round < 20; ++round) {
    Side a(loop_, kA), b(loop_, kB);
    constexpr int kCandidates = 6;
    std::vector<std::unique_ptr<Engine::Attempt>> attempts;
    int winner = -1;
    for (int i = 0; i < kCandidates; ++i) {
      auto [fa, fb] = stream_pair();
      ASSERT_TRUE(b.engine->accept(std::move(fb), "b <- a#" + std::to_string(i), "a"));
      attempts.push_back(a.engine->dial(std::move(fa), kB, "a#" + std::to_string(i) + " -> b", [&, i](Status st) {
        if (!st || winner >= 0) return;
        winner = i;
        for (int j = 0; j < kCandidates; ++j) {
          if (j != i && attempts[static_cast<size_t>(j)]) attempts[static_cast<size_t>(j)]->cancel("another address won");
        }
      }));
    }
    ASSERT_TRUE(loop_.run_until([&] { return winner >= 0 && b.engine->connected(kA); }, 5s)) << "round " << round;
    for (int i = 0; i < 2000; ++i) ASSERT_TRUE(a.engine->send(kB, 1, Payload(std::vector<std::uint8_t>(64, 2))).ok());
    ASSERT_TRUE(loop_.run_until([&] { return b.delivered == 2000 && a.engine->unacknowledged(kB) == 0; }, 10s));
    EXPECT_EQ(a.engine->connection_label(kB), "a#" + std::to_string(winner) + " -> b");
    EXPECT_EQ(b.engine->connection_label(kA), "b <- a#" + std::to_string(winner)) << "round " << round;
    // One connection each way came up, and none was replaced afterwards.
    EXPECT_EQ(a.log_count("connected to 7.2 over"), 1u) << "round " << round;
    EXPECT_EQ(b.log_count("connected to 7.1 over"), 1u) << "round " << round;
    EXPECT_EQ(b.log_count("replaced by"), 0u);
    EXPECT_TRUE(a.wanted.empty()) << "the client lost its connection and asked for another";
  }
}

TEST_F(EngineTest, PendingConnectionsAreCappedInAllAndPerSource) {
  EngineConfig config;
  config.max_pending = 5;
  config.max_pending_per_source = 3;
  Side b(loop_, kB, config);
  std::vector<UniqueFd> clients;
  auto offer = [&](const std::string& source) {
    auto [mine, theirs] = stream_pair();
    clients.push_back(std::move(mine));
    return b.engine->accept(std::move(theirs), "b <- " + source, source);
  };
  EXPECT_TRUE(offer("x"));
  EXPECT_TRUE(offer("x"));
  EXPECT_TRUE(offer("x"));
  EXPECT_FALSE(offer("x")) << "a fourth from one source";
  EXPECT_TRUE(offer("y"));
  EXPECT_TRUE(offer("z"));
  EXPECT_FALSE(offer("w")) << "a sixth in all";
  EXPECT_EQ(b.engine->pending(), 5u);
  EXPECT_EQ(b.log_count("max_pending"), 2u);
  // A refused socket is closed at once: its client reads end of stream.
  std::uint8_t byte;
  EXPECT_EQ(::read(clients[3].get(), &byte, 1), 0);
  // Closing clients frees their share.
  clients[0].reset();
  ASSERT_TRUE(loop_.run_until([&] { return b.engine->pending() == 4; }, 5s));
  EXPECT_TRUE(offer("x"));
}

TEST_F(EngineTest, ClaimedNamesCreateNoStateBeforeTheSecretIsProven) {
  Side b(loop_, kB);
  for (std::uint32_t i = 0; i < 500; ++i) {
    auto [mine, theirs] = stream_pair();
    ASSERT_TRUE(b.engine->accept(std::move(theirs), "b <- forger", "forger#" + std::to_string(i)));
    // A HELLO from "7.<1000+i>" to kB, then nothing: the server answers
    // with a CHALLENGE, and the forger leaves.
    std::vector<std::uint8_t> hello = {'O', 'R', 'C', 'A'};
    put_u16(hello, 2);
    put_u32(hello, 7);
    put_u32(hello, 1000 + i);
    put_u32(hello, kB.job);
    put_u32(hello, kB.vpid);
    hello.resize(hello.size() + 32, 0xab);
    put_u64(hello, 0);
    FrameHeader h;
    h.type = FrameType::Hello;
    h.length = static_cast<std::uint32_t>(hello.size());
    std::uint8_t header[kHeaderSize];
    encode_header(h, header);
    ASSERT_EQ(::write(mine.get(), header, kHeaderSize), static_cast<ssize_t>(kHeaderSize));
    ASSERT_EQ(::write(mine.get(), hello.data(), hello.size()), static_cast<ssize_t>(hello.size()));
    mine.reset();
    ASSERT_TRUE(loop_.run_until([&] { return b.engine->pending() == 0; }, 5s));
  }
  ASSERT_TRUE(loop_.run_until([&] { return b.engine->pending() == 0; }, 5s));
  EXPECT_EQ(b.engine->peer_count(), 0u) << "a claimed name left per-peer state behind";
}

TEST_F(EngineTest, TrafficBeforeTheHandshakeClosesAtTheHeader) {
  Side b(loop_, kB);
  auto [mine, theirs] = stream_pair();
  ASSERT_TRUE(b.engine->accept(std::move(theirs), "b <- liar", "liar"));
  FrameHeader h;
  h.type = FrameType::Data;
  h.seq = 1;
  h.length = 60u << 20;
  std::uint8_t header[kHeaderSize];
  encode_header(h, header);
  ASSERT_EQ(::write(mine.get(), header, kHeaderSize), static_cast<ssize_t>(kHeaderSize));
  ASSERT_TRUE(loop_.run_until([&] { return b.engine->pending() == 0; }, 5s));
  EXPECT_EQ(b.log_count("traffic before the handshake finished"), 1u);
}

TEST_F(EngineTest, AnIdlePeersClosedConnectionAsksForAnother) {
  Side a(loop_, kA);
  auto b = std::make_unique<Side>(loop_, kB);
  auto [fa, fb] = stream_pair();
  ASSERT_TRUE(b->engine->accept(std::move(fb), "b <- a", "a"));
  bool done = false;
  auto attempt = a.engine->dial(std::move(fa), kB, "a -> b", [&](Status) { done = true; });
  ASSERT_TRUE(loop_.run_until([&] { return done && b->engine->connected(kA); }, 5s));
  ASSERT_TRUE(a.engine->send(kB, 1, Payload(std::vector<std::uint8_t>(8, 3))).ok());
  ASSERT_TRUE(loop_.run_until([&] { return a.engine->unacknowledged(kB) == 0; }, 5s));
  ASSERT_TRUE(a.wanted.empty());
  b.reset();  // the peer dies with nothing unacknowledged
  ASSERT_TRUE(loop_.run_until([&] { return !a.wanted.empty(); }, 5s)) << "the idle peer's death went unnoticed";
  EXPECT_EQ(a.wanted.front(), kB);
  EXPECT_FALSE(a.engine->connected(kB));
}

TEST_F(EngineTest, ACancelledAttemptSaysWhy) {
  Side a(loop_, kA), b(loop_, kB);
  auto [fa, fb] = stream_pair();
  auto attempt = a.engine->dial(std::move(fa), kB, "a -> b", [](Status) {});
  attempt->cancel("no connection within oob_tcp_connect_timeout (1000 ms)");
  EXPECT_EQ(a.log_count("closed: no connection within oob_tcp_connect_timeout"), 1u);
  EXPECT_EQ(a.log_count("another address won"), 0u);
}

}  // namespace
}  // namespace orca::oob
