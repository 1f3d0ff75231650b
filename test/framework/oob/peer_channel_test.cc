// PeerChannel (framework/oob/peer_channel.h): numbering, acknowledgement,
// resend after reconnect, back-pressure, duplicate suppression, and a
// model of a lossy connection that must still deliver everything once.
#include "oob/peer_channel.h"

#include <gtest/gtest.h>

#include "lib/result_assertions.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace orca::oob {
namespace {

using test::FailedWith;
using test::Succeeded;

using Bytes = std::vector<std::uint8_t>;

// The bytes of an OutgoingMessage's payload.
[[maybe_unused]] const Bytes& bytes_of(const Bytes& p) { return p; }
[[maybe_unused]] Bytes bytes_of(const Payload& p) { return Bytes(p.data(), p.data() + p.size()); }

Bytes payload(size_t n, std::uint8_t fill) { return Bytes(n, fill); }

std::uint64_t enqueue_ok(PeerChannel& ch, std::uint32_t tag, Bytes p) {
  auto r = ch.enqueue(tag, std::move(p));
  EXPECT_TRUE(Succeeded(r));
  return r.ok() ? r.value() : 0;
}

/* Writes everything next_to_send() offers; returns the sequence numbers. */
std::vector<std::uint64_t> send_all(PeerChannel& ch) {
  std::vector<std::uint64_t> seqs;
  for (int guard = 0; guard < 100000; ++guard) {
    const OutgoingMessage* m = ch.next_to_send();
    if (!m) break;
    seqs.push_back(m->seq);
    ch.mark_sent();
  }
  return seqs;
}

using Seqs = std::vector<std::uint64_t>;

// --- sending -------------------------------------------------------------------

TEST(PeerChannelSend, SequenceNumbersStartAtOneAndIncrease) {
  PeerChannel ch(1u << 20);
  for (std::uint64_t i = 1; i <= 100; ++i) EXPECT_EQ(enqueue_ok(ch, 0, payload(i % 5, 1)), i);
  EXPECT_EQ(ch.unacknowledged(), 100u);
  EXPECT_FALSE(ch.idle());
}

TEST(PeerChannelSend, FreshChannelIsIdle) {
  PeerChannel ch(100);
  EXPECT_TRUE(ch.idle());
  EXPECT_EQ(ch.unacknowledged(), 0u);
  EXPECT_EQ(ch.queued_bytes(), 0u);
  EXPECT_EQ(ch.next_to_send(), nullptr);
  EXPECT_EQ(ch.delivered(), 0u);
  EXPECT_FALSE(ch.ack_pending());
  EXPECT_FALSE(ch.ack_due());
}

TEST(PeerChannelSend, NextToSendWalksTheQueueInOrder) {
  PeerChannel ch(1u << 20);
  for (std::uint32_t i = 1; i <= 5; ++i) enqueue_ok(ch, 100 + i, payload(i, static_cast<std::uint8_t>(i)));
  for (std::uint64_t i = 1; i <= 5; ++i) {
    const OutgoingMessage* m = ch.next_to_send();
    ASSERT_NE(m, nullptr) << "message " << i;
    EXPECT_EQ(m->seq, i);
    EXPECT_EQ(m->tag, 100 + i);
    EXPECT_EQ(bytes_of(m->payload), payload(i, static_cast<std::uint8_t>(i)));
    EXPECT_EQ(ch.next_to_send(), m) << "next_to_send moved without mark_sent";
    ch.mark_sent();
  }
  EXPECT_EQ(ch.next_to_send(), nullptr);
  // Sent is not acknowledged: everything is still held.
  EXPECT_EQ(ch.unacknowledged(), 5u);
  EXPECT_EQ(ch.queued_bytes(), 15u);

  // A message enqueued later is next.
  EXPECT_EQ(enqueue_ok(ch, 9, payload(2, 9)), 6u);
  ASSERT_NE(ch.next_to_send(), nullptr);
  EXPECT_EQ(ch.next_to_send()->seq, 6u);
}

TEST(PeerChannelSend, AcknowledgeDropsUpToAndFreesBytes) {
  PeerChannel ch(1u << 20);
  for (size_t i = 1; i <= 5; ++i) enqueue_ok(ch, 0, payload(10 * i, 0));  // 10, 20, 30, 40, 50
  EXPECT_EQ(ch.queued_bytes(), 150u);
  send_all(ch);

  ch.acknowledge(2);
  EXPECT_EQ(ch.unacknowledged(), 3u);
  EXPECT_EQ(ch.queued_bytes(), 120u);

  ch.acknowledge(1);  // older than what was already acknowledged: no change
  EXPECT_EQ(ch.unacknowledged(), 3u);
  EXPECT_EQ(ch.queued_bytes(), 120u);

  ch.acknowledge(2);  // the same again
  EXPECT_EQ(ch.unacknowledged(), 3u);

  ch.acknowledge(4);
  EXPECT_EQ(ch.unacknowledged(), 1u);
  EXPECT_EQ(ch.queued_bytes(), 50u);
  EXPECT_FALSE(ch.idle());

  ch.acknowledge(5);
  EXPECT_TRUE(ch.idle());
  EXPECT_EQ(ch.queued_bytes(), 0u);
  EXPECT_EQ(ch.next_to_send(), nullptr);
}

TEST(PeerChannelSend, AcknowledgeOfUnsentMessagesSkipsThem) {
  // Acknowledged over another connection before this one wrote them:
  // they are not written again.
  PeerChannel ch(1u << 20);
  for (int i = 0; i < 5; ++i) enqueue_ok(ch, 0, payload(1, 0));
  ASSERT_EQ(ch.next_to_send()->seq, 1u);
  ch.mark_sent();
  ch.acknowledge(3);
  EXPECT_EQ(send_all(ch), (Seqs{4, 5}));
}

TEST(PeerChannelSend, AckBeyondWhatWasSentIsClamped) {
  PeerChannel ch(1u << 20);
  enqueue_ok(ch, 0, payload(4, 1));
  enqueue_ok(ch, 0, payload(4, 2));
  EXPECT_EQ(send_all(ch), (Seqs{1, 2}));
  ch.acknowledge(1000);  // bogus
  EXPECT_TRUE(ch.idle());
  EXPECT_EQ(ch.queued_bytes(), 0u);

  // Numbering goes on, and what comes next is still sent.
  EXPECT_EQ(enqueue_ok(ch, 7, payload(3, 3)), 3u);
  EXPECT_EQ(enqueue_ok(ch, 8, payload(3, 4)), 4u);
  EXPECT_EQ(send_all(ch), (Seqs{3, 4}));
  EXPECT_EQ(ch.unacknowledged(), 2u);

  ch.acknowledge(~std::uint64_t{0});
  EXPECT_TRUE(ch.idle());
  EXPECT_EQ(enqueue_ok(ch, 0, payload(1, 0)), 5u);
  EXPECT_EQ(send_all(ch), (Seqs{5}));
}

TEST(PeerChannelSend, AckBeyondEverythingOnAFreshChannel) {
  PeerChannel ch(1u << 20);
  ch.acknowledge(50);
  EXPECT_EQ(enqueue_ok(ch, 0, payload(1, 0)), 1u);
  EXPECT_EQ(send_all(ch), (Seqs{1}));
}

TEST(PeerChannelSend, RestartFromResendsEveryUnacknowledgedMessageInOrder) {
  PeerChannel ch(1u << 20);
  for (std::uint32_t i = 1; i <= 6; ++i) enqueue_ok(ch, i, payload(i, static_cast<std::uint8_t>(i)));
  EXPECT_EQ(send_all(ch), (Seqs{1, 2, 3, 4, 5, 6}));

  // The connection broke; the peer says it delivered up to 2.
  ch.restart_from(2);
  EXPECT_EQ(ch.unacknowledged(), 4u);
  EXPECT_EQ(ch.queued_bytes(), 3u + 4 + 5 + 6);
  for (std::uint64_t i = 3; i <= 6; ++i) {
    const OutgoingMessage* m = ch.next_to_send();
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->seq, i);
    EXPECT_EQ(m->tag, i);
    EXPECT_EQ(bytes_of(m->payload), payload(i, static_cast<std::uint8_t>(i)));
    ch.mark_sent();
  }
  EXPECT_EQ(ch.next_to_send(), nullptr);

