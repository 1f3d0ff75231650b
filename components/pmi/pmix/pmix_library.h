// PmixLibrary: libpmix, and the hwloc it is built with, opened with dlopen
// when a daemon first starts a PMIx server, with the functions PmixServer
// calls. pmi/pmix links neither: orcarun and orca_info load the component
// for its variables only, and most daemons never serve PMIx, yet linking
// them made each of those map libpmix, libhwloc, libmunge, libudev and
// libevent_pthreads and bind their symbols (1.7 ms of CPU a launch in
// orcarun). The component itself can then be linked into the programs.
//
// Opened with RTLD_NODELETE: libpmix turns on libevent's pthread locks,
// whose functions live in libevent_pthreads, loaded with it; were it
// unmapped, the daemon's own event base would call into unmapped code
// when it is freed.
#ifndef ORCA_COMPONENTS_PMI_PMIX_PMIX_LIBRARY_H
#define ORCA_COMPONENTS_PMI_PMIX_PMIX_LIBRARY_H

#include <orca/mca_repository.h>

#include <hwloc.h>
#include <pmix.h>
#include <pmix_server.h>

#include <string>

// Every function PmixServer calls, once: the members below and their
// lookup are made from these lists.
#define ORCA_PMIX_FUNCTIONS(X)       \
  X(PMIx_Error_string)               \
  X(PMIx_Info_list_start)            \
  X(PMIx_Info_list_add)              \
  X(PMIx_Info_list_convert)          \
  X(PMIx_Info_list_release)          \
  X(PMIx_Data_array_destruct)        \
  X(PMIx_generate_regex)             \
  X(PMIx_generate_ppn)               \
  X(PMIx_server_init)                \
  X(PMIx_server_finalize)            \
  X(PMIx_server_register_nspace)     \
  X(PMIx_server_deregister_nspace)   \
  X(PMIx_server_register_client)     \
  X(PMIx_server_deregister_client)   \
  X(PMIx_server_setup_fork)          \
  X(PMIx_server_setup_local_support) \
  X(PMIx_server_dmodex_request)
#define ORCA_PMIX_HWLOC_FUNCTIONS(X)    \
  X(hwloc_topology_init)                \
  X(hwloc_topology_set_io_types_filter) \
  X(hwloc_topology_load)                \
  X(hwloc_topology_export_xmlbuffer)    \
  X(hwloc_free_xmlbuffer)               \
  X(hwloc_topology_destroy)

namespace orca::pmi {

class PmixLibrary {
 public:
  /* Opens both libraries (the names this Orca was built against: PMIX_SONAME,
   * HWLOC_SONAME) and finds every function. Throws std::runtime_error
   * saying which library or function is missing. */
  static PmixLibrary open();

// NOLINTNEXTLINE(bugprone-macro-parentheses): `name` is a declarator here
#define ORCA_PMIX_MEMBER(name) decltype(&::name) name = nullptr;
  ORCA_PMIX_FUNCTIONS(ORCA_PMIX_MEMBER)
  ORCA_PMIX_HWLOC_FUNCTIONS(ORCA_PMIX_MEMBER)
#undef ORCA_PMIX_MEMBER

 private:
  PmixLibrary() = default;
  mca::SharedObject pmix_;   // the pointers above are into these two
  mca::SharedObject hwloc_;
};

}  // namespace orca::pmi

#endif
