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
#include <map>
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

// --- the ranking policy, over routes a test writes (never this host's) ---

// A route table written by the test: what it holds, else no route.
class WrittenRoutes final : public RouteTable {
 public:
  std::vector<Route> lookup(const std::vector<net::IpAddress>& destinations) override {
    ++lookups;
    std::vector<Route> out;
    for (const auto& d : destinations) {
      asked.push_back(d);
      auto it = table.find(d);
      out.push_back(it != table.end() ? it->second : Route{.found = false, .error = "Network is unreachable"});
    }
    return out;
  }
  std::map<net::IpAddress, Route> table;
  std::vector<net::IpAddress> asked;
  int lookups = 0;
};

Route unicast(int oif, std::optional<const char*> gateway = std::nullopt, std::optional<const char*> source = std::nullopt) {
  Route r{.found = true, .type = RTN_UNICAST, .oif = oif};
  if (gateway) r.gateway = ip(*gateway);
  if (source) r.preferred_source = ip(*source);
  return r;
}

class RouteRankerPolicy : public ::testing::Test {
 protected:
  const net::InterfaceAddress& entry(const char* name, int index, const char* address, int prefix, bool running = true) {
    entries_.push_back(test::make_entry(test::make_link({name, index, InterfaceKind::Physical, true, running, std::nullopt}),
                                        address, prefix));
    return entries_.back();
  }
  // Ranks the locals against each remote; verdicts[l * remotes + r].
  std::vector<orca_reach_verdict> rank_all(const std::vector<const net::InterfaceAddress*>& locals,
                                           const std::vector<RemoteAddress>& remotes) {
    std::vector<orca_reach_endpoint> l, r;
    for (const auto* e : locals) l.push_back(to_endpoint(*e));
    for (const auto& x : remotes) r.push_back(to_endpoint(x));
    const orca_reach_query q{l.data(), l.size(), r.data(), r.size(), 0};
    std::vector<orca_reach_verdict> v(l.size() * r.size(), undecided());
    EXPECT_EQ(rank(routes_, q, v.data()), ORCA_MCA_OK);
    for (const auto& x : v) EXPECT_NE(x.weight, ORCA_REACH_UNDECIDED);
    return v;
  }
  int bonus(const net::InterfaceAddress& local, const RemoteAddress& r) { return link_bonus(to_endpoint(local), to_endpoint(r), nullptr); }

  WrittenRoutes routes_;
  std::list<net::InterfaceAddress> entries_;
};

TEST_F(RouteRankerPolicy, TheKernelsInterfaceFirstOthersDemoted) {
  const auto& eth0 = entry("eth0", 2, "10.1.0.5", 24);
  const auto& eth1 = entry("eth1", 3, "10.2.0.5", 24);
  const RemoteAddress r = test::remote("10.1.0.9", 24);
  routes_.table[ip("10.1.0.9")] = unicast(2);
  const auto v = rank_all({&eth0, &eth1}, {r});
  EXPECT_EQ(v[0].weight, kDirectRoute + bonus(eth0, r)) << reason_of(v[0]);
  EXPECT_TRUE(Contains(reason_of(v[0]), "the kernel routes 10.1.0.9 directly on eth0"));
  EXPECT_EQ(v[1].weight, kOtherInterface) << reason_of(v[1]);
  EXPECT_TRUE(Contains(reason_of(v[1]), "the kernel would send to 10.1.0.9 on eth0, not eth1"));
}

TEST_F(RouteRankerPolicy, OnLinkBeforeThroughAGateway) {
  const auto& eth0 = entry("eth0", 2, "10.1.0.5", 24);
  const RemoteAddress near = test::remote("10.1.0.9", 24), far = test::remote("10.9.0.9", 24);
  routes_.table[ip("10.1.0.9")] = unicast(2);
  routes_.table[ip("10.9.0.9")] = unicast(2, "10.1.0.1");
  const auto v = rank_all({&eth0}, {near, far});
  EXPECT_EQ(v[1].weight, kGatewayRoute + bonus(eth0, far)) << reason_of(v[1]);
  EXPECT_TRUE(Contains(reason_of(v[1]), "via 10.1.0.1 on eth0"));
  EXPECT_GT(v[0].weight, v[1].weight);
}

