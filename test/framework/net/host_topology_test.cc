// The host summary of --report-topology (framework/net/host_topology.cc):
// the exact lines for hand-made counts and interfaces, then this machine's
// summary against what hwloc itself sees here (counts above zero, a line
// per NIC hwloc places, or the line that says it places none).
#include <orca/interfaces.h>

#include "net/host_topology.h"
#include "net/nic_locality.h"

#include "lib/result_assertions.h"

#include <gtest/gtest.h>

#include <hwloc.h>

#include <algorithm>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace orca::net {
namespace {

using test::Succeeded;
using Lines = std::vector<std::string>;

LinkInfo link(std::string name, int index, InterfaceKind kind, std::string pci = {}, std::optional<int> numa = {}) {
  LinkInfo l;
  l.name = std::move(name);
  l.index = index;
  l.kind = kind;
  l.loopback = kind == InterfaceKind::Loopback;
  l.pci_bus_id = std::move(pci);
  l.numa_node = numa;
  return l;
}

/* `text` matched literally inside a regex (interface names may hold '.'). */
std::string literal(const std::string& text) {
  static const std::regex special(R"([.^$|()\[\]{}*+?\\])");
  return std::regex_replace(text, special, R"(\$&)");
}

constexpr MachineCounts kTwoSockets{.packages = 2, .cores = 16, .pus = 32, .numa_nodes = 2};

TEST(SummaryLines, CountsThenOneLinePerInterfaceButLoopback) {
  const InterfaceInventory inv({link("lo", 1, InterfaceKind::Loopback),
                                link("eth0", 2, InterfaceKind::Physical, "0000:3b:00.0", 1),
                                link("eth1", 3, InterfaceKind::Physical, "0000:5e:00.0"),
                                link("eth2", 4, InterfaceKind::Physical), link("virbr0", 5, InterfaceKind::Bridge),
                                link("wlan0", 6, InterfaceKind::Wireless, "0000:02:00.0", 0)},
                               {});
  EXPECT_EQ(summary_lines(kTwoSockets, inv),
            (Lines{"2 packages, 16 cores, 32 PUs, 2 NUMA nodes", "NIC eth0 (PCI 0000:3b:00.0) on NUMA node 1",
                   "NIC eth1 (PCI 0000:5e:00.0), not local to one NUMA node",
                   "NIC eth2: no PCI locality (hwloc does not see it)", "NIC virbr0: no PCI locality (virtual: bridge)",
                   "NIC wlan0 (PCI 0000:02:00.0) on NUMA node 0"}));
}

TEST(SummaryLines, OneOfEachIsSingular) {
  const InterfaceInventory inv({link("eth0", 2, InterfaceKind::Physical, "0000:00:03.0", 0)}, {});
  EXPECT_EQ(summary_lines(MachineCounts{1, 1, 1, 1}, inv),
            (Lines{"1 package, 1 core, 1 PU, 1 NUMA node", "NIC eth0 (PCI 0000:00:03.0) on NUMA node 0"}));
}

TEST(SummaryLines, NoPlacedNicIsSaid) {
  const InterfaceInventory virtual_only(
      {link("lo", 1, InterfaceKind::Loopback), link("veth0", 2, InterfaceKind::Veth)}, {});
  EXPECT_EQ(summary_lines(kTwoSockets, virtual_only),
            (Lines{"2 packages, 16 cores, 32 PUs, 2 NUMA nodes", "NIC veth0: no PCI locality (virtual: veth)",
                   "hwloc sees no NIC on a PCI bus of this host"}));
  const InterfaceInventory loopback_only({link("lo", 1, InterfaceKind::Loopback)}, {});
  EXPECT_EQ(summary_lines(kTwoSockets, loopback_only).back(), "hwloc sees no NIC on a PCI bus of this host");
}

TEST(SummaryLines, NoTopologyIsSaidAndTheInterfacesStillListed) {
  const InterfaceInventory inv({link("eth0", 2, InterfaceKind::Physical)}, {});
  EXPECT_EQ(summary_lines(std::nullopt, inv),
            (Lines{"hwloc could not load this host's topology", "NIC eth0: no PCI locality (hwloc does not see it)",
                   "hwloc sees no NIC on a PCI bus of this host"}));
}

TEST(SummaryLines, AnInterfaceNameIsMadePrintable) {
  const InterfaceInventory inv({link("ev\x1b[2Jil", 2, InterfaceKind::Dummy)}, {});
  const Lines lines = summary_lines(kTwoSockets, inv);
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[1].find('\x1b'), std::string::npos) << lines[1];
}

