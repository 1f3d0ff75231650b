// The variables that give ranks their host's data-plane choice.
#include "rank_network_env.h"

#include <orca/ip_address.h>

#include <algorithm>
#include <optional>
#include <string_view>

namespace orca::launch {

namespace {

struct Family {
  std::string name;
  std::vector<std::string> variables;  // the first is the one Orca sets
};

const std::vector<Family>& families() {
  static const std::vector<Family> kFamilies = {
      {"ompi", {"OMPI_MCA_btl_tcp_if_include", "OMPI_MCA_btl_tcp_if_exclude"}},
      {"ucx", {"UCX_NET_DEVICES"}},
      {"nccl", {"NCCL_SOCKET_IFNAME"}},
      {"gloo", {"GLOO_SOCKET_IFNAME"}},
      {"libfabric", {"FI_TCP_IFACE", "FI_SOCKETS_IFACE"}},
      {"mpich", {"MPIR_CVAR_CH3_INTERFACE_HOSTNAME", "MPICH_INTERFACE_HOSTNAME", "MPIR_CVAR_NEMESIS_TCP_NETWORK_IFACE"}},
      {"torch", {"MASTER_ADDR", "MASTER_PORT"}},
  };
  return kFamilies;
}

// The value of `name` in NAME=VALUE words, the last one winning (as a
// later -x or setenv replaces an earlier one). A scan, not a map: a dozen
// names are asked of each rank's whole environment, and building a map of
// it cost a daemon tens of microseconds a rank.
std::optional<std::string_view> value_in(const std::vector<std::string>& environment, std::string_view name) {
  for (auto it = environment.rbegin(); it != environment.rend(); ++it) {
    const std::string_view e = *it;
    if (e.size() > name.size() && e[name.size()] == '=' && e.starts_with(name)) return e.substr(name.size() + 1);
  }
  return std::nullopt;
}

}  // namespace

const std::vector<std::string>& data_plane_families() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const auto& f : families()) names.push_back(f.name);
    return names;
  }();
  return kNames;
}

const std::vector<std::string>& family_variables(std::string_view family) {
  static const std::vector<std::string> kNone;
  for (const auto& f : families()) {
    if (f.name == family) return f.variables;
  }
  return kNone;
}

Result<std::vector<std::string>> parse_family_list(std::string_view text) {
  if (text == "all") return data_plane_families();
  std::vector<std::string> out;
  if (text == "none" || text.empty()) return out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string name(text.substr(start, comma - start));
    const auto& known = data_plane_families();
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      return Message("launch", "bad-data-plane-family", {{"name", name}, {"known", list}});
    }
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    start = comma + 1;
  }
  return out;
}

std::string network_of(const std::string& address, int prefix_length) {
  auto a = net::IpAddress::parse(address);
  if (!a) return address + "/" + std::to_string(prefix_length);
  // The network, host bits cleared: Open MPI matches the CIDR as written.
  std::uint8_t bytes[16] = {};
  std::copy(a->bytes(), a->bytes() + a->size(), bytes);
  for (size_t bit = static_cast<size_t>(std::max(prefix_length, 0)); bit < a->size() * 8; ++bit) {
    bytes[bit / 8] &= static_cast<std::uint8_t>(~(0x80u >> (bit % 8)));
  }
  return net::IpAddress(a->family(), bytes).to_string() + "/" + std::to_string(prefix_length);
}

NetworkVariables network_variables(const RankLink& link, const TorchMaster& master,
                                   const std::vector<std::string>& wanted,
                                   const std::vector<std::string>& environment) {
  NetworkVariables out;
  auto user_setting = [&](const Family& f) -> std::string {
    for (const auto& v : f.variables) {
      if (auto value = value_in(environment, v)) return v + "=" + std::string(*value);
    }
    return {};
  };
  for (const Family& f : families()) {
    if (std::find(wanted.begin(), wanted.end(), f.name) == wanted.end()) continue;
    if (f.name == "torch") {
      // Each yields on its own: a user may pin the port and keep our address.
      if (master.address.empty()) continue;
      const std::pair<const char*, std::string> torch[] = {{"MASTER_ADDR", master.address},
                                                           {"MASTER_PORT", std::to_string(master.port)}};
      for (const auto& [name, value] : torch) {
        if (auto users = value_in(environment, name)) {
          out.left_to_user.push_back("torch: " + std::string(name) + "=" + std::string(*users) + " is the user's");
        } else if (std::string_view(name) != "MASTER_PORT" || master.port != 0) {
          out.set.emplace_back(name, value);
        }
      }
      continue;
    }
    if (link.interface.empty()) continue;
    if (std::string mine = user_setting(f); !mine.empty()) {
      out.left_to_user.push_back(f.name + ": " + mine + " is the user's");
      continue;
    }
    // Open MPI's if_include takes IPv4 CIDRs only (an IPv6 one matches
    // nothing and btl/tcp aborts): an IPv6 link goes by its name.
    if (f.name == "ompi") {
      const bool v6 = link.address.find(':') != std::string::npos;
      out.set.emplace_back(f.variables[0], v6 ? link.interface : network_of(link.address, link.prefix_length));
    }
    else if (f.name == "ucx" && link.rdma) out.left_to_user.push_back("ucx: UCX_NET_DEVICES not set: this host has RDMA devices, which a device list would leave out");
    else if (f.name == "ucx") out.set.emplace_back(f.variables[0], link.interface);
    else if (f.name == "nccl") out.set.emplace_back(f.variables[0], "=" + link.interface);
    else if (f.name == "gloo" || f.name == "libfabric") out.set.emplace_back(f.variables[0], link.interface);
    else if (f.name == "mpich") out.set.emplace_back(f.variables[0], link.address);
  }
  return out;
}

