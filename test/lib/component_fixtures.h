// The fixture components of framework "test" (test/fixtures/components),
// copied into a test's own directory so that each test controls exactly
// which files are on its component path.
#ifndef ORCA_TEST_LIB_COMPONENT_FIXTURES_H
#define ORCA_TEST_LIB_COMPONENT_FIXTURES_H

#include "lib/temp_dir.h"

#include <filesystem>
#include <stdexcept>
#include <string>

#ifndef ORCA_TEST_COMPONENT_DIR
#error "ORCA_TEST_COMPONENT_DIR must name the directory of the built fixture components"
#endif

namespace orca::test {

/* The built fixture of component `component`: .../mca_test_<component>.so. */
inline std::filesystem::path fixture_component(const std::string& component) {
  return std::filesystem::path(ORCA_TEST_COMPONENT_DIR) / ("mca_test_" + component + ".so");
}

/* Copies (never links) the fixture of `component` into `dir`, under
 * `file_name` (default: the fixture's own name), creating subdirectories as
 * needed. Returns the path of the copy. Throws when the fixture was not
 * built (build it with `make check_LTLIBRARIES`). */
inline std::string copy_fixture(const std::filesystem::path& dir, const std::string& component,
                                const std::string& file_name = {}) {
  const std::filesystem::path from = fixture_component(component);
  if (!std::filesystem::is_regular_file(from))
    throw std::runtime_error("fixture component " + from.string() +
                             " is missing; build it with `make check_LTLIBRARIES`");
  const std::filesystem::path to = dir / (file_name.empty() ? from.filename().string() : file_name);
  std::filesystem::create_directories(to.parent_path());
  std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
  return to.string();
}

inline std::string copy_fixture(const TempDir& dir, const std::string& component,
                                const std::string& file_name = {}) {
  return copy_fixture(dir.path(), component, file_name);
}

}  // namespace orca::test

#endif
