// DataPlaneAnswer: this host's data-plane link, from its own evidence.
#include "data_plane_answer.h"

#include "launch/data_plane.h"
#include "launch/rank_network_env.h"

#include <orca/child_process.h>
#include <orca/tcp_sockets.h>

#include <dirent.h>

#include <cstdint>
#include <map>

namespace orca::orcad {

namespace {

bool has_rdma_devices() {
  DIR* dir = ::opendir("/sys/class/infiniband");
  if (dir == nullptr) return false;
  bool any = false;
  while (const dirent* e = ::readdir(dir)) {
    if (e->d_name[0] != '.') any = true;
  }
  ::closedir(dir);
  return any;
}

// A TCP port the kernel gives out on this host now, for torch's store on
// rank 0's host (as torchrun picks one). 0 when none can be had.
std::uint32_t free_port(const net::IpAddress& near) {
  auto any = net::IpAddress::parse(near.family() == net::Family::V6 ? "::" : "0.0.0.0");
  if (!any) return 0;
  auto fd = net::listen_on(*any, 0);
  return fd ? net::local_port(fd->get()) : 0;
}

// Link-local addresses are no data plane: the kernel cannot say whether
// a peer shares the link, and the libraries take no scope.
bool usable(const net::InterfaceAddress& e) { return !e.tentative && !e.address.is_link_local(); }

// This host's usable addresses, as input.locals; returns where each
// selected address went there (SIZE_MAX: left out).
std::vector<size_t> add_locals(const std::vector<net::InterfaceAddress>& selected, launch::DataPlaneInput& input) {
  // rank_toward_hosts indexes every selected address; input.locals holds some.
  std::vector<size_t> position(selected.size(), SIZE_MAX);
  for (size_t i = 0; i < selected.size(); ++i) {
    const auto& e = selected[i];
    if (!usable(e)) continue;
    position[i] = input.locals.size();
    input.locals.push_back({.interface = e.link.name, .address = e.address, .prefix_length = e.prefix_length, .kind = e.link.kind});
  }
  return position;
}

// The other hosts' addresses, to rank toward; which host owns which
// address, for the evidence.
struct OtherHosts {
  std::map<net::IpAddress, size_t> owner;
  std::vector<std::vector<reach::RemoteAddress>> remotes;  // per entry of input.hosts
};

OtherHosts add_other_hosts(const launch::HostDirectory& directory, const std::string& own_identity,
                           launch::DataPlaneInput& input) {
  OtherHosts others;
  for (const auto& host : directory.hosts) {
    if (host.identity == own_identity) continue;
    const size_t h = input.hosts.size();
    input.hosts.push_back(host.name);
    auto& addresses = others.remotes.emplace_back();
    for (const auto& text : host.addresses) {
      if (addresses.size() == launch::kMaxHostAddresses) break;
      if (auto r = launch::parse_address_entry(text)) {
        others.owner.emplace(r->address, h);
        addresses.push_back(*r);
      }
    }
  }
  return others;
}

// All hosts in one query (one batch of route lookups); if it fails,
// every host counts as unreached, and the report says so. Loopback
// reaches no other host: its pairs would all weigh 0.
void add_pairs(oob::Oob& oob, const OtherHosts& others, const std::vector<size_t>& position,
               launch::DataPlaneInput& input) {
  auto toward_others = [&](const net::InterfaceAddress& e) { return usable(e) && !e.address.is_loopback(); };
  if (auto ranked = oob.rank_toward_hosts(others.remotes, false, toward_others)) {
    for (size_t h = 0; h < others.remotes.size(); ++h) {
      for (const auto& p : ranked.value()[h]) {
        if (p.local < position.size() && position[p.local] != SIZE_MAX) {
          input.pairs.push_back({.host = h, .local = position[p.local], .weight = p.weight});
        }
      }
    }
  }
}

// What the oob's connections from each local address did.
void add_proof(const oob::Oob& oob, const OtherHosts& others, launch::DataPlaneInput& input) {
  input.proof.resize(input.locals.size());
  for (const auto& o : oob.link_outcomes()) {
    for (size_t l = 0; l < input.locals.size(); ++l) {
      if (!input.locals[l].address.same_address(o.local)) continue;
      if (o.connected) {
        ++input.proof[l].connected;
      } else {
        ++input.proof[l].failed;
        if (auto it = others.owner.find(o.remote); it != others.owner.end()) input.proof[l].failed_toward.push_back(it->second);
      }
    }
  }
}

// The user's own interface settings win; say where one cannot reach.
void warn_of_user_settings(const launch::DataPlaneInput& input, const launch::HostDirectory& directory,
                           launch::DataPlaneAnswer& answer) {
  std::vector<launch::LocalInterface> named;
  for (const auto& l : input.locals) named.push_back({.name = l.interface, .address = l.address.to_string()});
  std::vector<std::string> settings = answer.inherited;
  settings.insert(settings.end(), directory.user_settings.begin(), directory.user_settings.end());
  for (const auto& setting : settings) {
    const auto chosen = launch::interfaces_named_by(setting, named);
    if (!chosen) continue;
    if (chosen->empty()) {
      answer.warnings.push_back("the user's " + setting + " names no interface of this host");
      continue;
    }
    const auto missed = launch::hosts_not_reached(input, *chosen);
    if (missed.empty()) continue;
    std::string hosts;
    for (size_t h : missed) hosts += (hosts.empty() ? "" : ", ") + input.hosts[h];
    answer.warnings.push_back("the user's " + setting + " has no route from here to " + hosts);
  }
}

// The choice into the answer; the chosen address and its interface's
// others are where a mesh check leaves from.
void take_choice(const launch::DataPlaneInput& input, const launch::DataPlaneChoice& choice, DirectoryAnswer& out) {
  launch::DataPlaneAnswer& answer = out.wire;
  answer.reason = choice.reason;
  answer.others = choice.others;
  for (size_t h : choice.unreached) answer.unreached.push_back(input.hosts[h]);
  if (choice.local) {
    const auto& l = input.locals[*choice.local];
    answer.interface = l.interface;
    answer.address = l.address.to_string();
    answer.prefix_length = static_cast<std::uint32_t>(l.prefix_length);
    answer.port = free_port(l.address);
    out.sources.push_back(l.address);
    for (const auto& other : input.locals) {
      if (other.interface == l.interface && !other.address.same_address(l.address)) out.sources.push_back(other.address);
    }
  }
}

}  // namespace

Result<std::vector<std::string>> data_plane_addresses(oob::Oob& oob) {
  // The oob's own interface lists: what the user allowed the daemons is
  // what they proved.
  auto selected = oob.selected_addresses();
  if (!selected) return selected.error();
  std::vector<std::string> out;
  for (const auto& e : selected.value()) {
    if (e.address.is_loopback() || e.address.is_link_local() || e.tentative) continue;
    if (out.size() == launch::kMaxHostAddresses) break;
    out.push_back(launch::address_entry_text(e));
  }
  return out;
}

DirectoryAnswer answer_directory(oob::Oob& oob, const launch::HostDirectory& directory,
                                 const std::string& own_identity, std::uint32_t vpid) {
  DirectoryAnswer out{.wire = launch::DataPlaneAnswer{.vpid = vpid}, .sources = {}};
  launch::DataPlaneAnswer& answer = out.wire;
  answer.inherited = launch::user_network_settings(plm::current_environment());
  answer.rdma = has_rdma_devices();
  auto selected = oob.selected_addresses();
  if (!selected) {
    answer.reason = "cannot read this host's interfaces: " + selected.error().summary();
    return out;
  }
  launch::DataPlaneInput input;
  const std::vector<size_t> position = add_locals(selected.value(), input);
  const OtherHosts others = add_other_hosts(directory, own_identity, input);
  add_pairs(oob, others, position, input);
  add_proof(oob, others, input);
  const launch::DataPlaneChoice choice = launch::choose_data_plane(input);
  warn_of_user_settings(input, directory, answer);
  take_choice(input, choice, out);
  return out;
}

launch::MasterPort answer_master_port(const launch::MasterPortAsk& ask, std::uint32_t vpid) {
  const auto near = net::IpAddress::parse(ask.near);
  return {.job = ask.job, .vpid = vpid, .port = near ? free_port(*near) : 0};
}

}  // namespace orca::orcad
