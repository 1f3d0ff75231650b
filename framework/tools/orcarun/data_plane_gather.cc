// DataPlaneGather: each host asked once, every answer into the command.
#include "data_plane_gather.h"

#include "launch/data_plane.h"
#include "launch/rank_network_env.h"

#include <algorithm>

namespace orca::orcarun {

DataPlaneGather::DataPlaneGather(std::vector<std::string> families, const std::vector<DaemonAt>& daemons,
                                 std::uint32_t rank0_vpid, bool mesh_check, const std::vector<std::string>& forwarded)
    : families_(std::move(families)) {
  directory_.mesh_check = mesh_check;
  directory_.user_settings = launch::user_network_settings(forwarded);
  std::map<std::string, size_t> by_identity;
  for (const DaemonAt& d : daemons) {
    // A report without an identity (never from a current orcad) is a host
    // of its own: asking it once more costs one message.
    const std::string identity = d.report->host_identity.empty() ? "vpid-" + std::to_string(d.vpid) : d.report->host_identity;
    auto [it, fresh] = by_identity.emplace(identity, directory_.hosts.size());
    if (fresh) {
      launch::HostAddresses host{.identity = identity, .name = d.host, .addresses = d.report->addresses};
      if (host.addresses.size() > launch::kMaxHostAddresses) host.addresses.resize(launch::kMaxHostAddresses);
      directory_.hosts.push_back(std::move(host));
      asked_.push_back(d.vpid);
      daemons_per_host_.push_back(0);
    }
    ++daemons_per_host_[it->second];
    host_of_vpid_[d.vpid] = it->second;
    if (d.vpid == rank0_vpid) rank0_host_ = it->second;
  }
  answers_.resize(asked_.size());
  mesh_.resize(asked_.size());
}

std::optional<size_t> DataPlaneGather::asked_host(std::uint32_t vpid) const {
  auto it = host_of_vpid_.find(vpid);
  if (it == host_of_vpid_.end() || asked_[it->second] != vpid) return std::nullopt;
  return it->second;
}

const launch::DataPlaneAnswer* DataPlaneGather::linked(size_t host) const {
  if (host >= answers_.size() || !answers_[host] || answers_[host]->interface.empty()) return nullptr;
  return &*answers_[host];
}

bool DataPlaneGather::take(const launch::DataPlaneAnswer& answer) {
  const auto host = asked_host(answer.vpid);
  if (!host || answers_[*host]) return complete();
  answers_[*host] = answer;
  ++answered_;
  return complete();
}

bool DataPlaneGather::answered(std::uint32_t vpid) const {
  const auto host = asked_host(vpid);
  return host && answers_[*host].has_value();
}

launch::MeshCheck DataPlaneGather::mesh_check(std::uint32_t concurrency, std::chrono::milliseconds timeout) const {
  launch::MeshCheck check{.targets = {}, .concurrency = concurrency,
                          .timeout_ms = static_cast<std::uint32_t>(std::max<std::int64_t>(1, timeout.count()))};
  for (size_t h = 0; h < answers_.size(); ++h) {
    if (!answers_[h] || answers_[h]->interface.empty() || answers_[h]->check_port == 0) continue;
    check.targets.push_back({.identity = directory_.hosts[h].identity, .name = directory_.hosts[h].name,
                             .address = answers_[h]->address, .port = answers_[h]->check_port});
  }
  return check;
}

bool DataPlaneGather::take_mesh(const launch::MeshResult& result) {
  if (const auto host = asked_host(result.vpid); host && !mesh_[*host]) {
    mesh_[*host] = result;
    ++meshed_;
  }
  return meshed_ == asked_.size();
}

std::vector<std::string> DataPlaneGather::mesh_failures() const {
  std::vector<std::string> out;
  for (size_t h = 0; h < mesh_.size(); ++h) {
    if (!mesh_[h]) continue;
    for (const auto& f : mesh_[h]->failures) out.push_back(directory_.hosts[h].name + " -> " + f);
  }
  return out;
}

std::string DataPlaneGather::torch_master_address(std::uint32_t vpid) const {
  if (std::find(families_.begin(), families_.end(), "torch") == families_.end()) return "";
  auto it = host_of_vpid_.find(vpid);
  const launch::DataPlaneAnswer* link = it == host_of_vpid_.end() ? nullptr : linked(it->second);
  return link != nullptr ? link->address : "";
}

void DataPlaneGather::fill(launch::LaunchCommand& command) const {
  command.families = families_;
  for (size_t h = 0; h < answers_.size(); ++h) {
    if (!answers_[h] || answers_[h]->interface.empty()) continue;
    const auto& a = *answers_[h];
    command.links.push_back({.identity = directory_.hosts[h].identity,
                             .interface = a.interface,
                             .address = a.address,
                             .prefix_length = a.prefix_length,
                             .rdma = a.rdma});
  }
  if (const launch::DataPlaneAnswer* master = linked(rank0_host_)) {
    command.master_address = master->address;
    command.master_port = master->port;
  }
}

std::string DataPlaneGather::report(const std::vector<std::string>& forwarded) const {
  std::string families;
  for (const auto& f : families_) families += (families.empty() ? "" : ",") + f;
  std::string text = "data plane (" + std::to_string(directory_.hosts.size()) +
                     (directory_.hosts.size() == 1 ? " host" : " hosts") + ", orcarun_data_plane=" + families + "):\n";
  for (size_t h = 0; h < answers_.size(); ++h) {
    const auto& host = directory_.hosts[h];
    std::string where = host.name;
    if (daemons_per_host_[h] > 1) where += " (" + std::to_string(daemons_per_host_[h]) + " daemons)";
    if (!answers_[h]) {
      text += "  " + where + ": no answer\n";
      continue;
    }
    const auto& a = *answers_[h];
    if (a.interface.empty()) {
      text += "  " + where + ": nothing set: " + a.reason + "\n";
    } else {
      text += "  " + where + ": " + a.interface + " " + a.address + "/" + std::to_string(a.prefix_length) + ": " + a.reason +
              (h == rank0_host_ ? "; MASTER_ADDR (rank 0's host)" : "") + "\n";
    }
    for (const auto& u : a.unreached) text += "    warning: does not reach " + u + "\n";
    for (const auto& w : a.warnings) text += "    warning: " + w + "\n";
    for (const auto& o : a.others) text += "    not chosen: " + o + "\n";
    if (a.rdma) text += "    UCX_NET_DEVICES not set: this host has RDMA devices\n";
    for (const auto& i : a.inherited) text += "    the user's (orcad's environment): " + i + "; that family is left alone\n";
  }
  for (const auto& f : launch::user_network_settings(forwarded)) {
    text += "  the user's (forwarded to every rank): " + f + "; that family is left alone\n";
  }
  return text;
}

}  // namespace orca::orcarun
