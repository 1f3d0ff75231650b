// plm/local's module table (components/plm/local/plm_local_component.cc),
// loaded from the build tree beside plm/rsh (test/framework/plm/
// plm_component_fixture.h) and chosen for this host: the simulated nodes
// of its setting, no cap on concurrent launches, no tree spawn.
#include "plm/plm_base.h"

#include "framework/plm/plm_component_fixture.h"
#include "lib/result_assertions.h"

#include <gtest/gtest.h>

namespace orca::plm {
namespace {

using test::Plm;
using test::Succeeded;

TEST(LocalComponent, SimulatedNodesAndNoConcurrencyCap) {
  Plm p({"plm_local_num_nodes=4"});
  ASSERT_NE(p.framework, nullptr);
  auto c = p.choose({"localhost"});
  ASSERT_TRUE(Succeeded(c));
  const orca_plm_module* m = c->module;
  EXPECT_EQ(m->simulated_nodes(m->self), 4u);
  EXPECT_EQ(m->max_concurrent(m->self), 0u);
  EXPECT_EQ(m->tree_spawn(m->self, 100), 0);
}

}  // namespace
}  // namespace orca::plm