  // And again, partly through.
  ch.restart_from(4);
  EXPECT_EQ(send_all(ch), (Seqs{5, 6}));
}

TEST(PeerChannelSend, RestartFromZeroResendsAll) {
  PeerChannel ch(1u << 20);
  for (int i = 0; i < 4; ++i) enqueue_ok(ch, 0, payload(1, 0));
  EXPECT_EQ(send_all(ch), (Seqs{1, 2, 3, 4}));
  ch.restart_from(0);
  EXPECT_EQ(ch.unacknowledged(), 4u);
  EXPECT_EQ(send_all(ch), (Seqs{1, 2, 3, 4}));
}

TEST(PeerChannelSend, RestartFromOlderThanTheLastAckStartsAtTheOldestHeld) {
  PeerChannel ch(1u << 20);
  for (int i = 0; i < 6; ++i) enqueue_ok(ch, 0, payload(1, 0));
  send_all(ch);
  ch.acknowledge(3);
  ch.restart_from(1);  // stale: 1..3 are gone anyway
  EXPECT_EQ(send_all(ch), (Seqs{4, 5, 6}));
}

TEST(PeerChannelSend, RestartBeforeAnythingWasSent) {
  PeerChannel ch(1u << 20);
  for (int i = 0; i < 3; ++i) enqueue_ok(ch, 0, payload(1, 0));
  ch.mark_sent();  // 1 written
  ch.restart_from(0);
  EXPECT_EQ(send_all(ch), (Seqs{1, 2, 3}));
}

