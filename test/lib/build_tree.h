// Where tests find the build tree's programs and components, and the
// small conversions the oob tests share.
#ifndef ORCA_TEST_LIB_BUILD_TREE_H
#define ORCA_TEST_LIB_BUILD_TREE_H

#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>

namespace orca::test {

#ifndef ORCA_TEST_BUILD_DIR
#error "ORCA_TEST_BUILD_DIR must name the build tree (TEST_PATHS_CPPFLAGS in test/Makefile.inc)"
#endif

/* ORCA_TEST_BUILDDIR (set by make check), else the build tree this test
 * was built in, by its absolute path: the same components whatever the
 * directory it is run from. */
inline std::string build_dir() {
  const char* d = std::getenv("ORCA_TEST_BUILDDIR");
  return d != nullptr && *d != '\0' ? d : ORCA_TEST_BUILD_DIR;
}

/* A string's bytes, for oob payloads. */
inline std::span<const std::uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

}  // namespace orca::test

#endif  // ORCA_TEST_LIB_BUILD_TREE_H
