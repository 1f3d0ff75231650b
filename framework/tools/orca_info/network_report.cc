// orca_info --interfaces / --reach.
#include "network_report.h"

#include "net/nic_locality.h"

#include <orca/interface_selection.h>
#include <orca/interfaces.h>
#include <orca/reachable.h>

#include <iomanip>
#include <sstream>

namespace orca::info {

namespace {

struct Selected {
  net::InterfaceInventory inventory;
  std::vector<net::InterfaceDecision> decisions;
};

/* The prefixes of the components whose lists select interfaces ("oob_tcp_"),
 * or one empty prefix (no lists) when no such component is installed. */
std::vector<std::string> selecting_prefixes(Runtime& runtime) {
  auto prefixes = net::interface_selecting_prefixes(runtime.registry());
  if (prefixes.empty()) prefixes.emplace_back();
  return prefixes;
}

/* `prefix` names the component's lists; "" applies none. */
Result<Selected> inventory_and_selection(Runtime& runtime, const std::string& prefix) {
  auto inventory = net::InterfaceInventory::scan();
  if (!inventory) return inventory.error();
  auto decisions = net::select_interfaces(inventory.value(), runtime.registry(), prefix);
  if (!decisions) return decisions.error();
  return Selected{std::move(inventory.value()), std::move(decisions.value())};
}

std::string flags_of(const net::LinkInfo& l) {
  std::string f = l.up ? "up" : "down";
  if (l.running) f += ",running";
  if (l.loopback) f += ",loopback";
  if (l.point_to_point) f += ",p2p";
  return f;
}

std::string family_of(const net::IpAddress& a) { return a.family() == net::Family::V4 ? "ipv4" : "ipv6"; }

}  // namespace

namespace {

Status print_interfaces_for(Runtime& runtime, const std::string& prefix, bool several, const ReportOptions& options,
                            std::ostream& out) {
  auto sel = inventory_and_selection(runtime, prefix);
  if (!sel) return sel.error();
  net::InterfaceInventory& inv = sel->inventory;
  // hwloc only when this report runs, and only if there is a NIC to place.
  net::NicLocality locality;
  locality.annotate(inv);

  if (options.parsable) {
    if (several) out << "select:" << prefix << "if_include:" << prefix << "if_exclude\n";
    for (const auto& d : sel->decisions) {
      const auto& e = inv.entries()[d.entry];
      out << "iface:" << e.link.name << ":" << e.address_text() << ":kind=" << net::kind_name(e.link.kind)
          << ":selected=" << (d.selected ? "yes" : "no") << ":reason=" << d.rule << "\n";
    }
    return {};
  }
  auto host = net::HostIdentity::current();
  out << "Interfaces of this host" << (host ? " (" + host->to_string() + ")" : std::string());
  if (!prefix.empty()) out << ", as " << prefix << "if_include / " << prefix << "if_exclude select them";
  out << ":\n";
  out << std::left << "  " << std::setw(12) << "NAME" << std::setw(14) << "KIND" << std::setw(6) << "IP"
      << std::setw(30) << "ADDRESS/PREFIX" << std::setw(24) << "FLAGS" << std::setw(7) << "MTU" << std::setw(9)
      << "SPEED" << std::setw(6) << "NUMA" << "OOB\n";
  for (const auto& d : sel->decisions) {
    const auto& e = inv.entries()[d.entry];
    const auto& l = e.link;
    const std::string speed = l.speed_mbps ? std::to_string(*l.speed_mbps) + "M" : "-";
    const std::string numa = l.numa_node ? std::to_string(*l.numa_node) : "-";
    out << "  " << std::setw(12) << l.name << std::setw(14) << net::kind_name(l.kind) << std::setw(6)
        << family_of(e.address) << std::setw(30) << e.address_text() << std::setw(24) << flags_of(l) << std::setw(7)
        << l.mtu << std::setw(9) << speed << std::setw(6) << numa << (d.selected ? "yes: " : "no: ") << d.rule << "\n";
  }
  for (const auto& l : inv.links()) {
    bool has_address = false;
    for (const auto& e : inv.entries()) has_address = has_address || e.link.index == l.index;
    if (!has_address) {
      out << "  " << std::setw(12) << l.name << std::setw(14) << net::kind_name(l.kind) << std::setw(36) << "-"
          << std::setw(24) << flags_of(l) << std::setw(7) << l.mtu << std::setw(15) << "" << "no: no address\n";
    }
  }
  for (const auto& l : inv.links()) {
    if (!l.pci_bus_id.empty()) out << "  " << l.name << " is PCI device " << l.pci_bus_id << "\n";
  }
  return {};
}

}  // namespace

Status print_interfaces(Runtime& runtime, const ReportOptions& options, std::ostream& out) {
  const auto prefixes = selecting_prefixes(runtime);
  for (const auto& prefix : prefixes) {
    if (Status st = print_interfaces_for(runtime, prefix, prefixes.size() > 1, options, out); !st) return st;
  }
  return {};
}

Status print_reach(Runtime& runtime, const std::vector<std::string>& peers, bool same_host,
                   const ReportOptions& options, std::ostream& out) {
  std::vector<reach::RemoteAddress> remotes;
  for (const auto& text : peers) {
    reach::RemoteAddress r;
    std::string addr = text;
    if (size_t at = addr.find('@'); at != std::string::npos) {
      auto kind = net::parse_kind(addr.substr(at + 1));
      if (!kind) return Message("orca-info", "bad-reach-address", {{"address", text}, {"why", "unknown kind after '@'"}});
      r.kind = *kind;
      addr.resize(at);
    }
    std::string why;
    auto prefix = net::IpPrefix::parse(addr, &why);
    if (!prefix) return Message("orca-info", "bad-reach-address", {{"address", text}, {"why", why}});
    r.address = prefix->address();
    r.prefix_length = prefix->length();
    remotes.push_back(r);
  }
  // The first component that selects interfaces (oob/tcp) decides which
  // local addresses take part.
  auto sel = inventory_and_selection(runtime, selecting_prefixes(runtime).front());
  if (!sel) return sel.error();
  const mca::Framework* fw = nullptr;
  for (const auto& f : runtime.frameworks()) {
    if (f->decl().name == reach::kFramework.name) fw = f.get();
  }
  if (fw == nullptr) return Message("mca-base", "not-registered", {{"framework", "reachable"}});
  auto module = reach::selected_module(*fw);
  if (!module) return module.error();
  auto matrix = reach::compute_matrix(*module.value(), sel->inventory, sel->decisions, remotes, same_host);
  if (!matrix) return matrix.error();

  const std::string component(fw->selected().front()->component->name());
  if (!options.parsable) {
    out << "Reachability to a peer " << (same_host ? "on this host" : "on another host") << " (reachable/"
        << component << "), best first:\n";
    out << std::left << "  " << std::setw(8) << "WEIGHT" << std::setw(40) << "LOCAL" << std::setw(28) << "REMOTE"
        << "REASON\n";
  }
  size_t other_family = 0;
  for (const auto& p : matrix.value()) {
    const auto& e = sel->inventory.entries()[p.local];
    const auto& r = remotes[p.remote];
    // An IPv4 address never pairs with an IPv6 one: only noise for a reader.
    if (!options.parsable && e.address.family() != r.address.family()) {
      ++other_family;
      continue;
    }
    if (options.parsable) {
      out << "reach:" << e.address.to_string() << ":" << r.address.to_string() << ":weight=" << p.weight
          << ":reason=" << p.reason << "\n";
    } else {
      out << "  " << std::setw(8) << p.weight << std::setw(40) << (e.link.name + " " + e.address_text())
          << std::setw(28) << r.address.to_string() << p.reason << "\n";
    }
  }
  if (other_family > 0) out << "  (" << other_family << " pairs of different address families not shown)\n";
  return {};
}

}  // namespace orca::info
