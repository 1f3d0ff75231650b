// parse_tasks_per_node: Slurm's SLURM_TASKS_PER_NODE ("2(x3),5").
#include <orca/host_list.h>

#include "lib/expect_text.h"
#include "lib/result_assertions.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace orca::launch {
namespace {

using Counts = std::vector<unsigned>;
using test::Contains;
using test::FailedWith;
using test::Succeeded;

Counts counts(std::string_view text) {
  auto r = parse_tasks_per_node(text);
  EXPECT_TRUE(Succeeded(r)) << text;
  return r.ok() ? r.value() : Counts{};
}

TEST(TasksPerNode, OneCount) { EXPECT_EQ(counts("4"), Counts{4}); }

TEST(TasksPerNode, CountsInNodeOrder) { EXPECT_EQ(counts("1,3,2"), (Counts{1, 3, 2})); }

TEST(TasksPerNode, RepeatsExpandInPlace) {
  EXPECT_EQ(counts("2(x3),5"), (Counts{2, 2, 2, 5}));
  EXPECT_EQ(counts("5,2(x2),1(x1)"), (Counts{5, 2, 2, 1}));
  EXPECT_EQ(counts("2(x10),5").size(), 11u);
  EXPECT_EQ(counts(" 8(x2)\n"), (Counts{8, 8}));
}

TEST(TasksPerNode, AtTheLimits) {
  EXPECT_EQ(counts("1(x1000000)").size(), kMaxHostNames);
  EXPECT_EQ(counts("1048576"), Counts{kMaxSlotsPerHost});
}

struct Bad {
  const char* text;
  const char* why;
};

class MalformedTasksPerNode : public ::testing::TestWithParam<Bad> {};

TEST_P(MalformedTasksPerNode, RefusedNamingSourceAndItem) {
  auto r = parse_tasks_per_node(GetParam().text, "SLURM_TASKS_PER_NODE");
  ASSERT_TRUE(FailedWith(r, "launch", "tasks-per-node-syntax")) << GetParam().text;
  EXPECT_EQ(r.error().arg("source"), "SLURM_TASKS_PER_NODE");
  EXPECT_TRUE(Contains(r.error().arg("why"), GetParam().why)) << r.error().summary();
}

INSTANTIATE_TEST_SUITE_P(Inputs, MalformedTasksPerNode,
                         ::testing::Values(Bad{"", "empty"}, Bad{"2,,3", "empty"}, Bad{"2,", "empty"},
                                           Bad{"0", "from 1 to"}, Bad{"x", "from 1 to"}, Bad{"-2", "from 1 to"},
                                           Bad{"1048577", "from 1 to"}, Bad{"2(3)", "N(xR)"},
                                           Bad{"2(x3", "N(xR)"}, Bad{"2(x)", "N(xR)"},
                                           Bad{"2(x3)4", "N(xR)"}, Bad{"2(x0)", "repeat"},
                                           Bad{"2(x-1)", "repeat"}, Bad{"(x3)", "from 1 to"},
                                           Bad{"2 (x3)", "from 1 to"},
                                           Bad{"1(x10000000)", "repeat"},
                                           Bad{"1(x600000),1(x600000)", "more than 1000000 nodes"}));

TEST(TasksPerNode, TheErrorNamesTheItem) {
  auto r = parse_tasks_per_node("2(x3),oops,4", "SLURM_TASKS_PER_NODE");
  ASSERT_TRUE(FailedWith(r, "launch", "tasks-per-node-syntax"));
  EXPECT_EQ(r.error().arg("item"), "oops");
  EXPECT_EQ(r.error().arg("text"), "2(x3),oops,4");
}

}  // namespace
}  // namespace orca::launch
