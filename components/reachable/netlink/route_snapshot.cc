// RouteSnapshot: which destinations the kernel provably routes alike.
#include "route_snapshot.h"

#include <linux/fib_rules.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>

namespace orca::reach::netlink {

namespace {

std::uint32_t u32_of(const void* data) {
  std::uint32_t v;
  std::memcpy(&v, data, sizeof v);
  return v;
}

int af_of(net::Family family) { return family == net::Family::V4 ? AF_INET : AF_INET6; }

size_t address_size(net::Family family) { return family == net::Family::V4 ? 4 : 16; }

std::optional<TableRoute> route_from(const nlmsghdr* h, net::Family family) {
  if (h->nlmsg_type != RTM_NEWROUTE || h->nlmsg_len < NLMSG_LENGTH(sizeof(rtmsg))) return std::nullopt;
  const auto* m = static_cast<const rtmsg*>(NLMSG_DATA(h));
  const size_t size = address_size(family);
  if (m->rtm_family != af_of(family) || m->rtm_dst_len > size * 8) return std::nullopt;
  TableRoute r;
  r.table = m->rtm_table;
  r.type = m->rtm_type;
  r.destination = net::IpAddress(family, std::array<std::uint8_t, 16>{}.data());
  r.prefix_length = m->rtm_dst_len;
  r.tos = m->rtm_tos;
  r.flags = m->rtm_flags;
  r.unusual = m->rtm_src_len != 0;
  net::for_each_attribute(RTM_RTA(m), RTM_PAYLOAD(h), [&](std::uint16_t type, const void* data, size_t len) {
    switch (type) {
      case RTA_TABLE:
        if (len >= 4) r.table = u32_of(data);
        break;
      case RTA_PRIORITY:
        if (len >= 4) r.priority = u32_of(data);
        break;
      case RTA_OIF:
        if (len >= 4) r.oif = static_cast<int>(u32_of(data));
        break;
      case RTA_DST:
      case RTA_GATEWAY:
      case RTA_PREFSRC:
        if (len == size) {
          const net::IpAddress a(family, static_cast<const std::uint8_t*>(data));
          if (type == RTA_DST) r.destination = a;
          else (type == RTA_GATEWAY ? r.gateway : r.preferred_source) = a;
        }
        break;
      case RTA_MULTIPATH:
      case RTA_NH_ID:
      case RTA_VIA:
      case RTA_ENCAP:
      case RTA_SRC:
        r.unusual = true;
        break;
      default:
        break;
    }
  });
  return r;
}

std::optional<PolicyRule> rule_from(const nlmsghdr* h) {
  if (h->nlmsg_type != RTM_NEWRULE || h->nlmsg_len < NLMSG_LENGTH(sizeof(fib_rule_hdr))) return std::nullopt;
  const auto* m = static_cast<const fib_rule_hdr*>(NLMSG_DATA(h));
  PolicyRule r;
  r.table = m->table;
  r.action = m->action;
  r.selects = m->dst_len != 0 || m->src_len != 0 || m->tos != 0 || m->flags != 0;
  const auto* first = reinterpret_cast<const rtattr*>(reinterpret_cast<const char*>(m) + NLMSG_ALIGN(sizeof *m));
  const size_t length = h->nlmsg_len - NLMSG_LENGTH(sizeof *m);
  net::for_each_attribute(first, length, [&](std::uint16_t type, const void* data, size_t len) {
    switch (type) {
      case FRA_TABLE:
        if (len >= 4) r.table = u32_of(data);
        break;
      case FRA_PRIORITY:
        if (len >= 4) r.priority = u32_of(data);
        break;
      case FRA_PROTOCOL:  // who made the rule: no selector
        break;
      case FRA_SUPPRESS_PREFIXLEN:
      case FRA_SUPPRESS_IFGROUP:
        // -1 is "not set"; any other value changes what a lookup accepts.
        if (len < 4 || u32_of(data) != 0xffffffffu) r.selects = true;
        break;
      default:  // an interface, a mark, a port range, a uid range, a goto...
        r.selects = true;
        break;
    }
  });
  return r;
}

// The kernel's own rules: IPv4 local, main, default; IPv6 local, main.
bool are_default_rules(net::Family family, const std::vector<PolicyRule>& rules) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> wanted = {{0, RT_TABLE_LOCAL}, {32766, RT_TABLE_MAIN}};
  if (family == net::Family::V4) wanted.emplace_back(32767, RT_TABLE_DEFAULT);
  if (rules.size() != wanted.size()) return false;
  return std::all_of(wanted.begin(), wanted.end(), [&](const auto& w) {
    return std::any_of(rules.begin(), rules.end(), [&](const PolicyRule& r) {
      return r.priority == w.first && r.table == w.second && r.action == FR_ACT_TO_TBL && !r.selects;
    });
  });
}

bool groupable_type(int type) {
  return type == RTN_UNICAST || type == RTN_LOCAL || type == RTN_UNREACHABLE || type == RTN_PROHIBIT ||
         type == RTN_BLACKHOLE;
}

// A destination the kernel routes like any other of its prefix. IPv4:
// not 0/8, loopback, multicast, class E or the limited broadcast, which
// the output path treats apart. IPv6: global unicast or unique local,
// the addresses whose source selection is the same (global scope).
bool ordinary_unicast(const net::IpAddress& a) {
  const std::uint8_t first = a.bytes()[0];
  if (a.family() == net::Family::V4) return first != 0 && first != 127 && first < 224;
  return (first & 0xe0) == 0x20 || (first & 0xfe) == 0xfc;
}

bool in_lookup_tables(const TableRoute& r) { return r.table == RT_TABLE_LOCAL || r.table == RT_TABLE_MAIN; }

// IPv6 addresses a global source could be chosen from: scope global,
// whatever their state. Exactly one, usable, makes the choice certain.
Result<bool> one_global_source(net::NetlinkSocket& socket) {
  int global = 0;
  bool usable = true;
  net::NetlinkRequest dump(RTM_GETADDR, NLM_F_DUMP);
  dump.payload<ifaddrmsg>()->ifa_family = AF_INET6;
  Status st = socket.exchange(dump, [&](const nlmsghdr* h) {
    if (h->nlmsg_type != RTM_NEWADDR || h->nlmsg_len < NLMSG_LENGTH(sizeof(ifaddrmsg))) return;
    const auto* m = static_cast<const ifaddrmsg*>(NLMSG_DATA(h));
    if (m->ifa_family != AF_INET6 || m->ifa_scope != RT_SCOPE_UNIVERSE) return;
    ++global;
    std::uint32_t flags = m->ifa_flags;
    net::for_each_attribute(IFA_RTA(m), IFA_PAYLOAD(h), [&](std::uint16_t type, const void* data, size_t len) {
      if (type == IFA_FLAGS && len >= 4) flags = u32_of(data);
    });
    constexpr std::uint32_t kNotPlain = IFA_F_TENTATIVE | IFA_F_DEPRECATED | IFA_F_DADFAILED | IFA_F_OPTIMISTIC;
    if ((flags & kNotPlain) != 0) usable = false;
  });
  if (!st) return st.error();
  return global == 1 && usable;
}

}  // namespace

