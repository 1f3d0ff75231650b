// choose_module, daemon_command, failure_hint and daemon_program
// (framework/plm/plm_base.cc) over the real plm/local and plm/rsh (and, for
// failure_hint, plm/slurm) components loaded from the build tree. (A Framework is filled only by a ComponentRepository scan, so there
// is no way to hand choose_module fake modules without dlopen; the real
// components, with their priorities changed through settings, cover the
// same choices.) plm/local's own module table is tested in
// test/components/plm/local/plm_local_test.cc.
#include <orca/mca_framework.h>
#include "plm/plm_base.h"

#include "framework/plm/plm_component_fixture.h"
#include "lib/result_assertions.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <string>
#include <vector>

namespace orca::plm {
namespace {

using test::BuildTreeRuntime;
using test::FailedWith;
using test::Plm;
using test::Succeeded;
using Words = std::vector<std::string>;

std::string this_host() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

TEST(ChooseModule, BothComponentsAreSelectedLocalFirst) {
  Plm p;
  ASSERT_NE(p.framework, nullptr);
  const auto selected = p.framework->selected();
  ASSERT_EQ(selected.size(), 2u);
  EXPECT_EQ(selected[0]->component->name(), "local");
  EXPECT_EQ(selected[1]->component->name(), "rsh");
}

TEST(ChooseModule, ThisHostUnderAnyNameGoesToLocal) {
  Plm p;
  ASSERT_NE(p.framework, nullptr);
  auto c = p.choose({"localhost", "127.0.0.1", "::1", this_host(), "localhost#3"});
  ASSERT_TRUE(Succeeded(c));
  EXPECT_EQ(c->component, "local");
  EXPECT_NE(c->module, nullptr);
}

TEST(ChooseModule, AnyOtherHostInTheJobGoesToRsh) {
  Plm p;
  ASSERT_NE(p.framework, nullptr);
  auto c = p.choose({"localhost", "node-x.invalid"});
  ASSERT_TRUE(Succeeded(c));
  EXPECT_EQ(c->component, "rsh");
}

TEST(ChooseModule, PriorityDecidesAmongModulesThatAccept) {
  Plm p({"plm_rsh_priority=30"});
  ASSERT_NE(p.framework, nullptr);
  auto c = p.choose({"localhost"});
  ASSERT_TRUE(Succeeded(c));
  EXPECT_EQ(c->component, "rsh");
}

TEST(ChooseModule, NoModuleAcceptingAHostIsAnErrorNamingTheHostAndTheAnswers) {
  Plm p({"plm=local"});
  ASSERT_NE(p.framework, nullptr);
  auto c = p.choose({"localhost", "node-a.invalid", "node-b.invalid"});
  ASSERT_TRUE(FailedWith(c, "plm", "no-launcher"));
  EXPECT_EQ(c.error().arg("host"), "node-a.invalid");
  const std::string answers = c.error().arg("answers");
  EXPECT_NE(answers.find("plm/local: node-a.invalid is not this host"), std::string::npos) << answers;
  const std::string text = p.rt.runtime().help().render(c.error());
  EXPECT_NE(text.find("node-a.invalid"), std::string::npos) << text;
  EXPECT_NE(text.find("plm/local"), std::string::npos) << text;
}

TEST(ChooseModule, AHostNameIsMadePrintableInTheError) {
  Plm p({"plm=local"});
  ASSERT_NE(p.framework, nullptr);
  auto c = p.choose({"evil\x1b[2Jhost"});
  ASSERT_TRUE(FailedWith(c, "plm", "no-launcher"));
  EXPECT_EQ(c.error().arg("host").find('\x1b'), std::string::npos) << c.error().summary();
  EXPECT_EQ(c.error().arg("answers").find('\x1b'), std::string::npos) << c.error().summary();
}

TEST(ChooseModule, NothingSelectedIsAnError) {
  Plm p({"plm=^local,rsh"});
  ASSERT_NE(p.framework, nullptr);
  EXPECT_TRUE(FailedWith(p.choose({"localhost"}), "plm", "none-selected"));
}

TEST(DaemonCommand, LocalRunsTheDaemonWordsAsTheyAre) {
  Plm p;
  ASSERT_NE(p.framework, nullptr);
  auto c = p.choose({"localhost"});
  ASSERT_TRUE(Succeeded(c));
  const Words daemon = {"/opt/orca/bin/orcad", "--mca", "a b", "it's"};
  auto w = daemon_command(c.value(), "localhost", daemon);
  ASSERT_TRUE(Succeeded(w));
  EXPECT_EQ(w.value(), daemon);
}

TEST(DaemonCommand, RshPutsTheAgentAndHostFirstAndQuotesTheDaemonWords) {
  Plm p;
  ASSERT_NE(p.framework, nullptr);
  auto c = p.choose({"n1"});
  ASSERT_TRUE(Succeeded(c));
  auto w = daemon_command(c.value(), "n1", {"/opt/orca/bin/orcad", "a b"});
  ASSERT_TRUE(Succeeded(w));
  EXPECT_EQ(w.value(), (Words{"ssh", "-x", "-o", "BatchMode=yes", "n1", "/opt/orca/bin/orcad", "'a b'"}));
}

TEST(DaemonCommand, RshTakesTheAgentFromItsSetting) {
  Plm p({"plm_rsh_agent=my-agent --opt 'two words'"});
  ASSERT_NE(p.framework, nullptr);
  auto c = p.choose({"n1"});
  ASSERT_TRUE(Succeeded(c));
  auto w = daemon_command(c.value(), "n1", {"orcad"});
  ASSERT_TRUE(Succeeded(w));
  EXPECT_EQ(w.value(), (Words{"my-agent", "--opt", "two words", "n1", "orcad"}));
}

TEST(DaemonCommand, RshRefusesAHostThatReadsAsAnOption) {
  Plm p;
  ASSERT_NE(p.framework, nullptr);
  auto c = p.choose({"-oProxyCommand=touch /tmp/x"});
  ASSERT_TRUE(Succeeded(c)) << "rsh accepts every host; the command refuses it";
  auto w = daemon_command(c.value(), "-oProxyCommand=touch /tmp/x", {"orcad"});
  ASSERT_TRUE(FailedWith(w, "plm", "no-command"));
  EXPECT_EQ(w.error().arg("component"), "rsh");
  EXPECT_NE(w.error().arg("why").find("starts with '-'"), std::string::npos) << w.error().summary();
}

TEST(RshComponent, ABadAgentSettingFailsTheComponentWithTheReason) {
  Plm p({"plm_rsh_agent=ssh -o 'unclosed"});
  ASSERT_NE(p.framework, nullptr);
  const auto* rsh = p.entry("rsh");
  ASSERT_NE(rsh, nullptr);
  EXPECT_EQ(rsh->state, mca::Framework::State::Failed);
  EXPECT_NE(rsh->reason.find("unclosed"), std::string::npos) << rsh->reason;
  // plm/local is still there for this host.
  auto c = p.choose({"localhost"});
  ASSERT_TRUE(Succeeded(c));
  EXPECT_EQ(c->component, "local");
  EXPECT_TRUE(FailedWith(p.choose({"n1"}), "plm", "no-launcher"));
}

TEST(RshComponent, ConcurrencyAndTreeSpawnFollowTheSettings) {
  Plm defaults;
  ASSERT_NE(defaults.framework, nullptr);
  auto c = defaults.choose({"n1"});
  ASSERT_TRUE(Succeeded(c));
  const orca_plm_module* m = c->module;
  EXPECT_EQ(m->max_concurrent(m->self), 128u);
  EXPECT_EQ(m->tree_spawn(m->self, 15), 0);
  EXPECT_EQ(m->tree_spawn(m->self, 16), 1);
  EXPECT_EQ(m->simulated_nodes(m->self), 1u);

  Plm set({"plm_rsh_num_concurrent=3", "plm_rsh_tree_spawn=false"});
  ASSERT_NE(set.framework, nullptr);
  auto s = set.choose({"n1"});
  ASSERT_TRUE(Succeeded(s));
  EXPECT_EQ(s->module->max_concurrent(s->module->self), 3u);
  EXPECT_EQ(s->module->tree_spawn(s->module->self, 1000), 0);
}

// --- failure_hint: the launcher's own advice when its daemon fails --------

TEST(FailureHint, RshNamesItsAgentAsTheUserWouldTypeIt) {
  Plm p({"plm_rsh_agent=my-agent -p 2222"});
  ASSERT_NE(p.framework, nullptr);
  auto c = p.choose({"n1"});
  ASSERT_TRUE(Succeeded(c));
  EXPECT_EQ(failure_hint(c.value(), "n4"),
            "If the host cannot be reached, check the host name and plm_rsh_agent (try: my-agent -p 2222 n4 true)");
}

TEST(FailureHint, WithoutOneTheDaemonsOutputIsWhatToRead) {
  Plm p;
  ASSERT_NE(p.framework, nullptr);
  auto c = p.choose({"localhost"});
  ASSERT_TRUE(Succeeded(c));
  ASSERT_EQ(c->module->failure_hint, nullptr);
  EXPECT_EQ(failure_hint(c.value(), "localhost"), "Check what the daemon printed above (plm/local)");
}

TEST(FailureHint, AHostsControlBytesAreMadePrintable) {
  Plm p;
  ASSERT_NE(p.framework, nullptr);
  auto c = p.choose({"n1"});
  ASSERT_TRUE(Succeeded(c));
  const std::string hint = failure_hint(c.value(), "n1\x1b[2J");
  EXPECT_EQ(hint.find('\x1b'), std::string::npos) << hint;
  EXPECT_NE(hint.find("n1\\x1b[2J true"), std::string::npos) << hint;
}

// plm/slurm opens only inside an allocation: these variables are what
// srun's environment would hold, for this test's process alone.
class SlurmAllocation {
 public:
  SlurmAllocation() {
    ::setenv("SLURM_JOB_ID", "17", 1);
    ::setenv("SLURM_JOB_NODELIST", "h[1-2]", 1);
  }
  ~SlurmAllocation() {
    ::unsetenv("SLURM_JOB_ID");
    ::unsetenv("SLURM_JOB_NODELIST");
  }
  SlurmAllocation(const SlurmAllocation&) = delete;
  SlurmAllocation& operator=(const SlurmAllocation&) = delete;
};

TEST(FailureHint, SlurmPointsAtSrunsOutputAndTheNodesState) {
  const SlurmAllocation allocation;
  BuildTreeRuntime rt({"components/plm/slurm/.libs"}, {});
  auto fw = rt.open(kFramework);
  ASSERT_TRUE(Succeeded(fw));
  auto c = choose_module(*fw.value(), {"h2"});
  ASSERT_TRUE(Succeeded(c));
  ASSERT_EQ(c->component, "slurm");
  const std::string hint = failure_hint(c.value(), "h2");
  EXPECT_NE(hint.find("sinfo -n h2"), std::string::npos) << hint;
  EXPECT_NE(hint.find("--mca plm rsh"), std::string::npos) << hint;
}

TEST(DaemonProgram, TheSettingOrTheOrcadBesideThisProgram) {
  Plm set({"plm_base_daemon=/opt/x/bin/orcad"});
  ASSERT_NE(set.framework, nullptr);
  EXPECT_EQ(daemon_program(set.rt.runtime().registry()), Words{"/opt/x/bin/orcad"});
  Plm unset;
  ASSERT_NE(unset.framework, nullptr);
  const Words d = daemon_program(unset.rt.runtime().registry());
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0], default_daemon_path());
  EXPECT_EQ(d[0].substr(d[0].size() - 6), "/orcad") << d[0];
}

}  // namespace
}  // namespace orca::plm
