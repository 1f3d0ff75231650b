// The oob stream Engine over socketpairs, without root: the handshake to
// established, raced dials that must leave both ends on one connection,
// who gives way when every handshake slot is taken (and that a proven
// source's reconnect gets one), no per-peer state before the secret is
// proven, and an idle peer's closed connection reported for reconnection.
// Through a Relay the test controls: frames split at every byte boundary,
// reconnect and resend, duplicate drop, back-pressure, a peer closing
// mid-frame, teardown while handshakes are in flight, a server that
// closes right after its CHALLENGE; and heartbeat loss
// decided by a fake clock (EngineConfig::clock).
#include <orca/event_loop.h>
#include <orca/oob_engine.h>

#include "oob/frame_codec.h"
#include "oob/handshake.h"

#include <gtest/gtest.h>

#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <deque>
#include <memory>
#include <optional>
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
    // These engines stand in for oob/tcp's unless a test names another owner.
    if (base.variable_prefix.empty()) base.variable_prefix = "oob_tcp_";
    EngineCallbacks cb;
    cb.deliver = [this](ProcessName from, std::uint32_t tag, std::span<const std::uint8_t> bytes) {
      ++delivered;
      last_from = from;
      last_size = bytes.size();
      tags.push_back(tag);
      messages.emplace_back(bytes.begin(), bytes.end());
    };
    cb.want_connection = [this](ProcessName peer) { wanted.push_back(peer); };
    cb.ready = [this](ProcessName peer) { ready.push_back(peer); };
    cb.connected = [this](ProcessName peer) {
      connected.push_back(peer);
      if (on_connected) on_connected(peer);
    };
    cb.log = [this](int level, const std::string& text) {
      log.push_back(text);
      levels.push_back(level);
    };
    engine = std::make_unique<Engine>(loop, std::move(base), std::move(cb));
  }
  size_t log_count(const std::string& needle) const {
    size_t n = 0;
    for (const auto& l : log) n += l.find(needle) != std::string::npos;
    return n;
  }
  /* Lines at `level` that contain `needle`. */
  size_t log_count_at(int level, const std::string& needle) const {
    size_t n = 0;
    for (size_t i = 0; i < log.size(); ++i) n += levels[i] == level && log[i].find(needle) != std::string::npos;
    return n;
  }
  std::unique_ptr<Engine> engine;
  std::vector<ProcessName> ready;  // EngineCallbacks::ready, in order
  std::vector<ProcessName> connected;  // EngineCallbacks::connected, in order
  std::function<void(ProcessName)> on_connected;  // run by it, after recording
  size_t delivered = 0;
  ProcessName last_from;
  size_t last_size = 0;
  std::vector<std::uint32_t> tags;                  // of every delivered message, in order
  std::vector<std::vector<std::uint8_t>> messages;  // their bytes
  std::vector<ProcessName> wanted;
  std::vector<std::string> log;
  std::vector<int> levels;  // of each line of log
};

/* Message `n` of a test: `size` bytes, the first four (when there is room)
 * n itself, the rest a pattern of n, so that a message cut, shifted or
 * delivered twice shows. */
std::vector<std::uint8_t> numbered(std::uint32_t n, size_t size) {
  std::vector<std::uint8_t> bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<std::uint8_t>(n * 31 + i);
  for (size_t i = 0; i < 4 && i < size; ++i) bytes[i] = static_cast<std::uint8_t>(n >> (8 * i));
  return bytes;
}

/* What the test puts between a client engine and a server engine: each
 * engine has one end of a socketpair of its own, the relay holds the other
 * two ends and copies bytes across, each direction (a Pipe) on its own
 * terms. A Pipe writes in pieces of the sizes it is given, in turn, and
 * writes the next piece only once the receiver has read the last one
 * (SIOCOUTQ is 0), so that no read of the receiving engine spans two
 * pieces. It can hold what it reads, let a budget of bytes through and
 * then hold, and passes on the end of its stream once everything before it
 * went through. cut() drops both connections at once, mid-frame or not. */
class Relay {
 public:
  class Pipe {
   public:
    Pipe(EventLoop& loop, int from, int to)
        : from_(from),
          to_(to),
          read_(loop, from, IoWatch::kRead, [this](short) { on_readable(); }),
          tick_(loop, [this] { pump(); }) {
      read_.enable();
    }
    /* The sizes of the pieces written, in turn (default: 64 KiB). */
    void pieces(std::vector<size_t> sizes) { sizes_ = std::move(sizes); }
    /* Stops forwarding; what arrives waits here. */
    void hold() { held_ = true; }
    /* Forwards again, without a budget. */
    void release() {
      held_ = false;
      budget_.reset();
      schedule();
    }
    /* Forwards `bytes` more, then holds; on_spent runs once the receiver
     * has read them. */
    void allow(size_t bytes) {
      held_ = false;
      budget_ = bytes;
      spent_reported_ = false;
      schedule();
    }
    std::function<void()> on_spent;
    size_t buffered() const noexcept { return buffer_.size(); }
    size_t forwarded() const noexcept { return forwarded_; }
    void stop() {
      dead_ = true;
      read_.disable();
      tick_.cancel();
      buffer_.clear();
    }

   private:
    void schedule() {
      if (!dead_ && !tick_.pending()) tick_.start(std::chrono::microseconds(0));
    }
    bool receiver_has_read_all() const {
      int unread = 0;
      return ::ioctl(to_, SIOCOUTQ, &unread) == 0 && unread == 0;
    }
    void on_readable() {
      std::uint8_t chunk[64 * 1024];
      for (;;) {
        const ssize_t r = ::read(from_, chunk, sizeof chunk);
        if (r > 0) {
          buffer_.insert(buffer_.end(), chunk, chunk + r);
          continue;
        }
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        eof_ = true;  // end of stream, or reset: pass it on after the rest
        read_.disable();
        break;
      }
      schedule();
    }
    void pump() {
      if (dead_) return;
      const bool spent = budget_ && *budget_ == 0;
      if (!buffer_.empty() && !held_ && !spent) {
        if (!receiver_has_read_all()) {
          schedule();
          return;
        }
        size_t n = std::min(sizes_[next_piece_++ % sizes_.size()], buffer_.size());
        if (budget_) n = std::min(n, *budget_);
        std::vector<std::uint8_t> piece(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(n));
        const ssize_t w = ::send(to_, piece.data(), piece.size(), MSG_NOSIGNAL);
        if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
          stop();  // the receiver has gone: what it did not take is lost
          return;
        }
        if (w > 0) {
          buffer_.erase(buffer_.begin(), buffer_.begin() + w);
          forwarded_ += static_cast<size_t>(w);
          if (budget_) *budget_ -= static_cast<size_t>(w);
        }
        schedule();
        return;
      }
      if (spent && !spent_reported_) {
        if (!receiver_has_read_all()) {
          schedule();
          return;
        }
        spent_reported_ = true;
        if (on_spent) on_spent();
        return;
      }
      if (eof_ && buffer_.empty() && !held_ && !spent && !shut_) {
        shut_ = true;
        ::shutdown(to_, SHUT_WR);
      }
    }

