// HandshakeSlots, the admission policy for connections in their
// handshake, without sockets: what strangers can hold, that a daemon's
// first connection (a new source) and its reconnect (a proven source) get
// a slot however the strangers spread over their addresses, and that the
// bookkeeping returns to nothing.
#include "oob/handshake_slots.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace orca::oob {
namespace {

using Limit = HandshakeSlots::Limit;
using Ticket = HandshakeSlots::Ticket;

/* The slots, and which tickets are still open as the policy tells it
 * (what the Engine would do: close whatever it evicts). */
struct World {
  explicit World(HandshakeSlots::Limits limits) : slots(limits) {}
  HandshakeSlots::Admission admit(const std::string& source) {
    auto a = slots.admit(source);
    open.insert(a.ticket);
    if (a.evicted) {
      EXPECT_EQ(open.erase(*a.evicted), 1u) << "evicted a ticket that was not open";
      EXPECT_NE(*a.evicted, a.ticket) << "a newcomer displaced itself";
      ++evictions;
    }
    return a;
  }
  bool is_open(Ticket t) const { return open.count(t) != 0; }
  void complete(Ticket t) {
    open.erase(t);
    slots.proven(t);
  }
  HandshakeSlots slots;
  std::set<Ticket> open;
  size_t evictions = 0;
};

std::string addr(int i) { return "10.0.0." + std::to_string(i); }

TEST(HandshakeSlots, ALimitThatLeavesNewSourcesNoSlotIsRefused) {
  EXPECT_THROW(HandshakeSlots({.total = 8, .reserve = 8, .per_source = 2}), std::invalid_argument);
  EXPECT_THROW(HandshakeSlots({.total = 8, .reserve = 2, .per_source = 0}), std::invalid_argument);
  EXPECT_NO_THROW(HandshakeSlots({.total = 1, .reserve = 0, .per_source = 1}));
}

TEST(HandshakeSlots, RoomMeansNoEviction) {
  World w({.total = 8, .reserve = 2, .per_source = 3});
  for (int i = 0; i < 6; ++i) {
    auto a = w.admit(addr(i));
    EXPECT_EQ(a.limit, Limit::None);
    EXPECT_FALSE(a.evicted);
  }
  EXPECT_EQ(w.slots.pending(), 6u);
  EXPECT_EQ(w.slots.pending_new(), 6u);
}

TEST(HandshakeSlots, OneSourceBeyondItsShareRecyclesItsOwnOldest) {
  World w({.total = 8, .reserve = 2, .per_source = 3});
  const Ticket t1 = w.admit("x").ticket;
  const Ticket t2 = w.admit("x").ticket;
  w.admit("x");
  w.admit("y");
  auto a = w.admit("x");
  EXPECT_EQ(a.limit, Limit::PerSource);
  ASSERT_TRUE(a.evicted);
  EXPECT_EQ(*a.evicted, t1) << "the oldest of that source goes";
  EXPECT_EQ(a.victim_source, "x");
  EXPECT_EQ(a.victim_held, 4u);
  EXPECT_EQ(w.slots.pending_from("x"), 3u);
  EXPECT_EQ(w.slots.pending_from("y"), 1u) << "another source is untouched";
  EXPECT_EQ(*w.admit("x").evicted, t2);
}

TEST(HandshakeSlots, StrangersShareTotalMinusReserveAndTheBiggestHolderGivesWay) {
  World w({.total = 10, .reserve = 4, .per_source = 4});
  // x holds 4, y 2: the strangers' 6.
  std::vector<Ticket> x, y;
  for (int i = 0; i < 4; ++i) x.push_back(w.admit("x").ticket);
  for (int i = 0; i < 2; ++i) y.push_back(w.admit("y").ticket);
  EXPECT_EQ(w.evictions, 0u);
  auto a = w.admit("z");
  EXPECT_EQ(a.limit, Limit::NewSources);
  ASSERT_TRUE(a.evicted);
  EXPECT_EQ(*a.evicted, x[0]) << "x holds the most; its oldest goes";
  EXPECT_EQ(w.slots.pending(), 6u) << "the reserve stays free of strangers";
  // x 3, y 2, z 1: with its next one y holds 3 too; the tie goes to the
  // older handshake, x's.
  a = w.admit("y");
  EXPECT_EQ(*a.evicted, x[1]);
  // x 2, y 3, z 1: z's second takes y's oldest.
  a = w.admit("z");
  EXPECT_EQ(*a.evicted, y[0]);
  EXPECT_EQ(a.victim_source, "y");
  EXPECT_EQ(a.victim_held, 3u);
}

TEST(HandshakeSlots, TiesGoToTheOldestHandshake) {
  World w({.total = 5, .reserve = 1, .per_source = 4});
  const Ticket a1 = w.admit("a").ticket;
  const Ticket b1 = w.admit("b").ticket;
  w.admit("c");
  w.admit("d");
  // Everyone holds one: the newcomer takes the oldest of all.
  auto n = w.admit("e");
  EXPECT_EQ(*n.evicted, a1);
  n = w.admit("f");
  EXPECT_EQ(*n.evicted, b1);
}

// The property the reserve and the share are for, with the defaults: 8
// addresses ask for 32 slots each, and keep asking (each one closed is
// opened again at once), while a daemon connects from a new address. It
// gets a slot at once and keeps it for as long as the strangers go on.
TEST(HandshakeSlots, ADaemonsFirstConnectionGetsInAndStaysWhileEightAddressesHoldTheRest) {
  World w({.total = 256, .reserve = 64, .per_source = 32});
  std::vector<std::string> attackers;
  for (int i = 0; i < 8; ++i) attackers.push_back(addr(100 + i));
  for (int round = 0; round < 32; ++round) {
    for (const auto& s : attackers) w.admit(s);
  }
  EXPECT_EQ(w.slots.pending(), 192u) << "strangers hold total - reserve";
  const auto daemon = w.admit("10.0.0.3");
  EXPECT_TRUE(daemon.evicted) << "a stranger's slot went to the daemon";
  // 10,000 more from the 8, as fast as they like.
  for (int i = 0; i < 10000; ++i) w.admit(attackers[static_cast<size_t>(i) % attackers.size()]);
  EXPECT_TRUE(w.is_open(daemon.ticket)) << "the daemon's handshake was displaced";
  EXPECT_LE(w.slots.pending(), 192u);
  w.complete(daemon.ticket);
  EXPECT_TRUE(w.slots.is_proven("10.0.0.3"));
}

// However the strangers spread over addresses: 100 addresses hold the
// strangers' share, and new daemons keep arriving. Each one is admitted,
// and none is displaced while some stranger holds two.
TEST(HandshakeSlots, NewSourcesAreNeverRefusedAndSingleHandshakesSurviveWhileAnyStrangerHoldsTwo) {
  World w({.total = 256, .reserve = 64, .per_source = 32});
  for (int i = 0; i < 3000; ++i) w.admit(addr(1000 + i % 100));
  std::vector<Ticket> daemons;
  for (int d = 0; d < 50; ++d) {
    daemons.push_back(w.admit("daemon" + std::to_string(d)).ticket);
    for (int i = 0; i < 200; ++i) w.admit(addr(1000 + i % 100));
  }
  // 50 daemons and 100 strangers in 192 slots: the strangers hold 142, so
  // some hold two, and no daemon was displaced.
  for (Ticket t : daemons) EXPECT_TRUE(w.is_open(t));
}

// Beyond that (strangers from as many addresses as there are slots) a
// single handshake survives total - reserve newcomers, oldest first: the
// attacker's connect rate bounds it, but the newcomer still gets in.
TEST(HandshakeSlots, StrangersFromEveryAddressDisplaceOldestFirst) {
  World w({.total = 16, .reserve = 4, .per_source = 32});
  for (int i = 0; i < 12; ++i) w.admit(addr(i));
  const Ticket daemon = w.admit("daemon").ticket;
  for (int i = 0; i < 11; ++i) {
    w.admit(addr(100 + i));
    EXPECT_TRUE(w.is_open(daemon)) << "after " << i + 1 << " newcomers";
  }
  w.admit(addr(200));
  EXPECT_FALSE(w.is_open(daemon)) << "the 12th newcomer after it";
}

TEST(HandshakeSlots, AProvenSourceUsesTheReserveAndDisplacesStrangersNotTheOtherWayRound) {
  World w({.total = 10, .reserve = 4, .per_source = 8});
  w.complete(w.admit("daemon").ticket);
  ASSERT_TRUE(w.slots.is_proven("daemon"));
  for (int i = 0; i < 6; ++i) w.admit("stranger");  // the strangers' share
  std::vector<Ticket> mine;
  for (int i = 0; i < 4; ++i) {
    auto a = w.admit("daemon");
    EXPECT_FALSE(a.evicted) << "the reserve has room";
    mine.push_back(a.ticket);
  }
  EXPECT_EQ(w.slots.pending(), 10u);
  EXPECT_EQ(w.slots.pending_new(), 6u);
  // Everything taken: another reconnect takes a stranger's slot.
  auto a = w.admit("daemon");
  EXPECT_EQ(a.limit, Limit::Total);
  ASSERT_TRUE(a.evicted);
  EXPECT_EQ(a.victim_source, "stranger");
  // A stranger's newcomer takes a stranger's slot, never the daemon's.
  for (int i = 0; i < 100; ++i) {
    a = w.admit(addr(i % 7));
    ASSERT_TRUE(a.evicted);
    EXPECT_NE(a.victim_source, "daemon");
  }
  for (Ticket t : mine) EXPECT_TRUE(w.is_open(t));
}

TEST(HandshakeSlots, ASourceProvenMidFloodMovesItsOtherHandshakesOutOfTheStrangersShare) {
  World w({.total = 10, .reserve = 4, .per_source = 8});
  const Ticket first = w.admit("d").ticket;
  w.admit("d");
  w.admit("d");
  EXPECT_EQ(w.slots.pending_new(), 3u);
  w.complete(first);
  EXPECT_EQ(w.slots.pending(), 2u);
  EXPECT_EQ(w.slots.pending_new(), 0u) << "d's other two are a proven source's now";
  for (int i = 0; i < 6; ++i) EXPECT_FALSE(w.admit("s").evicted);
  EXPECT_EQ(w.slots.pending_new(), 6u);
}

TEST(HandshakeSlots, ReleasedAndEvictedSlotsLeaveNothingBehind) {
  World w({.total = 8, .reserve = 2, .per_source = 2});
  std::vector<Ticket> all;
  for (int i = 0; i < 100; ++i) all.push_back(w.admit(addr(i % 13)).ticket);
  for (Ticket t : all) w.slots.release(t);  // evicted ones are ignored
  for (Ticket t : all) w.slots.release(t);  // and twice, too
  EXPECT_EQ(w.slots.pending(), 0u);
  EXPECT_EQ(w.slots.pending_new(), 0u);
  for (int i = 0; i < 13; ++i) {
    EXPECT_EQ(w.slots.pending_from(addr(i)), 0u);
    EXPECT_FALSE(w.slots.is_proven(addr(i))) << "released is not proven";
  }
}

TEST(HandshakeSlots, ProvenSourcesAreBoundedAndBeyondTheBoundTreatedAsNew) {
  World w({.total = 4, .reserve = 1, .per_source = 4});
  for (size_t i = 0; i < HandshakeSlots::kMaxProven + 10; ++i) w.complete(w.admit("p" + std::to_string(i)).ticket);
  EXPECT_TRUE(w.slots.is_proven("p0"));
  EXPECT_FALSE(w.slots.is_proven("p" + std::to_string(HandshakeSlots::kMaxProven)));
  EXPECT_EQ(w.slots.pending(), 0u);
}

}  // namespace
}  // namespace orca::oob
