// reachable/netlink: the kernel's chosen interface first (on-link before
// via a gateway), other interfaces demoted, no route never.
#include "route_ranker.h"

#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/socket.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace orca::reach::netlink {

namespace {

std::string interface_name(int index) {
  char name[IF_NAMESIZE] = {};
  return if_indextoname(static_cast<unsigned>(index), name) ? name : "interface " + std::to_string(index);
}

// One pair's weight from the kernel's route; its reason too when `why`
// is given (a caller that reads weights only skips every string).
template <class NameOf>
int judge(const Route& route, const net::IpAddress& ra, const orca_reach_endpoint& local,
          const orca_reach_endpoint& remote, std::string* why, NameOf name_of, const std::string& dst_text) {
  if (!route.found) {
    if (why) *why = "no route to " + dst_text + (route.error.empty() ? "" : " (" + route.error + ")");
    return 0;
  }
  if (route.type != RTN_UNICAST && route.type != RTN_LOCAL) {
    if (why) *why = "the kernel's route to " + dst_text + " is not usable (type " + std::to_string(route.type) + ")";
    return 0;
  }
  int weight;
  if (ra.is_link_local()) {
    // A route lookup with the link given always says "on-link": it
    // cannot tell whether the peer is on this link. Rank it below
    // routes the kernel can vouch for.
    weight = kLinkLocal;
    if (why) *why = "link-local " + dst_text + ": reachable only if on the same link as " + name_of(local.if_index);
  } else if (route.type == RTN_LOCAL) {
    weight = kLocalDelivery;
    if (why) *why = "the kernel delivers " + dst_text + " locally";
  } else if (route.oif != local.if_index) {
    if (why) *why = "the kernel would send to " + dst_text + " on " + name_of(route.oif) + ", not " + name_of(local.if_index);
    return kOtherInterface;
  } else if (route.gateway) {
    weight = kGatewayRoute;
    if (why) *why = "the kernel routes " + dst_text + " via " + route.gateway->to_string() + " on " + name_of(local.if_index);
  } else {
    weight = kDirectRoute;
    if (why) *why = "the kernel routes " + dst_text + " directly on " + name_of(local.if_index);
  }
  if (route.preferred_source && route.preferred_source->same_address(address_of(local))) {
    weight += 20;
    if (why) *why += " from this address";
  }
  std::string link_why;
  weight += link_bonus(local, remote, why ? &link_why : nullptr);
  if (why) *why += "; " + link_why;
  if (!local.running) {
    weight /= 4;
    if (why) *why += "; no carrier";
  }
  return weight;
}

}  // namespace

orca_mca_rc rank(RouteTable& routes, const orca_reach_query& q, orca_reach_verdict* verdicts) {
  std::map<net::IpAddress, Route> cache;  // answers valid for this call only
  // if_indextoname costs a socket and an ioctl: name each interface once,
  // from the query's own locals where possible.
  std::map<int, std::string> names;
  auto name_of = [&](int index) -> const std::string& {
    if (auto it = names.find(index); it != names.end()) return it->second;
    for (size_t l = 0; l < q.n_locals; ++l) {
      if (q.locals[l].if_index == index && q.locals[l].if_name != nullptr)
        return names.emplace(index, q.locals[l].if_name).first->second;
    }
    return names.emplace(index, interface_name(index)).first->second;
  };
  // A link-local destination is routed per link: ask with this link.
  auto destination = [&](size_t l, size_t r) {
    net::IpAddress dst = address_of(q.remotes[r]);
    if (dst.is_link_local() && dst.family() == net::Family::V6) dst.set_scope_id(static_cast<std::uint32_t>(q.locals[l].if_index));
    return dst;
  };
  // Every route the undecided pairs need, asked at once: a query may
  // hold every other host of a job.
  std::vector<net::IpAddress> wanted;
  for (size_t r = 0; r < q.n_remotes; ++r) {
    for (size_t l = 0; l < q.n_locals; ++l) {
      if (verdicts[l * q.n_remotes + r].weight != ORCA_REACH_UNDECIDED) continue;
      net::IpAddress dst = destination(l, r);
      if (cache.emplace(dst, Route{}).second) wanted.push_back(dst);
    }
  }
  std::vector<Route> found = routes.lookup(wanted);
  for (size_t i = 0; i < wanted.size(); ++i) cache[wanted[i]] = std::move(found[i]);
  const bool reasons = q.omit_reasons == 0;
  for (size_t r = 0; r < q.n_remotes; ++r) {
    const net::IpAddress ra = address_of(q.remotes[r]);
    const std::string dst_text = reasons ? ra.to_string() : std::string();
    for (size_t l = 0; l < q.n_locals; ++l) {
      orca_reach_verdict& v = verdicts[l * q.n_remotes + r];
      if (v.weight != ORCA_REACH_UNDECIDED) continue;
      const orca_reach_endpoint& local = q.locals[l];
      const Route& route = cache.at(destination(l, r));
      std::string why;
      v.weight = judge(route, ra, local, q.remotes[r], reasons ? &why : nullptr, name_of, dst_text);
      if (reasons) std::snprintf(v.reason, sizeof v.reason, "%s", why.c_str());
    }
  }
  return ORCA_MCA_OK;
}

}  // namespace orca::reach::netlink