TEST(PeerChannelSend, RestartWhenEverythingWasDelivered) {
  PeerChannel ch(1u << 20);
  for (int i = 0; i < 3; ++i) enqueue_ok(ch, 0, payload(1, 0));
  send_all(ch);
  ch.restart_from(3);
  EXPECT_TRUE(ch.idle());
  EXPECT_EQ(ch.next_to_send(), nullptr);
  EXPECT_EQ(enqueue_ok(ch, 0, payload(1, 0)), 4u);
  EXPECT_EQ(send_all(ch), (Seqs{4}));

  ch.restart_from(99);  // bogus, clamped like an ack
  EXPECT_TRUE(ch.idle());
  EXPECT_EQ(enqueue_ok(ch, 0, payload(1, 0)), 5u);
  EXPECT_EQ(send_all(ch), (Seqs{5}));
}

TEST(PeerChannelSend, PayloadOutlivesItsAcknowledgement) {
  // A connection still writing a message holds its payload even when an
  // acknowledgement (from another connection) drops it from the queue.
  PeerChannel ch(1u << 20);
  enqueue_ok(ch, 3, Bytes{1, 2, 3, 4});
  const OutgoingMessage in_flight = *ch.next_to_send();
  ch.mark_sent();
  ch.acknowledge(1);
  ASSERT_TRUE(ch.idle());
  for (int i = 0; i < 10; ++i) enqueue_ok(ch, 0, payload(64, 0xEE));
  EXPECT_EQ(in_flight.seq, 1u);
  EXPECT_EQ(bytes_of(in_flight.payload), (Bytes{1, 2, 3, 4}));
}

// --- back-pressure -------------------------------------------------------------

