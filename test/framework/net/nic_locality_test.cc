// NicLocality: hwloc is loaded only when a hardware link needs placing.
#include "net/nic_locality.h"

#include <gtest/gtest.h>

#include "lib/synthetic_inventory.h"

namespace orca::net {
namespace {

using test::make_entry;
using test::make_link;

TEST(NicLocality, NoHardwareLinkLoadsNothing) {
  const LinkInfo lo = make_link({.name = "lo", .index = 1, .kind = InterfaceKind::Loopback, .up = true, .running = true, .speed_mbps = {}});
  const LinkInfo br = make_link({.name = "virbr0", .index = 2, .kind = InterfaceKind::Bridge, .up = true, .running = true, .speed_mbps = {}});
  const LinkInfo ve = make_link({.name = "veth0", .index = 3, .kind = InterfaceKind::Veth, .up = true, .running = true, .speed_mbps = {}});
  InterfaceInventory inv({lo, br, ve}, {make_entry(lo, "127.0.0.1", 8), make_entry(br, "192.168.122.1", 24),
                                        make_entry(ve, "10.0.0.1", 24)});
  NicLocality locality;
  locality.annotate(inv);
  EXPECT_FALSE(locality.loaded()) << "hwloc's topology was loaded for virtual links only";
  for (const auto& l : inv.links()) {
    EXPECT_TRUE(l.pci_bus_id.empty());
    EXPECT_FALSE(l.numa_node.has_value());
  }
}

TEST(NicLocality, AHardwareLinkLoadsTheTopologyOnce) {
  // A made-up NIC name: hwloc will not find it, which is normal, not an error.
  const LinkInfo nic = make_link({.name = "orcatest9", .index = 7, .kind = InterfaceKind::Physical, .up = true, .running = true, .speed_mbps = {}});
  InterfaceInventory inv({nic}, {make_entry(nic, "10.9.9.9", 24)});
  NicLocality locality;
  locality.annotate(inv);
  EXPECT_TRUE(locality.loaded());
  EXPECT_TRUE(inv.links()[0].pci_bus_id.empty());
  locality.annotate(inv);  // a second call reuses the same topology
  EXPECT_TRUE(locality.loaded());
}

}  // namespace
}  // namespace orca::net
