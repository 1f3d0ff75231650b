// reachable/netlink: the route-based ranking against this machine's real
// routing table. Only RTM_GETROUTE lookups are made: a route lookup asks
// the kernel which way it WOULD send and sends no packet anywhere.
#include "reachable/netlink/route_ranker.h"

#include "lib/expect_text.h"
#include "lib/synthetic_inventory.h"

#include <gtest/gtest.h>
#include <linux/rtnetlink.h>

#include <cstdio>
#include <cstring>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace orca::reach::netlink {
namespace {

using net::InterfaceKind;
using orca::test::Contains;
using orca::test::reason_of;
using orca::test::undecided;
using orca::test::ip;

// A documentation address (TEST-NET-1): looked up, never contacted.
constexpr const char* kTestNetDestination = "192.0.2.200";

class RouteRanker : public ::testing::Test {
 protected:
  void SetUp() override {
    auto sock = net::NetlinkSocket::open();
    if (!sock.ok()) GTEST_SKIP() << "netlink is not permitted here, cannot look up routes: " << sock.error().summary();
    routes_ = std::make_unique<KernelRoutes>(std::move(sock).value());
    auto inv = net::InterfaceInventory::scan();
    if (!inv.ok()) GTEST_SKIP() << "cannot scan this machine's interfaces: " << inv.error().summary();
    inventory_ = std::move(inv).value();
  }

  // Ranks the locals against one remote; one verdict per local.
  std::vector<orca_reach_verdict> rank_against(const std::vector<orca_reach_endpoint>& locals, const RemoteAddress& r) {
    const orca_reach_endpoint re = to_endpoint(r);
    const orca_reach_query q{locals.data(), locals.size(), &re, 1, 0};
    std::vector<orca_reach_verdict> v(locals.size(), undecided());
    EXPECT_EQ(rank(*routes_, q, v.data()), ORCA_MCA_OK);
    for (size_t i = 0; i < v.size(); ++i) {
      EXPECT_NE(v[i].weight, ORCA_REACH_UNDECIDED) << i;
      EXPECT_LT(strnlen(v[i].reason, sizeof v[i].reason), sizeof v[i].reason) << i << ": reason has no NUL";
    }
    return v;
  }

  // The first IPv4 entry of the link with this index.
  const net::InterfaceAddress* ipv4_entry_on(int index) const {
    for (const auto& e : inventory_.entries())
      if (e.link.index == index && e.address.family() == net::Family::V4) return &e;
    return nullptr;
  }

  const net::InterfaceAddress* loopback_v4() const {
    for (const auto& e : inventory_.entries())
      if (e.address == ip("127.0.0.1")) return &e;
    return nullptr;
  }

  // A synthetic local entry (kept alive: endpoints point at its name).
  const net::InterfaceAddress& synthetic(const char* name, int index, const char* address, int prefix) {
    synthetic_.push_back(test::make_entry(test::make_link({name, index, InterfaceKind::Physical, true, true,
                                                           std::nullopt}),
                                          address, prefix));
    return synthetic_.back();
  }