TEST(PeerChannelBackPressure, SecondMessageOverTheLimitIsRefusedUntilAcknowledged) {
  PeerChannel ch(100);
  EXPECT_EQ(enqueue_ok(ch, 0, payload(60, 1)), 1u);
  auto second = ch.enqueue(0, payload(60, 2));
  ASSERT_TRUE(FailedWith(second, "oob", "send-queue-full"));
  EXPECT_TRUE(second.failed_with(ErrorKind::Busy));  // what a caller retries on
  EXPECT_EQ(second.error().arg("queued"), "60");
  EXPECT_EQ(second.error().arg("limit"), "100");
  EXPECT_EQ(ch.unacknowledged(), 1u);
  EXPECT_EQ(ch.queued_bytes(), 60u);

  // Sending does not free anything: only the acknowledgement does.
  send_all(ch);
  EXPECT_TRUE(FailedWith(ch.enqueue(0, payload(60, 2)), "oob", "send-queue-full"));

  ch.acknowledge(1);
  EXPECT_EQ(enqueue_ok(ch, 0, payload(60, 2)), 2u) << "a refused message must not use up a number";
  EXPECT_EQ(ch.queued_bytes(), 60u);
}

TEST(PeerChannelBackPressure, TheLimitItselfFits) {
  PeerChannel ch(100);
  enqueue_ok(ch, 0, payload(60, 1));
  EXPECT_EQ(enqueue_ok(ch, 0, payload(40, 1)), 2u);
  EXPECT_EQ(ch.queued_bytes(), 100u);
  EXPECT_TRUE(FailedWith(ch.enqueue(0, payload(1, 1)), "oob", "send-queue-full"));
  EXPECT_EQ(enqueue_ok(ch, 0, Bytes{}), 3u) << "an empty message adds nothing";
}

TEST(PeerChannelBackPressure, OneLargeMessageIsAcceptedWhenTheQueueIsEmpty) {
  PeerChannel ch(100);
  EXPECT_EQ(enqueue_ok(ch, 0, payload(1000, 1)), 1u);
  EXPECT_EQ(ch.queued_bytes(), 1000u);
  EXPECT_TRUE(FailedWith(ch.enqueue(0, payload(1, 1)), "oob", "send-queue-full"));
  ch.acknowledge(1);
  EXPECT_EQ(enqueue_ok(ch, 0, payload(1000, 1)), 2u);
}

// --- receiving -----------------------------------------------------------------

TEST(PeerChannelReceive, DeliverDuplicateGap) {
  PeerChannel ch(100);
  EXPECT_EQ(ch.on_data(1, 10), PeerChannel::Arrival::Deliver);
  EXPECT_EQ(ch.delivered(), 1u);
  EXPECT_EQ(ch.on_data(1, 10), PeerChannel::Arrival::Duplicate);
  EXPECT_EQ(ch.delivered(), 1u);
  EXPECT_EQ(ch.on_data(3, 10), PeerChannel::Arrival::Gap);
  EXPECT_EQ(ch.delivered(), 1u);
  EXPECT_EQ(ch.on_data(2, 10), PeerChannel::Arrival::Deliver);
  EXPECT_EQ(ch.delivered(), 2u);
  EXPECT_EQ(ch.on_data(3, 10), PeerChannel::Arrival::Deliver);
  EXPECT_EQ(ch.delivered(), 3u);
  EXPECT_EQ(ch.on_data(1, 10), PeerChannel::Arrival::Duplicate);
  EXPECT_EQ(ch.on_data(~std::uint64_t{0}, 10), PeerChannel::Arrival::Gap);
  EXPECT_EQ(ch.delivered(), 3u);
}

TEST(PeerChannelReceive, FirstArrivalMustBeOne) {
  PeerChannel ch(100);
  EXPECT_EQ(ch.on_data(2, 1), PeerChannel::Arrival::Gap);
  EXPECT_EQ(ch.delivered(), 0u);
  EXPECT_FALSE(ch.ack_pending());
}