TEST_F(RouteRankerPolicy, ThePreferredSourceAddressGetsMore) {
  const auto& first = entry("eth0", 2, "10.1.0.5", 24);
  const auto& second = entry("eth0", 2, "10.1.0.6", 24);
  const RemoteAddress r = test::remote("10.1.0.9", 24);
  routes_.table[ip("10.1.0.9")] = unicast(2, std::nullopt, "10.1.0.5");
  const auto v = rank_all({&first, &second}, {r});
  EXPECT_EQ(v[0].weight - v[1].weight, 20) << reason_of(v[0]) << " | " << reason_of(v[1]);
  EXPECT_TRUE(Contains(reason_of(v[0]), "from this address"));
  EXPECT_FALSE(Contains(reason_of(v[1]), "from this address"));
}

TEST_F(RouteRankerPolicy, WithoutCarrierAQuarter) {
  const auto& up = entry("eth0", 2, "10.1.0.5", 24);
  const auto& dark = entry("eth0", 2, "10.1.0.5", 24, false);
  const RemoteAddress r = test::remote("10.1.0.9", 24);
  routes_.table[ip("10.1.0.9")] = unicast(2);
  const auto v = rank_all({&up, &dark}, {r});
  EXPECT_EQ(v[1].weight, v[0].weight / 4);
  EXPECT_TRUE(Contains(reason_of(v[1]), "no carrier"));
}

TEST_F(RouteRankerPolicy, ALinkLocalPeerRanksBelowWhatTheKernelVouchesFor) {
  const auto& eth0 = entry("eth0", 2, "fe80::5", 64);
  net::IpAddress scoped = ip("fe80::9");
  scoped.set_scope_id(2);  // asked on the local entry's own link
  routes_.table[scoped] = unicast(2);
  const auto v = rank_all({&eth0}, {test::remote("fe80::9", 64)});
  EXPECT_EQ(v[0].weight, kLinkLocal + bonus(eth0, test::remote("fe80::9", 64))) << reason_of(v[0]);
  EXPECT_TRUE(Contains(reason_of(v[0]), "reachable only if on the same link as eth0"));
  ASSERT_EQ(routes_.asked.size(), 1u);
  EXPECT_EQ(routes_.asked[0].scope_id(), 2u);
}

TEST_F(RouteRankerPolicy, NoRouteIsNeverAndSaysWhy) {
  const auto& eth0 = entry("eth0", 2, "2001:db8:ffff::5", 64);
  const auto v = rank_all({&eth0}, {test::remote("2001:db8::200", 64)});
  EXPECT_EQ(v[0].weight, 0);
  EXPECT_EQ(reason_of(v[0]), "no route to 2001:db8::200 (Network is unreachable)");
}

TEST_F(RouteRankerPolicy, ANonUnicastRouteIsNever) {
  const auto& eth0 = entry("eth0", 2, "10.1.0.5", 24);
  Route broadcast = unicast(2);
  broadcast.type = RTN_BROADCAST;
  routes_.table[ip("10.1.0.255")] = broadcast;
  const auto v = rank_all({&eth0}, {test::remote("10.1.0.255", 24)});
  EXPECT_EQ(v[0].weight, 0);
  EXPECT_TRUE(Contains(reason_of(v[0]), "is not usable (type " + std::to_string(RTN_BROADCAST) + ")"));
}

TEST_F(RouteRankerPolicy, EachDestinationIsAskedOnceInOneLookup) {
  const auto& a = entry("eth0", 2, "10.1.0.5", 24);
  const auto& b = entry("eth1", 3, "10.2.0.5", 24);
  for (const char* d : {"10.1.0.7", "10.1.0.8"}) routes_.table[ip(d)] = unicast(2);
  rank_all({&a, &b}, {test::remote("10.1.0.7", 24), test::remote("10.1.0.8", 24), test::remote("10.1.0.7", 24)});
  EXPECT_EQ(routes_.lookups, 1);
  EXPECT_EQ(routes_.asked.size(), 2u);
}

// --- the same against this machine's kernel (route lookups only) ---

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
