// reachable/netlink: the component descriptor. Opens one rtnetlink socket
// per process; declines (leaving weighted to run) where netlink cannot be
// opened, e.g. under a seccomp profile that forbids it.
#include "route_ranker.h"

#include <orca/mca_component.h>
#include <orca/reachable.h>

#include <cstdio>
#include <memory>

namespace {

constexpr int kPriority = 50;

struct State {
  explicit State(orca::net::NetlinkSocket socket) : routes(std::move(socket)) {
    module.self = this;
    module.compute = &State::compute;
  }
  static orca_mca_rc compute(void* self, const orca_reach_query* query, orca_reach_verdict* verdicts) {
    try {
      return orca::reach::netlink::rank(static_cast<State*>(self)->routes, *query, verdicts);
    } catch (...) {
      return ORCA_MCA_FAILED;  // nothing may unwind across the C boundary
    }
  }
  orca::reach::netlink::KernelRoutes routes;
  orca_reachable_module module{};
};

orca_mca_rc netlink_open(void** state, orca_mca_reason* why) {
  auto socket = orca::net::NetlinkSocket::open();
  if (!socket) {
    std::snprintf(why->text, sizeof why->text, "cannot open a netlink socket: %s",
                  socket.error().arg("why").c_str());
    return ORCA_MCA_DECLINED;
  }
  // Ownership passes to the framework until close().
  *state = std::make_unique<State>(std::move(socket.value())).release();
  return ORCA_MCA_OK;
}

orca_mca_rc netlink_query(void* state, void** module, int* priority, orca_mca_reason* /*why*/) {
  *module = &static_cast<State*>(state)->module;
  *priority = kPriority;
  return ORCA_MCA_OK;
}

void netlink_close(void* state) { std::unique_ptr<State>(static_cast<State*>(state)); }

}  // namespace

extern "C" ORCA_COMPONENT_EXPORT const orca_mca_component mca_reachable_netlink_component = {
    ORCA_MCA_COMPONENT_ABI_VERSION, "reachable", ORCA_REACHABLE_INTERFACE_VERSION, "netlink", 1, 0, 0,
    "Ranks address pairs by the route the kernel would take (RTM_GETROUTE)", nullptr, netlink_open, netlink_query, netlink_close};
