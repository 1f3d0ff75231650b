// place_cpus over hwloc's synthetic machines: each rank's CPUs for every
// --map-by RES, pe=N and --bind-to form, against a table worked out by
// hand; maps that cannot be met; the --report-bindings text; the wire
// text of a topology and of CPU lists.
#include "launch/cpu_binding.h"
#include "launch/cpu_topology.h"
#include "net/cpu_probe.h"

#include "lib/result_assertions.h"

#include <gtest/gtest.h>

#include <sched.h>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace orca::launch {
namespace {

using test::FailedWith;
using test::Succeeded;

// 2 packages x 2 NUMA x 4 cores x 2 PUs: core c holds CPUs 2c and 2c+1,
// NUMA m cores 4m..4m+3, package p NUMA nodes 2p and 2p+1.
constexpr const char* kMachine = "package:2 numa:2 core:4 pu:2";

CpuTopology machine(const char* description = kMachine) {
  auto t = net::synthetic_cpus(description);
  if (!t) ADD_FAILURE() << t.error().summary();
  return t ? t.value() : CpuTopology{};
}

struct Placed {
  std::vector<std::vector<unsigned>> cpus;  // [rank]
};

// `ranks` ranks on one node (slot map), placed under `policy`.
Result<std::vector<RankCpus>> place_on_one(const CpuTopology& t, unsigned ranks, const CpuPolicy& policy) {
  const std::vector<HostSlots> nodes{{.name = "n0", .slots = ranks, .slots_given = true}};
  auto map = map_ranks(nodes, ranks, MapBy::Slot, false);
  if (!map) return map.error();
  return place_cpus(nodes, {t}, map.value(), policy);
}

std::vector<std::vector<unsigned>> cpus_of(const std::vector<RankCpus>& placed) {
  std::vector<std::vector<unsigned>> out;
  for (const auto& r : placed) out.push_back(r.cpus);
  return out;
}

using Cpus = std::vector<std::vector<unsigned>>;

struct Case {
  const char* what;
  CpuPolicy policy;
  unsigned ranks;
  Cpus expected;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.what; }

class CpuPlacement : public ::testing::TestWithParam<Case> {};

TEST_P(CpuPlacement, EachRankGetsTheCpusWorkedOutByHand) {
  const Case& c = GetParam();
  auto placed = place_on_one(machine(), c.ranks, c.policy);
  ASSERT_TRUE(Succeeded(placed)) << c.what;
  EXPECT_EQ(cpus_of(placed.value()), c.expected) << c.what;
}

const Case kCases[] = {
    {"--map-by core binds each rank to its core", {.map_by = Resource::Core}, 3, {{0, 1}, {2, 3}, {4, 5}}},
    {"--map-by numa goes round-robin over NUMA nodes, bound to each",
     {.map_by = Resource::Numa},
     5,
     {{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}, {16, 17, 18, 19, 20, 21, 22, 23},
      {24, 25, 26, 27, 28, 29, 30, 31}, {0, 1, 2, 3, 4, 5, 6, 7}}},
    {"--map-by package --bind-to core alternates packages, core by core",
     {.map_by = Resource::Package, .bind = BindTo::Core},
     4,
     {{0, 1}, {16, 17}, {2, 3}, {18, 19}}},
    {"--map-by hwthread gives one hardware thread each", {.map_by = Resource::Hwthread}, 3, {{0}, {1}, {2}}},
    {"--map-by numa:pe=2 gives two cores of one NUMA node, bound to them",
     {.map_by = Resource::Numa, .pe = 2},
     5,
     {{0, 1, 2, 3}, {8, 9, 10, 11}, {16, 17, 18, 19}, {24, 25, 26, 27}, {4, 5, 6, 7}}},
    {"--bind-to core alone takes the node's cores in order", {.bind = BindTo::Core}, 3, {{0, 1}, {2, 3}, {4, 5}}},
    {"--map-by core --bind-to hwthread keeps the first thread of each core",
     {.map_by = Resource::Core, .bind = BindTo::Hwthread},
     3,
     {{0}, {2}, {4}}},
    {"--map-by core --bind-to package widens to the package",
     {.map_by = Resource::Core, .bind = BindTo::Package},
     2,
     {{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}}},
    {"--map-by core --bind-to none binds nothing", {.map_by = Resource::Core, .bind = BindTo::None}, 2, {{}, {}}},
    {"--cpus-per-rank 3 alone takes three cores in order", {.pe = 3}, 2, {{0, 1, 2, 3, 4, 5}, {6, 7, 8, 9, 10, 11}}},
    {"--map-by hwthread:pe=2 takes two threads", {.map_by = Resource::Hwthread, .pe = 2}, 2, {{0, 1}, {2, 3}}},
    // ppr:N:RES fills each object with N ranks before the next.
    {"ppr:2:package --bind-to core puts ranks 0-1 on package 0, 2-3 on package 1",
     {.map_by = Resource::Package, .bind = BindTo::Core, .per_object = 2},
     4,
     {{0, 1}, {2, 3}, {16, 17}, {18, 19}}},
    {"ppr:1:numa --bind-to core: one rank on each NUMA node's first core",
     {.map_by = Resource::Numa, .bind = BindTo::Core, .per_object = 1},
     4,
     {{0, 1}, {8, 9}, {16, 17}, {24, 25}}},
    {"ppr:2:core: two ranks share each core, bound to it",
     {.map_by = Resource::Core, .per_object = 2},
     4,
     {{0, 1}, {0, 1}, {2, 3}, {2, 3}}},
    {"ppr:2:core --bind-to hwthread: a thread of the core each",
     {.map_by = Resource::Core, .bind = BindTo::Hwthread, .per_object = 2},
     4,
     {{0}, {1}, {2}, {3}}},
    {"ppr:1:hwthread: one rank a thread", {.map_by = Resource::Hwthread, .per_object = 1}, 3, {{0}, {1}, {2}}},
};

INSTANTIATE_TEST_SUITE_P(Table, CpuPlacement, ::testing::ValuesIn(kCases));

TEST(CpuPlacementBounds, MoreRanksThanCoresIsAnErrorNamingTheHostUnlessOversubscribed) {
  auto placed = place_on_one(machine(), 17, {.map_by = Resource::Core});
  ASSERT_TRUE(FailedWith(placed, "launch", "map-cpus-short"));
  EXPECT_EQ(placed.error().arg("host"), "n0");
  EXPECT_EQ(placed.error().arg("cpus"), "16");
  EXPECT_EQ(placed.error().arg("resource"), "core");
  auto shared = place_on_one(machine(), 17, {.map_by = Resource::Core, .oversubscribe = true});
  ASSERT_TRUE(Succeeded(shared));
  EXPECT_EQ(shared.value()[16].cpus, (std::vector<unsigned>{0, 1}));
}

TEST(CpuPlacementBounds, PeAboveWhatOneObjectHoldsIsAnErrorEvenForOneRank) {
  // A NUMA node has 4 cores; 5 cannot sit in one.
  auto placed = place_on_one(machine(), 1, {.map_by = Resource::Numa, .pe = 5});
  ASSERT_TRUE(FailedWith(placed, "launch", "map-cpus-short"));
  EXPECT_EQ(placed.error().arg("resource"), "numa");
  EXPECT_TRUE(FailedWith(place_on_one(machine(), 1, {.map_by = Resource::Numa, .pe = 5, .oversubscribe = true}),
                         "launch", "map-cpus-short"));
}

TEST(CpuPlacementBounds, PprNeverMovesARankToAnotherObject) {
  // A core has two threads: a third rank on core 0 does not spill to core 1.
  auto placed = place_on_one(machine(), 3, {.map_by = Resource::Core, .per_object = 3});
  ASSERT_TRUE(FailedWith(placed, "launch", "map-cpus-short"));
  EXPECT_EQ(placed.error().arg("unit"), "hardware threads");
  auto shared = place_on_one(machine(), 3, {.map_by = Resource::Core, .oversubscribe = true, .per_object = 3});
  ASSERT_TRUE(Succeeded(shared));
  EXPECT_EQ(cpus_of(shared.value()), (Cpus{{0, 1}, {0, 1}, {0, 1}}));
}

TEST(CpuPlacementBounds, PeZeroOrHugeIsARangeError) {
  EXPECT_TRUE(FailedWith(place_on_one(machine(), 1, {.pe = 0}), "launch", "cpus-per-rank-range"));
  EXPECT_TRUE(FailedWith(place_on_one(machine(), 1, {.pe = kMaxPe + 1}), "launch", "cpus-per-rank-range"));
}

TEST(CpuPlacementNodes, EachNodePlacesItsOwnRanksFromItsFirstCore) {
  const std::vector<HostSlots> nodes{{.name = "a", .slots = 2, .slots_given = true},
                                     {.name = "b", .slots = 2, .slots_given = true}};
  auto map = map_ranks(nodes, 4, MapBy::Node, false);
  ASSERT_TRUE(Succeeded(map));
  const CpuTopology two_cores = machine("core:2 pu:1");
  auto placed = place_cpus(nodes, {two_cores, two_cores}, map.value(), {.bind = BindTo::Core});
  ASSERT_TRUE(Succeeded(placed));
  // By node: ranks 0, 2 on a; 1, 3 on b; each node's first rank on its first core.
  EXPECT_EQ(cpus_of(placed.value()), (Cpus{{0}, {0}, {1}, {1}}));
}

TEST(CpuPlacementNodes, OnlyTheCpusADaemonMayUseAreGiven) {
  // As under taskset -c 1,3 on a 2-core, 2-thread machine.
  const CpuTopology allowed{.pus = {{.os = 1, .core = 0}, {.os = 3, .core = 1}}};
  auto placed = place_on_one(allowed, 2, {.bind = BindTo::Core});
  ASSERT_TRUE(Succeeded(placed));
  EXPECT_EQ(cpus_of(placed.value()), (Cpus{{1}, {3}}));
  EXPECT_TRUE(FailedWith(place_on_one(allowed, 3, {.bind = BindTo::Core}), "launch", "map-cpus-short"));
}

TEST(CpuPolicyDefaults, AResourceMapBindsToItAndNothingElseBinds) {
  EXPECT_EQ(CpuPolicy{}.binding(), BindTo::None);
  EXPECT_EQ(CpuPolicy{.pe = 2}.binding(), BindTo::Core);
  EXPECT_EQ(CpuPolicy{.map_by = Resource::Numa}.binding(), BindTo::Numa);
  EXPECT_EQ((CpuPolicy{.map_by = Resource::Numa, .pe = 2}.binding()), BindTo::Core);
  EXPECT_EQ(CpuPolicy{.map_by = Resource::Hwthread}.binding(), BindTo::Hwthread);
  EXPECT_FALSE(CpuPolicy{}.needs_topology());
  EXPECT_FALSE(CpuPolicy{.bind = BindTo::None}.needs_topology());
  EXPECT_TRUE(CpuPolicy{.bind = BindTo::Core}.needs_topology());
  EXPECT_TRUE(CpuPolicy{.pe = 2}.needs_topology());
}

TEST(BindingText, DrawsEachPackageAndMarksTheBoundThreads) {
  const CpuTopology t = machine();
  auto placed = place_on_one(t, 1, {.map_by = Resource::Core});
  ASSERT_TRUE(Succeeded(placed));
  EXPECT_EQ(binding_text(t, placed.value()[0], BindTo::Core),
            "bound to core 0 (CPUs 0-1): [BB/../../../../../../..][../../../../../../../..]");
  auto numa = place_on_one(t, 2, {.map_by = Resource::Numa});
  ASSERT_TRUE(Succeeded(numa));
  EXPECT_EQ(binding_text(t, numa.value()[1], BindTo::Numa),
            "bound to numa 1 (CPUs 8-15): [../../../../BB/BB/BB/BB][../../../../../../../..]");
  EXPECT_EQ(binding_text(machine("core:2 pu:2"), RankCpus{}, BindTo::None), "not bound (CPUs 0-3)");
}

TEST(CpuTopologyText, RoundTripsAndRefusesWhatIsNotFourNumbers) {
  const CpuTopology t = machine();
  auto back = parse_cpu_topology(encode_cpu_topology(t));
  ASSERT_TRUE(Succeeded(back));
  EXPECT_EQ(back.value(), t);
  EXPECT_EQ(t.pus.size(), 32u);
  EXPECT_EQ(t.pus[9], (ProcessingUnit{.os = 9, .core = 4, .numa = 1, .package = 0}));
  EXPECT_EQ(t.pus[31], (ProcessingUnit{.os = 31, .core = 15, .numa = 3, .package = 1}));
  for (const char* bad : {"", "1.2.3", "1.2.3.4.5", "a.0.0.0", "0.0.0.0 0.1.0.0", "9999.0.0.0", "0.0.0.0  1.0.0.0",
                          "-1.0.0.0", "0.0.0.99999999999"}) {
    EXPECT_TRUE(FailedWith(parse_cpu_topology(bad), "launch", "cpu-topology-malformed")) << bad;
  }
}

TEST(CpuListText, JoinsRunsAndParsesThemBack) {
  EXPECT_EQ(cpu_list_text({8, 0, 1, 2, 3, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(cpu_list_text({}), "");
  auto cpus = parse_cpu_list("0-3,8,10-11");
  ASSERT_TRUE(Succeeded(cpus));
  EXPECT_EQ(cpus.value(), (std::vector<unsigned>{0, 1, 2, 3, 8, 10, 11}));
  for (const char* bad : {"3-1", "a", "1,,2", "1-", "8192", "0-99999"}) {
    EXPECT_TRUE(FailedWith(parse_cpu_list(bad), "launch", "cpu-list-malformed")) << bad;
  }
}

TEST(CpuProbe, ThisHostsCpusAreWithinTheProcessAffinity) {
  auto t = net::probe_cpus();
  ASSERT_TRUE(Succeeded(t));
  cpu_set_t mask;
  CPU_ZERO(&mask);
  ASSERT_EQ(::sched_getaffinity(0, sizeof mask, &mask), 0);
  EXPECT_EQ(t.value().pus.size(), static_cast<size_t>(CPU_COUNT(&mask)));
  for (const auto& p : t.value().pus) EXPECT_TRUE(CPU_ISSET(p.os, &mask)) << p.os;
}

TEST(CpuProbe, ASyntheticMachineHwlocRefusesIsAnError) {
  EXPECT_TRUE(FailedWith(net::synthetic_cpus("banana:3"), "net", "cpu-probe-failed"));
}

}  // namespace
}  // namespace orca::launch
