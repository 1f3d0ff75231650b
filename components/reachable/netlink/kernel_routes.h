// reachable/netlink: asks the kernel (RTM_GETROUTE) which interface and
// gateway it would use for a destination.
#ifndef ORCA_COMPONENTS_REACHABLE_NETLINK_KERNEL_ROUTES_H
#define ORCA_COMPONENTS_REACHABLE_NETLINK_KERNEL_ROUTES_H

#include <orca/ip_address.h>
#include <orca/netlink.h>

#include <optional>
#include <string>
#include <vector>

namespace orca::reach::netlink {

struct Route {
  bool found = false;      // false: no route; `error` says why
  std::string error;
  int type = 0;            // RTN_UNICAST, RTN_LOCAL, RTN_UNREACHABLE, ...
  int oif = 0;             // output interface index
  std::optional<net::IpAddress> gateway;
  std::optional<net::IpAddress> preferred_source;
};

/* Where the ranker gets its routes: the kernel (KernelRoutes), or a
 * table a test writes. */
class RouteTable {
 public:
  virtual ~RouteTable() = default;
  /* The route to each destination, in order (see KernelRoutes::lookup). */
  virtual std::vector<Route> lookup(const std::vector<net::IpAddress>& destinations) = 0;
};

class KernelRoutes final : public RouteTable {
 public:
  /* From this many destinations of a family on, a lookup reads that
   * family's routing tables first (two or three dumps) and asks once per
   * route they share (RouteSnapshot); below it, grouping costs more than
   * it saves. */
  static constexpr size_t kGroupFrom = 8;

  explicit KernelRoutes(net::NetlinkSocket socket) : socket_(std::move(socket)) {}
  /* The kernel's route to each destination, in order; for IPv6
   * link-local the scope (interface index) is passed as the output
   * interface. Asked together (NetlinkSocket::exchange_each);
   * destinations that provably share a route share one answer. */
  std::vector<Route> lookup(const std::vector<net::IpAddress>& destinations) override;
  Route lookup(const net::IpAddress& destination) { return std::move(lookup(std::vector{destination}).front()); }
  /* Every destination asked about alone: what lookup() must equal. */
  std::vector<Route> lookup_each(const std::vector<net::IpAddress>& destinations);

  /* Kernel questions the last lookup() asked (route lookups, not dumps). */
  size_t last_questions() const noexcept { return last_questions_; }

 private:
  net::NetlinkSocket socket_;
  size_t last_questions_ = 0;
};

}  // namespace orca::reach::netlink

#endif
