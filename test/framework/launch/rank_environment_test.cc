// rank_environment: the layers of a rank's environment, each over the ones
// before (launch/rank_environment.h), in one pure function.
#include "launch/rank_environment.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

namespace orca::launch {
namespace {

std::optional<std::string> value_of(const std::vector<std::string>& env, const std::string& name) {
  for (const auto& e : env) {
    if (e.starts_with(name + "=")) return e.substr(name.size() + 1);
  }
  return std::nullopt;
}

std::size_t count_of(const std::vector<std::string>& env, const std::string& name) {
  return static_cast<std::size_t>(
      std::count_if(env.begin(), env.end(), [&](const std::string& e) { return e.starts_with(name + "="); }));
}

RankEnvironmentInput rank_3_of_8() {
  return {.inherited = {"PATH=/usr/bin", "HOME=/root"},
          .forwarded = {},
          .identity = {.rank = 3, .size = 8, .local_rank = 1, .local_size = 2, .node = 1},
          .link = {.interface = "eth1", .address = "10.0.1.2", .prefix_length = 24, .rdma = false},
          .master = {.address = "10.0.1.5", .port = 29511},
          .families = {"gloo", "torch"},
          .launcher = {},
          .pmi = {}};
}

TEST(RankEnvironment, IdentityFromOrcaAndForTorch) {
  const auto env = rank_environment(rank_3_of_8());
  EXPECT_EQ(value_of(env, "ORCA_RANK"), "3");
  EXPECT_EQ(value_of(env, "ORCA_SIZE"), "8");
  EXPECT_EQ(value_of(env, "ORCA_LOCAL_RANK"), "1");
  EXPECT_EQ(value_of(env, "ORCA_LOCAL_SIZE"), "2");
  EXPECT_EQ(value_of(env, "ORCA_NODE"), "1");
  EXPECT_EQ(value_of(env, "RANK"), "3");
  EXPECT_EQ(value_of(env, "WORLD_SIZE"), "8");
  EXPECT_EQ(value_of(env, "GROUP_RANK"), "1");
  EXPECT_EQ(value_of(env, "PATH"), "/usr/bin");  // inherited stays
}

TEST(RankEnvironment, ForwardedVariablesOverrideTheInheritedOnes) {
  RankEnvironmentInput in = rank_3_of_8();
  in.forwarded = {"HOME=/home/user", "OMP_NUM_THREADS=4", "NOEQUALS"};
  const auto env = rank_environment(in);
  EXPECT_EQ(value_of(env, "HOME"), "/home/user");
  EXPECT_EQ(count_of(env, "HOME"), 1u);
  EXPECT_EQ(value_of(env, "OMP_NUM_THREADS"), "4");
  EXPECT_EQ(std::count(env.begin(), env.end(), "NOEQUALS"), 0);  // not a setting
}

TEST(RankEnvironment, OrcasIdentityWinsOverAForwardedOne) {
  RankEnvironmentInput in = rank_3_of_8();
  in.forwarded = {"ORCA_RANK=99", "RANK=99"};
  const auto env = rank_environment(in);
  EXPECT_EQ(value_of(env, "ORCA_RANK"), "3");
  EXPECT_EQ(value_of(env, "RANK"), "3");
}

TEST(RankEnvironment, DataPlaneVariablesOnlyForTheFamiliesAsked) {
  const auto env = rank_environment(rank_3_of_8());
  EXPECT_EQ(value_of(env, "GLOO_SOCKET_IFNAME"), "eth1");
  EXPECT_EQ(value_of(env, "MASTER_ADDR"), "10.0.1.5");
  EXPECT_EQ(value_of(env, "MASTER_PORT"), "29511");
  EXPECT_EQ(value_of(env, "NCCL_SOCKET_IFNAME"), std::nullopt);
  EXPECT_EQ(value_of(env, "OMPI_MCA_btl_tcp_if_include"), std::nullopt);
}

// The user's own setting, inherited or forwarded, leaves its family alone.
TEST(RankEnvironment, AFamilyTheUserSetIsLeftAlone) {
  RankEnvironmentInput in = rank_3_of_8();
  in.forwarded = {"GLOO_SOCKET_IFNAME=eth0"};
  EXPECT_EQ(value_of(rank_environment(in), "GLOO_SOCKET_IFNAME"), "eth0");
  in.forwarded.clear();
  in.inherited.push_back("GLOO_SOCKET_IFNAME=ib0");
  EXPECT_EQ(value_of(rank_environment(in), "GLOO_SOCKET_IFNAME"), "ib0");
}

TEST(RankEnvironment, TheLaunchersWordsSetAndUnset) {
  RankEnvironmentInput in = rank_3_of_8();
  in.inherited.push_back("SLURM_PROCID=0");
  in.inherited.push_back("SLURM_STEP_ID=7");
  in.launcher = {"SLURM_PROCID=3", "SLURM_LOCALID=1", "SLURM_STEP_ID"};
  const auto env = rank_environment(in);
  EXPECT_EQ(value_of(env, "SLURM_PROCID"), "3");
  EXPECT_EQ(value_of(env, "SLURM_LOCALID"), "1");
  EXPECT_EQ(value_of(env, "SLURM_STEP_ID"), std::nullopt);
}

// An outer job's PMI server (the daemon's own environment, or a launcher's
// word) is not the ranks': only the pmi modules' settings reach them.
TEST(RankEnvironment, OnlyThePmiModulesSettingsReachTheRank) {
  RankEnvironmentInput in = rank_3_of_8();
  in.inherited = {"PATH=/usr/bin", "PMI_FD=9", "PMI_RANK=0", "PMIX_SERVER_URI2=outer", "PMIX_MCA_gds=hash"};
  in.launcher = {"PMI_SIZE=64"};
  in.pmi = {{"PMI_FD", "12"}, {"PMI_RANK", "3"}, {"PMIX_NAMESPACE", "orca.1"}};
  const auto env = rank_environment(in);
  EXPECT_EQ(value_of(env, "PMI_FD"), "12");
  EXPECT_EQ(value_of(env, "PMI_RANK"), "3");
  EXPECT_EQ(value_of(env, "PMI_SIZE"), std::nullopt);
  EXPECT_EQ(value_of(env, "PMIX_SERVER_URI2"), std::nullopt);
  EXPECT_EQ(value_of(env, "PMIX_NAMESPACE"), "orca.1");
  EXPECT_EQ(value_of(env, "PMIX_MCA_gds"), "hash");  // tunes libpmix: stays
}

TEST(RankEnvironment, EachNameOnce) {
  RankEnvironmentInput in = rank_3_of_8();
  in.forwarded = {"PATH=/opt/bin", "PATH=/srv/bin"};
  in.pmi = {{"PMI_FD", "12"}, {"PMI_FD", "13"}};
  const auto env = rank_environment(in);
  for (const auto& e : env) EXPECT_EQ(count_of(env, e.substr(0, e.find('='))), 1u) << e;
  EXPECT_EQ(value_of(env, "PATH"), "/srv/bin");
  EXPECT_EQ(value_of(env, "PMI_FD"), "13");
}

TEST(RankEnvironment, NoLinkSetsNoInterfaceVariable) {
  RankEnvironmentInput in = rank_3_of_8();
  in.link = {};
  in.master = {};
  const auto env = rank_environment(in);
  EXPECT_EQ(value_of(env, "GLOO_SOCKET_IFNAME"), std::nullopt);
  EXPECT_EQ(value_of(env, "MASTER_ADDR"), std::nullopt);
  EXPECT_EQ(value_of(env, "ORCA_RANK"), "3");
}

}  // namespace
}  // namespace orca::launch
