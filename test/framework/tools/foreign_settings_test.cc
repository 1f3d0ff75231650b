// split_foreign_settings: which of orcarun's --mca settings are Open MPI's
// own (to the ranks as OMPI_MCA_<name>) and which are Orca's, mistyped.
#include "orcarun/foreign_settings.h"

#include <gtest/gtest.h>

namespace orca::orcarun {
namespace {

using Strings = std::vector<std::string>;

mca::Setting from(mca::SourceKind kind, std::string name, std::string text) {
  return mca::Setting{std::move(name), std::move(text), mca::Source{kind, "", 0, 0}};
}
mca::Setting command_line(std::string name, std::string text) {
  return from(mca::SourceKind::CommandLine, std::move(name), std::move(text));
}

const std::set<std::string> kOrcaWords = {"mca", "oob", "plm", "pmi", "orcarun"};
bool orca_claims(const std::string& name) { return name == "oob_tcp_if_include" || name == "plm"; }

TEST(ForeignSettings, OpenMpisOwnFrameworksGoToTheRanksInOrder) {
  // As Horovod's wrapper passes them.
  const auto f = split_foreign_settings(
      {command_line("pml", "ob1"), command_line("btl", "^openib"), command_line("btl_tcp_if_include", "eth0")},
      orca_claims, kOrcaWords);
  EXPECT_EQ(f.environment, (Strings{"OMPI_MCA_pml=ob1", "OMPI_MCA_btl=^openib", "OMPI_MCA_btl_tcp_if_include=eth0"}));
  EXPECT_EQ(f.passed, (Strings{"pml", "btl", "btl_tcp_if_include"}));
  EXPECT_TRUE(f.mistyped.empty());
}

TEST(ForeignSettings, OrcasClaimedVariablesStayOrcas) {
  const auto f = split_foreign_settings({command_line("oob_tcp_if_include", "eth0"), command_line("plm", "rsh")},
                                        orca_claims, kOrcaWords);
  EXPECT_TRUE(f.environment.empty());
  EXPECT_TRUE(f.mistyped.empty());
}

TEST(ForeignSettings, AnUnclaimedNameOfOrcasWordsIsMistyped) {
  const auto f = split_foreign_settings(
      {command_line("oob_tcp_if_inclde", "eth0"), command_line("pml", "ob1"), command_line("orcarun_kill_grase", "2")},
      orca_claims, kOrcaWords);
  EXPECT_EQ(f.mistyped, (Strings{"oob_tcp_if_inclde", "orcarun_kill_grase"}));
  EXPECT_EQ(f.environment, Strings{"OMPI_MCA_pml=ob1"});
  EXPECT_EQ(first_word("oob_tcp_if_inclde"), "oob");
  EXPECT_EQ(first_word("pml"), "pml");
}

TEST(ForeignSettings, OnlyTheCommandLineIsPassedOnAndTheLastSettingWins) {
  // The environment's ORCA_MCA_ names and param files keep their warning:
  // a wrapper's -mca is what this is for.
  const auto f = split_foreign_settings({from(mca::SourceKind::Environment, "pml", "cm"),
                                         from(mca::SourceKind::ParamFile, "btl", "self"), command_line("pml", "ob1"),
                                         command_line("coll", "tuned"), command_line("pml", "ucx")},
                                        orca_claims, kOrcaWords);
  EXPECT_EQ(f.environment, (Strings{"OMPI_MCA_coll=tuned", "OMPI_MCA_pml=ucx"}));
  EXPECT_EQ(f.passed, (Strings{"coll", "pml"}));
}

}  // namespace
}  // namespace orca::orcarun
