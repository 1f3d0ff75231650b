// reachable/netlink: the kernel's routes and rules of one address family,
// read once, to tell which destinations the kernel would route alike.
//
// A job ranks toward every other host: at 64 hosts with an IPv4 and an
// IPv6 address each, 126 route lookups per daemon, nearly all of them
// answered by the same two connected routes. With the routes and rules
// in hand, destinations that provably take the same route share one
// lookup: the kernel still answers, once per route.
//
// Why one answer serves them all: the kernel's answer (type, output
// interface, gateway, preferred source) follows from the route, not from
// the destination, where these hold, and the snapshot groups a
// destination only then:
//  - the rules are the kernel's own (IPv4: local, main, default; IPv6:
//    local, main), and the destination matches routes of one table only;
//  - the longest matching prefix holds one plain route (IPv4: the lowest
//    metric of several), without TOS, several next hops, a nexthop
//    object, a source prefix or an encapsulation, not dead or link-down,
//    and not one of several IPv4 default routes (the kernel chooses among
//    those by neighbour state);
//  - the route names its own source, or the source follows from the
//    route alone: IPv4 chooses it from the route's device and gateway;
//    IPv6 chooses per destination (RFC 6724), which is the same for every
//    global destination only where this host has one usable global
//    address, so IPv6 is grouped only then;
//  - the destination is an ordinary unicast address (IPv4 not 0/8,
//    loopback, multicast, class E or broadcast; IPv6 global or ULA).
// Anything else is a destination to ask about alone, and a group whose
// first answer is not the route expected (agrees) is asked member by
// member. Not modelled: ICMP redirects, which may give one destination
// another gateway on the same interface (its weight does not change).
#ifndef ORCA_COMPONENTS_REACHABLE_NETLINK_ROUTE_SNAPSHOT_H
#define ORCA_COMPONENTS_REACHABLE_NETLINK_ROUTE_SNAPSHOT_H

#include <orca/ip_address.h>
#include <orca/netlink.h>
#include <orca/result.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace orca::reach::netlink {

/* One route as a dump shows it. */
struct TableRoute {
  std::uint32_t table = 0;  // RT_TABLE_LOCAL, RT_TABLE_MAIN, ...
  int type = 0;             // RTN_UNICAST, RTN_LOCAL, ...
  net::IpAddress destination;
  int prefix_length = 0;
  std::uint32_t priority = 0;  // the metric
  int tos = 0;
  std::uint32_t flags = 0;  // rtm_flags (RTNH_F_DEAD, RTNH_F_LINKDOWN, ...)
  int oif = 0;
  std::optional<net::IpAddress> gateway;
  std::optional<net::IpAddress> preferred_source;
  // Anything that can make the kernel's answer depend on the destination
  // or the flow: several next hops (RTA_MULTIPATH, a nexthop object), a
  // next hop of another family (RTA_VIA), an encapsulation, a source prefix.
  bool unusual = false;
};

/* One policy rule as a dump shows it. */
struct PolicyRule {
  std::uint32_t priority = 0;
  std::uint32_t table = 0;
  int action = 0;        // FR_ACT_TO_TBL, ...
  bool selects = false;  // any selector or option beyond priority and table
};

class RouteSnapshot {
 public:
  /* The group of a destination: routed the same as every destination of
   * its group. */
  using Group = std::size_t;
  static constexpr Group kNoRoute = static_cast<Group>(-1);  // nothing matches

  /* `one_source`: IPv6 only, whether this host has exactly one global
   * address a source could be chosen from (IPv4 ignores it). */
  RouteSnapshot(net::Family family, std::vector<TableRoute> routes, const std::vector<PolicyRule>& rules,
                bool one_source = true);

  /* Reads the routes of every table and the rules of `family` (and, for
   * IPv6, the addresses): two or three dumps. */
  static Result<RouteSnapshot> read(net::NetlinkSocket& socket, net::Family family);

  /* The group of `destination` (an index into routes(), or kNoRoute), or
   * nothing when it must be asked about alone. */
  std::optional<Group> group_of(const net::IpAddress& destination) const;

  /* Whether the kernel's answer for a member of `group` is the one the
   * snapshot expects (found, and the route's type, interface and gateway;
   * or refused, for no route and the unreachable kinds). */
  bool agrees(Group group, bool found, int type, int oif, const std::optional<net::IpAddress>& gateway) const;

  const std::vector<TableRoute>& routes() const noexcept { return routes_; }
  bool default_rules() const noexcept { return default_rules_; }

 private:
  net::Family family_;
  std::vector<TableRoute> routes_;
  bool default_rules_ = false;
  bool one_source_ = true;
  bool default_table_used_ = false;
};

}  // namespace orca::reach::netlink

#endif
