// reachable/weighted: the rule-only ranking on hand-built endpoints.
#include "reachable/weighted/weighted_ranker.h"

#include "lib/expect_text.h"
#include "lib/synthetic_inventory.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <list>
#include <string>
#include <vector>

namespace orca::reach::weighted {
namespace {

using net::InterfaceKind;
using orca::test::Contains;
using orca::test::reason_of;
using orca::test::undecided;
using orca::test::LacksText;

class WeightedRanker : public ::testing::Test {
 protected:
  // A local inventory entry; kept alive because its endpoint points at
  // the interface name.
  const net::InterfaceAddress& local(const char* address, int prefix, InterfaceKind kind = InterfaceKind::Physical,
                                     std::uint64_t speed = 0, bool running = true, const char* name = "eth0") {
    net::LinkInfo link = test::make_link({name, 2, kind, true, running, std::nullopt});
    if (speed != 0) link.speed_mbps = speed;
    entries_.push_back(test::make_entry(link, address, prefix));
    return entries_.back();
  }

  // Ranks one local against one remote.
  orca_reach_verdict rank_one(const net::InterfaceAddress& l, const RemoteAddress& r) {
    const orca_reach_endpoint le = to_endpoint(l);
    const orca_reach_endpoint re = to_endpoint(r);
    const orca_reach_query q{&le, 1, &re, 1, 0};
    orca_reach_verdict v = undecided();
    EXPECT_EQ(rank(q, &v), ORCA_MCA_OK);
    EXPECT_NE(v.weight, ORCA_REACH_UNDECIDED);
    return v;
  }

  // What the tier plus the shared link bonus give.
  static int expected(int tier, const net::InterfaceAddress& l, const RemoteAddress& r) {
    return tier + link_bonus(to_endpoint(l), to_endpoint(r), nullptr);
  }

