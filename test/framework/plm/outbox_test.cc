// Outbox (framework/oob/outbox.cc) between two real Oob instances on one
// event loop, over oob/tcp on loopback, with a send queue small enough
// that back-pressure comes at once: nothing is lost, nothing overtakes
// (not even a small message the oob would have taken at once), and
// on_drained says when the queue is empty again.
#include <orca/event_loop.h>
#include "oob/oob_host.h"

#include "oob/oob_outbox.h"

#include "framework/plm/build_tree_runtime.h"
#include "lib/result_assertions.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace orca::oob {
namespace {

using namespace std::chrono_literals;
using test::Succeeded;

constexpr std::uint32_t kTag = 31;
constexpr size_t kBig = 20 * 1024;  // three fit in the 64 KiB queue, the fourth does not

/* One process: a Runtime with oob/tcp on loopback and its Oob. */
struct Process {
  Process(EventLoop& loop, ProcessName name)
      : rt({"components/oob/tcp/.libs", "components/reachable/weighted/.libs"},
           {"oob=tcp", "reachable=weighted", "oob_tcp_if_include=lo", "oob_tcp_send_queue_limit=64k"}) {
    Status st = rt.runtime().load(mca::ToolOptions{});
    EXPECT_TRUE(Succeeded(st));
    if (!st) return;
    auto o = Oob::open(rt.runtime(), loop, name, std::vector<std::uint8_t>(8, 7));
    EXPECT_TRUE(Succeeded(o));
    if (o) oob = std::move(o.value());
  }
  test::BuildTreeRuntime rt;
  std::unique_ptr<Oob> oob;
};

/* Message `index`: its number, then filler up to `size` bytes. */
std::vector<std::uint8_t> message(size_t index, size_t size) {
  std::string text = std::to_string(index) + ":";
  text.resize(size, static_cast<char>('a' + index % 26));
  return {text.begin(), text.end()};
}

std::string number_of(const std::string& payload) { return payload.substr(0, payload.find(':')); }

class OutboxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    a_ = std::make_unique<Process>(loop_, ProcessName{9, 0});
    b_ = std::make_unique<Process>(loop_, ProcessName{9, 1});
    ASSERT_TRUE(a_->oob && b_->oob);
    ASSERT_TRUE(Succeeded(a_->oob->add_peer(b_->oob->self(), b_->oob->contact_uri())));
    ASSERT_TRUE(Succeeded(b_->oob->add_peer(a_->oob->self(), a_->oob->contact_uri())));
    b_->oob->on_receive(kTag, [this](ProcessName, std::span<const std::uint8_t> bytes) {
      received_.emplace_back(bytes.begin(), bytes.end());
    });
  }
  EventLoop loop_;
  std::unique_ptr<Process> a_, b_;
  std::vector<std::string> received_;
};

TEST_F(OutboxTest, EverythingArrivesInOrderThroughBackPressure) {
  size_t drained = 0;
  Outbox outbox(*a_->oob, [&] { ++drained; });
  constexpr size_t kCount = 40;
  std::vector<std::string> sent;
  for (size_t i = 0; i < kCount; ++i) {
    auto m = message(i, kBig);
    sent.emplace_back(m.begin(), m.end());
    outbox.post(b_->oob->self(), kTag, std::move(m));
  }
  // Nothing has been written yet (the loop has not run), so the oob's
  // 64 KiB queue refused most of them: the outbox holds the rest.
  ASSERT_GT(outbox.waiting(), 0u) << "no back-pressure: the test would prove nothing";
  EXPECT_LT(outbox.waiting(), kCount) << "the outbox did not send at once while the oob had room";
  // A small message the oob would take now must still wait its turn.
  auto small = message(kCount, 16);
  sent.emplace_back(small.begin(), small.end());
  outbox.post(b_->oob->self(), kTag, std::move(small));
  EXPECT_EQ(drained, 0u);

  ASSERT_TRUE(loop_.run_until([&] { return received_.size() == sent.size(); }, 30s))
      << received_.size() << " of " << sent.size() << " arrived, " << outbox.waiting() << " still waiting";
  ASSERT_EQ(received_.size(), sent.size());
  for (size_t i = 0; i < sent.size(); ++i) {
    ASSERT_EQ(number_of(received_[i]), std::to_string(i)) << "message " << i << " out of order";
    EXPECT_EQ(received_[i], sent[i]) << "message " << i << " changed";
  }
  EXPECT_EQ(outbox.waiting(), 0u);
  EXPECT_EQ(drained, 1u);
}

TEST_F(OutboxTest, AnEmptyOutboxSendsAtOnceAndNeverCallsOnDrained) {
  size_t drained = 0;
  Outbox outbox(*a_->oob, [&] { ++drained; });
  outbox.post(b_->oob->self(), kTag, message(0, 100));
  EXPECT_EQ(outbox.waiting(), 0u);
  ASSERT_TRUE(loop_.run_until([&] { return received_.size() == 1; }, 30s));
  EXPECT_EQ(number_of(received_[0]), "0");
  EXPECT_EQ(drained, 0u) << "on_drained without a queue that drained";
}

TEST_F(OutboxTest, ItDrainsAgainAfterASecondBurst) {
  size_t drained = 0;
  Outbox outbox(*a_->oob, [&] { ++drained; });
  for (size_t burst = 0; burst < 2; ++burst) {
    for (size_t i = 0; i < 10; ++i) outbox.post(b_->oob->self(), kTag, message(burst * 10 + i, kBig));
    ASSERT_GT(outbox.waiting(), 0u);
    ASSERT_TRUE(loop_.run_until([&] { return drained == burst + 1; }, 30s)) << "burst " << burst;
  }
  ASSERT_TRUE(loop_.run_until([&] { return received_.size() == 20; }, 30s));
  for (size_t i = 0; i < 20; ++i) EXPECT_EQ(number_of(received_[i]), std::to_string(i));
}

// A permanent refusal is not back-pressure: a message Oob::send can never
// take (no route, a bad tag, too large) is dropped, and the next one goes.
TEST_F(OutboxTest, AMessageThatCanNeverBeSentDoesNotBlockTheOnesBehindIt) {
  Outbox outbox(*a_->oob);
  outbox.post(ProcessName{9, 77}, kTag, message(0, 10));  // no such peer, no router
  outbox.post(b_->oob->self(), kTag, message(1, 10));
  EXPECT_TRUE(loop_.run_until([&] { return received_.size() == 1; }, 5s))
      << "a message for a peer with no route held up the next one; still waiting: " << outbox.waiting();
}

}  // namespace
}  // namespace orca::oob