TEST(PeerChannelReceive, AckDueAfter64Messages) {
  PeerChannel ch(100);
  for (std::uint64_t i = 1; i <= 63; ++i) {
    ASSERT_EQ(ch.on_data(i, 1), PeerChannel::Arrival::Deliver);
    EXPECT_FALSE(ch.ack_due()) << "after " << i;
    EXPECT_TRUE(ch.ack_pending());
  }
  ASSERT_EQ(ch.on_data(64, 1), PeerChannel::Arrival::Deliver);
  EXPECT_TRUE(ch.ack_due());
  ch.ack_sent();
  EXPECT_FALSE(ch.ack_due());
  EXPECT_FALSE(ch.ack_pending());

  // Counting starts again from the ack.
  for (std::uint64_t i = 65; i < 65 + 63; ++i) ASSERT_EQ(ch.on_data(i, 1), PeerChannel::Arrival::Deliver);
  EXPECT_FALSE(ch.ack_due());
  ASSERT_EQ(ch.on_data(128, 1), PeerChannel::Arrival::Deliver);
  EXPECT_TRUE(ch.ack_due());
}

TEST(PeerChannelReceive, AckDueAfterOneMebibyte) {
  PeerChannel ch(100);
  const size_t mib = size_t{1} << 20;
  ASSERT_EQ(ch.on_data(1, mib - 1), PeerChannel::Arrival::Deliver);
  EXPECT_FALSE(ch.ack_due());
  ASSERT_EQ(ch.on_data(2, 1), PeerChannel::Arrival::Deliver);
  EXPECT_TRUE(ch.ack_due());
  ch.ack_sent();
  EXPECT_FALSE(ch.ack_due());

  ASSERT_EQ(ch.on_data(3, mib), PeerChannel::Arrival::Deliver);
  EXPECT_TRUE(ch.ack_due()) << "one message of 1 MiB";
}

TEST(PeerChannelReceive, DuplicatesAndGapsDoNotCountTowardsAnAck) {
  PeerChannel ch(100);
  ASSERT_EQ(ch.on_data(1, 1), PeerChannel::Arrival::Deliver);
  ch.ack_sent();
  EXPECT_EQ(ch.on_data(1, size_t{2} << 20), PeerChannel::Arrival::Duplicate);
  EXPECT_EQ(ch.on_data(5, size_t{2} << 20), PeerChannel::Arrival::Gap);
  EXPECT_FALSE(ch.ack_pending());
  EXPECT_FALSE(ch.ack_due());
}

TEST(PeerChannelReceive, AckPendingAndAckSent) {
  PeerChannel ch(100);
  EXPECT_FALSE(ch.ack_pending());
  ASSERT_EQ(ch.on_data(1, 5), PeerChannel::Arrival::Deliver);
  EXPECT_TRUE(ch.ack_pending());
  EXPECT_FALSE(ch.ack_due());  // can wait for a piggyback
  ch.ack_sent();
  EXPECT_FALSE(ch.ack_pending());
  ch.ack_sent();  // idempotent
  EXPECT_FALSE(ch.ack_pending());
  EXPECT_EQ(ch.delivered(), 1u);
}

TEST(PeerChannel, SendingAndReceivingAreIndependent) {
  PeerChannel ch(100);
  enqueue_ok(ch, 0, payload(10, 0));
  ASSERT_EQ(ch.on_data(1, 10), PeerChannel::Arrival::Deliver);
  ASSERT_EQ(ch.on_data(2, 10), PeerChannel::Arrival::Deliver);
  ch.acknowledge(1);
  EXPECT_EQ(ch.delivered(), 2u);
  EXPECT_TRUE(ch.idle());
  ch.ack_sent();
  EXPECT_EQ(enqueue_ok(ch, 0, payload(10, 0)), 2u);
}

// --- a model of a lossy connection ---------------------------------------------

Bytes model_payload(std::uint64_t id) {
  Bytes p;
  p.reserve(8 + id % 120);
  for (int s = 56; s >= 0; s -= 8) p.push_back(static_cast<std::uint8_t>(id >> s));
  for (std::uint64_t k = 0; k < (id * 7919) % 120; ++k) p.push_back(static_cast<std::uint8_t>(id + k));
  return p;
}

