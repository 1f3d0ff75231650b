// One process with the plm framework open over the real plm/local and
// plm/rsh components of the build tree (see build_tree_runtime.h): shared
// by the framework's tests (plm_components_test.cc) and plm/local's
// (test/components/plm/local/plm_local_test.cc).
#ifndef ORCA_TEST_FRAMEWORK_PLM_PLM_COMPONENT_FIXTURE_H
#define ORCA_TEST_FRAMEWORK_PLM_PLM_COMPONENT_FIXTURE_H

#include <orca/mca_framework.h>
#include "plm/plm_base.h"

#include "framework/plm/build_tree_runtime.h"
#include "lib/result_assertions.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace orca::test {

/* Relative to the build tree. */
inline const std::vector<std::string> kPlmDirs = {"components/plm/local/.libs", "components/plm/rsh/.libs"};

/* One process with the plm framework open. */
struct Plm {
  explicit Plm(const std::vector<std::string>& settings = {}) : rt(kPlmDirs, settings) {
    auto fw = rt.open(plm::kFramework);
    EXPECT_TRUE(Succeeded(fw));
    if (fw) framework = fw.value();
  }
  Result<plm::ChosenModule> choose(const std::vector<std::string>& hosts) const {
    return plm::choose_module(*framework, hosts);
  }
  const mca::Framework::Entry* entry(std::string_view name) const {
    for (const auto& e : framework->entries()) {
      if (e.component->name() == name) return &e;
    }
    return nullptr;
  }
  BuildTreeRuntime rt;
  mca::Framework* framework = nullptr;
};

}  // namespace orca::test

#endif  // ORCA_TEST_FRAMEWORK_PLM_PLM_COMPONENT_FIXTURE_H
