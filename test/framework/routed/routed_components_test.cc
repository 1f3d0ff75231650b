// The real routed components, loaded from the build tree through a
// Runtime: radix is selected by default with fan-out 64, --mca routed
// direct swaps, routed_radix_radix shapes the tree, and a value outside
// its range is refused before any tree is built.
#include <orca/mca_framework.h>
#include <orca/routed.h>
#include "runtime/runtime.h"

#include "lib/build_tree.h"
#include "lib/result_assertions.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace orca::routed {
namespace {

using test::build_dir;
using test::Succeeded;

/* A Runtime that sees only the routed components, with `settings` added to
 * its environment ("name=value", as ORCA_MCA_name). */
class Process {
 public:
  explicit Process(const std::vector<std::string>& settings) {
    const std::string b = build_dir();
    env_ = {"ORCA_MCA_mca_base_component_path=" + b + "/components/routed/direct/.libs:" + b +
                "/components/routed/radix/.libs",
            "ORCA_MCA_mca_base_param_files=none", "ORCA_MCA_mca_base_override_param_file=none",
            std::string("ORCA_MCA_mca_base_help_path=") + ORCA_TEST_HELP_DIR};
    for (auto& s : settings) env_.push_back("ORCA_MCA_" + s);
    for (auto& e : env_) envp_.push_back(e.c_str());
    envp_.push_back(nullptr);
    runtime_ = std::make_unique<Runtime>("routed_components_test", envp_.data());
  }
  /* The opened routed framework. */
  Result<mca::Framework*> open() {
    if (Status st = runtime_->load(mca::ToolOptions{}); !st) return st.error();
    auto fw = runtime_->add_framework(kFramework);
    if (!fw) return fw;
    if (Status st = fw.value()->open(); !st) return st.error();
    return fw;
  }

 private:
  std::vector<std::string> env_;
  std::vector<const char*> envp_;
  std::unique_ptr<Runtime> runtime_;
};

TEST(RoutedComponents, RadixWithFanOut64IsTheDefault) {
  Process p({});
  auto fw = p.open();
  ASSERT_TRUE(Succeeded(fw));
  ASSERT_EQ(fw.value()->selected().size(), 1u);
  EXPECT_EQ(fw.value()->selected().front()->component->name(), "radix");
  auto t = routing_tree(*fw.value(), 5000);
  ASSERT_TRUE(Succeeded(t));
  EXPECT_EQ(t->children(0).size(), 64u);
  EXPECT_EQ(t->parent(65), 1u);
  EXPECT_EQ(t->depth(), 3u);  // 4160 daemons fit in two levels
}

TEST(RoutedComponents, DirectWhenAsked) {
  Process p({"routed=direct"});
  auto fw = p.open();
  ASSERT_TRUE(Succeeded(fw));
  auto t = routing_tree(*fw.value(), 300);
  ASSERT_TRUE(Succeeded(t));
  EXPECT_EQ(t->depth(), 1u);
  EXPECT_EQ(t->parent(300), 0u);
  EXPECT_EQ(t->next_hop(7, 9), 0u);
}

TEST(RoutedComponents, TheFanOutComesFromTheVariable) {
  Process p({"routed_radix_radix=2"});
  auto fw = p.open();
  ASSERT_TRUE(Succeeded(fw));
  auto t = routing_tree(*fw.value(), 7);
  ASSERT_TRUE(Succeeded(t));
  EXPECT_EQ(t->depth(), 3u);
  EXPECT_EQ(t->parent(6), 2u);
  EXPECT_EQ(t->next_hop(3, 6), 1u);
}

TEST(RoutedComponents, AFanOutOutsideItsRangeIsAnError) {
  for (const char* bad : {"routed_radix_radix=0", "routed_radix_radix=65537"}) {
    SCOPED_TRACE(bad);
    Process p({bad});
    auto fw = p.open();
    ASSERT_FALSE(fw.ok());
    EXPECT_EQ(fw.error().area(), "mca-var") << fw.error().summary();
  }
}

TEST(RoutedComponents, NoRoutedComponentIsAnError) {
  Process p({"routed=^direct,radix"});
  auto fw = p.open();
  EXPECT_FALSE(fw.ok());
}

}  // namespace
}  // namespace orca::routed
