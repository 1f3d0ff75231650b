// The reachable framework's base: the rules every component obeys, the
// shared link bonus, and the matrix computation around a module.
#include <orca/reachable.h>

#include <sys/socket.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string_view>

namespace orca::reach {

net::IpAddress address_of(const orca_reach_endpoint& e) {
  return net::IpAddress(e.family == AF_INET ? net::Family::V4 : net::Family::V6, e.address, e.scope_id);
}

namespace {

void set(orca_reach_verdict* out, int weight, std::string_view reason) {
  out->weight = weight;
  const size_t n = std::min(reason.size(), sizeof out->reason - 1);
  std::memcpy(out->reason, reason.data(), n);
  out->reason[n] = '\0';
}

}  // namespace

std::vector<bool> on_host_local_bridge(const std::vector<RemoteAddress>& remotes, const std::vector<bool>& mine,
                                       bool same_host) {
  std::vector<bool> out(remotes.size(), false);
  if (same_host) return out;
  // Every host has its own virbr0 (192.168.122.1) or docker0 (172.17.0.1):
  // a peer whose bridges carry only addresses that are mine as well has
  // bridges that end inside its host, and their link-local addresses lead
  // nowhere from here. One bridge address of its own (a br0 holding the
  // LAN address) keeps all of them.
  bool any_bridge = false, all_mine = true;
  for (size_t i = 0; i < remotes.size(); ++i) {
    const RemoteAddress& r = remotes[i];
    if (r.kind != net::InterfaceKind::Bridge || r.address.is_link_local() || r.address.is_loopback()) continue;
    any_bridge = true;
    all_mine = all_mine && mine[i];
  }
  if (!any_bridge || !all_mine) return out;
  for (size_t i = 0; i < remotes.size(); ++i) {
    out[i] = remotes[i].kind == net::InterfaceKind::Bridge && remotes[i].address.is_link_local();
  }
  return out;
}

bool base_verdict(const orca_reach_endpoint& local, const orca_reach_endpoint& remote, bool same_host,
                  bool remote_is_mine, orca_reach_verdict* out) {
  const net::IpAddress l = address_of(local), r = address_of(remote);
  if (local.family != remote.family) {
    set(out, 0, "address families differ");
  } else if (l.is_loopback() && r.is_loopback()) {
    if (same_host) set(out, kWeightSameHostLoopback, "same host: loopback always works");
    else set(out, 0, "loopback is only for peers on this host");
  } else if (l.is_loopback() || r.is_loopback()) {
    set(out, 0, "loopback pairs only with loopback");
  } else if (remote_is_mine && !same_host) {
    // Short enough for the longest IPv6 address in the reason buffer.
    set(out, 0, r.to_string() + " is also an address of this host: no path to another host");
  } else if (l.is_link_local() != r.is_link_local()) {
    set(out, 0, "link-local pairs only with link-local on the same link");
  } else {
    return false;
  }
  return true;
}

int link_bonus(const orca_reach_endpoint& local, const orca_reach_endpoint& remote, std::string* why) {
  auto kind_score = [](int kind) {
    switch (static_cast<net::InterfaceKind>(kind)) {
      case net::InterfaceKind::Physical:
      case net::InterfaceKind::Bond: return 60;
      case net::InterfaceKind::Vlan: return 55;
      case net::InterfaceKind::Unknown: return 50;
      case net::InterfaceKind::Wireless: return 40;
      case net::InterfaceKind::Veth: return 30;
      case net::InterfaceKind::TunTap: return 20;
      case net::InterfaceKind::Dummy:
      case net::InterfaceKind::OtherVirtual: return 10;
      case net::InterfaceKind::Bridge:
      case net::InterfaceKind::Loopback: return 0;
    }
    return 0;
  };
  // A path is as good as its weaker end: a physical NIC talking to a
  // peer's docker bridge is still a bridge path. A peer that did not say
  // what its address is leaves the local end to speak for the path.
  const int remote_kind = remote.kind == static_cast<int>(net::InterfaceKind::Unknown) ? local.kind : remote.kind;
  const int weaker = std::min(kind_score(local.kind), kind_score(remote_kind));
  const int weaker_kind = kind_score(local.kind) <= kind_score(remote_kind) ? local.kind : remote_kind;
  int speed = 0;
  if (local.speed_mbps >= 100000) speed = 40;
  else if (local.speed_mbps >= 25000) speed = 35;
  else if (local.speed_mbps >= 10000) speed = 30;
  else if (local.speed_mbps >= 1000) speed = 20;
  else if (local.speed_mbps > 0) speed = 10;
  if (why != nullptr) {
    *why = std::string(net::kind_name(static_cast<net::InterfaceKind>(weaker_kind))) + " path";
    if (local.speed_mbps > 0) *why += ", " + std::to_string(local.speed_mbps) + " Mb/s";
  }
  return weaker + speed;
}

orca_reach_endpoint to_endpoint(const net::InterfaceAddress& entry) {
  orca_reach_endpoint e{};
  e.family = entry.address.af();
  std::memcpy(e.address, entry.address.bytes(), entry.address.size());
  e.scope_id = entry.address.scope_id();
  e.prefix_length = entry.prefix_length;
  e.kind = static_cast<int>(entry.link.kind);
  e.if_index = entry.link.index;
  e.if_name = entry.link.name.c_str();
  e.speed_mbps = entry.link.speed_mbps.value_or(0);
  e.running = entry.link.running;
  return e;
}

orca_reach_endpoint to_endpoint(const RemoteAddress& remote) {
  orca_reach_endpoint e{};
  e.family = remote.address.af();
  std::memcpy(e.address, remote.address.bytes(), remote.address.size());
  e.scope_id = remote.address.scope_id();
  e.prefix_length = remote.prefix_length;
  e.kind = static_cast<int>(remote.kind);
  return e;
}

Result<std::vector<std::vector<PairVerdict>>> compute_matrices(const orca_reachable_module& module,
                                                              const net::InterfaceInventory& inventory,
                                                              const std::vector<net::InterfaceDecision>& selection,
                                                              const std::vector<std::vector<RemoteAddress>>& peers,
                                                              bool same_host, Reasons reasons) {
  std::vector<size_t> local_index;
  std::vector<orca_reach_endpoint> locals;
  for (const auto& d : selection) {
    if (!d.selected) continue;
    local_index.push_back(d.entry);
    locals.push_back(to_endpoint(inventory.entries()[d.entry]));
  }
  // Every peer's addresses side by side in one query (a module judges
  // each pair alone); the host-local bridge rule looks at one peer's
  // addresses at a time. Indexed by position in remote_eps:
  std::vector<size_t> first;  // of each peer
  std::vector<orca_reach_endpoint> remote_eps;
  std::vector<bool> mine;       // the address is also this host's
  std::vector<bool> on_bridge;  // on a host-local bridge (on_host_local_bridge)
  for (const auto& remotes : peers) {
    first.push_back(remote_eps.size());
    std::vector<bool> peer_mine;
    for (const auto& r : remotes) {
      remote_eps.push_back(to_endpoint(r));
      peer_mine.push_back(inventory.owns(r.address));
    }
    const std::vector<bool> bridged = on_host_local_bridge(remotes, peer_mine, same_host);
    mine.insert(mine.end(), peer_mine.begin(), peer_mine.end());
    on_bridge.insert(on_bridge.end(), bridged.begin(), bridged.end());
  }
  const size_t total = remote_eps.size();
  std::vector<orca_reach_verdict> verdicts(locals.size() * total);
  bool undecided = false;
  for (size_t l = 0; l < locals.size(); ++l) {
    for (size_t r = 0; r < total; ++r) {
      orca_reach_verdict& v = verdicts[l * total + r];
      if (on_bridge[r] && locals[l].family == remote_eps[r].family && !address_of(locals[l]).is_loopback()) {
        set(&v, 0, "link-local on a bridge that only carries this host's own addresses too (a host-local bridge): no path");
      } else if (!base_verdict(locals[l], remote_eps[r], same_host, mine[r], &v)) {
        v.weight = ORCA_REACH_UNDECIDED;
        undecided = true;
      }
    }
  }
  if (undecided) {
    orca_reach_query q{locals.data(), locals.size(), remote_eps.data(), total, same_host ? 1 : 0,
                       reasons == Reasons::Omitted ? 1 : 0};
    if (module.compute(module.self, &q, verdicts.data()) != ORCA_MCA_OK) {
      return Message("reachable", "compute-failed", {});
    }
  }
  std::vector<std::vector<PairVerdict>> out(peers.size());
  for (size_t p = 0; p < peers.size(); ++p) {
    auto& matrix = out[p];
    matrix.reserve(locals.size() * peers[p].size());
    for (size_t l = 0; l < locals.size(); ++l) {
      for (size_t r = 0; r < peers[p].size(); ++r) {
        const orca_reach_verdict& v = verdicts[l * total + first[p] + r];
        // A module that leaves a pair undecided or negative has not ranked it.
        const int weight = std::max(0, v.weight);
        std::string reason;
        if (reasons == Reasons::Kept) {
          reason.assign(v.reason, strnlen(v.reason, sizeof v.reason));
          if (v.weight < 0) reason = "not ranked by the reachable component";
        }
        matrix.push_back(PairVerdict{local_index[l], r, weight, std::move(reason)});
      }
    }
    std::stable_sort(matrix.begin(), matrix.end(), [](const PairVerdict& a, const PairVerdict& b) { return a.weight > b.weight; });
  }
  return out;
}

Result<std::vector<PairVerdict>> compute_matrix(const orca_reachable_module& module,
                                                const net::InterfaceInventory& inventory,
                                                const std::vector<net::InterfaceDecision>& selection,
                                                const std::vector<RemoteAddress>& remotes, bool same_host) {
  auto matrices = compute_matrices(module, inventory, selection, {remotes}, same_host);
  if (!matrices) return matrices.error();
  return std::move(matrices.value().front());
}

Result<const orca_reachable_module*> selected_module(const mca::Framework& framework) {
  const auto* module = framework.selected_module<orca_reachable_module>();
  if (module == nullptr) return Message("mca-base", "no-component", {{"framework", "reachable"}, {"tried", ""}});
  return module;
}

}  // namespace orca::reach
