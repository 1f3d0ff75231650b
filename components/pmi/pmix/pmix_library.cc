// PmixLibrary: dlopen of libpmix and hwloc, and the functions pmi/pmix calls.
#include "config.h"  // PMIX_SONAME, HWLOC_SONAME
#include "pmix_library.h"

#include <dlfcn.h>

#include <stdexcept>

namespace orca::pmi {

namespace {

mca::SharedObject open_library(const char* soname) {
  ::dlerror();
  mca::SharedObject object(::dlopen(soname, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE));
  if (object.get() == nullptr) {
    const char* why = ::dlerror();
    throw std::runtime_error(std::string("cannot load ") + soname + " for the PMIx server: " +
                             (why != nullptr ? why : "dlopen failed") +
                             " (install Debian's libpmix2, or run without a PMIx server: --mca pmi ^pmix)");
  }
  return object;
}

template <class Fn>
void resolve(const mca::SharedObject& object, const char* soname, const char* name, Fn*& out) {
  out = reinterpret_cast<Fn*>(::dlsym(object.get(), name));
  if (out == nullptr) {
    throw std::runtime_error(std::string(soname) + " has no " + name +
                             ": it is not the library this Orca was built against; rebuild Orca");
  }
}

}  // namespace

PmixLibrary PmixLibrary::open() {
  PmixLibrary lib;
  lib.pmix_ = open_library(PMIX_SONAME);
  lib.hwloc_ = open_library(HWLOC_SONAME);
#define ORCA_PMIX_RESOLVE(name) resolve(lib.pmix_, PMIX_SONAME, #name, lib.name);
#define ORCA_HWLOC_RESOLVE(name) resolve(lib.hwloc_, HWLOC_SONAME, #name, lib.name);
  ORCA_PMIX_FUNCTIONS(ORCA_PMIX_RESOLVE)
  ORCA_PMIX_HWLOC_FUNCTIONS(ORCA_HWLOC_RESOLVE)
#undef ORCA_PMIX_RESOLVE
#undef ORCA_HWLOC_RESOLVE
  return lib;
}

}  // namespace orca::pmi
