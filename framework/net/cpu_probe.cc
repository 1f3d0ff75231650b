// This host's processors, from hwloc, for placement and binding.
#include "net/cpu_probe.h"

#include "net/hwloc_library.h"

#include <sched.h>

#include <memory>
#include <optional>

namespace orca::net {

namespace {

Message failed(const std::string& why) { return Message("net", "cpu-probe-failed", {{"why", why}}); }

// The logical index of the `type` ancestor of `pu`, or 0 when the machine has none.
unsigned ancestor_index(hwloc_obj_t pu, hwloc_obj_type_t type) {
  for (hwloc_obj_t o = pu->parent; o != nullptr; o = o->parent) {
    if (o->type == type) return o->logical_index;
  }
  return 0;
}

// `allowed`: the OS CPU numbers that may be listed; nullopt: all.
Result<launch::CpuTopology> load(const std::optional<std::string>& synthetic, const cpu_set_t* allowed) {
  auto lib = HwlocLibrary::open();
  if (!lib) return lib.error();
  const HwlocLibrary& h = lib.value();
  hwloc_topology_t topo = nullptr;
  if (h.topology_init(&topo) != 0) return failed("hwloc_topology_init failed");
  const std::unique_ptr<hwloc_topology, void (*)(hwloc_topology_t)> owned(topo, h.topology_destroy);
  if (synthetic && h.topology_set_synthetic(topo, synthetic->c_str()) != 0) {
    return failed("hwloc refuses the synthetic topology \"" + *synthetic + "\"");
  }
  if (h.topology_load(topo) != 0) return failed("hwloc_topology_load failed");
  const int pu_depth = h.get_type_depth(topo, HWLOC_OBJ_PU);
  const int numa_depth = h.get_type_depth(topo, HWLOC_OBJ_NUMANODE);
  if (pu_depth < 0) return failed("hwloc sees no processing unit");
  const unsigned numas = numa_depth == HWLOC_TYPE_DEPTH_UNKNOWN ? 0 : h.get_nbobjs_by_depth(topo, numa_depth);
  launch::CpuTopology t;
  const unsigned n = h.get_nbobjs_by_depth(topo, pu_depth);
  for (unsigned i = 0; i < n; ++i) {
    hwloc_obj_t pu = h.get_obj_by_depth(topo, pu_depth, i);
    if (pu == nullptr || pu->os_index >= launch::kMaxPus) continue;
    if (allowed != nullptr && !CPU_ISSET(pu->os_index, allowed)) continue;
    launch::ProcessingUnit p{.os = pu->os_index,
                             .core = ancestor_index(pu, HWLOC_OBJ_CORE),
                             .numa = 0,
                             .package = ancestor_index(pu, HWLOC_OBJ_PACKAGE)};
    // NUMA nodes hang beside the PUs in hwloc 2: the one whose cpuset holds it.
    for (unsigned m = 0; m < numas; ++m) {
      hwloc_obj_t node = h.get_obj_by_depth(topo, numa_depth, m);
      if (node != nullptr && node->cpuset != nullptr && h.bitmap_isset(node->cpuset, pu->os_index)) {
        p.numa = node->logical_index;
        break;
      }
    }
    t.pus.push_back(p);
  }
  if (t.pus.empty()) return failed("no processor is left within this process's affinity mask");
  return t;
}

}  // namespace

Result<launch::CpuTopology> probe_cpus() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (::sched_getaffinity(0, sizeof mask, &mask) != 0) return load(std::nullopt, nullptr);
  return load(std::nullopt, &mask);
}

Result<launch::CpuTopology> synthetic_cpus(const std::string& description) { return load(description, nullptr); }

}  // namespace orca::net
