// The host summary: hwloc's counts and each interface's locality, as lines.
#include "net/host_topology.h"

namespace orca::net {
namespace {

// "1 package", "2 packages": the report is read by people.
std::string count_of(unsigned n, const std::string& thing) {
  return std::to_string(n) + " " + thing + (n == 1 ? "" : "s");
}

std::string counts_line(const MachineCounts& c) {
  return count_of(c.packages, "package") + ", " + count_of(c.cores, "core") + ", " + count_of(c.pus, "PU") + ", " +
         count_of(c.numa_nodes, "NUMA node");
}

bool hardware(InterfaceKind kind) { return kind == InterfaceKind::Physical || kind == InterfaceKind::Wireless; }

std::string nic_line(const LinkInfo& link) {
  // A name from the kernel can hold any byte but '/' and NUL.
  const std::string name = "NIC " + printable(link.name);
  if (!link.pci_bus_id.empty()) {
    const std::string pci = name + " (PCI " + link.pci_bus_id + ")";
    if (link.numa_node) return pci + " on NUMA node " + std::to_string(*link.numa_node);
    return pci + ", not local to one NUMA node";
  }
  if (hardware(link.kind)) return name + ": no PCI locality (hwloc does not see it)";
  return name + ": no PCI locality (virtual: " + std::string(kind_name(link.kind)) + ")";
}

}  // namespace

std::vector<std::string> summary_lines(const std::optional<MachineCounts>& counts,
                                       const InterfaceInventory& inventory) {
  std::vector<std::string> lines;
  lines.push_back(counts ? counts_line(*counts) : "hwloc could not load this host's topology");
  bool any_placed = false;
  for (const LinkInfo& link : inventory.links()) {
    if (link.kind == InterfaceKind::Loopback) continue;
    lines.push_back(nic_line(link));
    any_placed = any_placed || !link.pci_bus_id.empty();
  }
  if (!any_placed) lines.push_back("hwloc sees no NIC on a PCI bus of this host");
  return lines;
}

Result<std::vector<std::string>> topology_summary() {
  auto inventory = InterfaceInventory::scan();
  if (!inventory) return inventory.error();
  // One NicLocality, so annotate() and machine_counts() share one load.
  NicLocality locality;
  locality.annotate(inventory.value());
  const auto counts = locality.machine_counts();
  return summary_lines(counts, inventory.value());
}

}  // namespace orca::net