  std::unique_ptr<KernelRoutes> routes_;
  net::InterfaceInventory inventory_;
  std::list<net::InterfaceAddress> synthetic_;
};

TEST_F(RouteRanker, TheKernelsInterfaceFirstOthersDemoted) {
  const Route route = routes_->lookup(ip(kTestNetDestination));
  if (!route.found) GTEST_SKIP() << "this machine has no IPv4 route to " << kTestNetDestination << ": " << route.error;
  if (route.type != RTN_UNICAST)
    GTEST_SKIP() << "the route to " << kTestNetDestination << " is of type " << route.type << ", not unicast";
  ASSERT_GT(route.oif, 0);
  const net::InterfaceAddress* on_oif = ipv4_entry_on(route.oif);
  if (on_oif == nullptr) GTEST_SKIP() << "the route's interface " << route.oif << " has no IPv4 address here";
  const net::InterfaceAddress* lo = loopback_v4();
  ASSERT_NE(lo, nullptr) << inventory_.describe();
  ASSERT_NE(lo->link.index, route.oif);

  const RemoteAddress r = test::remote(kTestNetDestination, 24);
  const auto v = rank_against({to_endpoint(*on_oif), to_endpoint(*lo)}, r);

  // The exact weight: the route kind, +20 when the kernel would pick this
  // very address as source, the shared link bonus, /4 without carrier.
  int want = route.gateway ? kGatewayRoute : kDirectRoute;
  const bool preferred = route.preferred_source && route.preferred_source->same_address(on_oif->address);
  if (preferred) want += 20;
  want += link_bonus(to_endpoint(*on_oif), to_endpoint(r), nullptr);
  if (!on_oif->link.running) want /= 4;
  EXPECT_EQ(v[0].weight, want) << reason_of(v[0]);
  if (on_oif->link.running) {
    EXPECT_GE(v[0].weight, route.gateway ? kGatewayRoute : kDirectRoute);
  }
  if (route.gateway) {
    EXPECT_TRUE(Contains(reason_of(v[0]), "via " + route.gateway->to_string() + " on " + on_oif->link.name));
  } else {
    EXPECT_TRUE(Contains(reason_of(v[0]), "directly on " + on_oif->link.name));
  }
  if (preferred) {
    EXPECT_TRUE(Contains(reason_of(v[0]), "from this address"));
  }

  // Another interface's entry: demoted, and the reason names both.
  EXPECT_EQ(v[1].weight, kOtherInterface) << reason_of(v[1]);
  EXPECT_TRUE(Contains(reason_of(v[1]), "on " + on_oif->link.name + ", not " + lo->link.name));
}

TEST_F(RouteRanker, ThePreferredSourceAddressGetsMore) {
  const Route route = routes_->lookup(ip(kTestNetDestination));
  if (!route.found) GTEST_SKIP() << "this machine has no IPv4 route to " << kTestNetDestination << ": " << route.error;
  if (!route.preferred_source) GTEST_SKIP() << "the kernel names no preferred source for " << kTestNetDestination;
  const net::InterfaceAddress* on_oif = ipv4_entry_on(route.oif);
  if (on_oif == nullptr || !on_oif->address.same_address(*route.preferred_source))
    GTEST_SKIP() << "the preferred source is not the first address of the route's interface";
  if (!on_oif->link.running) GTEST_SKIP() << on_oif->link.name << " has no carrier";
  // Same link, another (made-up) address: identical but for the +20.
  net::InterfaceAddress other = *on_oif;
  other.address = ip("192.0.2.251");
  ASSERT_FALSE(other.address.same_address(*route.preferred_source));
  const auto v = rank_against({to_endpoint(*on_oif), to_endpoint(other)}, test::remote(kTestNetDestination, 24));
  EXPECT_EQ(v[0].weight - v[1].weight, 20) << reason_of(v[0]) << " | " << reason_of(v[1]);
  EXPECT_TRUE(Contains(reason_of(v[0]), "from this address"));
  EXPECT_FALSE(Contains(reason_of(v[1]), "from this address"));
}

TEST_F(RouteRanker, LoopbackDestinationIsLocalDelivery) {
  const Route route = routes_->lookup(ip("127.0.0.2"));
  ASSERT_TRUE(route.found) << route.error;
  EXPECT_EQ(route.type, RTN_LOCAL);
  const net::InterfaceAddress* lo = loopback_v4();
  ASSERT_NE(lo, nullptr) << inventory_.describe();
  EXPECT_EQ(route.oif, lo->link.index);

  const RemoteAddress r = test::remote("127.0.0.2", 8, InterfaceKind::Loopback);
  const auto v = rank_against({to_endpoint(*lo)}, r);
  int want = kLocalDelivery + link_bonus(to_endpoint(*lo), to_endpoint(r), nullptr);
  if (route.preferred_source && route.preferred_source->same_address(lo->address)) want += 20;
  EXPECT_EQ(v[0].weight, want) << reason_of(v[0]);
  EXPECT_TRUE(Contains(reason_of(v[0]), "the kernel delivers 127.0.0.2 locally"));
}

TEST_F(RouteRanker, NoRouteIsNever) {
  // The IPv6 documentation prefix: unrouted unless this machine has an
  // IPv6 default route.
  const net::IpAddress dst = ip("2001:db8::200");
  const Route route = routes_->lookup(dst);
  if (route.found) GTEST_SKIP() << "this machine routes " << dst.to_string() << " (it has an IPv6 default route)";
  const auto v = rank_against({to_endpoint(synthetic("eth9", 2, "2001:db8:ffff::5", 64))}, test::remote("2001:db8::200", 64));
  EXPECT_EQ(v[0].weight, 0);
  EXPECT_TRUE(Contains(reason_of(v[0]), "no route to 2001:db8::200"));
}

TEST_F(RouteRanker, NoRouteOnAMissingLink) {
  // A link-local destination is looked up on the local entry's own link;
  // on a link that does not exist there is no route. Deterministic on any
  // machine.
  const int missing = 0x7ffffff0;
  net::IpAddress on_missing = ip("fe80::9");
  on_missing.set_scope_id(static_cast<std::uint32_t>(missing));
  const Route route = routes_->lookup(on_missing);
  ASSERT_FALSE(route.found) << "the kernel routed fe80::9 on link " << missing;
  EXPECT_FALSE(route.error.empty());

  const auto v = rank_against({to_endpoint(synthetic("ghost0", missing, "fe80::5", 64))}, test::remote("fe80::9", 64));
  EXPECT_EQ(v[0].weight, 0);
  EXPECT_TRUE(Contains(reason_of(v[0]), "no route to fe80::9"));
  EXPECT_TRUE(Contains(reason_of(v[0]), route.error));
}

TEST_F(RouteRanker, ANonUnicastRouteIsNever) {
  // The limited broadcast address: a broadcast route, not a path to a peer.
  const Route route = routes_->lookup(ip("255.255.255.255"));
  if (!route.found) GTEST_SKIP() << "no route to 255.255.255.255 here: " << route.error;
  if (route.type == RTN_UNICAST || route.type == RTN_LOCAL)
    GTEST_SKIP() << "the kernel returned a unicast/local route for 255.255.255.255";
  const net::InterfaceAddress* any = ipv4_entry_on(route.oif);
  if (any == nullptr) GTEST_SKIP() << "the broadcast route's interface has no IPv4 address";
  const auto v = rank_against({to_endpoint(*any)}, test::remote("255.255.255.255", 32));
  EXPECT_EQ(v[0].weight, 0);
  EXPECT_TRUE(Contains(reason_of(v[0]), "is not usable (type " + std::to_string(route.type) + ")"));
}

TEST_F(RouteRanker, RoutesAskedTogetherAreTheRoutesAskedOneByOne) {
  // More than one batch (32), answers and refusals mixed: local
  // deliveries, documentation prefixes (routed or not, as this machine
  // has it), and link-local addresses on a link that does not exist,
  // which the kernel refuses. Every answer must land on its own
  // destination, none shifted by a refusal before it.
  std::vector<net::IpAddress> destinations;
  for (int i = 0; i < 30; ++i) {
    destinations.push_back(ip(("127.0.0." + std::to_string(i + 1)).c_str()));
    destinations.push_back(ip(("2001:db8::" + std::to_string(i + 1)).c_str()));
    net::IpAddress on_missing = ip(("fe80::" + std::to_string(i + 1)).c_str());
    on_missing.set_scope_id(0x7ffffff0);
    destinations.push_back(on_missing);
  }
  const std::vector<Route> together = routes_->lookup(destinations);
  ASSERT_EQ(together.size(), destinations.size());
  for (size_t i = 0; i < destinations.size(); ++i) {
    const Route alone = routes_->lookup(destinations[i]);
    const std::string what = destinations[i].to_string();
    EXPECT_EQ(together[i].found, alone.found) << what;
    EXPECT_EQ(together[i].type, alone.type) << what;
    EXPECT_EQ(together[i].oif, alone.oif) << what;
    EXPECT_EQ(together[i].error, alone.error) << what;
    if (destinations[i].scope_id() != 0) {
      EXPECT_FALSE(together[i].found) << what;
      EXPECT_FALSE(together[i].error.empty()) << what;
    } else if (destinations[i].family() == net::Family::V4) {
      EXPECT_TRUE(together[i].found) << what << ": " << together[i].error;
      EXPECT_EQ(together[i].type, RTN_LOCAL) << what;
    }
  }
  EXPECT_TRUE(routes_->lookup(std::vector<net::IpAddress>{}).empty());
}

TEST_F(RouteRanker, WeightsOnlyGivesTheSameWeightsAndLeavesTheReasons) {
  // Every kind of answer this machine gives: local delivery, a route or
  // none to documentation prefixes, a refused link-local lookup; from
  // every address of this machine and a synthetic one on no link.
  std::vector<orca_reach_endpoint> locals;
  for (const auto& e : inventory_.entries()) locals.push_back(to_endpoint(e));
  locals.push_back(to_endpoint(synthetic("nowhere0", 0x7ffffff0, "192.0.2.7", 24)));
  const std::vector<orca_reach_endpoint> remotes = {
      to_endpoint(test::remote("127.0.0.9", 8)), to_endpoint(test::remote(kTestNetDestination, 24)),
      to_endpoint(test::remote("2001:db8::9", 64)), to_endpoint(test::remote("fe80::9", 64))};
  orca_reach_query q{locals.data(), locals.size(), remotes.data(), remotes.size(), 0, 0};
  const size_t n = locals.size() * remotes.size();
  std::vector<orca_reach_verdict> with(n, undecided()), without(n, undecided());
  ASSERT_EQ(rank(*routes_, q, with.data()), ORCA_MCA_OK);
  q.omit_reasons = 1;
  ASSERT_EQ(rank(*routes_, q, without.data()), ORCA_MCA_OK);
  for (size_t i = 0; i < n; ++i) {
    EXPECT_EQ(without[i].weight, with[i].weight) << i << ": " << reason_of(with[i]);
    EXPECT_NE(reason_of(with[i]), "") << i;
    // Left as it was: the ranker built no string for it.
    EXPECT_EQ(without[i].reason[0], 'X') << i << ": " << reason_of(without[i]);
  }
}

TEST_F(RouteRanker, DecidedVerdictsAreLeftUntouched) {
  const net::InterfaceAddress* lo = loopback_v4();
  ASSERT_NE(lo, nullptr) << inventory_.describe();
  const orca_reach_endpoint l = to_endpoint(*lo);
  const std::vector<orca_reach_endpoint> remotes = {to_endpoint(test::remote("127.0.0.2", 8)),
                                                    to_endpoint(test::remote("127.0.0.3", 8))};
  const orca_reach_query q{&l, 1, remotes.data(), remotes.size(), 1};
  std::vector<orca_reach_verdict> v(2, undecided());
  v[0].weight = 0;
  std::snprintf(v[0].reason, sizeof v[0].reason, "decided by the base");
  const orca_reach_verdict before = v[0];
  ASSERT_EQ(rank(*routes_, q, v.data()), ORCA_MCA_OK);
  EXPECT_EQ(std::memcmp(&v[0], &before, sizeof before), 0) << reason_of(v[0]);
  EXPECT_GE(v[1].weight, kLocalDelivery) << reason_of(v[1]);
}

}  // namespace
}  // namespace orca::reach::netlink
