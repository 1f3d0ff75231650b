// KernelRoutes: one RTM_GETROUTE per destination over one socket.
#include "kernel_routes.h"

#include <linux/rtnetlink.h>
#include <sys/socket.h>

namespace orca::reach::netlink {

Route KernelRoutes::lookup(const net::IpAddress& destination) {
  net::NetlinkRequest req(RTM_GETROUTE, 0);
  auto* rtm = req.payload<rtmsg>();
  rtm->rtm_family = static_cast<unsigned char>(destination.af());
  rtm->rtm_dst_len = static_cast<unsigned char>(destination.size() * 8);
  req.add_attribute(RTA_DST, destination.bytes(), destination.size());
  if (destination.scope_id() != 0) {
    const std::uint32_t oif = destination.scope_id();
    req.add_attribute(RTA_OIF, &oif, sizeof oif);
  }
  Route route;
  const net::Family family = destination.family();
  const size_t size = destination.size();
  Status st = socket_.exchange(req, [&](const nlmsghdr* h) {
    if (h->nlmsg_type != RTM_NEWROUTE) return;
    const auto* r = static_cast<const rtmsg*>(NLMSG_DATA(h));
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
  });
  if (!st) {
    route.found = false;
    route.error = st.error().arg("why");
  }
  return route;
}

}  // namespace orca::reach::netlink
