// KernelRoutes: RTM_GETROUTE for each destination, asked together over one socket.
#include "kernel_routes.h"

#include "route_snapshot.h"

#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>

namespace orca::reach::netlink {

namespace {

net::NetlinkRequest route_request(const net::IpAddress& destination) {
  net::NetlinkRequest req(RTM_GETROUTE, 0);
  auto* rtm = req.payload<rtmsg>();
  rtm->rtm_family = static_cast<unsigned char>(destination.af());
  rtm->rtm_dst_len = static_cast<unsigned char>(destination.size() * 8);
  req.add_attribute(RTA_DST, destination.bytes(), destination.size());
  if (destination.scope_id() != 0) {
    const std::uint32_t oif = destination.scope_id();
    req.add_attribute(RTA_OIF, &oif, sizeof oif);
  }
  return req;
}

Route route_from(const nlmsghdr* h, const net::IpAddress& destination) {
  Route route;
  // Read nothing past the message: a short one is an answer we cannot use.
  if (h->nlmsg_type == NLMSG_ERROR && h->nlmsg_len >= NLMSG_LENGTH(sizeof(nlmsgerr))) {
    const auto* err = static_cast<const nlmsgerr*>(NLMSG_DATA(h));
    route.error = std::strerror(-err->error);
    return route;
  }
  if (h->nlmsg_type != RTM_NEWROUTE || h->nlmsg_len < NLMSG_LENGTH(sizeof(rtmsg))) {
    route.error = "an unexpected answer (netlink type " + std::to_string(h->nlmsg_type) + ", " +
                  std::to_string(h->nlmsg_len) + " bytes)";
    return route;
  }
  const auto* r = static_cast<const rtmsg*>(NLMSG_DATA(h));
  const net::Family family = destination.family();
  const size_t size = destination.size();
  route.found = true;
  route.type = r->rtm_type;
  net::for_each_attribute(RTM_RTA(r), RTM_PAYLOAD(h), [&](std::uint16_t type, const void* data, size_t len) {
    if (type == RTA_OIF && len >= sizeof(std::uint32_t)) {
      route.oif = static_cast<int>(*static_cast<const std::uint32_t*>(data));
    } else if ((type == RTA_GATEWAY || type == RTA_PREFSRC) && len == size) {
      net::IpAddress a(family, static_cast<const std::uint8_t*>(data));
      (type == RTA_GATEWAY ? route.gateway : route.preferred_source) = a;
    }
  });
  return route;
}

}  // namespace

std::vector<Route> KernelRoutes::lookup(const std::vector<net::IpAddress>& destinations) {
  // A family's tables are read when it has enough destinations to share
  // answers; without them every destination is asked alone.
  std::optional<RouteSnapshot> snapshots[2];
  for (const net::Family family : {net::Family::V4, net::Family::V6}) {
    const auto n = std::count_if(destinations.begin(), destinations.end(),
                                 [&](const net::IpAddress& d) { return d.family() == family; });
    if (static_cast<size_t>(n) < kGroupFrom) continue;
    if (auto read = RouteSnapshot::read(socket_, family)) snapshots[family == net::Family::V6] = std::move(read.value());
  }
  // One member of each group asked, with every destination that is not
  // grouped; a group whose answer is not the route its snapshot expects
  // has its other members asked too.
  using Key = std::pair<bool, RouteSnapshot::Group>;  // (IPv6, group)
  std::map<Key, std::vector<size_t>> members;
  std::vector<size_t> asked;
  for (size_t i = 0; i < destinations.size(); ++i) {
    const bool v6 = destinations[i].family() == net::Family::V6;
    const auto group = snapshots[v6] ? snapshots[v6]->group_of(destinations[i]) : std::nullopt;
    if (!group) {
      asked.push_back(i);
      continue;
    }
    auto& m = members[Key{v6, *group}];
    if (m.empty()) asked.push_back(i);
    m.push_back(i);
  }
  std::vector<Route> routes(destinations.size());
  last_questions_ = 0;
  auto ask = [&](const std::vector<size_t>& which) {
    std::vector<net::IpAddress> batch;
    batch.reserve(which.size());
    for (size_t i : which) batch.push_back(destinations[i]);
    std::vector<Route> answers = lookup_each(batch);
    for (size_t k = 0; k < which.size(); ++k) routes[which[k]] = std::move(answers[k]);
    last_questions_ += which.size();
  };
  ask(asked);
  std::vector<size_t> again;
  for (const auto& [key, m] : members) {
    const Route& first = routes[m.front()];
    const bool agrees = snapshots[key.first]->agrees(key.second, first.found, first.type, first.oif, first.gateway);
    for (size_t k = 1; k < m.size(); ++k) {
      if (agrees) routes[m[k]] = first;
      else again.push_back(m[k]);
    }
  }
  if (!again.empty()) ask(again);
  return routes;
}

std::vector<Route> KernelRoutes::lookup_each(const std::vector<net::IpAddress>& destinations) {
  std::vector<net::NetlinkRequest> requests;
  requests.reserve(destinations.size());
  for (const auto& d : destinations) requests.push_back(route_request(d));
  std::vector<Route> routes(destinations.size());
  Status st = socket_.exchange_each(requests, [&](size_t i, const nlmsghdr* h) { routes[i] = route_from(h, destinations[i]); });
  if (!st) {
    // The socket failed: every destination not yet answered says so.
    for (auto& r : routes) {
      if (!r.found && r.error.empty()) r.error = st.error().arg("why");
    }
  }
  return routes;
}

}  // namespace orca::reach::netlink
