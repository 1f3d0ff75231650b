// ras/slurm's reading of the allocation: the variables as Slurm sets
// them (the forms of Slurm 22.05's salloc and sbatch), and malformed ones.
#include "ras/slurm/slurm_allocation.h"

#include "lib/fake_environment.h"
#include "lib/result_assertions.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace orca::ras::slurm {
namespace {

using test::Succeeded;

using Env = test::FakeEnvironment;

TEST(SlurmAllocation, OutsideAnAllocationThereIsNone) {
  Env env{{{"SLURM_JOB_NODELIST", "n1"}, {"SLURM_TASKS_PER_NODE", "1"}}};
  auto a = slurm_allocation(env.lookup());
  ASSERT_TRUE(Succeeded(a));
  EXPECT_FALSE(a.value().has_value());
  env.vars["SLURM_JOB_ID"] = "";
  EXPECT_FALSE(slurm_allocation(env.lookup()).value().has_value()) << "an empty SLURM_JOB_ID";
}

TEST(SlurmAllocation, NodesInOrderWithTheirTasks) {
  Env env{{{"SLURM_JOB_ID", "17"}, {"SLURM_JOB_NODELIST", "rack[0-1]_blade[01-02]"}, {"SLURM_TASKS_PER_NODE", "2(x3),5"}}};
  auto a = slurm_allocation(env.lookup());
  ASSERT_TRUE(Succeeded(a));
  ASSERT_TRUE(a.value().has_value());
  const std::vector<launch::HostSlots> want{{"rack0_blade01", 2, true}, {"rack0_blade02", 2, true},
                                            {"rack1_blade01", 2, true}, {"rack1_blade02", 5, true}};
  EXPECT_EQ(*a.value(), want);
}

// In a job step (srun --pty bash), srun has set SLURM_TASKS_PER_NODE to
// the step's one task, as Slurm 22.05 does: the slots are the job's CPUs.
TEST(SlurmAllocation, InsideAJobStepTheSlotsAreTheJobsCpus) {
  Env env{{{"SLURM_JOB_ID", "17"}, {"SLURM_JOB_NODELIST", "h[2-4]"}, {"SLURM_TASKS_PER_NODE", "1"},
           {"SLURM_STEP_ID", "0"}, {"SLURM_STEP_NODELIST", "h2"}, {"SLURM_JOB_CPUS_PER_NODE", "2(x2),4"}}};
  auto a = slurm_allocation(env.lookup());
  ASSERT_TRUE(Succeeded(a));
  const std::vector<launch::HostSlots> want{{"h2", 2, true}, {"h3", 2, true}, {"h4", 4, true}};
  EXPECT_EQ(*a.value(), want);
  env.vars.erase("SLURM_JOB_CPUS_PER_NODE");
  a = slurm_allocation(env.lookup());
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().arg("variable"), "SLURM_JOB_CPUS_PER_NODE");
}

TEST(SlurmAllocation, MoreNodesThanCountsIsRefusedNotGuessed) {
  Env env{{{"SLURM_JOB_ID", "17"}, {"SLURM_JOB_NODELIST", "rack[0-1]_blade[01-02],login"}, {"SLURM_TASKS_PER_NODE", "2(x3),5"}}};
  auto a = slurm_allocation(env.lookup());
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().topic(), "tasks-per-node-mismatch");
}

TEST(SlurmAllocation, TheOlderNodelistVariableIsRead) {
  Env env{{{"SLURM_JOB_ID", "17"}, {"SLURM_NODELIST", "n[1-2]"}, {"SLURM_TASKS_PER_NODE", "1(x2)"}}};
  auto a = slurm_allocation(env.lookup());
  ASSERT_TRUE(Succeeded(a));
  ASSERT_EQ(a.value()->size(), 2u);
  EXPECT_EQ((*a.value())[1].name, "n2");
}

TEST(SlurmAllocation, AMissingVariableIsNamed) {
  Env env{{{"SLURM_JOB_ID", "17"}, {"SLURM_TASKS_PER_NODE", "1"}}};
  auto a = slurm_allocation(env.lookup());
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().topic(), "slurm-variable-missing");
  EXPECT_EQ(a.error().arg("variable"), "SLURM_JOB_NODELIST");
  env.vars.erase("SLURM_TASKS_PER_NODE");
  env.vars["SLURM_JOB_NODELIST"] = "n1";
  a = slurm_allocation(env.lookup());
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().arg("variable"), "SLURM_TASKS_PER_NODE");
}

TEST(SlurmAllocation, MalformedVariablesAreQuoted) {
  struct Bad {
    const char* nodes;
    const char* tasks;
    const char* quoted;  // what the error must carry
  };
  for (const Bad& b : {Bad{"node[1-", "1", "node[1-"}, Bad{"n[5-3]", "1", "n[5-3]"}, Bad{"n[0-9999999]", "1", "n[0-9999999]"},
                       Bad{"n1", "2(x", "2(x"}, Bad{"n1", "0", "0"}, Bad{"n[1-3]", "2(x2)", "SLURM_TASKS_PER_NODE"}}) {
    Env env{{{"SLURM_JOB_ID", "17"}, {"SLURM_JOB_NODELIST", b.nodes}, {"SLURM_TASKS_PER_NODE", b.tasks}}};
    auto a = slurm_allocation(env.lookup());
    ASSERT_FALSE(a.ok()) << b.nodes << " / " << b.tasks;
    EXPECT_NE(a.error().summary().find(b.quoted), std::string::npos) << a.error().summary();
  }
}

}  // namespace
}  // namespace orca::ras::slurm