    int from_;
    int to_;
    IoWatch read_;
    Timer tick_;
    std::deque<std::uint8_t> buffer_;
    std::vector<size_t> sizes_{64 * 1024};
    size_t next_piece_ = 0;
    std::optional<size_t> budget_;
    size_t forwarded_ = 0;
    bool held_ = false;
    bool eof_ = false;
    bool shut_ = false;
    bool spent_reported_ = false;
    bool dead_ = false;
  };

  explicit Relay(EventLoop& loop) {
    auto [client_engine, client_relay] = stream_pair();
    auto [server_engine, server_relay] = stream_pair();
    client_engine_ = std::move(client_engine);
    server_engine_ = std::move(server_engine);
    client_relay_ = std::move(client_relay);
    server_relay_ = std::move(server_relay);
    up_ = std::make_unique<Pipe>(loop, client_relay_.get(), server_relay_.get());
    down_ = std::make_unique<Pipe>(loop, server_relay_.get(), client_relay_.get());
  }
  /* The ends to hand to the client's dial() and the server's accept(). */
  UniqueFd client_end() { return std::move(client_engine_); }
  UniqueFd server_end() { return std::move(server_engine_); }
  /* Client to server, and back. */
  Pipe& up() noexcept { return *up_; }
  Pipe& down() noexcept { return *down_; }
  /* Both engines' connections end here and now; what the relay holds is
   * lost. Safe from a Pipe's own on_spent. */
  void cut() {
    up_->stop();
    down_->stop();
    ::shutdown(client_relay_.get(), SHUT_RDWR);
    ::shutdown(server_relay_.get(), SHUT_RDWR);
  }

 private:
  UniqueFd client_engine_, server_engine_, client_relay_, server_relay_;
  std::unique_ptr<Pipe> up_, down_;
};

/* Dials kB from `a` over `fa`, `b` accepting `fb`, and runs until both
 * ends are connected. The attempt is kept in `attempts`. */
::testing::AssertionResult establish(EventLoop& loop, Side& a, Side& b, UniqueFd fa, UniqueFd fb,
                                     std::vector<std::unique_ptr<Engine::Attempt>>& attempts,
                                     const std::string& label = "a -> b") {
  b.engine->accept(std::move(fb), "b <- " + label.substr(0, label.find(' ')), "a");
  auto outcome = std::make_shared<std::optional<Status>>();
  attempts.push_back(a.engine->dial(std::move(fa), kB, label, [outcome](const Status& st) { *outcome = st; }));
  if (!loop.run_until([&] { return outcome->has_value() && b.engine->connected(kA); }, std::chrono::seconds(10))) {
    return ::testing::AssertionFailure() << "no connection within 10 s";
  }
  if (!outcome->value()) return ::testing::AssertionFailure() << outcome->value().error().summary();
  return ::testing::AssertionSuccess();
}

class EngineTest : public ::testing::Test {
 protected:
  /* `a` (kA) dials `b` (kB) over a socketpair and waits, 5 s at most,
   * until both ends hold the connection: the caller checks connected().
   * The attempt is the caller's to keep. */
  std::unique_ptr<Engine::Attempt> connect_a_to_b(Side& a, Side& b) {
    auto [fa, fb] = stream_pair();
    b.engine->accept(std::move(fb), "b <- a", "a");
    auto attempt = a.engine->dial(std::move(fa), kB, "a -> b", [](const Status&) {});
    loop_.run_until([&] { return a.engine->connected(kB) && b.engine->connected(kA); }, 5s);
    return attempt;
  }
  EventLoop loop_;
};