RouteSnapshot::RouteSnapshot(net::Family family, std::vector<TableRoute> routes, const std::vector<PolicyRule>& rules,
                             bool one_source)
    : family_(family),
      routes_(std::move(routes)),
      default_rules_(are_default_rules(family, rules)),
      one_source_(family == net::Family::V4 || one_source) {
  default_table_used_ = family == net::Family::V4 && std::any_of(routes_.begin(), routes_.end(), [](const TableRoute& r) {
                          return r.table == RT_TABLE_DEFAULT;
                        });
}

Result<RouteSnapshot> RouteSnapshot::read(net::NetlinkSocket& socket, net::Family family) {
  std::vector<TableRoute> routes;
  net::NetlinkRequest route_dump(RTM_GETROUTE, NLM_F_DUMP);
  route_dump.payload<rtmsg>()->rtm_family = static_cast<unsigned char>(af_of(family));
  if (Status st = socket.exchange(route_dump, [&](const nlmsghdr* h) {
        if (auto r = route_from(h, family)) routes.push_back(*r);
      });
      !st)
    return st.error();
  std::vector<PolicyRule> rules;
  net::NetlinkRequest rule_dump(RTM_GETRULE, NLM_F_DUMP);
  rule_dump.payload<fib_rule_hdr>()->family = static_cast<std::uint8_t>(af_of(family));
  if (Status st = socket.exchange(rule_dump, [&](const nlmsghdr* h) {
        if (auto r = rule_from(h)) rules.push_back(*r);
      });
      !st)
    return st.error();
  bool one_source = true;
  if (family == net::Family::V6) {
    auto one = one_global_source(socket);
    if (!one) return one.error();
    one_source = one.value();
  }
  return RouteSnapshot(family, std::move(routes), rules, one_source);
}

