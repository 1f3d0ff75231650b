// map_ranks_per_object (framework/launch/object_map.cc): --map-by
// ppr:N:RESOURCE, each node's count from its processors, over hwloc's
// synthetic machines; the table of expected placements and the maps that
// cannot be met.
#include "launch/object_map.h"
#include "net/cpu_probe.h"

#include "lib/expect_text.h"
#include "lib/result_assertions.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace orca::launch {
namespace {

using test::Contains;
using test::FailedWith;
using test::Succeeded;

CpuTopology machine(const char* description) {
  auto t = net::synthetic_cpus(description);
  if (!t) ADD_FAILURE() << t.error().summary();
  return t ? t.value() : CpuTopology{};
}

// Node 0: 2 packages x 2 NUMA x 4 cores x 2 PUs; node 1: 1 package of 2 single-thread cores.
const std::vector<CpuTopology>& topologies() {
  static const std::vector<CpuTopology> t{machine("package:2 numa:2 core:4 pu:2"), machine("core:2 pu:1")};
  return t;
}

std::vector<HostSlots> two_nodes() {
  return {{.name = "big", .slots = 1, .slots_given = false}, {.name = "small", .slots = 1, .slots_given = false}};
}

TEST(CountObjects, EachResourceOfTheSyntheticMachines) {
  const CpuTopology& big = topologies()[0];
  EXPECT_EQ(count_objects(big, Resource::Hwthread), 32u);
  EXPECT_EQ(count_objects(big, Resource::Core), 16u);
  EXPECT_EQ(count_objects(big, Resource::Numa), 4u);
  EXPECT_EQ(count_objects(big, Resource::Package), 2u);
  EXPECT_EQ(count_objects(topologies()[1], Resource::Core), 2u);
  EXPECT_EQ(count_objects(topologies()[1], Resource::Package), 1u);
}

TEST(MapRanksPerObject, EachNodeRunsNTimesItsObjectsConsecutively) {
  struct Case {
    unsigned per_object;
    Resource r;
    std::optional<unsigned> n;
    std::vector<unsigned> local_sizes;
  };
  const Case cases[] = {
      {1, Resource::Core, std::nullopt, {16, 2}},  {2, Resource::Package, std::nullopt, {4, 2}},
      {1, Resource::Numa, std::nullopt, {4, 1}},   {1, Resource::Hwthread, std::nullopt, {32, 2}},
      {3, Resource::Package, 7, {6, 1}},           {2, Resource::Numa, 5, {5, 0}},
  };
  for (const Case& c : cases) {
    auto m = map_ranks_per_object(two_nodes(), topologies(), c.per_object, c.r, c.n, false);
    ASSERT_TRUE(Succeeded(m)) << c.per_object << " " << resource_name(c.r);
    EXPECT_EQ(m->local_sizes, c.local_sizes) << c.per_object << " " << resource_name(c.r);
    for (std::size_t i = 0; i < m->placements.size(); ++i) {
      EXPECT_EQ(m->placements[i].rank, i);
      // Consecutive: node 0's ranks first.
      EXPECT_EQ(m->placements[i].node, i < c.local_sizes[0] ? 0u : 1u);
    }
    EXPECT_FALSE(m->oversubscribed);
  }
}

TEST(MapRanksPerObject, MapsThatCannotBeMetNameTheHostAndTheObjects) {
  std::vector<HostSlots> given = two_nodes();
  given[1].slots = 3;
  given[1].slots_given = true;
  auto slots = map_ranks_per_object(given, topologies(), 2, Resource::Core, std::nullopt, false);
  ASSERT_TRUE(FailedWith(slots, "launch", "map-per-node-slots"));
  EXPECT_EQ(slots.error().arg("host"), "small");
  EXPECT_EQ(slots.error().arg("what"), "--map-by ppr:2:core puts 4 ranks (2 on each of its 2 cores)");
  auto over = map_ranks_per_object(given, topologies(), 2, Resource::Core, std::nullopt, true);
  ASSERT_TRUE(Succeeded(over));
  EXPECT_TRUE(over->oversubscribed);

  given[1].max_slots = 3;
  auto capped = map_ranks_per_object(given, topologies(), 1, Resource::Numa, std::nullopt, true);
  ASSERT_TRUE(Succeeded(capped)) << "1 NUMA node, 1 rank: within the cap";
  auto beyond = map_ranks_per_object(given, topologies(), 2, Resource::Core, std::nullopt, true);
  ASSERT_TRUE(FailedWith(beyond, "launch", "map-per-node-max-slots"));

  auto few = map_ranks_per_object(two_nodes(), topologies(), 1, Resource::Package, 4, false);
  ASSERT_TRUE(FailedWith(few, "launch", "map-per-node-too-few"));
  EXPECT_EQ(few.error().arg("policy"), "--map-by ppr:1:package");
  EXPECT_EQ(few.error().arg("most"), "3");

  EXPECT_TRUE(FailedWith(map_ranks_per_object(two_nodes(), topologies(), 0, Resource::Core, std::nullopt, false),
                         "launch", "map-per-node-range"));
  auto none = map_ranks_per_object(two_nodes(), {topologies()[0], CpuTopology{}}, 1, Resource::Core, std::nullopt,
                                   false);
  ASSERT_TRUE(FailedWith(none, "launch", "map-cpus-none"));
  EXPECT_EQ(none.error().arg("host"), "small");
}

}  // namespace
}  // namespace orca::launch
