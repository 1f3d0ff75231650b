// HwlocLibrary: dlopen of libhwloc and the few functions Orca calls.
#include "config.h"  // HWLOC_SONAME
#include "net/hwloc_library.h"

#include <dlfcn.h>

namespace orca::net {

namespace {

Message unavailable(const std::string& why) {
  return Message("net", "hwloc-unavailable", {{"library", HWLOC_SONAME}, {"why", why}});
}

template <class Fn>
void resolve(void* handle, const char* name, Fn*& out, std::string* missing) {
  out = reinterpret_cast<Fn*>(::dlsym(handle, name));
  if (out == nullptr && missing->empty()) *missing = name;
}

}  // namespace

Result<HwlocLibrary> HwlocLibrary::open() {
  HwlocLibrary lib;
  lib.library_ = mca::SharedObject(::dlopen(HWLOC_SONAME, RTLD_NOW | RTLD_LOCAL));
  void* handle = lib.library_.get();
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return unavailable(why != nullptr ? why : "dlopen failed");
  }
  std::string missing;
  resolve(handle, "hwloc_topology_init", lib.topology_init, &missing);
  resolve(handle, "hwloc_topology_set_io_types_filter", lib.topology_set_io_types_filter, &missing);
  resolve(handle, "hwloc_topology_load", lib.topology_load, &missing);
  resolve(handle, "hwloc_topology_destroy", lib.topology_destroy, &missing);
  resolve(handle, "hwloc_get_type_depth", lib.get_type_depth, &missing);
  resolve(handle, "hwloc_get_nbobjs_by_depth", lib.get_nbobjs_by_depth, &missing);
  resolve(handle, "hwloc_get_obj_by_depth", lib.get_obj_by_depth, &missing);
  resolve(handle, "hwloc_bitmap_weight", lib.bitmap_weight, &missing);
  resolve(handle, "hwloc_bitmap_first", lib.bitmap_first, &missing);
  resolve(handle, "hwloc_bitmap_isset", lib.bitmap_isset, &missing);
  resolve(handle, "hwloc_topology_set_synthetic", lib.topology_set_synthetic, &missing);
  if (!missing.empty()) return unavailable("it has no " + missing);
  return lib;
}

int HwlocLibrary::count_of_type(hwloc_topology_t topology, hwloc_obj_type_t type) const {
  const int depth = get_type_depth(topology, type);
  if (depth == HWLOC_TYPE_DEPTH_UNKNOWN) return 0;
  if (depth == HWLOC_TYPE_DEPTH_MULTIPLE) return -1;
  return static_cast<int>(get_nbobjs_by_depth(topology, depth));
}

hwloc_obj_t HwlocLibrary::next_osdev(hwloc_topology_t topology, hwloc_obj_t previous) const {
  const int depth = get_type_depth(topology, HWLOC_OBJ_OS_DEVICE);
  if (depth == HWLOC_TYPE_DEPTH_UNKNOWN || depth == HWLOC_TYPE_DEPTH_MULTIPLE) return nullptr;
  if (previous == nullptr) return get_obj_by_depth(topology, depth, 0);
  if (previous->depth != depth) return nullptr;
  return previous->next_cousin;
}

hwloc_obj_t HwlocLibrary::non_io_ancestor(hwloc_obj_t io_object) {
  hwloc_obj_t o = io_object;
  while (o != nullptr && o->cpuset == nullptr) o = o->parent;
  return o;
}

}  // namespace orca::net
