// reachable/netlink: ranks pairs by the kernel's own route choice.
#ifndef ORCA_COMPONENTS_REACHABLE_NETLINK_ROUTE_RANKER_H
#define ORCA_COMPONENTS_REACHABLE_NETLINK_ROUTE_RANKER_H

#include "kernel_routes.h"

#include <orca/reachable.h>

namespace orca::reach::netlink {

inline constexpr int kDirectRoute = 900;    // the kernel's interface, on-link
inline constexpr int kGatewayRoute = 700;   // the kernel's interface, via a gateway
inline constexpr int kLinkLocal = 600;      // a link-local peer address: the link cannot be checked
inline constexpr int kLocalDelivery = 500;  // the destination is this host
inline constexpr int kOtherInterface = 50;  // the kernel would use another interface

/* Fills the undecided verdicts; one lookup of every distinct destination
 * the call needs, all asked at once. */
orca_mca_rc rank(RouteTable& routes, const orca_reach_query& query, orca_reach_verdict* verdicts);

}  // namespace orca::reach::netlink

#endif