  std::list<net::InterfaceAddress> entries_;
};

// --- tiers ----------------------------------------------------------------------

TEST_F(WeightedRanker, SameSubnet) {
  const auto& l = local("10.1.0.5", 24);
  const RemoteAddress r = test::remote("10.1.0.9", 24);
  const orca_reach_verdict v = rank_one(l, r);
  EXPECT_EQ(v.weight, expected(kSameSubnet, l, r));
  EXPECT_EQ(v.weight, kSameSubnet + 60);
  EXPECT_EQ(reason_of(v), "same subnet 10.1.0.5/24; physical path");
}

TEST_F(WeightedRanker, SameSubnetUsesTheLocalPrefix) {
  // 10.1.3.9 is in 10.1.0.0/16 but not in 10.1.0.0/24.
  const RemoteAddress r = test::remote("10.1.3.9", 24);
  EXPECT_EQ(rank_one(local("10.1.0.5", 16), r).weight, expected(kSameSubnet, local("10.1.0.5", 16), r));
  EXPECT_EQ(rank_one(local("10.1.0.5", 24), r).weight, expected(kSameScope, local("10.1.0.5", 24), r));
}

TEST_F(WeightedRanker, BothPrivate) {
  const auto& l = local("10.1.0.5", 24);
  const RemoteAddress r = test::remote("172.16.0.9", 24);
  const orca_reach_verdict v = rank_one(l, r);
  EXPECT_EQ(v.weight, expected(kSameScope, l, r));
  EXPECT_TRUE(Contains(reason_of(v), "both private, different subnets"));
}

TEST_F(WeightedRanker, BothPublic) {
  const auto& l = local("198.51.100.5", 24);
  const RemoteAddress r = test::remote("203.0.113.9", 24);
  const orca_reach_verdict v = rank_one(l, r);
  EXPECT_EQ(v.weight, expected(kSameScope, l, r));
  EXPECT_TRUE(Contains(reason_of(v), "both public"));
}

TEST_F(WeightedRanker, Mixed) {
  for (auto [la, ra] : {std::pair{"10.1.0.5", "203.0.113.9"}, std::pair{"198.51.100.5", "192.168.1.9"},
                        std::pair{"fd00:1::5", "2001:db8::9"}}) {
    const auto& l = local(la, 24);
    const RemoteAddress r = test::remote(ra, 24);
    const orca_reach_verdict v = rank_one(l, r);
    EXPECT_EQ(v.weight, expected(kMixedScope, l, r)) << la << " -> " << ra;
    EXPECT_TRUE(Contains(reason_of(v), "one private and one public address")) << la << " -> " << ra;
  }
}

TEST_F(WeightedRanker, LinkLocal) {
  // Link-local addresses outside the local prefix: the link-local tier.
  const auto& l4 = local("169.254.1.1", 24);
  const RemoteAddress r4 = test::remote("169.254.2.2", 16);
  const orca_reach_verdict v4 = rank_one(l4, r4);
  EXPECT_EQ(v4.weight, expected(kLinkLocal, l4, r4));
  EXPECT_TRUE(Contains(reason_of(v4), "link-local"));

  const auto& l6 = local("fe80::5", 64);
  const RemoteAddress r6 = test::remote("fe80:0:0:1::9", 64);
  const orca_reach_verdict v6 = rank_one(l6, r6);
  EXPECT_EQ(v6.weight, expected(kLinkLocal, l6, r6));
  EXPECT_TRUE(Contains(reason_of(v6), "link-local: works only if on the same link"));

  // Inside the local prefix, link-local is simply the same subnet.
  EXPECT_EQ(rank_one(local("fe80::5", 64), test::remote("fe80::9", 64)).weight,
            expected(kSameSubnet, local("fe80::5", 64), test::remote("fe80::9", 64)));
}

TEST_F(WeightedRanker, SameSubnetBeatsPrivatePrivateBeatsMixed) {
  const auto& l = local("10.1.0.5", 24);
  const int same = rank_one(l, test::remote("10.1.0.9", 24)).weight;
  const int link_local = rank_one(local("169.254.1.1", 24), test::remote("169.254.2.2", 16)).weight;
  const int both_private = rank_one(l, test::remote("10.2.0.9", 24)).weight;
  const int mixed = rank_one(l, test::remote("203.0.113.9", 24)).weight;
  EXPECT_GT(same, link_local);
  EXPECT_GT(link_local, both_private);
  EXPECT_GT(both_private, mixed);
  EXPECT_GT(mixed, 0);
}

TEST_F(WeightedRanker, TheTierDecidesBeforeTheLinkBonus) {
  // The worst link in a higher tier still beats the best in the next one.
  const int worst_same_subnet =
      rank_one(local("10.1.0.5", 24, InterfaceKind::Bridge), test::remote("10.1.0.9", 24, InterfaceKind::Bridge)).weight;
  const int best_link_local =
      rank_one(local("169.254.1.1", 24, InterfaceKind::Physical, 100000), test::remote("169.254.2.2", 16)).weight;
  const int worst_link_local =
      rank_one(local("169.254.1.1", 24, InterfaceKind::Bridge), test::remote("169.254.2.2", 16)).weight;
  const int best_same_scope =
      rank_one(local("10.1.0.5", 24, InterfaceKind::Physical, 100000), test::remote("10.2.0.9", 24)).weight;
  const int worst_same_scope =
      rank_one(local("10.1.0.5", 24, InterfaceKind::Bridge), test::remote("10.2.0.9", 24)).weight;
  const int best_mixed =
      rank_one(local("10.1.0.5", 24, InterfaceKind::Physical, 100000), test::remote("203.0.113.9", 24)).weight;
  EXPECT_GT(worst_same_subnet, best_link_local);
  EXPECT_GT(worst_link_local, best_same_scope);
  EXPECT_GT(worst_same_scope, best_mixed);
}

// --- within a tier -----------------------------------------------------------------

TEST_F(WeightedRanker, PhysicalBeatsBridgeWithinATier) {
  const RemoteAddress r = test::remote("10.1.0.9", 24);
  const orca_reach_verdict physical = rank_one(local("10.1.0.5", 24, InterfaceKind::Physical), r);
  const orca_reach_verdict bridge = rank_one(local("10.1.0.6", 24, InterfaceKind::Bridge, 0, true, "br0"), r);
  EXPECT_GT(physical.weight, bridge.weight);
  EXPECT_EQ(bridge.weight, kSameSubnet);  // a bridge adds nothing
  EXPECT_TRUE(Contains(reason_of(bridge), "bridge path"));
  EXPECT_TRUE(Contains(reason_of(physical), "physical path"));
}

TEST_F(WeightedRanker, ThePeersBridgeMakesItABridgePath) {
  const auto& l = local("10.1.0.5", 24, InterfaceKind::Physical);
  const orca_reach_verdict to_nic = rank_one(l, test::remote("10.1.0.9", 24, InterfaceKind::Physical));
  const orca_reach_verdict to_bridge = rank_one(l, test::remote("10.1.0.9", 24, InterfaceKind::Bridge));
  EXPECT_GT(to_nic.weight, to_bridge.weight);
  EXPECT_TRUE(Contains(reason_of(to_bridge), "bridge path"));
}

TEST_F(WeightedRanker, AFasterLinkBeatsASlowerOne) {
  const RemoteAddress r = test::remote("10.1.0.9", 24);
  const orca_reach_verdict fast = rank_one(local("10.1.0.5", 24, InterfaceKind::Physical, 10000), r);
  const orca_reach_verdict slow = rank_one(local("10.1.0.6", 24, InterfaceKind::Physical, 1000, true, "eth1"), r);
  EXPECT_GT(fast.weight, slow.weight);
  EXPECT_TRUE(Contains(reason_of(fast), "10000 Mb/s"));
  EXPECT_TRUE(Contains(reason_of(slow), "1000 Mb/s"));
}

TEST_F(WeightedRanker, NoCarrierDividesByFour) {
  const RemoteAddress r = test::remote("192.168.122.7", 24);
  const auto& up = local("192.168.122.1", 24, InterfaceKind::Physical, 1000, true, "virbr0");
  const auto& down = local("192.168.122.1", 24, InterfaceKind::Physical, 1000, false, "virbr0");
  const orca_reach_verdict with = rank_one(up, r);
  const orca_reach_verdict without = rank_one(down, r);
  EXPECT_EQ(with.weight, expected(kSameSubnet, up, r));
  EXPECT_EQ(without.weight, with.weight / 4);
  EXPECT_TRUE(LacksText(reason_of(with), "carrier"));
  EXPECT_TRUE(Contains(reason_of(without), "no carrier on virbr0"));
}

TEST_F(WeightedRanker, NoCarrierWithoutAName) {
  orca_reach_endpoint l = to_endpoint(local("10.1.0.5", 24, InterfaceKind::Physical, 0, false));
  l.if_name = nullptr;
  const orca_reach_endpoint r = to_endpoint(test::remote("10.1.0.9", 24));
  const orca_reach_query q{&l, 1, &r, 1, 0};
  orca_reach_verdict v = undecided();
  ASSERT_EQ(rank(q, &v), ORCA_MCA_OK);
  EXPECT_EQ(v.weight, (kSameSubnet + 60) / 4);
  EXPECT_TRUE(Contains(reason_of(v), "no carrier on ?"));
}

// --- the matrix -------------------------------------------------------------------

TEST_F(WeightedRanker, FillsTheMatrixLocalMajor) {
  const std::vector<orca_reach_endpoint> locals = {
      to_endpoint(local("10.1.0.5", 24, InterfaceKind::Physical)),
      to_endpoint(local("192.168.122.1", 24, InterfaceKind::Bridge, 0, true, "virbr0"))};
  const std::vector<orca_reach_endpoint> remotes = {to_endpoint(test::remote("10.1.0.9", 24)),
                                                    to_endpoint(test::remote("192.168.122.7", 24))};
  const orca_reach_query q{locals.data(), locals.size(), remotes.data(), remotes.size(), 0};
  std::vector<orca_reach_verdict> v(4, undecided());
  ASSERT_EQ(rank(q, v.data()), ORCA_MCA_OK);
  EXPECT_EQ(v[0].weight, kSameSubnet + 60);  // eth0 -> 10.1.0.9
  EXPECT_EQ(v[1].weight, kSameScope + 60);   // eth0 -> 192.168.122.7
  EXPECT_EQ(v[2].weight, kSameScope + 0);    // virbr0 -> 10.1.0.9
  EXPECT_EQ(v[3].weight, kSameSubnet + 0);   // virbr0 -> 192.168.122.7
  EXPECT_TRUE(Contains(reason_of(v[0]), "same subnet 10.1.0.5/24"));
  EXPECT_TRUE(Contains(reason_of(v[3]), "same subnet 192.168.122.1/24"));
}

TEST_F(WeightedRanker, DecidedVerdictsAreLeftUntouched) {
  const std::vector<orca_reach_endpoint> locals = {to_endpoint(local("10.1.0.5", 24))};
  const std::vector<orca_reach_endpoint> remotes = {to_endpoint(test::remote("10.1.0.9", 24)),
                                                    to_endpoint(test::remote("10.1.0.8", 24)),
                                                    to_endpoint(test::remote("10.1.0.7", 24))};
  const orca_reach_query q{locals.data(), locals.size(), remotes.data(), remotes.size(), 0};
  std::vector<orca_reach_verdict> v(3, undecided());
  v[0].weight = 0;
  std::snprintf(v[0].reason, sizeof v[0].reason, "decided by the base");
  v[2].weight = kWeightSameHostLoopback;
  std::snprintf(v[2].reason, sizeof v[2].reason, "also decided");
  const orca_reach_verdict before0 = v[0], before2 = v[2];
  ASSERT_EQ(rank(q, v.data()), ORCA_MCA_OK);
  EXPECT_EQ(std::memcmp(&v[0], &before0, sizeof before0), 0) << reason_of(v[0]);
  EXPECT_EQ(std::memcmp(&v[2], &before2, sizeof before2), 0) << reason_of(v[2]);
  EXPECT_EQ(v[1].weight, kSameSubnet + 60);
}

TEST_F(WeightedRanker, ReasonsAreNonEmptyAndNulTerminated) {
  // Long addresses and a long interface name push the reason past the
  // buffer: it must be cut, not left unterminated.
  const std::string long_name(200, 'n');
  const std::vector<orca_reach_endpoint> locals = {
      to_endpoint(local("2001:db8:1234:5678:9abc:def0:1234:5678", 64, InterfaceKind::Physical, 100000, false,
                        long_name.c_str())),
      to_endpoint(local("10.1.0.5", 24)), to_endpoint(local("169.254.1.1", 24, InterfaceKind::Veth, 0, false))};
  const std::vector<orca_reach_endpoint> remotes = {
      to_endpoint(test::remote("2001:db8:1234:5678:ffff:ffff:ffff:ffff", 64)),
      to_endpoint(test::remote("203.0.113.9", 24)), to_endpoint(test::remote("169.254.2.2", 16))};
  const orca_reach_query q{locals.data(), locals.size(), remotes.data(), remotes.size(), 0};
  std::vector<orca_reach_verdict> v(9, undecided());
  ASSERT_EQ(rank(q, v.data()), ORCA_MCA_OK);
  for (size_t i = 0; i < v.size(); ++i) {
    const size_t len = strnlen(v[i].reason, sizeof v[i].reason);
    EXPECT_LT(len, sizeof v[i].reason) << "verdict " << i << " has no NUL";
    EXPECT_GT(len, 0u) << "verdict " << i;
    EXPECT_GE(v[i].weight, 0) << "verdict " << i;
  }
  // The long one was cut at the buffer's end.
  EXPECT_EQ(strnlen(v[0].reason, sizeof v[0].reason), sizeof v[0].reason - 1);
  EXPECT_TRUE(Contains(reason_of(v[0]), "same subnet 2001:db8:1234:5678:9abc:def0:1234:5678/64"));
}

TEST_F(WeightedRanker, WeightsOnlyGivesTheSameWeightsAndLeavesTheReasons) {
  const std::vector<orca_reach_endpoint> locals = {
      to_endpoint(local("10.1.0.5", 24, InterfaceKind::Physical, 10000)),
      to_endpoint(local("192.168.122.1", 24, InterfaceKind::Bridge, 0, true, "virbr0")),
      to_endpoint(local("169.254.1.1", 16, InterfaceKind::Veth, 0, false))};
  const std::vector<orca_reach_endpoint> remotes = {to_endpoint(test::remote("10.1.0.9", 24)),
                                                    to_endpoint(test::remote("203.0.113.9", 24)),
                                                    to_endpoint(test::remote("169.254.2.2", 16))};
  orca_reach_query q{locals.data(), locals.size(), remotes.data(), remotes.size(), 0, 0};
  std::vector<orca_reach_verdict> with(9, undecided()), without(9, undecided());
  ASSERT_EQ(rank(q, with.data()), ORCA_MCA_OK);
  q.omit_reasons = 1;
  ASSERT_EQ(rank(q, without.data()), ORCA_MCA_OK);
  for (size_t i = 0; i < with.size(); ++i) {
    EXPECT_EQ(without[i].weight, with[i].weight) << i << ": " << reason_of(with[i]);
    // Left as it was: the ranker built no string for it.
    EXPECT_EQ(without[i].reason[0], 'X') << i << ": " << reason_of(without[i]);
  }
}

TEST_F(WeightedRanker, AnEmptyQueryIsFine) {
  const orca_reach_query q{nullptr, 0, nullptr, 0, 0};
  EXPECT_EQ(rank(q, nullptr), ORCA_MCA_OK);
}

}  // namespace
}  // namespace orca::reach::weighted