struct InFlight {
  std::uint64_t seq;
  std::uint32_t tag;
  Bytes payload;
};

// A sender and a receiver channel over a "connection" that, at random
// points, loses everything in flight in both directions. Each reconnect
// resumes from what the receiver delivered (as the handshake tells it), or
// now and then from a stale, smaller number. Acks are sent when due or at
// random. Every message must arrive once, in order, intact.
void run_lossy_model(std::uint32_t seed, std::uint64_t queue_limit) {
  constexpr std::uint64_t kMessages = 10000;
  std::mt19937 rng(seed);
  auto chance = [&](unsigned percent) { return rng() % 100 < percent; };

  PeerChannel sender(queue_limit);
  PeerChannel receiver(queue_limit);
  std::deque<InFlight> data;      // sender -> receiver
  std::deque<std::uint64_t> acks;  // receiver -> sender
  std::vector<std::uint64_t> received;
  received.reserve(kMessages);
  std::uint64_t offered = 0;  // messages the application handed to enqueue
  size_t reconnects = 0, duplicates = 0, refused = 0, stale_restarts = 0;
  std::uint64_t sender_saw_ack = 0;

  for (size_t step = 0; received.size() < kMessages; ++step) {
    ASSERT_LT(step, 5'000'000u) << "no progress: " << received.size() << " of " << kMessages << " delivered";
    const unsigned action = rng() % 100;
    if (action < 25) {
      // the application sends; back-pressure makes it wait
      for (unsigned n = rng() % 8; n > 0 && offered < kMessages; --n) {
        auto r = sender.enqueue(static_cast<std::uint32_t>(offered + 1), model_payload(offered + 1));
        if (!r.ok()) {
          ASSERT_EQ(r.error().topic(), "send-queue-full");
          ++refused;
          break;
        }
        ASSERT_EQ(r.value(), offered + 1) << "sequence numbers must follow the order of enqueue";
        ++offered;
      }
    } else if (action < 50) {
      // the sender writes
      for (unsigned n = rng() % 16; n > 0; --n) {
        const OutgoingMessage* m = sender.next_to_send();
        if (!m) break;
        data.push_back(InFlight{m->seq, m->tag, bytes_of(m->payload)});
        sender.mark_sent();
      }
    } else if (action < 80) {
      // the receiver reads
      for (unsigned n = rng() % 16; n > 0 && !data.empty(); --n) {
        const InFlight f = std::move(data.front());
        data.pop_front();
        switch (receiver.on_data(f.seq, f.payload.size())) {
          case PeerChannel::Arrival::Deliver:
            ASSERT_EQ(f.seq, received.size() + 1);
            ASSERT_EQ(f.tag, f.seq);
            ASSERT_EQ(f.payload, model_payload(f.seq)) << "message " << f.seq << " damaged";
            received.push_back(f.seq);
            break;
          case PeerChannel::Arrival::Duplicate:
            ASSERT_LE(f.seq, received.size());
            ++duplicates;
            break;
          case PeerChannel::Arrival::Gap:
            FAIL() << "a gap on an ordered connection: got " << f.seq << " after " << receiver.delivered();
        }
        ASSERT_EQ(receiver.delivered(), received.size());
        if (receiver.ack_due() || (receiver.ack_pending() && chance(10))) {
          acks.push_back(receiver.delivered());
          receiver.ack_sent();
        }
      }
    } else if (action < 97) {
      // acks arrive
      for (unsigned n = rng() % 4; n > 0 && !acks.empty(); --n) {
        ASSERT_GE(acks.front(), sender_saw_ack) << "acks are cumulative";
        sender_saw_ack = acks.front();
        sender.acknowledge(acks.front());
        acks.pop_front();
        ASSERT_EQ(sender.unacknowledged(), offered - sender_saw_ack);
      }
    } else {
      // the connection breaks: everything in flight is lost; reconnect
      data.clear();
      acks.clear();
      ++reconnects;
      std::uint64_t resume = receiver.delivered();
      if (chance(25) && resume > 0) {
        resume = rng() % (resume + 1);  // stale: more is resent, none is lost
        ++stale_restarts;
      }
      sender.restart_from(resume);
      receiver.ack_sent();  // the handshake carried delivered()
      sender_saw_ack = std::max(sender_saw_ack, resume);
      // After a restart the first message written is the oldest one not
      // acknowledged (or nothing is left to send).
      ASSERT_EQ(sender.unacknowledged(), offered - sender_saw_ack);
      if (const OutgoingMessage* m = sender.next_to_send()) {
        ASSERT_EQ(m->seq, sender_saw_ack + 1);
      } else {
        ASSERT_EQ(sender_saw_ack, offered);
      }
    }
    // What the sender holds is exactly what it was given and the receiver
    // has not confirmed: no message is dropped before it was delivered.
    ASSERT_GE(sender.unacknowledged() + receiver.delivered(), offered)
        << "the sender forgot a message the receiver never delivered";
  }

  for (std::uint64_t i = 0; i < kMessages; ++i) ASSERT_EQ(received[i], i + 1);
  EXPECT_EQ(receiver.delivered(), kMessages);
  EXPECT_EQ(offered, kMessages);

  // A final ack lets the sender forget everything.
  sender.acknowledge(receiver.delivered());
  EXPECT_TRUE(sender.idle());
  EXPECT_EQ(sender.queued_bytes(), 0u);
  EXPECT_EQ(sender.next_to_send(), nullptr);

  // The run exercised what it is meant to.
  EXPECT_GT(reconnects, 100u);
  EXPECT_GT(stale_restarts, 10u);
  EXPECT_GT(duplicates, 0u);
  EXPECT_GT(refused, 0u);
}