std::vector<std::string> user_network_settings(const std::vector<std::string>& environment) {
  std::vector<std::string> out;
  for (const Family& f : families()) {
    for (const auto& v : f.variables) {
      if (auto value = value_in(environment, v)) out.push_back(v + "=" + std::string(*value));
    }
  }
  return out;
}

namespace {

std::vector<std::string> comma_list(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    if (comma > start) out.emplace_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

}  // namespace

std::optional<std::vector<size_t>> interfaces_named_by(const std::string& setting,
                                                        const std::vector<LocalInterface>& interfaces) {
  const auto eq = setting.find('=');
  if (eq == std::string::npos) return std::nullopt;
  const std::string name = setting.substr(0, eq);
  std::string value = setting.substr(eq + 1);
  std::vector<size_t> out;
  auto add_if = [&](auto&& matches) {
    for (size_t i = 0; i < interfaces.size(); ++i) {
      if (matches(interfaces[i]) && std::find(out.begin(), out.end(), i) == out.end()) out.push_back(i);
    }
  };
  if (name == "NCCL_SOCKET_IFNAME") {
    // "^..." excludes; "=eth0" matches exactly; "eth" is a prefix.
    if (value.starts_with("^")) return std::nullopt;
    const bool exact = value.starts_with("=");
    for (const auto& item : comma_list(exact ? std::string_view(value).substr(1) : std::string_view(value))) {
      add_if([&](const LocalInterface& l) { return exact ? l.name == item : l.name.starts_with(item); });
    }
    return out;
  }
  if (name == "UCX_NET_DEVICES") {
    if (value == "all") return std::nullopt;
    for (const auto& item : comma_list(value)) {
      const std::string device = item.substr(0, item.find(':'));  // "mlx5_0:1" names a port
      add_if([&](const LocalInterface& l) { return l.name == device; });
    }
    return out;
  }
  if (name == "OMPI_MCA_btl_tcp_if_include") {
    for (const auto& item : comma_list(value)) {
      if (auto prefix = net::IpPrefix::parse(item); prefix && item.find('/') != std::string::npos) {
        add_if([&](const LocalInterface& l) {
          auto a = net::IpAddress::parse(l.address);
          return a && prefix->contains(*a);
        });
      } else {
        add_if([&](const LocalInterface& l) { return l.name == item; });
      }
    }
    return out;
  }
  if (name == "GLOO_SOCKET_IFNAME" || name == "FI_TCP_IFACE" || name == "FI_SOCKETS_IFACE") {
    for (const auto& item : comma_list(value)) add_if([&](const LocalInterface& l) { return l.name == item; });
    return out;
  }
  if (name == "MPIR_CVAR_CH3_INTERFACE_HOSTNAME" || name == "MPICH_INTERFACE_HOSTNAME") {
    add_if([&](const LocalInterface& l) { return l.address == value; });
    if (out.empty()) return std::nullopt;  // a host name: not judged here
    return out;
  }
  return std::nullopt;
}

std::vector<EnvironmentSetting> rank_identity_variables(const RankIdentity& id) {
  return {{"RANK", std::to_string(id.rank)},
          {"WORLD_SIZE", std::to_string(id.size)},
          {"LOCAL_RANK", std::to_string(id.local_rank)},
          {"LOCAL_WORLD_SIZE", std::to_string(id.local_size)},
          {"GROUP_RANK", std::to_string(id.node)}};
}

}  // namespace orca::launch
