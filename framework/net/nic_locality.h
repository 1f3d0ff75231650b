/*
 * NicLocality: PCI bus id and NUMA node of physical NICs, from hwloc.
 *
 * Loading an hwloc topology with I/O devices takes tens of milliseconds,
 * so it happens at most once per NicLocality object, and only when
 * annotate() meets a physical or wireless link. A machine (or container)
 * where hwloc sees no NIC is normal: the fields stay empty.
 *
 * The same topology also answers machine_counts(), so a report of the
 * host's processors and NICs (host_topology.h) loads hwloc once.
 */
#ifndef ORCA_NET_NIC_LOCALITY_H
#define ORCA_NET_NIC_LOCALITY_H

#include <orca/export.h>
#include <orca/interfaces.h>

#include <memory>
#include <optional>

namespace orca::net {

/* What hwloc counts on this host (its default view: processors the
 * cgroup cpuset disallows are left out). */
struct ORCA_EXPORT MachineCounts {
  unsigned packages = 0;
  unsigned cores = 0;
  unsigned pus = 0;  // hardware threads
  unsigned numa_nodes = 0;
};

class ORCA_EXPORT NicLocality {
 public:
  NicLocality();
  ~NicLocality();
  NicLocality(const NicLocality&) = delete;
  NicLocality& operator=(const NicLocality&) = delete;

  /* Fills pci_bus_id and numa_node of the inventory's hardware links. */
  void annotate(InterfaceInventory& inventory);
  /* The processor and memory counts. Loads the topology unless annotate()
   * already did; nullopt when hwloc cannot load one. */
  std::optional<MachineCounts> machine_counts();
  /* Whether a topology was loaded (for tests of the lazy contract). */
  bool loaded() const noexcept;

 private:
  struct Topology;
  std::unique_ptr<Topology> topology_;
};

}  // namespace orca::net

#endif  // ORCA_NET_NIC_LOCALITY_H
