// Every launch message, produced by the real parsers, renders from
// help-launch.txt with each placeholder filled.
#include "help/help.h"
#include <orca/host_list.h>

#include "launch/rank_map.h"
#include "launch/dvm_contact.h"
#include "launch/object_map.h"

#include "lib/expect_text.h"
#include "lib/temp_dir.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#ifndef ORCA_TEST_HELP_DIR
#error "ORCA_TEST_HELP_DIR must name the directory of Orca's help-*.txt files"
#endif

namespace orca::launch {
namespace {

using test::Contains;
using test::LacksText;

template <typename R>
Message error_of(const R& r) {
  EXPECT_FALSE(r.ok());
  return r.ok() ? Message("launch", "unexpected-success") : r.error();
}

std::vector<Message> every_message() {
  test::TempDir dir;
  std::vector<Message> out;
  out.push_back(error_of(expand_hostlist("", "--host")));
  out.push_back(error_of(expand_hostlist("n[5-3]", "SLURM_JOB_NODELIST")));
  out.push_back(error_of(expand_hostlist("n[1-10000000]", "--host")));
  out.push_back(error_of(expand_hostlist(std::string(240, 'a') + "[0-999999]", "--host")));
  out.push_back(error_of(parse_host_option("h:0")));
  out.push_back(error_of(parse_hostfile_text("a b\n", "/x")));
  out.push_back(error_of(parse_hostfile_text("a slots=2 max_slots=1\n", "/x")));
  out.push_back(error_of(parse_hostfile_text("# none\n", "/x")));
  out.push_back(error_of(read_hostfile(dir.path().string())));
  out.push_back(error_of(parse_tasks_per_node("2(x0)")));
  out.push_back(error_of(hosts_with_counts({"a"}, {}, "SLURM_JOB_NODELIST", "SLURM_TASKS_PER_NODE")));
  out.push_back(error_of(parse_map_by("core")));
  out.push_back(error_of(map_ranks({}, std::nullopt, MapBy::Slot, false)));
  const std::vector<HostSlots> one{HostSlots{"a", 2, true}};
  out.push_back(error_of(map_ranks(one, 0u, MapBy::Slot, false)));
  out.push_back(error_of(map_ranks({HostSlots{"a", 0, true}}, std::nullopt, MapBy::Slot, false)));
  out.push_back(error_of(map_ranks(one, kMaxRanks + 1, MapBy::Slot, true)));
  out.push_back(error_of(map_ranks(one, 3u, MapBy::Node, false)));
  const std::vector<HostSlots> capped{HostSlots{"a", 2, true, 3}};
  out.push_back(error_of(map_ranks(capped, 4u, MapBy::Node, true)));
  out.push_back(error_of(map_ranks_per_node(capped, 4, std::nullopt, true)));
  out.push_back(error_of(parse_rank_by("core")));
  out.push_back(error_of(map_ranks_per_object(one, {CpuTopology{}}, 1, Resource::Core, std::nullopt, false)));
  out.push_back(error_of(parse_dvm_contact("pid x\n", "/d/dvm.1")));
  out.push_back(error_of(read_dvm_contact((dir.path() / "dvm.1").string())));
  out.push_back(error_of(write_dvm_contact(dir.write("blocker", "") + "/sub", DvmContact{.pid = 1})));
  out.push_back(error_of(find_running_dvm(dir.path().string(), [](pid_t) { return false; })));
  dir.write("dvm.1", "");
  dir.write("dvm.2", "");
  out.push_back(error_of(find_running_dvm(dir.path().string(), [](pid_t) { return true; })));
  return out;
}

TEST(LaunchHelp, EveryMessageRendersCompletely) {
  HelpCatalog help("orcarun", {ORCA_TEST_HELP_DIR});
  std::set<std::string> topics;
  for (const Message& m : every_message()) {
    SCOPED_TRACE(m.summary());
    EXPECT_EQ(m.area(), "launch");
    topics.insert(m.topic());
    const std::string text = help.render(m);
    EXPECT_TRUE(LacksText(text, "not found in:"));
    EXPECT_TRUE(LacksText(text, "{"));
    EXPECT_TRUE(Contains(text, "orcarun: "));
  }
  EXPECT_EQ(topics.size(), 25u) << "one message per topic";
}

TEST(LaunchHelp, TooManyNamesTheOptionToSet) {
  HelpCatalog help("orcarun", {ORCA_TEST_HELP_DIR});
  const std::vector<HostSlots> two{HostSlots{"a", 2, true}, HostSlots{"b", 2, true}};
  const std::string text = help.render(map_ranks(two, 5u, MapBy::Slot, false).error());
  EXPECT_TRUE(Contains(text, "orcarun: -n 5 asks for more processes than the 4 slots of the 2 host(s)."));
  EXPECT_TRUE(Contains(text, "orcarun --oversubscribe -n 5 ./app"));
}

TEST(LaunchHelp, HostfileErrorsNameFileAndLine) {
  HelpCatalog help("orcarun", {ORCA_TEST_HELP_DIR});
  const std::string text = help.render(parse_hostfile_text("a\nb slots=x\n", "/etc/hosts.orca").error());
  EXPECT_TRUE(Contains(text, "orcarun: hostfile /etc/hosts.orca, line 2: slots=x is invalid"));
  const std::string inner = help.render(parse_hostfile_text("a\n\nb[1-\n", "/h").error());
  EXPECT_TRUE(Contains(inner, "the host list from hostfile /h:3 is invalid"));
}

}  // namespace
}  // namespace orca::launch
