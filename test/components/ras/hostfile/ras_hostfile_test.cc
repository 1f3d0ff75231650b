// ras/hostfile's module table (components/ras/hostfile/ras_hostfile_component.cc),
// loaded from the build tree as orcarun loads it: its priority setting, the
// decline when no host is named, the --host values then the --hostfile
// files in order with their slots, and an unusable value or file reported
// through the sink's fail as the launch message it is.
#include <orca/mca_framework.h>
#include <orca/ras.h>

#include "framework/plm/build_tree_runtime.h"
#include "lib/result_assertions.h"
#include "lib/temp_dir.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace orca::ras {
namespace {

using test::Succeeded;

/* One process with the ras framework open over ras/hostfile alone. */
struct Ras {
  explicit Ras(const std::vector<std::string>& settings = {}) : rt({"components/ras/hostfile/.libs"}, settings) {
    auto fw = rt.open(kFramework);
    EXPECT_TRUE(Succeeded(fw));
    if (!fw) return;
    for (const auto& e : fw.value()->entries()) {
      if (e.component->name() == "hostfile") entry = &e;
    }
    if (entry != nullptr && entry->state == mca::Framework::State::Selected) {
      module = static_cast<const orca_ras_module*>(entry->module);
    }
  }
  test::BuildTreeRuntime rt;
  const mca::Framework::Entry* entry = nullptr;
  const orca_ras_module* module = nullptr;
};

struct Node {
  std::string name;
  std::uint32_t slots = 0;
  bool slots_given = false;
  std::uint32_t max_slots = 0;
  bool operator==(const Node&) const = default;
};

/* What one allocate call put through the sink. */
struct Answer {
  orca_mca_rc rc = ORCA_MCA_OK;
  std::string why;
  std::vector<Node> nodes;
  std::optional<std::string> failure;  // "area/topic"
  int failures = 0;
};

Answer allocate(const orca_ras_module& m, const std::vector<std::string>& hosts,
                const std::vector<std::string>& hostfiles) {
  std::vector<const char*> h, f;
  for (const auto& s : hosts) h.push_back(s.c_str());
  for (const auto& s : hostfiles) f.push_back(s.c_str());
  const orca_ras_request request{
      .hosts = h.data(), .host_count = h.size(), .hostfiles = f.data(), .hostfile_count = f.size()};
  Answer a;
  const orca_ras_nodes out{
      .context = &a,
      .add =
          [](void* context, const char* name, std::uint32_t slots, int slots_given, std::uint32_t max_slots) {
            static_cast<Answer*>(context)->nodes.push_back(Node{name, slots, slots_given != 0, max_slots});
          },
      .fail =
          [](void* context, const char* area, const char* topic, const char* const*, size_t) {
            auto* answer = static_cast<Answer*>(context);
            answer->failure = std::string(area) + "/" + topic;
            ++answer->failures;
          }};
  orca_mca_reason why{};
  a.rc = m.allocate(m.self, &request, &out, &why);
  a.why = why.text;
  return a;
}

TEST(RasHostfileComponent, SelectedAtItsPriorityWhichTheSettingChanges) {
  Ras defaults;
  ASSERT_NE(defaults.entry, nullptr);
  ASSERT_NE(defaults.module, nullptr) << defaults.entry->reason;
  EXPECT_EQ(defaults.entry->priority, 10);

  Ras set({"ras_hostfile_priority=42"});
  ASSERT_NE(set.module, nullptr);
  EXPECT_EQ(set.entry->priority, 42);
}

TEST(RasHostfileComponent, DeclinesWhenNoHostIsNamed) {
  Ras r;
  ASSERT_NE(r.module, nullptr);
  const Answer a = allocate(*r.module, {}, {});
  EXPECT_EQ(a.rc, ORCA_MCA_DECLINED);
  EXPECT_NE(a.why.find("no --host or --hostfile"), std::string::npos) << a.why;
  EXPECT_TRUE(a.nodes.empty());
  EXPECT_EQ(a.failures, 0);
}

TEST(RasHostfileComponent, HostValuesInOrderWithTheirSlots) {
  Ras r;
  ASSERT_NE(r.module, nullptr);
  const Answer a = allocate(*r.module, {"b:2,a", "n[1-2]:3"}, {});
  ASSERT_EQ(a.rc, ORCA_MCA_OK) << a.why;
  EXPECT_EQ(a.nodes, (std::vector<Node>{{"b", 2, true}, {"a", 1, false}, {"n1", 3, true}, {"n2", 3, true}}));
}

TEST(RasHostfileComponent, HostfilesFollowTheHostValues) {
  Ras r;
  ASSERT_NE(r.module, nullptr);
  test::TempDir dir;
  const std::string one = dir.write("one", "h1 slots=4 max_slots=6\n# a comment\nh2\n");
  const std::string two = dir.write("two", "h3\n");
  const Answer a = allocate(*r.module, {"x"}, {one, two});
  ASSERT_EQ(a.rc, ORCA_MCA_OK) << a.why;
  // A hostfile's max_slots crosses the module boundary with its host.
  EXPECT_EQ(a.nodes,
            (std::vector<Node>{{"x", 1, false}, {"h1", 4, true, 6}, {"h2", 1, false}, {"h3", 1, false}}));
}

TEST(RasHostfileComponent, ABadHostValueOrAnUnreadableHostfileFailsWithTheLaunchMessage) {
  Ras r;
  ASSERT_NE(r.module, nullptr);
  const Answer bad_slots = allocate(*r.module, {"a:0"}, {});
  EXPECT_EQ(bad_slots.rc, ORCA_MCA_FAILED);
  EXPECT_EQ(bad_slots.failure, std::optional<std::string>("launch/host-bad-slots"));
  EXPECT_EQ(bad_slots.failures, 1);

  test::TempDir dir;
  const Answer missing = allocate(*r.module, {"a"}, {(dir.path() / "missing").string()});
  EXPECT_EQ(missing.rc, ORCA_MCA_FAILED);
  EXPECT_EQ(missing.failure, std::optional<std::string>("launch/hostfile-unreadable"));
  EXPECT_EQ(missing.failures, 1);
}

}  // namespace
}  // namespace orca::ras