TEST_F(EngineTest, HandshakeThenMessagesInOrder) {
  Side a(loop_, kA), b(loop_, kB);
  auto [fa, fb] = stream_pair();
  b.engine->accept(std::move(fb), "b <- a", "a");
  bool done = false;
  Status outcome = Message("test", "not-yet");
  auto attempt = a.engine->dial(std::move(fa), kB, "a -> b", [&](const Status& st) {
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
      b.engine->accept(std::move(fb), "b <- a#" + std::to_string(i), "a");
      attempts.push_back(a.engine->dial(std::move(fa), kB, "a#" + std::to_string(i) + " -> b", [&, i](const Status& st) {
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

/* Sockets offered to an engine's accept() as if from `source`, the test
 * keeping the client ends: closed(i) says whether the engine closed the
 * i-th. */
struct Offers {
  explicit Offers(Engine& e) : engine(e) {}
  size_t offer(const std::string& source) {
    auto [mine, theirs] = stream_pair();
    clients.push_back(std::move(mine));
    const size_t i = clients.size() - 1;
    engine.accept(std::move(theirs), "b <- " + source + "#" + std::to_string(i), source);
    return i;
  }
  bool closed(size_t i) const {
    std::uint8_t byte;
    return ::read(clients[i].get(), &byte, 1) == 0;  // else -1, EAGAIN: still open
  }
  size_t closed_count() const {
    size_t n = 0;
    for (size_t i = 0; i < clients.size(); ++i) n += closed(i);
    return n;
  }
  Engine& engine;
  std::vector<UniqueFd> clients;
};

TEST_F(EngineTest, AFullEngineClosesTheOldestHandshakeOfWhoeverHoldsTheMost) {
  EngineConfig config;
  config.max_pending = 6;
  config.pending_reserve = 2;  // strangers share 4
  config.max_pending_per_source = 3;
  auto now = std::make_shared<std::chrono::steady_clock::time_point>(std::chrono::steady_clock::time_point{} + 100s);
  config.clock = [now] { return *now; };
  Side b(loop_, kB, config);
  Offers o(*b.engine);
  o.offer("x");
  o.offer("x");
  o.offer("x");
  EXPECT_EQ(o.closed_count(), 0u);
  o.offer("x");  // x beyond its 3: its own oldest gives way
  EXPECT_TRUE(o.closed(0));
  EXPECT_EQ(b.engine->pending(), 3u);
  EXPECT_EQ(b.log_count_at(0, "closed b <- x#0 for b <- x#3: x has 3 connections in their handshake "
                              "(oob_tcp_max_pending_per_source): its oldest gave way"),
            1u);
  o.offer("y");  // the strangers' 4 are taken: x 3, y 1
  EXPECT_EQ(b.engine->pending(), 4u);
  EXPECT_EQ(o.closed_count(), 1u);
  o.offer("z");  // beyond the strangers' share: x holds the most
  EXPECT_TRUE(o.closed(1));
  EXPECT_EQ(b.engine->pending(), 4u) << "strangers never reach the reserve";
  EXPECT_EQ(b.log_count_at(10, "connection b <- x#1 closed: its handshake slot went to b <- z#5: sources that have not "
                               "completed a handshake in this job hold all 4 handshake slots they may use "
                               "(oob_tcp_max_pending minus oob_tcp_pending_reserve): the oldest handshake of x, "
                               "which held 3, the most, gave way"),
            1u);
  // Within the same second: no second line at level 0; a second later,
  // one that counts it.
  EXPECT_EQ(b.log_count_at(0, "closed b <- "), 1u);
  *now += 1s;
  o.offer("w");
  EXPECT_TRUE(o.closed(2));
  EXPECT_EQ(b.log_count_at(0, "closed b <- x#2 for b <- w#6: "), 1u);
  EXPECT_EQ(b.log_count_at(0, "(1 more since the last such line)"), 1u);
  // Closing a client frees its slot.
  o.clients[3].reset();
  ASSERT_TRUE(loop_.run_until([&] { return b.engine->pending() == 3; }, 5s));
  o.offer("v");
  EXPECT_EQ(o.closed_count(), 3u) << "there was room";
}

TEST_F(EngineTest, AReconnectFromAProvenSourceGetsInWhileStrangersHoldTheirShare) {
  EngineConfig config;
  config.max_pending = 6;
  config.pending_reserve = 2;
  config.max_pending_per_source = 4;
  Side a(loop_, kA), b(loop_, kB, config);
  std::vector<std::unique_ptr<Engine::Attempt>> attempts;
  auto [fa, fb] = stream_pair();
  ASSERT_TRUE(establish(loop_, a, b, std::move(fa), std::move(fb), attempts));  // from source "a": proven now
  Offers o(*b.engine);
  for (int i = 0; i < 12; ++i) o.offer(i % 3 == 0 ? "t" : "s");
  EXPECT_EQ(b.engine->pending(), 4u) << "the strangers' share";
  const size_t strangers_closed = o.closed_count();
  // The daemon reconnects (its old connection is given up): the reserve.
  a.engine->drop_connection(kB, "the test reconnects");
  auto [fa2, fb2] = stream_pair();
  ASSERT_TRUE(establish(loop_, a, b, std::move(fa2), std::move(fb2), attempts, "a#2 -> b"));
  EXPECT_EQ(o.closed_count(), strangers_closed) << "the reserve had room: no stranger was displaced";
  // The reserve taken as well (two more from "a" that never handshake):
  // the next reconnect takes a stranger's slot.
  o.offer("a");
  o.offer("a");
  EXPECT_EQ(b.engine->pending(), 6u);
  EXPECT_EQ(o.closed_count(), strangers_closed);
  a.engine->drop_connection(kB, "the test reconnects again");
  auto [fa3, fb3] = stream_pair();
  ASSERT_TRUE(establish(loop_, a, b, std::move(fa3), std::move(fb3), attempts, "a#3 -> b"));
  EXPECT_EQ(o.closed_count(), strangers_closed + 1);
  EXPECT_FALSE(o.closed(12));
  EXPECT_FALSE(o.closed(13)) << "the daemon's own pending ones are not what gave way";
  EXPECT_EQ(b.log_count_at(10, "its handshake slot went to b <- a#3: all 6 handshake slots are taken "
                               "(oob_tcp_max_pending): the oldest handshake of "),
            1u);
}

TEST_F(EngineTest, AnEngineWhoseReserveLeavesNewSourcesNoSlotIsRefused) {
  EngineConfig config;
  config.self = kB;
  config.secret = {1, 2, 3};
  config.variable_prefix = "oob_tcp_";
  config.max_pending = 16;
  config.pending_reserve = 16;
  EXPECT_THROW(Engine(loop_, config, EngineCallbacks{}), std::invalid_argument);
}

TEST_F(EngineTest, ClaimedNamesCreateNoStateBeforeTheSecretIsProven) {
  Side b(loop_, kB);
  for (std::uint32_t i = 0; i < 500; ++i) {
    auto [mine, theirs] = stream_pair();
    b.engine->accept(std::move(theirs), "b <- forger", "forger#" + std::to_string(i));
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
  b.engine->accept(std::move(theirs), "b <- liar", "liar");
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
  auto attempt = connect_a_to_b(a, *b);
  ASSERT_TRUE(a.engine->connected(kB) && b->engine->connected(kA));
  ASSERT_TRUE(a.engine->send(kB, 1, Payload(std::vector<std::uint8_t>(8, 3))).ok());
  ASSERT_TRUE(loop_.run_until([&] { return a.engine->unacknowledged(kB) == 0; }, 5s));
  ASSERT_TRUE(a.wanted.empty());
  b.reset();  // the peer dies with nothing unacknowledged
  ASSERT_TRUE(loop_.run_until([&] { return !a.wanted.empty(); }, 5s)) << "the idle peer's death went unnoticed";
  EXPECT_EQ(a.wanted.front(), kB);
  EXPECT_FALSE(a.engine->connected(kB));
}

TEST_F(EngineTest, APeerToldToEndIsNotDialedWhenItsConnectionCloses) {
  // orcarun tells a daemon to end and forgets it: the daemon's connection
  // closing is its end. Nothing is wanted (no dial, no lost report), and
  // what was still unacknowledged for it is dropped, not kept for a resend.
  Side a(loop_, kA);
  auto b = std::make_unique<Side>(loop_, kB);
  auto attempt = connect_a_to_b(a, *b);
  ASSERT_TRUE(a.engine->connected(kB) && b->engine->connected(kA));
  ASSERT_TRUE(a.engine->send(kB, 1, Payload(std::vector<std::uint8_t>(8, 3))).ok());  // the teardown
  ASSERT_TRUE(loop_.run_until([&] { return b->delivered == 1; }, 5s));
  a.engine->forget(kB);
  b.reset();  // it ends, its acknowledgement maybe never sent
  ASSERT_TRUE(loop_.run_until([&] { return !a.engine->connected(kB); }, 5s));
  EXPECT_FALSE(loop_.run_until([&] { return !a.wanted.empty(); }, 100ms)) << "a peer told to end was dialed again";
  EXPECT_EQ(a.engine->unacknowledged(kB), 0u);
  EXPECT_EQ(a.log_count("ended as told"), 1u);
  // A send undoes it: the peer is wanted again.
  ASSERT_TRUE(a.engine->send(kB, 1, Payload(std::vector<std::uint8_t>(8, 4))).ok());
  EXPECT_EQ(a.wanted, std::vector<ProcessName>{kB});
}

TEST_F(EngineTest, ACancelledAttemptSaysWhy) {
  Side a(loop_, kA), b(loop_, kB);
  auto [fa, fb] = stream_pair();
  auto attempt = a.engine->dial(std::move(fa), kB, "a -> b", [](const Status&) {});
  attempt->cancel("no connection within oob_tcp_connect_timeout (1000 ms)");
  EXPECT_EQ(a.log_count("closed: no connection within oob_tcp_connect_timeout"), 1u);
  EXPECT_EQ(a.log_count("another address won"), 0u);
}


// Connections through a Relay carry no heartbeats unless a test asks: a
// held direction must not turn into a silence the test did not mean.
EngineConfig quiet() {
  EngineConfig config;
  config.heartbeat = std::chrono::milliseconds(0);
  return config;
}

TEST_F(EngineTest, FramesSplitAtEveryByteBoundaryArriveIntactAndInOrder) {
  // Pieces of one byte split every frame, the handshake's included, at
  // every byte boundary; the others move the boundaries around, and the
  // mixed run splits headers and payloads at uneven places.
  const std::vector<std::vector<size_t>> patterns = {
      {1}, {2}, {3}, {7}, {1, 2, 3, 5, 7, 11, 13, 27, 28, 29, 64, 1000}};
  for (const auto& pattern : patterns) {
    SCOPED_TRACE("pieces of " + std::to_string(pattern.front()) + (pattern.size() > 1 ? " and others" : ""));
    Side a(loop_, kA), b(loop_, kB);
    Relay relay(loop_);
    relay.up().pieces(pattern);
    relay.down().pieces(pattern);
    std::vector<std::unique_ptr<Engine::Attempt>> attempts;
    ASSERT_TRUE(establish(loop_, a, b, relay.client_end(), relay.server_end(), attempts));
    // Empty messages, ones shorter and longer than a header, and (but for
    // the slowest patterns) one read straight into its own buffer.
    std::vector<size_t> sizes;
    for (size_t size = 0; size <= 70; ++size) sizes.push_back(size);
    if (pattern.size() > 1 || pattern.front() >= 7) sizes.push_back(64 * 1024 + 3);
    for (std::uint32_t i = 0; i < sizes.size(); ++i) {
      ASSERT_TRUE(a.engine->send(kB, 100 + i, Payload(numbered(i, sizes[i]))).ok());
      ASSERT_TRUE(b.engine->send(kA, 200 + i, Payload(numbered(i, sizes[i]))).ok());
    }
    ASSERT_TRUE(loop_.run_until(
        [&] {
          return b.messages.size() == sizes.size() && a.messages.size() == sizes.size() &&
                 a.engine->unacknowledged(kB) == 0 && b.engine->unacknowledged(kA) == 0;
        },
        60s))
        << b.messages.size() << " and " << a.messages.size() << " of " << sizes.size() << " arrived";
    for (std::uint32_t i = 0; i < sizes.size(); ++i) {
      EXPECT_EQ(b.tags[i], 100 + i);
      EXPECT_EQ(a.tags[i], 200 + i);
      EXPECT_TRUE(b.messages[i] == numbered(i, sizes[i])) << "message " << i << " to b";
      EXPECT_TRUE(a.messages[i] == numbered(i, sizes[i])) << "message " << i << " to a";
    }
    EXPECT_TRUE(a.wanted.empty());
    EXPECT_TRUE(b.wanted.empty());
  }
}

TEST_F(EngineTest, LargeMessagesReadIntoPlaceInterleaveWithSmallOnesIntact) {
  // A receiver reads a large payload straight into its buffer and then the
  // next header alone; small frames send it back to reading in bulk. Reads
  // that end inside a header, at a header's end, inside a large payload or
  // just before its last byte must all leave the stream intact.
  const std::vector<std::vector<size_t>> patterns = {
      {64 * 1024}, {28, 65536, 1, 27, 65535, 100000, 29, 3}, {65536 + 28 + 28 + 5, 13, 4096}};
  const std::vector<size_t> sizes = {70 * 1024, 0,         100,       64 * 1024,   64 * 1024, (1u << 20) + 5,
                                     3,         64 * 1024 - 1, 64 * 1024, 200 * 1024, 0,         0,
                                     64 * 1024, 28,        64 * 1024 + 1, 5};
  for (const auto& pattern : patterns) {
    SCOPED_TRACE("pieces of " + std::to_string(pattern.front()) + (pattern.size() > 1 ? " and others" : ""));
    Side a(loop_, kA), b(loop_, kB);
    Relay relay(loop_);
    relay.up().pieces(pattern);
    std::vector<std::unique_ptr<Engine::Attempt>> attempts;
    ASSERT_TRUE(establish(loop_, a, b, relay.client_end(), relay.server_end(), attempts));
    for (std::uint32_t i = 0; i < sizes.size(); ++i) ASSERT_TRUE(a.engine->send(kB, 100 + i, Payload(numbered(i, sizes[i]))).ok());
    ASSERT_TRUE(loop_.run_until([&] { return b.messages.size() == sizes.size() && a.engine->unacknowledged(kB) == 0; }, 60s))
        << b.messages.size() << " of " << sizes.size() << " arrived";
    for (std::uint32_t i = 0; i < sizes.size(); ++i) {
      EXPECT_EQ(b.tags[i], 100 + i);
      EXPECT_TRUE(b.messages[i] == numbered(i, sizes[i])) << "message " << i << " of " << sizes[i] << " bytes";
    }
  }
}

TEST_F(EngineTest, AfterACutUnacknowledgedMessagesGoAgainOnceEach) {
  Side a(loop_, kA, quiet()), b(loop_, kB, quiet());
  std::vector<std::unique_ptr<Engine::Attempt>> attempts;
  Relay first(loop_);
  ASSERT_TRUE(establish(loop_, a, b, first.client_end(), first.server_end(), attempts));
  // No acknowledgement gets back to a, and b gets 80 whole messages and
  // half of the 81st before the connection is cut.
  constexpr std::uint32_t kCount = 200;
  constexpr size_t kSize = 100;
  first.down().hold();
  first.up().allow(80 * (kHeaderSize + kSize) + kHeaderSize + kSize / 2);
  first.up().on_spent = [&first] { first.cut(); };
  for (std::uint32_t i = 0; i < kCount; ++i) ASSERT_TRUE(a.engine->send(kB, 1, Payload(numbered(i, kSize))).ok());
  ASSERT_TRUE(loop_.run_until([&] { return !a.wanted.empty() && !b.engine->connected(kA); }, 10s));
  EXPECT_EQ(b.delivered, 80u);
  EXPECT_EQ(a.engine->unacknowledged(kB), kCount) << "an acknowledgement crossed a held relay";
  EXPECT_EQ(a.wanted, std::vector<ProcessName>{kB});
  // The component connects again: b says it has 80, a sends the other 120.
  auto [fa, fb] = stream_pair();
  ASSERT_TRUE(establish(loop_, a, b, std::move(fa), std::move(fb), attempts));
  ASSERT_TRUE(loop_.run_until([&] { return b.delivered >= kCount && a.engine->unacknowledged(kB) == 0; }, 10s))
      << b.delivered << " delivered, " << a.engine->unacknowledged(kB) << " unacknowledged";
  loop_.run_until([] { return false; }, 50ms);  // a straggler would show now
  ASSERT_EQ(b.delivered, kCount);
  for (std::uint32_t i = 0; i < kCount; ++i) EXPECT_TRUE(b.messages[i] == numbered(i, kSize)) << "message " << i;
  EXPECT_EQ(a.log_count("(resending 120 unacknowledged)"), 1u);
  EXPECT_EQ(b.log_count("dropped duplicate"), 0u) << "resent what the peer said it had";
}

TEST_F(EngineTest, ManyReconnectsWhileSendingLoseAndRepeatNothing) {
  // Each connection ends with frames in flight, in one of three ways: cut
  // on the relay; given up by the client while the relay still delivers
  // what it holds to the old connection; or given up with the rest of the
  // old stream arriving only after b has answered the next HELLO, so that
  // the resend brings duplicates. Heartbeats carry the acknowledgements of
  // messages that arrived only as duplicates (see
  // DuplicatesAreAcknowledgedWithoutWaitingForAHeartbeat).
  EngineConfig config;
  config.heartbeat = 20ms;
  config.heartbeat_misses = 1000;
  Side a(loop_, kA, config), b(loop_, kB, config);
  std::vector<std::unique_ptr<Engine::Attempt>> attempts;
  std::vector<std::unique_ptr<Relay>> relays;
  std::vector<size_t> sizes;
  auto send_some = [&](size_t count) {
    for (size_t i = 0; i < count; ++i) {
      const auto n = static_cast<std::uint32_t>(sizes.size());
      sizes.push_back(40 + n % 50);
      ASSERT_TRUE(a.engine->send(kB, 1, Payload(numbered(n, sizes.back()))).ok());
    }
  };
  Relay* held = nullptr;  // the old stream that is to arrive late
  auto connect = [&](const std::string& name) {
    relays.push_back(std::make_unique<Relay>(loop_));
    Relay& relay = *relays.back();
    relay.up().pieces({61});
    relay.down().pieces({13});
    if (held == nullptr) {
      ASSERT_TRUE(establish(loop_, a, b, relay.client_end(), relay.server_end(), attempts, name + " -> b"));
      return;
    }
    relay.down().hold();
    b.engine->accept(relay.server_end(), "b <- " + name, "a");
    attempts.push_back(a.engine->dial(relay.client_end(), kB, name + " -> b", [](const Status&) {}));
    ASSERT_TRUE(loop_.run_until([&] { return relay.down().buffered() > 0; }, 10s)) << "no CHALLENGE";
    held->up().release();
    ASSERT_TRUE(loop_.run_until([&] { return held->up().buffered() == 0 && !b.engine->connected(kA); }, 10s));
    held = nullptr;
    relay.down().release();
    ASSERT_TRUE(loop_.run_until([&] { return a.engine->connected(kB) && b.engine->connected(kA); }, 10s));
  };
  for (int round = 0; round < 9; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const size_t wanted_before = a.wanted.size();
    connect("a#" + std::to_string(round));
    if (HasFatalFailure()) return;
    Relay& relay = *relays.back();
    // b gets about half of the round's messages (the next one cut in its
    // middle); the rest are in flight when the connection ends.
    send_some(150);
    size_t budget = kHeaderSize + 20;
    for (size_t i = sizes.size() - 150; i < sizes.size() - 75; ++i) budget += kHeaderSize + sizes[i];
    const size_t start = relay.up().forwarded();
    relay.up().allow(budget);
    ASSERT_TRUE(loop_.run_until([&] { return relay.up().forwarded() - start == budget; }, 10s));
    switch (round % 3) {
      case 0:
        relay.cut();
        break;
      case 1:
        a.engine->drop_connection(kB, "the test gives up on this connection");
        relay.up().release();
        break;
      default:
        held = &relay;
        a.engine->drop_connection(kB, "the test gives up on this connection");
        break;
    }
    ASSERT_TRUE(loop_.run_until([&] { return a.wanted.size() > wanted_before; }, 10s));
  }
  connect("a#last");
  if (HasFatalFailure()) return;
  ASSERT_TRUE(loop_.run_until([&] { return b.delivered >= sizes.size() && a.engine->unacknowledged(kB) == 0; }, 20s))
      << b.delivered << " of " << sizes.size() << " delivered, " << a.engine->unacknowledged(kB) << " unacknowledged";
  loop_.run_until([] { return false; }, 50ms);
  ASSERT_EQ(b.delivered, sizes.size());
  for (std::uint32_t i = 0; i < sizes.size(); ++i) EXPECT_TRUE(b.messages[i] == numbered(i, sizes[i])) << "message " << i;
  EXPECT_EQ(a.log_count("(resending "), 10u);
  EXPECT_GT(b.log_count("dropped duplicate"), 0u) << "the late rounds brought no duplicates";
}

/* The race that makes duplicates: a gives up on a connection whose bytes
 * are still on their way (held in `first`) and dials again; b answers the
 * new HELLO with what it has delivered so far (nothing), then the old bytes
 * arrive over the old connection, then the new handshake completes and a
 * resends all of them. */
struct DuplicateRace {
  DuplicateRace(EventLoop& loop, const EngineConfig& config) : a(loop, kA, config), b(loop, kB, config), first(loop), second(loop) {}
  ::testing::AssertionResult run(EventLoop& loop, std::uint32_t count) {
    auto ok = establish(loop, a, b, first.client_end(), first.server_end(), attempts, "a#1 -> b");
    if (!ok) return ok;
    first.up().hold();
    for (std::uint32_t i = 0; i < count; ++i) {
      if (!a.engine->send(kB, 1, Payload(numbered(i, 100))).ok()) return ::testing::AssertionFailure() << "send";
    }
    if (!loop.run_until([&] { return first.up().buffered() >= count * (kHeaderSize + 100); }, std::chrono::seconds(10))) {
      return ::testing::AssertionFailure() << "the messages did not reach the relay";
    }
    a.engine->drop_connection(kB, "the test gives up on it");
    if (a.wanted != std::vector<ProcessName>{kB}) return ::testing::AssertionFailure() << "no want_connection";
    // b takes the new HELLO; its CHALLENGE waits in the relay.
    second.down().hold();
    b.engine->accept(second.server_end(), "b <- a#2", "a");
    attempts.push_back(a.engine->dial(second.client_end(), kB, "a#2 -> b", [this](const Status& st) { dialed = st; }));
    if (!loop.run_until([&] { return second.down().buffered() > 0; }, std::chrono::seconds(10))) {
      return ::testing::AssertionFailure() << "no CHALLENGE";
    }
    // The old connection delivers everything, then ends.
    first.up().release();
    if (!loop.run_until([&] { return b.delivered == count && !b.engine->connected(kA); }, std::chrono::seconds(10))) {
      return ::testing::AssertionFailure() << b.delivered << " delivered over the old connection";
    }
    second.down().release();
    if (!loop.run_until([&] { return dialed.has_value() && b.engine->connected(kA); }, std::chrono::seconds(10))) {
      return ::testing::AssertionFailure() << "the second connection did not come up";
    }
    if (!*dialed) return ::testing::AssertionFailure() << dialed->error().summary();
    return ::testing::AssertionSuccess();
  }
  Side a, b;
  Relay first, second;
  std::vector<std::unique_ptr<Engine::Attempt>> attempts;
  std::optional<Status> dialed;
};

TEST_F(EngineTest, ResentMessagesTheReceiverHadAreDroppedNotDeliveredTwice) {
  EngineConfig config;
  config.heartbeat = 20ms;  // heartbeats carry the acknowledgement (see the next test)
  config.heartbeat_misses = 1000;
  DuplicateRace race(loop_, config);
  constexpr std::uint32_t kCount = 100;
  ASSERT_TRUE(race.run(loop_, kCount));
  EXPECT_EQ(race.a.log_count("(resending 100 unacknowledged)"), 1u) << "the race did not happen as planned";
  ASSERT_TRUE(loop_.run_until([&] { return race.b.log_count("dropped duplicate") == kCount; }, 10s))
      << race.b.log_count("dropped duplicate") << " duplicates dropped";
  ASSERT_TRUE(loop_.run_until([&] { return race.a.engine->unacknowledged(kB) == 0; }, 10s));
  loop_.run_until([] { return false; }, 50ms);
  ASSERT_EQ(race.b.delivered, kCount);
  for (std::uint32_t i = 0; i < kCount; ++i) EXPECT_TRUE(race.b.messages[i] == numbered(i, 100)) << "message " << i;
  // The channel goes on numbering after the duplicates.
  ASSERT_TRUE(race.a.engine->send(kB, 1, Payload(numbered(kCount, 100))).ok());
  ASSERT_TRUE(loop_.run_until([&] { return race.b.delivered == kCount + 1; }, 10s));
  EXPECT_TRUE(race.b.messages.back() == numbered(kCount, 100));
}

TEST_F(EngineTest, DuplicatesAreAcknowledgedWithoutWaitingForAHeartbeat) {
  // The same race without heartbeats: b has delivered everything a
  // resends, so a holds the resent copies until b acknowledges them.
  DuplicateRace race(loop_, quiet());
  constexpr std::uint32_t kCount = 100;
  ASSERT_TRUE(race.run(loop_, kCount));
  ASSERT_TRUE(loop_.run_until([&] { return race.b.log_count("dropped duplicate") == kCount; }, 10s));
  EXPECT_EQ(race.b.delivered, kCount);
  // b's acknowledgements of them went out on the old connection and were
  // lost; the duplicates show it, and b must acknowledge again.
  EXPECT_TRUE(loop_.run_until([&] { return race.a.engine->unacknowledged(kB) == 0; }, 5s))
      << race.a.engine->unacknowledged(kB) << " messages never acknowledged";
}

TEST_F(EngineTest, SilenceIsDeclaredByTheClockNotByWallTime) {
  // a's connection reads a fake clock; b never sends a heartbeat, so only
  // a's clock decides when b has been silent for 20 ms x 3.
  auto fake = std::chrono::steady_clock::now();
  EngineConfig watcher;
  watcher.heartbeat = 20ms;
  watcher.heartbeat_misses = 3;
  watcher.clock = [&fake] { return fake; };
  Side a(loop_, kA, watcher), b(loop_, kB, quiet());
  Relay relay(loop_);
  std::vector<std::unique_ptr<Engine::Attempt>> attempts;
  ASSERT_TRUE(establish(loop_, a, b, relay.client_end(), relay.server_end(), attempts));
  const size_t handshake = relay.up().forwarded();
  // Fifteen heartbeat periods of wall time; the clock stands still.
  EXPECT_FALSE(loop_.run_until([&] { return !a.wanted.empty(); }, 300ms));
  EXPECT_TRUE(a.engine->connected(kB)) << "silence declared by wall time";
  EXPECT_EQ(relay.up().forwarded(), handshake) << "a heartbeat went out although no period passed on the clock";
  // Two periods: a heartbeat is due, the silence limit is not reached.
  fake += 40ms;
  ASSERT_TRUE(loop_.run_until([&] { return relay.up().forwarded() == handshake + kHeaderSize; }, 5s))
      << "no heartbeat after two periods on the clock";
  fake += 19ms;
  EXPECT_FALSE(loop_.run_until([&] { return !a.wanted.empty(); }, 100ms)) << "silence declared after 59 ms";
  EXPECT_TRUE(a.engine->connected(kB));
  // 60 ms: the next tick of the heartbeat timer declares it.
  fake += 1ms;
  const auto moved = std::chrono::steady_clock::now();
  ASSERT_TRUE(loop_.run_until([&] { return !a.wanted.empty(); }, 5s));
  EXPECT_LT(std::chrono::steady_clock::now() - moved, 1s);
  EXPECT_EQ(a.wanted, std::vector<ProcessName>{kB});
  EXPECT_FALSE(a.engine->connected(kB));
  EXPECT_EQ(a.log_count("closed: silent for 60 ms (oob_tcp_heartbeat x 3)"), 1u);
}

TEST_F(EngineTest, AFullSendQueueRefusesUntilAcknowledgementsFlow) {
  EngineConfig config = quiet();
  config.send_queue_limit = 64 * 1024;
  config.variable_prefix = "oob_test_";
  Side a(loop_, kA, config), b(loop_, kB, config);
  Relay relay(loop_);
  std::vector<std::unique_ptr<Engine::Attempt>> attempts;
  ASSERT_TRUE(establish(loop_, a, b, relay.client_end(), relay.server_end(), attempts));
  // b is not reached: everything a writes waits in the relay, unacknowledged.
  relay.up().hold();
  std::uint32_t accepted = 0;
  Status refused;
  for (; accepted < 1000; ++accepted) {
    refused = a.engine->send(kB, 1, Payload(numbered(accepted, 1024)));
    if (!refused) break;
    loop_.run_until([] { return false; }, 1ms);  // let it be written
  }
  EXPECT_EQ(accepted, 64u) << "64 KiB in 1 KiB messages";
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().topic(), "send-queue-full");
  EXPECT_EQ(refused.error().kind(), ErrorKind::Busy);  // kept as the engine adds its variable
  EXPECT_EQ(refused.error().arg("variable"), "oob_test_send_queue_limit");
  EXPECT_NE(refused.error().summary().find("oob_test_send_queue_limit"), std::string::npos) << refused.error().summary();
  EXPECT_FALSE(a.engine->would_accept(kB, 1024).ok());
  // Wall time alone changes nothing, and says nothing of room.
  loop_.run_until([] { return false; }, 50ms);
  EXPECT_FALSE(a.engine->send(kB, 1, Payload(numbered(accepted, 1024))).ok());
  EXPECT_EQ(b.delivered, 0u);
  EXPECT_TRUE(a.ready.empty());
  // The receiver is reached again: its acknowledgements free the queue,
  // and the sender hears of room once, however many refusals it had.
  relay.up().release();
  ASSERT_TRUE(loop_.run_until([&] { return !a.ready.empty(); }, 10s)) << "no ready after the refusals";
  EXPECT_TRUE(a.engine->would_accept(kB, 1024).ok()) << "ready, but the queue still refuses";
  ASSERT_TRUE(loop_.run_until([&] { return b.delivered == accepted && a.engine->unacknowledged(kB) == 0; }, 10s));
  ASSERT_EQ(a.ready.size(), 1u);
  EXPECT_EQ(a.ready[0], kB);
  EXPECT_TRUE(b.ready.empty()) << "b never refused a send";
  EXPECT_TRUE(a.engine->would_accept(kB, 1024).ok());
  for (std::uint32_t i = 0; i < 64; ++i) ASSERT_TRUE(a.engine->send(kB, 1, Payload(numbered(accepted + i, 1024))).ok()) << i;
  ASSERT_TRUE(loop_.run_until([&] { return b.delivered == 2 * accepted; }, 10s));
  for (std::uint32_t i = 0; i < b.messages.size(); ++i) EXPECT_TRUE(b.messages[i] == numbered(i, 1024)) << i;
}

TEST_F(EngineTest, APeerClosingMidFrameDeliversNothingPartial) {
  // The connection ends inside a header, right after it, in the payload,
  // and one byte short of the end.
  constexpr size_t kSize = 1000;
  for (size_t cut_at : {size_t{10}, kHeaderSize, kHeaderSize + kSize / 2, kHeaderSize + kSize - 1}) {
    SCOPED_TRACE("cut after " + std::to_string(cut_at) + " bytes of the frame");
    Side a(loop_, kA, quiet()), b(loop_, kB, quiet());
    Relay relay(loop_);
    std::vector<std::unique_ptr<Engine::Attempt>> attempts;
    ASSERT_TRUE(establish(loop_, a, b, relay.client_end(), relay.server_end(), attempts));
    const size_t handshake = relay.up().forwarded();
    relay.up().allow(cut_at);
    relay.up().on_spent = [&relay] { relay.cut(); };
    ASSERT_TRUE(a.engine->send(kB, 3, Payload(numbered(7, kSize))).ok());
    ASSERT_TRUE(loop_.run_until([&] { return !a.wanted.empty() && !b.engine->connected(kA); }, 10s));
    EXPECT_EQ(relay.up().forwarded() - handshake, cut_at);
    EXPECT_EQ(b.delivered, 0u) << "a partial frame was delivered";
    EXPECT_EQ(b.log_count("connection b <- a closed: closed by the peer"), 1u);
    EXPECT_EQ(a.wanted, std::vector<ProcessName>{kB}) << "the sender did not ask for a new connection";
    EXPECT_EQ(a.engine->unacknowledged(kB), 1u);
    // Over the next connection the message arrives whole, once.
    auto [fa, fb] = stream_pair();
    ASSERT_TRUE(establish(loop_, a, b, std::move(fa), std::move(fb), attempts));
    ASSERT_TRUE(loop_.run_until([&] { return b.delivered == 1 && a.engine->unacknowledged(kB) == 0; }, 10s));
    EXPECT_EQ(b.tags.front(), 3u);
    EXPECT_TRUE(b.messages.front() == numbered(7, kSize));
  }
}

/* The frames a scripted peer reads from `fd` now, through `reader`. */
std::vector<Frame> frames_on(int fd, FrameReader& reader) {
  std::vector<Frame> out;
  std::uint8_t buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    std::span<const std::uint8_t> bytes(buf, static_cast<size_t>(n));
    while (!bytes.empty()) {
      auto taken = reader.feed_some(bytes, out);
      if (!taken) return out;
      bytes = bytes.subspan(taken.value());
    }
  }
  return out;
}

void write_frame(int fd, const Frame& f) {
  std::uint8_t header[kHeaderSize];
  encode_header(f.header, header);
  ASSERT_EQ(::write(fd, header, kHeaderSize), static_cast<ssize_t>(kHeaderSize));
  if (!f.payload.empty()) {
    ASSERT_EQ(::write(fd, f.payload.data(), f.payload.size()), static_cast<ssize_t>(f.payload.size()));
  }
}

/* The server's side of a handshake, played by hand on `fd` for a client
 * dialing kB: reads the HELLO and writes the CHALLENGE. What the client
 * writes next (RESPONSE, COMMIT and what it queued) is the caller's to read. */
void answer_hello(EventLoop& loop, int fd, FrameReader& reader) {
  const HandshakeIdentity b{kB, {1, 2, 3, 4, 5, 6, 7, 8}};  // the server keeps a reference
  ServerHandshake server(b, [](ProcessName) { return std::uint64_t{0}; });
  std::vector<Frame> got;
  ASSERT_TRUE(loop.run_until([&] {
    for (auto& f : frames_on(fd, reader)) got.push_back(std::move(f));
    return !got.empty();
  }, 5s)) << "no HELLO";
  HandshakeStep challenge = server.on_frame(got.front());
  ASSERT_EQ(challenge.send.size(), 1u);
  write_frame(fd, challenge.send.front());
}

/* A dial from a client engine to kB over `mine`, whose server side the
 * test plays by hand on the other end (answer_hello, then reads). */
struct HandDial {
  HandDial(Side& client, UniqueFd mine)
      : attempt(client.engine->dial(std::move(mine), kB, "a -> b", [this](const Status& st) { outcome = st; })) {}
  FrameReader reader{1u << 20, "oob_tcp_max_msg_size", FrameReader::Phase::Handshake};
  std::optional<Status> outcome;
  std::unique_ptr<Engine::Attempt> attempt;
};

/* The frames of the client's next write on `fd` (one SOCK_SEQPACKET
 * record): its RESPONSE and COMMIT, read one at a time as the server's
 * reader does in the handshake phase, then what came with them. */
std::vector<Frame> frames_of_one_write(int fd, FrameReader& reader) {
  std::uint8_t record[4096];
  const ssize_t n = ::read(fd, record, sizeof record);
  if (n <= 0) {
    ADD_FAILURE() << "nothing after the CHALLENGE";
    return {};
  }
  std::span<const std::uint8_t> bytes(record, static_cast<size_t>(n));
  std::vector<Frame> frames;
  for (int i = 0; i < 2; ++i) {
    auto taken = reader.feed_some(bytes, frames);
    if (!taken) {
      ADD_FAILURE() << taken.error().summary();
      return {};
    }
    bytes = bytes.subspan(taken.value());
  }
  reader.set_phase(FrameReader::Phase::Established);
  EXPECT_TRUE(reader.feed(bytes, frames));
  return frames;
}

/* A SOCK_SEQPACKET pair: every write a record of its own, so one read
 * shows exactly what one write carried. */
std::pair<UniqueFd, UniqueFd> record_pair() {
  int sv[2];
  EXPECT_EQ(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv), 0);
  return {UniqueFd(sv[0]), UniqueFd(sv[1])};
}

TEST_F(EngineTest, AServerGoneRightAfterItsChallengeLeavesNoConnection) {
  // The client's last handshake step writes RESPONSE and COMMIT; when the
  // server has closed by then (a daemon ending as it answered), that write
  // fails and the connection closes inside the step. The handshake itself
  // succeeded (the dial says so, and the peer is told connected once), but
  // the connection must not be kept: the engine once kept it as the peer's
  // connection after it was freed, and the next send wrote through freed
  // memory (found with orcads whose parent could not fork any more).
  Side a(loop_, kA);
  // Not a structured binding: the lambda below reads `theirs`, and clang
  // before 16 lets no lambda capture one (C++20 allows it).
  auto ends = stream_pair();
  UniqueFd mine = std::move(ends.first), theirs = std::move(ends.second);
  HandDial dial(a, std::move(mine));
  answer_hello(loop_, theirs.get(), dial.reader);
  if (HasFatalFailure()) return;
  theirs.reset();  // gone before the client reads the CHALLENGE
  ASSERT_TRUE(loop_.run_until([&] { return dial.outcome.has_value(); }, 5s));
  EXPECT_TRUE(dial.outcome->ok());
  EXPECT_EQ(a.connected.size(), 1u);
  EXPECT_FALSE(a.engine->connected(kB)) << "a closed connection was kept as the peer's";
  // The closed connection is freed on the next pass of the loop; a send
  // then must ask for a new connection, not write through the old one.
  loop_.run_until([] { return false; }, 20ms);
  a.wanted.clear();
  ASSERT_TRUE(a.engine->send(kB, 1, Payload(std::vector<std::uint8_t>(8, 1))).ok());
  EXPECT_EQ(a.wanted.size(), 1u);
}

TEST_F(EngineTest, TheResponseTheCommitAndTheFirstMessagesLeaveInOneWrite) {
  // What was sent while the client dialed goes out with its RESPONSE and
  // COMMIT, in one write: the peer wakes once for all of them (a daemon's
  // hello to its parent), and the client waits for no answer to its
  // RESPONSE (protocol 3).
  Side a(loop_, kA);
  auto [mine, theirs] = record_pair();
  HandDial dial(a, std::move(mine));
  ASSERT_TRUE(a.engine->send(kB, 9, Payload(std::vector<std::uint8_t>(16, 7))).ok());
  answer_hello(loop_, theirs.get(), dial.reader);
  if (HasFatalFailure()) return;
  ASSERT_TRUE(loop_.run_until([&] { return dial.outcome.has_value(); }, 5s));
  ASSERT_TRUE(dial.outcome->ok()) << dial.outcome->error().summary();
  EXPECT_TRUE(a.engine->connected(kB)) << "established without an answer to its RESPONSE";

  const std::vector<Frame> frames = frames_of_one_write(theirs.get(), dial.reader);
  ASSERT_EQ(frames.size(), 3u) << "the RESPONSE, the COMMIT and the message came in separate writes";
  EXPECT_EQ(frames[0].header.type, FrameType::Response);
  EXPECT_EQ(frames[1].header.type, FrameType::Commit);
  EXPECT_EQ(frames[2].header.type, FrameType::Data);
  EXPECT_EQ(frames[2].header.tag, 9u);
  EXPECT_EQ(frames[2].payload, std::vector<std::uint8_t>(16, 7));
}

TEST_F(EngineTest, WhatTheConnectedCallbackSendsLeavesWithTheHandshakesLastWrite) {
  // A daemon reports the route its connection took once it is made: the
  // report must not cost the parent a wake-up of its own. The callback
  // runs once, after what waited was queued and before it is written.
  Side a(loop_, kA);
  a.on_connected = [&](ProcessName peer) {
    EXPECT_TRUE(a.engine->connected(peer)) << "told before the connection was the peer's";
    EXPECT_TRUE(a.engine->send(peer, 10, Payload(std::vector<std::uint8_t>(4, 2))).ok());
  };
  auto [mine, theirs] = record_pair();
  HandDial dial(a, std::move(mine));
  ASSERT_TRUE(a.engine->send(kB, 9, Payload(std::vector<std::uint8_t>(16, 7))).ok());
  EXPECT_TRUE(a.connected.empty());
  answer_hello(loop_, theirs.get(), dial.reader);
  if (HasFatalFailure()) return;
  ASSERT_TRUE(loop_.run_until([&] { return dial.outcome.has_value(); }, 5s));
  ASSERT_TRUE(dial.outcome->ok());
  ASSERT_EQ(a.connected, std::vector<ProcessName>{kB});

  const std::vector<Frame> frames = frames_of_one_write(theirs.get(), dial.reader);
  ASSERT_EQ(frames.size(), 4u) << "the callback's message left in a write of its own";
  EXPECT_EQ(frames[2].header.tag, 9u);  // what waited first, in order
  EXPECT_EQ(frames[3].header.tag, 10u);
  loop_.run_until([] { return false; }, 20ms);
  EXPECT_EQ(a.connected.size(), 1u) << "told twice of one connection";
}

TEST_F(EngineTest, ARefusalOfTheCommittedResponseClosesWithItsReasonAndKeepsTheMessage) {
  // The client counts the connection made on the CHALLENGE; a server that
  // still refuses its RESPONSE (a handshake slot taken from it, say)
  // answers after that. The connection closes with the server's reason,
  // and what went out with the COMMIT is unacknowledged: a new connection
  // is wanted for it.
  Side a(loop_, kA);
  auto [mine, theirs] = stream_pair();
  HandDial dial(a, std::move(mine));
  ASSERT_TRUE(a.engine->send(kB, 9, Payload(std::vector<std::uint8_t>(16, 7))).ok());
  answer_hello(loop_, theirs.get(), dial.reader);
  if (HasFatalFailure()) return;
  ASSERT_TRUE(loop_.run_until([&] { return dial.outcome.has_value(); }, 5s));
  ASSERT_TRUE(dial.outcome->ok());
  a.wanted.clear();
  write_frame(theirs.get(), refusal_frame(RefuseCode::BadKey, "slot given to another"));
  ASSERT_TRUE(loop_.run_until([&] { return !a.engine->connected(kB); }, 5s));
  EXPECT_EQ(a.log_count("refused by the peer: slot given to another"), 1u);
  EXPECT_EQ(a.log_count("a handshake frame after the handshake"), 0u);
  ASSERT_TRUE(loop_.run_until([&] { return !a.wanted.empty(); }, 5s)) << "the unacknowledged message was dropped";
  EXPECT_EQ(a.wanted.front(), kB);
  EXPECT_EQ(a.engine->unacknowledged(kB), 1u);
}

TEST_F(EngineTest, DestroyingTheClientMidHandshakeCallsNothingAfterwards) {
  // Handshakes stopped at each step, one completed, then the client goes:
  // attempts first (none of their callbacks may run), or the engine first
  // (the attempts outlive it). Every callback checks a token that says
  // whether the engine is gone.
  for (bool attempts_first : {true, false}) {
    SCOPED_TRACE(attempts_first ? "attempts first" : "engine first");
    struct Seen {
      bool gone = false;
      int late = 0;           // callbacks after the engine was destroyed
      int established = 0;
      int failed = 0;
      std::vector<std::string> why;
    };
    auto seen = std::make_shared<Seen>();
    Side b(loop_, kB, quiet());
    EngineConfig config = quiet();
    config.self = kA;
    config.secret = {1, 2, 3, 4, 5, 6, 7, 8};
    config.variable_prefix = "oob_tcp_";
    EngineCallbacks cb;
    cb.deliver = [seen](ProcessName, std::uint32_t, std::span<const std::uint8_t>) { seen->late += seen->gone; };
    cb.want_connection = [seen](ProcessName) { seen->late += seen->gone; };
    cb.log = [seen](int, const std::string&) { seen->late += seen->gone; };
    auto a = std::make_unique<Engine>(loop_, config, std::move(cb));
    std::vector<std::unique_ptr<Engine::Attempt>> attempts;
    auto dial = [&](UniqueFd fd, const std::string& label) {
      attempts.push_back(a->dial(std::move(fd), kB, label, [seen](const Status& st) {
        seen->late += seen->gone;
        if (st) {
          ++seen->established;
        } else {
          ++seen->failed;
          seen->why.push_back(st.error().arg("why"));
        }
      }));
    };
    // 0: nobody answers the HELLO.
    auto [silent, silent_peer] = stream_pair();
    dial(std::move(silent), "a#0 -> nobody");
    // 1: b has half the HELLO.
    std::vector<std::unique_ptr<Relay>> relays;
    for (int i = 0; i < 4; ++i) relays.push_back(std::make_unique<Relay>(loop_));
    relays[0]->up().allow(10);
    // 2: b's CHALLENGE waits in the relay.
    relays[1]->down().hold();
    // 3: a has part of b's CHALLENGE header (set up below, once the
    // CHALLENGE is there).
    relays[2]->down().hold();
    // 4: a has the CHALLENGE's header and part of its payload (likewise).
    // (Protocol 3 has no later point: the whole CHALLENGE completes a.)
    relays[3]->down().hold();
    for (int i = 0; i < 4; ++i) {
      b.engine->accept(relays[static_cast<size_t>(i)]->server_end(), "b <- a#" + std::to_string(i + 1), "a");
      dial(relays[static_cast<size_t>(i)]->client_end(), "a#" + std::to_string(i + 1) + " -> b");
    }
    ASSERT_TRUE(loop_.run_until([&] { return relays[2]->down().buffered() > 0 && relays[3]->down().buffered() > 0; }, 10s));
    relays[2]->down().allow(10);
    relays[3]->down().allow(kHeaderSize + 8);
    ASSERT_TRUE(loop_.run_until(
        [&] {
          return relays[0]->up().forwarded() == 10 && relays[1]->down().buffered() > 0 &&
                 relays[2]->down().forwarded() == 10 && relays[3]->down().forwarded() == kHeaderSize + 8;
        },
        10s));
    // 5: one completes; the engine owns it from now on.
    auto [fa, fb] = stream_pair();
    b.engine->accept(std::move(fb), "b <- a#5", "a");
    dial(std::move(fa), "a#5 -> b");
    ASSERT_TRUE(loop_.run_until([&] { return seen->established == 1 && b.engine->connected(kA); }, 10s));
    EXPECT_EQ(b.engine->pending(), 4u);
    EXPECT_EQ(seen->failed, 0);

    if (attempts_first) {
      attempts.clear();
      EXPECT_EQ(seen->failed, 0) << "a destroyed attempt's callback ran";
      a.reset();
    } else {
      a.reset();
      seen->gone = true;
      attempts.clear();
    }
    seen->gone = true;
    // What the relays held goes on to b, then the end of each stream.
    for (auto& r : relays) {
      r->up().release();
      r->down().release();
    }
    silent_peer.reset();
    ASSERT_TRUE(loop_.run_until([&] { return b.engine->pending() == 0 && !b.engine->connected(kA); }, 10s))
        << b.engine->pending() << " still pending";
    loop_.run_until([] { return false; }, 100ms);
    EXPECT_EQ(seen->late, 0) << "a callback ran after the engine was destroyed";
    EXPECT_EQ(seen->established, 1);
    if (!attempts_first) {
      // Destroyed with the attempts still held, the engine reports each
      // unfinished one as failed, once, while it shuts down.
      EXPECT_EQ(seen->failed, 5);
      for (const auto& why : seen->why) EXPECT_EQ(why, "shutting down");
    }
  }
}

}  // namespace
}  // namespace orca::oob

namespace orca::oob {
namespace {

TEST(EngineConfigOwner, AnEngineNeedsItsComponentsPrefix) {
  // liborca names no component's variable: the owner must say whose they are.
  EventLoop loop;
  EngineConfig config;
  config.secret = {1, 2, 3};
  EXPECT_THROW(Engine(loop, config, EngineCallbacks{}), std::invalid_argument);
  config.variable_prefix = "oob_test_";
  EXPECT_NO_THROW(Engine(loop, config, EngineCallbacks{}));
}

}  // namespace
}  // namespace orca::oob
