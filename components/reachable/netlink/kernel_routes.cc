// KernelRoutes: RTM_GETROUTE for each destination, asked together over one socket.
#include "kernel_routes.h"

#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <cstring>

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
