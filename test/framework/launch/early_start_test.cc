// choose_early_start and SubtreeArrivals: which jobs start their ranks
// before every daemon is up, and when each of orcarun's children may get
// the command.
#include "launch/early_start.h"

#include "framework/launch/machine_fixtures.h"

#include <gtest/gtest.h>

namespace orca::launch {
namespace {

using test::radix_tree;

using test::Succeeded;

TEST(EarlyStart, StartsWhenNothingNeedsEveryDaemonFirst) {
  const auto c = choose_early_start({});
  EXPECT_TRUE(c.start);
  EXPECT_EQ(c.why, "");
}

TEST(EarlyStart, EachHoldOfTheWireUpSaysWhy) {
  EXPECT_EQ(choose_early_start({.variable = false}).why, "orcarun_start_early is false");
  const auto round = choose_early_start({.data_plane_round = true});
  EXPECT_FALSE(round.start);
  EXPECT_NE(round.why.find("data-plane round"), std::string::npos);
  EXPECT_FALSE(choose_early_start({.report_routes = true}).start);
  EXPECT_FALSE(choose_early_start({.report_topology = true}).start);
  EXPECT_EQ(choose_early_start({.working_directory = true}).why, "--wdir is checked on every host before any rank starts");
  EXPECT_EQ(choose_early_start({.places_cpus = true}).why,
            "ranks are placed on every host's processors before any starts");
  // The variable is named first: it is the one the user can change.
  EXPECT_EQ(choose_early_start({.variable = false, .data_plane_round = true}).why, "orcarun_start_early is false");
}

TEST(SubtreeArrivals, OnAFlatTreeEachDaemonIsItsOwnSubtree) {
  const auto t = radix_tree(64, 4);
  SubtreeArrivals a(t);
  EXPECT_EQ(a.arrived(3), std::optional<std::uint32_t>(3));
  EXPECT_EQ(a.arrived(1), std::optional<std::uint32_t>(1));
  EXPECT_EQ(a.arrived(4), std::optional<std::uint32_t>(4));
  EXPECT_EQ(a.arrived(2), std::optional<std::uint32_t>(2));
}

TEST(SubtreeArrivals, AChildOfOrcarunIsDoneWhenItsWholeSubtreeIs) {
  // Radix 2 over 6: 1 and 2 below orcarun; 3, 4 below 1; 5, 6 below 2.
  const auto t = radix_tree(2, 6);
  SubtreeArrivals a(t);
  EXPECT_EQ(a.arrived(1), std::nullopt);
  EXPECT_EQ(a.arrived(5), std::nullopt);
  EXPECT_EQ(a.arrived(3), std::nullopt);
  EXPECT_EQ(a.arrived(4), std::optional<std::uint32_t>(1));
  EXPECT_EQ(a.arrived(6), std::nullopt);
  EXPECT_EQ(a.arrived(2), std::optional<std::uint32_t>(2));
}

TEST(SubtreeArrivals, RepeatsAndStrangersChangeNothing) {
  const auto t = radix_tree(2, 3);  // 1, 2 below orcarun; 3 below 1
  SubtreeArrivals a(t);
  EXPECT_EQ(a.arrived(1), std::nullopt);
  EXPECT_EQ(a.arrived(1), std::nullopt);  // a second report of 1 does not stand in for 3
  EXPECT_EQ(a.arrived(0), std::nullopt);
  EXPECT_EQ(a.arrived(4), std::nullopt);
  EXPECT_EQ(a.arrived(3), std::optional<std::uint32_t>(1));
  EXPECT_EQ(a.arrived(3), std::nullopt);  // completed once only
  EXPECT_EQ(a.arrived(2), std::optional<std::uint32_t>(2));
}

}  // namespace
}  // namespace orca::launch