TEST(NicLocalityCounts, MachineCountsLoadsTheTopologyOnceAndSharesIt) {
  NicLocality locality;
  EXPECT_FALSE(locality.loaded());
  const auto first = locality.machine_counts();
  EXPECT_TRUE(locality.loaded());
  ASSERT_TRUE(first.has_value()) << "hwloc could not load this machine's topology";
  EXPECT_GT(first->pus, 0u);
  // annotate() after machine_counts() uses the same topology.
  InterfaceInventory inv({link("orcatest9", 7, InterfaceKind::Physical)}, {});
  locality.annotate(inv);
  EXPECT_TRUE(inv.links()[0].pci_bus_id.empty());
  const auto second = locality.machine_counts();
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->pus, first->pus);
  EXPECT_EQ(second->cores, first->cores);
}

/* What hwloc itself reports on this machine, loaded the way NicLocality
 * does: the network OS devices with a PCI device above them. */
struct HwlocView {
  unsigned cores = 0;
  unsigned pus = 0;
  std::set<std::string> placed_nics;
  HwlocView() {
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) != 0) return;
    hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (hwloc_topology_load(t) == 0) {
      cores = static_cast<unsigned>(std::max(0, hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE)));
      pus = static_cast<unsigned>(std::max(0, hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU)));
      for (hwloc_obj_t o = hwloc_get_next_osdev(t, nullptr); o != nullptr; o = hwloc_get_next_osdev(t, o)) {
        if (o->attr->osdev.type != HWLOC_OBJ_OSDEV_NETWORK || o->name == nullptr) continue;
        for (hwloc_obj_t p = o->parent; p != nullptr; p = p->parent) {
          if (p->type == HWLOC_OBJ_PCI_DEVICE) {
            placed_nics.insert(o->name);
            break;
          }
        }
      }
    }
    hwloc_topology_destroy(t);
  }
};

TEST(TopologySummary, ThisMachineHasCoresAndALinePerNicHwlocPlaces) {
  auto summary = topology_summary();
  ASSERT_TRUE(Succeeded(summary));
  const Lines& lines = summary.value();
  ASSERT_FALSE(lines.empty());
  std::string all;
  for (const auto& l : lines) all += l + "\n";

  std::smatch m;
  ASSERT_TRUE(std::regex_search(lines[0], m, std::regex(R"((\d+) cores?)"))) << all;
  EXPECT_GT(std::stoul(m[1].str()), 0u) << all;
  ASSERT_TRUE(std::regex_search(lines[0], m, std::regex(R"((\d+) PUs?)"))) << all;
  EXPECT_GT(std::stoul(m[1].str()), 0u) << all;

  const HwlocView hwloc;
  EXPECT_NE(lines[0].find(std::to_string(hwloc.cores) + " core"), std::string::npos) << all;
  EXPECT_NE(lines[0].find(std::to_string(hwloc.pus) + " PU"), std::string::npos) << all;

  // Only the NICs of this network namespace are ours to report.
  auto inventory = InterfaceInventory::scan();
  ASSERT_TRUE(Succeeded(inventory));
  size_t expected = 0;
  for (const auto& l : inventory->links()) {
    if (hwloc.placed_nics.count(l.name) == 0) continue;
    ++expected;
    const std::regex placed("NIC " + literal(l.name) +
                            R"( \(PCI [0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-9a-f]\))"
                            R"(( on NUMA node \d+|, not local to one NUMA node))");
    EXPECT_TRUE(
        std::any_of(lines.begin(), lines.end(), [&](const std::string& s) { return std::regex_match(s, placed); }))
        << "no line places " << l.name << ":\n" << all;
  }
  const bool says_none =
      std::find(lines.begin(), lines.end(), "hwloc sees no NIC on a PCI bus of this host") != lines.end();
  if (expected == 0) {
    EXPECT_TRUE(says_none) << "hwloc places no NIC here, and the summary does not say so:\n" << all;
  } else {
    EXPECT_FALSE(says_none) << all;
  }
  // Every interface but loopback has its line.
  for (const auto& l : inventory->links()) {
    if (l.kind == InterfaceKind::Loopback) continue;
    auto names_it = [&](const std::string& s) {
      return s.rfind("NIC " + l.name + " ", 0) == 0 || s.rfind("NIC " + l.name + ":", 0) == 0;
    };
    EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), names_it)) << "no line for " << l.name << ":\n" << all;
  }
}

}  // namespace
}  // namespace orca::net
