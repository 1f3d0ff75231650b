// Where tests find the build tree's programs and components, and the
// small conversions the oob tests share.
#ifndef ORCA_TEST_LIB_BUILD_TREE_H
#define ORCA_TEST_LIB_BUILD_TREE_H

#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>

namespace orca::test {

/* ORCA_TEST_BUILDDIR (set by make check), or "." when run by hand there. */
inline std::string build_dir() {
  const char* d = std::getenv("ORCA_TEST_BUILDDIR");
  return d != nullptr ? d : ".";
}

/* A string's bytes, for oob payloads. */
inline std::span<const std::uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

}  // namespace orca::test

#endif  // ORCA_TEST_LIB_BUILD_TREE_H
