// reachable/netlink: RouteSnapshot groups only destinations the kernel
// provably routes alike. Pure: routes and rules written by the test.
#include "reachable/netlink/route_snapshot.h"

#include "lib/synthetic_inventory.h"

#include <gtest/gtest.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>

#include <optional>
#include <vector>

namespace orca::reach::netlink {
namespace {

using orca::test::ip;

TableRoute route(const char* destination, int length, int oif, std::uint32_t table = RT_TABLE_MAIN,
                 int type = RTN_UNICAST) {
  TableRoute r;
  r.table = table;
  r.type = type;
  r.destination = ip(destination);
  r.prefix_length = length;
  r.oif = oif;
  return r;
}

std::vector<PolicyRule> default_rules() {
  return {{0, RT_TABLE_LOCAL, FR_ACT_TO_TBL, false},
          {32766, RT_TABLE_MAIN, FR_ACT_TO_TBL, false},
          {32767, RT_TABLE_DEFAULT, FR_ACT_TO_TBL, false}};
}

// A host as netcluster makes one: eth0 10.200.0.2/24, lo, a default route.
std::vector<TableRoute> host_routes() {
  TableRoute connected = route("10.200.0.0", 24, 2);
  connected.preferred_source = ip("10.200.0.2");
  TableRoute local = route("10.200.0.2", 32, 2, RT_TABLE_LOCAL, RTN_LOCAL);
  local.preferred_source = ip("10.200.0.2");
  TableRoute broadcast = route("10.200.0.255", 32, 2, RT_TABLE_LOCAL, RTN_BROADCAST);
  TableRoute gateway = route("0.0.0.0", 0, 2);
  gateway.gateway = ip("10.200.0.1");
  return {connected, local, broadcast, gateway};
}

TEST(RouteSnapshot, DestinationsOfOneConnectedRouteShareItsGroup) {
  const RouteSnapshot s(net::Family::V4, host_routes(), default_rules());
  ASSERT_TRUE(s.default_rules());
  const auto a = s.group_of(ip("10.200.0.3")), b = s.group_of(ip("10.200.0.65"));
  ASSERT_TRUE(a && b);
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(*a, 0u);
  // The default route is a group of its own.
  const auto far = s.group_of(ip("192.0.2.9"));
  ASSERT_TRUE(far);
  EXPECT_EQ(*far, 3u);
}

TEST(RouteSnapshot, AMoreSpecificRouteMakesAnotherGroup) {
  auto routes = host_routes();
  routes.push_back(route("10.200.0.64", 28, 3));
  const RouteSnapshot s(net::Family::V4, routes, default_rules());
  EXPECT_EQ(s.group_of(ip("10.200.0.3")), RouteSnapshot::Group{0});
  EXPECT_EQ(s.group_of(ip("10.200.0.65")), RouteSnapshot::Group{4});
}

TEST(RouteSnapshot, OnlyTheKernelsOwnRulesAllowGrouping) {
  auto rules = default_rules();
  rules.push_back({100, 100, FR_ACT_TO_TBL, true});  // ip rule add from ... table 100
  EXPECT_FALSE(RouteSnapshot(net::Family::V4, host_routes(), rules).group_of(ip("10.200.0.3")));
  rules = default_rules();
  rules[1].selects = true;  // the main rule with a selector (fwmark, iif, ...)
  EXPECT_FALSE(RouteSnapshot(net::Family::V4, host_routes(), rules).group_of(ip("10.200.0.3")));
  rules = default_rules();
  rules.pop_back();  // no default rule
  EXPECT_FALSE(RouteSnapshot(net::Family::V4, host_routes(), rules).group_of(ip("10.200.0.3")));
  rules = default_rules();
  rules[2].action = FR_ACT_BLACKHOLE;
  EXPECT_FALSE(RouteSnapshot(net::Family::V4, host_routes(), rules).group_of(ip("10.200.0.3")));
}

TEST(RouteSnapshot, AnUnusualRouteAtTheLongestPrefixIsAskedAlone) {
  for (int variant = 0; variant < 5; ++variant) {
    auto routes = host_routes();
    TableRoute odd = route("10.200.0.0", 24, 3);
    odd.priority = 5;
    if (variant == 0) odd.tos = 0x10;
    if (variant == 1) odd.unusual = true;  // several next hops
    if (variant == 2) odd.flags = RTNH_F_DEAD;
    if (variant == 3) odd.flags = RTNH_F_LINKDOWN;
    if (variant == 4) odd.type = RTN_THROW;
    routes.push_back(odd);
    const RouteSnapshot s(net::Family::V4, routes, default_rules());
    EXPECT_FALSE(s.group_of(ip("10.200.0.3"))) << "variant " << variant;
    EXPECT_TRUE(s.group_of(ip("192.0.2.9"))) << "variant " << variant;
  }
}

TEST(RouteSnapshot, TheLowestMetricOfOnePrefixWinsAndATieIsAskedAlone) {
  auto routes = host_routes();
  routes[0].priority = 100;
  TableRoute better = route("10.200.0.0", 24, 3);
  better.priority = 10;
  routes.push_back(better);
  EXPECT_EQ(RouteSnapshot(net::Family::V4, routes, default_rules()).group_of(ip("10.200.0.3")), RouteSnapshot::Group{4});
  routes.back().priority = 100;
  EXPECT_FALSE(RouteSnapshot(net::Family::V4, routes, default_rules()).group_of(ip("10.200.0.3")));
}

TEST(RouteSnapshot, LocalDeliveryGroupsOnlyWithAPreferredSource) {
  // Where main matches too (its connected route, or any default route),
  // the address is asked alone; here nothing of main covers it.
  auto routes = host_routes();
  routes.pop_back();
  TableRoute local = route("10.201.0.9", 32, 2, RT_TABLE_LOCAL, RTN_LOCAL);
  local.preferred_source = ip("10.201.0.9");
  routes.push_back(local);
  EXPECT_EQ(RouteSnapshot(net::Family::V4, routes, default_rules()).group_of(ip("10.201.0.9")), RouteSnapshot::Group{3});
  EXPECT_FALSE(RouteSnapshot(net::Family::V4, routes, default_rules()).group_of(ip("10.200.0.2")));
  routes.back().preferred_source.reset();
  EXPECT_FALSE(RouteSnapshot(net::Family::V4, routes, default_rules()).group_of(ip("10.201.0.9")));
}

TEST(RouteSnapshot, BroadcastLoopbackMulticastAndIpv6AreAskedAlone) {
  const RouteSnapshot s(net::Family::V4, host_routes(), default_rules());
  for (const char* d : {"10.200.0.255", "127.0.0.1", "224.0.0.1", "239.1.2.3", "255.255.255.255", "240.0.0.1",
                        "0.1.2.3", "fd00::1", "2001:db8::1"}) {
    EXPECT_FALSE(s.group_of(ip(d))) << d;
  }
}

TEST(RouteSnapshot, AMatchInLocalAndInMainIsAskedAlone) {
  auto routes = host_routes();
  routes.push_back(route("10.200.0.7", 32, 2));  // a host route in main beside...
  TableRoute local = route("10.200.0.7", 32, 2, RT_TABLE_LOCAL, RTN_LOCAL);
  local.preferred_source = ip("10.200.0.7");
  routes.push_back(local);  // ...a local one for the same address
  EXPECT_FALSE(RouteSnapshot(net::Family::V4, routes, default_rules()).group_of(ip("10.200.0.7")));
}

TEST(RouteSnapshot, AMatchInLocalAndAShorterOneInMainIsAskedAlone) {
  // Merged tables and local-then-main would answer differently here.
  auto routes = host_routes();
  routes.push_back(route("10.200.0.0", 16, 2, RT_TABLE_LOCAL, RTN_UNICAST));
  EXPECT_FALSE(RouteSnapshot(net::Family::V4, routes, default_rules()).group_of(ip("10.200.0.3")));
}

TEST(RouteSnapshot, NoRouteIsAGroupUnlessTheDefaultTableHasRoutes) {
  auto routes = host_routes();
  routes.pop_back();  // no default route
  EXPECT_EQ(RouteSnapshot(net::Family::V4, routes, default_rules()).group_of(ip("192.0.2.9")), RouteSnapshot::kNoRoute);
  routes.push_back(route("192.0.2.0", 24, 2, RT_TABLE_DEFAULT));
  EXPECT_FALSE(RouteSnapshot(net::Family::V4, routes, default_rules()).group_of(ip("192.0.2.9")));
  // Main's match still decides where it has one.
  EXPECT_TRUE(RouteSnapshot(net::Family::V4, routes, default_rules()).group_of(ip("10.200.0.3")));
}

TEST(RouteSnapshot, SeveralDefaultRoutesAreAskedAlone) {
  auto routes = host_routes();
  TableRoute second = route("0.0.0.0", 0, 3);
  second.gateway = ip("10.201.0.1");
  second.priority = 100;
  routes.push_back(second);
  const RouteSnapshot s(net::Family::V4, routes, default_rules());
  EXPECT_FALSE(s.group_of(ip("192.0.2.9")));
  EXPECT_TRUE(s.group_of(ip("10.200.0.3")));  // a longer prefix is no default
}

TEST(RouteSnapshot, AgreesOnlyWithTheRouteItExpects) {
  auto routes = host_routes();
  routes.push_back(route("10.40.0.0", 16, 0, RT_TABLE_MAIN, RTN_UNREACHABLE));
  const RouteSnapshot s(net::Family::V4, routes, default_rules());
  EXPECT_TRUE(s.agrees(0, true, RTN_UNICAST, 2, std::nullopt));
  EXPECT_FALSE(s.agrees(0, true, RTN_UNICAST, 3, std::nullopt));           // another interface
  EXPECT_FALSE(s.agrees(0, true, RTN_UNICAST, 2, ip("10.200.0.1")));       // a gateway it has not
  EXPECT_FALSE(s.agrees(0, false, 0, 0, std::nullopt));                     // refused
  EXPECT_TRUE(s.agrees(3, true, RTN_UNICAST, 2, ip("10.200.0.1")));
  EXPECT_FALSE(s.agrees(3, true, RTN_UNICAST, 2, ip("10.200.0.9")));
  EXPECT_TRUE(s.agrees(1, true, RTN_LOCAL, 1, std::nullopt));
  EXPECT_FALSE(s.agrees(1, true, RTN_UNICAST, 2, std::nullopt));
  EXPECT_TRUE(s.agrees(4, false, 0, 0, std::nullopt));                      // unreachable: refused
  EXPECT_FALSE(s.agrees(4, true, RTN_UNICAST, 2, std::nullopt));
  EXPECT_TRUE(s.agrees(RouteSnapshot::kNoRoute, false, 0, 0, std::nullopt));
  EXPECT_FALSE(s.agrees(RouteSnapshot::kNoRoute, true, RTN_UNICAST, 2, std::nullopt));
}

// --- IPv6 ------------------------------------------------------------------------

std::vector<PolicyRule> default_rules_v6() {
  return {{0, RT_TABLE_LOCAL, FR_ACT_TO_TBL, false}, {32766, RT_TABLE_MAIN, FR_ACT_TO_TBL, false}};
}

// eth0 with fd00:10:200::2/64, a default route via a link-local router.
std::vector<TableRoute> host_routes_v6() {
  TableRoute connected = route("fd00:10:200::", 64, 2);
  connected.priority = 256;
  TableRoute link_local = route("fe80::", 64, 2);
  link_local.priority = 256;
  TableRoute local = route("fd00:10:200::2", 128, 2, RT_TABLE_LOCAL, RTN_LOCAL);
  TableRoute anycast = route("fd00:10:200::", 128, 2, RT_TABLE_LOCAL, RTN_ANYCAST);
  TableRoute multicast = route("ff00::", 8, 2, RT_TABLE_LOCAL, RTN_MULTICAST);
  TableRoute gateway = route("::", 0, 2);
  gateway.gateway = ip("fe80::1");
  gateway.priority = 1024;
  return {connected, link_local, local, anycast, multicast, gateway};
}

TEST(RouteSnapshotV6, GlobalDestinationsOfOneRouteShareItsGroupWithOneSourceOnly) {
  const RouteSnapshot s(net::Family::V6, host_routes_v6(), default_rules_v6(), true);
  ASSERT_TRUE(s.default_rules());
  EXPECT_EQ(s.group_of(ip("fd00:10:200::3")), RouteSnapshot::Group{0});
  EXPECT_EQ(s.group_of(ip("fd00:10:200::99")), RouteSnapshot::Group{0});
  EXPECT_EQ(s.group_of(ip("2001:db8::1")), RouteSnapshot::Group{5});
  // Two global addresses here: the source depends on the destination.
  const RouteSnapshot two(net::Family::V6, host_routes_v6(), default_rules_v6(), false);
  EXPECT_FALSE(two.group_of(ip("fd00:10:200::3")));
}

TEST(RouteSnapshotV6, OnlyGlobalAndUniqueLocalDestinationsAreGrouped) {
  const RouteSnapshot s(net::Family::V6, host_routes_v6(), default_rules_v6(), true);
  for (const char* d : {"fe80::9", "ff02::1", "::1", "::", "::ffff:10.0.0.1", "fec0::1", "10.200.0.3"}) {
    EXPECT_FALSE(s.group_of(ip(d))) << d;
  }
  // Its own address (local, no source named) and the subnet's anycast.
  EXPECT_FALSE(s.group_of(ip("fd00:10:200::2")));
  EXPECT_FALSE(s.group_of(ip("fd00:10:200::")));
}

TEST(RouteSnapshotV6, SeveralRoutesOfOnePrefixAreAskedAlone) {
  auto routes = host_routes_v6();
  TableRoute other = route("fd00:10:200::", 64, 3);
  other.priority = 1024;
  routes.push_back(other);
  EXPECT_FALSE(RouteSnapshot(net::Family::V6, routes, default_rules_v6(), true).group_of(ip("fd00:10:200::3")));
}

TEST(RouteSnapshotV6, TheRulesAreIpv6sOwn) {
  EXPECT_FALSE(RouteSnapshot(net::Family::V6, host_routes_v6(), default_rules(), true).default_rules());
  EXPECT_FALSE(RouteSnapshot(net::Family::V4, host_routes(), default_rules_v6()).default_rules());
  auto rules = default_rules_v6();
  rules.push_back({1000, 100, FR_ACT_TO_TBL, true});
  EXPECT_FALSE(RouteSnapshot(net::Family::V6, host_routes_v6(), rules, true).group_of(ip("fd00:10:200::3")));
}

}  // namespace
}  // namespace orca::reach::netlink
