// NicLocality: hwloc lookups for physical NICs, loaded lazily and once.
#include "net/nic_locality.h"

#include "net/hwloc_library.h"

#include <cstdio>
#include <cstring>
#include <optional>

namespace orca::net {

struct NicLocality::Topology {
  std::optional<HwlocLibrary> hwloc;  // none: the library could not be opened
  hwloc_topology_t topo = nullptr;
  bool usable = false;
  Topology() {
    auto opened = HwlocLibrary::open();
    if (!opened) return;
    hwloc.emplace(std::move(opened.value()));
    if (hwloc->topology_init(&topo) != 0) {
      topo = nullptr;
      return;
    }
    // OS devices (network interfaces) and their PCI parents only.
    hwloc->topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    usable = hwloc->topology_load(topo) == 0;
  }
  ~Topology() {
    if (topo != nullptr) hwloc->topology_destroy(topo);
  }
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;
};

NicLocality::NicLocality() = default;
NicLocality::~NicLocality() = default;

bool NicLocality::loaded() const noexcept { return topology_ != nullptr; }

namespace {

void fill(const HwlocLibrary& hwloc, hwloc_obj_t osdev, LinkInfo& link) {
  for (hwloc_obj_t p = osdev->parent; p != nullptr; p = p->parent) {
    if (p->type == HWLOC_OBJ_PCI_DEVICE) {
      char busid[32];
      std::snprintf(busid, sizeof busid, "%04x:%02x:%02x.%01x", p->attr->pcidev.domain, p->attr->pcidev.bus,
                    p->attr->pcidev.dev, p->attr->pcidev.func);
      link.pci_bus_id = busid;
      break;
    }
  }
  hwloc_obj_t cpu_side = HwlocLibrary::non_io_ancestor(osdev);
  if (cpu_side != nullptr && cpu_side->nodeset != nullptr && hwloc.bitmap_weight(cpu_side->nodeset) == 1)
    link.numa_node = hwloc.bitmap_first(cpu_side->nodeset);
}

}  // namespace

std::optional<MachineCounts> NicLocality::machine_counts() {
  if (!topology_) topology_ = std::make_unique<Topology>();
  if (!topology_->usable) return std::nullopt;
  auto count = [this](hwloc_obj_type_t type) {
    // Negative: the type sits at several depths (only Group can), or none.
    const int n = topology_->hwloc->count_of_type(topology_->topo, type);
    return n > 0 ? static_cast<unsigned>(n) : 0u;
  };
  return MachineCounts{.packages = count(HWLOC_OBJ_PACKAGE),
                       .cores = count(HWLOC_OBJ_CORE),
                       .pus = count(HWLOC_OBJ_PU),
                       .numa_nodes = count(HWLOC_OBJ_NUMANODE)};
}

void NicLocality::annotate(InterfaceInventory& inventory) {
  auto hardware = [](const LinkInfo& l) {
    return l.kind == InterfaceKind::Physical || l.kind == InterfaceKind::Wireless;
  };
  bool any = false;
  for (const auto& l : inventory.links()) any = any || hardware(l);
  if (!any) return;
  if (!topology_) topology_ = std::make_unique<Topology>();
  if (!topology_->usable) return;
  auto apply = [&](LinkInfo& link) {
    if (!hardware(link)) return;
    const HwlocLibrary& hwloc = *topology_->hwloc;
    for (hwloc_obj_t o = hwloc.next_osdev(topology_->topo, nullptr); o != nullptr;
         o = hwloc.next_osdev(topology_->topo, o)) {
      if (o->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK && o->name != nullptr && link.name == o->name) {
        fill(hwloc, o, link);
        return;
      }
    }
  };
  for (auto& l : inventory.links()) apply(l);
  for (auto& e : inventory.entries()) apply(e.link);
}

}  // namespace orca::net
