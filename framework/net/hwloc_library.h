// HwlocLibrary: libhwloc, opened with dlopen when a topology is wanted.
//
// Linking hwloc into liborca made every process map it and libudev, and
// bind their symbols, at start-up: some 0.15 ms of CPU per process
// measured alone, for a library that most processes (every orcad of a job
// on virtual links, every rank-less tool run) never call. The functions
// NicLocality needs are resolved here; hwloc's inline helpers that call
// others are rewritten over them, as the header defines them.
#ifndef ORCA_FRAMEWORK_NET_HWLOC_LIBRARY_H
#define ORCA_FRAMEWORK_NET_HWLOC_LIBRARY_H

#include <orca/mca_repository.h>
#include <orca/result.h>

#include <hwloc.h>

namespace orca::net {

class HwlocLibrary {
 public:
  /* Opens the library this Orca was built against (HWLOC_SONAME). Errors
   * (area "net", hwloc-unavailable): it cannot be opened, or lacks a
   * function. */
  static Result<HwlocLibrary> open();

  int (*topology_init)(hwloc_topology_t*) = nullptr;
  int (*topology_set_io_types_filter)(hwloc_topology_t, enum hwloc_type_filter_e) = nullptr;
  int (*topology_load)(hwloc_topology_t) = nullptr;
  void (*topology_destroy)(hwloc_topology_t) = nullptr;
  int (*get_type_depth)(hwloc_topology_t, hwloc_obj_type_t) = nullptr;
  unsigned (*get_nbobjs_by_depth)(hwloc_topology_t, int) = nullptr;
  hwloc_obj_t (*get_obj_by_depth)(hwloc_topology_t, int, unsigned) = nullptr;
  int (*bitmap_weight)(hwloc_const_bitmap_t) = nullptr;
  int (*bitmap_first)(hwloc_const_bitmap_t) = nullptr;
  int (*bitmap_isset)(hwloc_const_bitmap_t, unsigned) = nullptr;
  int (*topology_set_synthetic)(hwloc_topology_t, const char*) = nullptr;

  /* hwloc_get_nbobjs_by_type: -1 when the type sits at several depths. */
  int count_of_type(hwloc_topology_t topology, hwloc_obj_type_t type) const;
  /* hwloc_get_next_osdev. */
  hwloc_obj_t next_osdev(hwloc_topology_t topology, hwloc_obj_t previous) const;
  /* hwloc_get_non_io_ancestor_obj (no call into the library). */
  static hwloc_obj_t non_io_ancestor(hwloc_obj_t io_object);

 private:
  HwlocLibrary() = default;
  mca::SharedObject library_;  // dlcloses last: the pointers above are into it
};

}  // namespace orca::net

#endif
