// reachable/netlink: the component descriptor. Opens one rtnetlink socket
// per process; declines (leaving weighted to run) where netlink cannot be
// opened, e.g. under a seccomp profile that forbids it.
#include "route_ranker.h"

#include <orca/component_glue.h>
#include <orca/mca_context_reader.h>
#include <orca/mca_component.h>
#include <orca/reachable.h>

#include <cstdio>
#include <iterator>
#include <memory>

namespace {

const orca_mca_var_decl kVars[] = {
    {.name = "priority",
     .type = ORCA_MCA_VAR_INT,
     .default_value = "50",
     .level = 6,
     .description = "Selection priority of reachable/netlink (the highest-priority reachable component is used)",
     .min_value = "-1000",
     .max_value = "1000"},
};

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
  int priority_value = 0;
  // For ComponentGlue.
  void* handle() noexcept { return &module; }
  int priority() const noexcept { return priority_value; }
};

orca_mca_rc netlink_register(orca_mca_registrar* registrar) {
  return orca_mca_declare_vars(registrar, kVars, std::size(kVars));
}

orca_mca_rc netlink_open(const orca_mca_context* context, void** state, orca_mca_reason* why) {
  int priority = 0;
  const orca::mca::ContextReader reader(*context, "reachable_netlink_");
  if (orca::mca::all_read({reader.read("priority", priority)}, why) != ORCA_MCA_OK) return ORCA_MCA_FAILED;
  auto socket = orca::net::NetlinkSocket::open();
  if (!socket) {
    std::snprintf(why->text, sizeof why->text, "cannot open a netlink socket: %s",
                  socket.error().arg("why").c_str());
    return ORCA_MCA_DECLINED;
  }
  auto s = std::make_unique<State>(std::move(socket.value()));
  s->priority_value = priority;
  return orca::mca::ComponentGlue<State>::keep(std::move(s), state);
}

}  // namespace

extern "C" ORCA_COMPONENT_EXPORT const orca_mca_component mca_reachable_netlink_component =
    orca::mca::ComponentGlue<State>::descriptor(
        "reachable", ORCA_REACHABLE_INTERFACE_VERSION, "netlink",
        "Ranks address pairs by the route the kernel would take (RTM_GETROUTE)",
        netlink_register, netlink_open);