std::optional<RouteSnapshot::Group> RouteSnapshot::group_of(const net::IpAddress& destination) const {
  if (!default_rules_ || !one_source_ || destination.family() != family_ || !ordinary_unicast(destination)) {
    return std::nullopt;
  }
  // The rules look up local, then main (for IPv4 maybe merged into one
  // table: the two agree unless both match, which is asked about alone).
  int best = -1;
  bool in_local = false, in_main = false;
  for (const auto& r : routes_) {
    if (!in_lookup_tables(r) || !net::same_subnet(r.destination, destination, r.prefix_length)) continue;
    best = std::max(best, r.prefix_length);
    (r.table == RT_TABLE_LOCAL ? in_local : in_main) = true;
  }
  if (in_local && in_main) return std::nullopt;
  if (best < 0) {
    if (default_table_used_) return std::nullopt;
    return kNoRoute;
  }
  std::optional<Group> chosen;
  size_t at_best = 0;
  bool tie = false;
  int defaults = 0;
  for (size_t i = 0; i < routes_.size(); ++i) {
    const TableRoute& r = routes_[i];
    if (!in_lookup_tables(r)) continue;
    if (r.prefix_length == 0 && r.table == RT_TABLE_MAIN) ++defaults;
    if (r.prefix_length != best || !net::same_subnet(r.destination, destination, r.prefix_length)) continue;
    if (!groupable_type(r.type) || r.tos != 0 || r.unusual || (r.flags & (RTNH_F_DEAD | RTNH_F_LINKDOWN)) != 0) {
      return std::nullopt;
    }
    ++at_best;
    if (!chosen || r.priority < routes_[*chosen].priority) {
      chosen = i;
      tie = false;
    } else if (r.priority == routes_[*chosen].priority) {
      tie = true;
    }
  }
  if (!chosen || tie) return std::nullopt;
  // IPv4 chooses among several default routes by neighbour state; IPv6
  // among several routes of one prefix by router reachability.
  if (family_ == net::Family::V4 ? best == 0 && defaults > 1 : at_best > 1) return std::nullopt;
  const TableRoute& r = routes_[*chosen];
  // A local route without a preferred source answers with the destination.
  if (r.type == RTN_LOCAL && !r.preferred_source) return std::nullopt;
  return chosen;
}

bool RouteSnapshot::agrees(Group group, bool found, int type, int oif,
                           const std::optional<net::IpAddress>& gateway) const {
  if (group == kNoRoute || group >= routes_.size()) return group == kNoRoute && !found;
  const TableRoute& r = routes_[group];
  switch (r.type) {
    case RTN_UNICAST:
      return found && type == RTN_UNICAST && oif == r.oif && gateway == r.gateway;
    case RTN_LOCAL:
      return found && type == RTN_LOCAL;
    default:  // unreachable, prohibit, blackhole: the kernel refuses
      return !found;
  }
}

}  // namespace orca::reach::netlink