TEST(PeerChannelModel, LossyConnectionDeliversEveryMessageOnceInOrder) { run_lossy_model(20240601u, 2048); }

TEST(PeerChannelModel, OtherSeedsAndATinyQueue) {
  for (std::uint32_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    run_lossy_model(seed, 300);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace orca::oob

namespace orca::oob {
namespace {

// A shared payload is not copied: the channel holds its owner until the
// peer acknowledges it, then lets go.
TEST(PeerChannelPayload, SharedBytesLiveUntilAcknowledged) {
  PeerChannel ch(1 << 20);
  auto bytes = std::make_shared<const std::vector<std::uint8_t>>(4096, 7);
  std::weak_ptr<const std::vector<std::uint8_t>> watch = bytes;
  const std::uint8_t* where = bytes->data();
  ASSERT_TRUE(ch.enqueue(1, Payload(bytes, bytes->data(), bytes->size())).ok());
  bytes.reset();
  ASSERT_FALSE(watch.expired()) << "the channel let go of unacknowledged bytes";
  const OutgoingMessage* m = ch.next_to_send();
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->payload.data(), where) << "the bytes were copied";
  EXPECT_EQ(m->payload.size(), 4096u);
  ch.mark_sent();
  ch.acknowledge(1);
  EXPECT_TRUE(watch.expired()) << "the channel kept acknowledged bytes";
}

TEST(PeerChannelPayload, WouldAcceptMatchesEnqueue) {
  PeerChannel ch(100);
  EXPECT_TRUE(ch.would_accept(1000).ok()) << "an empty queue takes any one message";
  ASSERT_TRUE(ch.enqueue(0, std::vector<std::uint8_t>(60, 0)).ok());
  EXPECT_FALSE(ch.would_accept(60).ok());
  EXPECT_EQ(ch.would_accept(60).error().topic(), "send-queue-full");
  EXPECT_TRUE(ch.would_accept(40).ok());
}

}  // namespace
}  // namespace orca::oob
