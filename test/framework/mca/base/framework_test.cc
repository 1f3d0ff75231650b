// Framework: variables, selection and the component lifecycle, driven
// through framework "test" (interface version 3) and real fixture
// components loaded from a per-test directory of copies.
#include <orca/mca_framework.h>
#include <orca/mca_repository.h>
#include <orca/mca_var.h>

#include "lib/component_fixtures.h"
#include "lib/expect_text.h"
#include "lib/temp_dir.h"
#include "mca/base/component_registrar.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace orca::mca {
namespace {

using ::orca::test::Contains;
using ::orca::test::copy_fixture;
using ::orca::test::LacksText;
using ::orca::test::TempDir;
using State = Framework::State;

// What the fixtures' query hands back as the module (test_component.h).
struct TestModule {
  const char* component;
  int priority;
  int process_role;
};

constexpr FrameworkDecl kOne{"test", "The test framework", 3, SelectMode::One};
constexpr FrameworkDecl kAll{"test", "The test framework", 3, SelectMode::All};

Source from(SourceKind kind) { return Source{kind, "", 0, 0}; }


class FrameworkTest : public ::testing::Test {
 protected:
  // Copies the named fixtures into the test's directory and scans it.
  void load(const std::vector<std::string>& components) {
    for (const auto& c : components) copy_fixture(dir_, c);
    repository_ = ComponentRepository::scan({dir_.path().string()});
    ASSERT_EQ(repository_.loaded().size(), components.size()) << "a fixture did not load";
  }

  void set(const std::string& name, const std::string& text, SourceKind kind = SourceKind::CommandLine) {
    Status st = registry_.add_setting(Setting{name, text, from(kind)});
    ASSERT_TRUE(st.ok()) << st.error().summary();
  }

  Framework& make(const FrameworkDecl& decl) {
    framework_ = std::make_unique<Framework>(decl, registry_, repository_,
                                             [this](const std::string& line) { log_.push_back(line); });
    return *framework_;
  }

  // Creates the framework and registers its variables, which must succeed.
  Framework& registered(const FrameworkDecl& decl) {
    Framework& fw = make(decl);
    Status st = fw.register_vars();
    EXPECT_TRUE(st.ok()) << st.error().summary();
    return fw;
  }

  static const Framework::Entry* entry(const Framework& fw, std::string_view name) {
    for (const auto& e : fw.entries()) {
      if (e.component->name() == name) return &e;
    }
    return nullptr;
  }

  // good.c reads test_good_priority through its open() context.
  void set_good_priority(const char* value) {
    ASSERT_TRUE(registry_.add_setting(Setting{"test_good_priority", value, from(SourceKind::CommandLine)}).ok());
  }

  static std::vector<std::string> selected_names(const Framework& fw) {
    std::vector<std::string> out;
    for (const auto* e : fw.selected()) out.emplace_back(e->component->name());
    return out;
  }

  // Declared in destruction order: the framework closes its components
  // before the repository unloads them, before the registry goes.
  Registry registry_;
  TempDir dir_;
  ComponentRepository repository_;
  std::vector<std::string> log_;
  std::unique_ptr<Framework> framework_;
};

// --- register_vars ----------------------------------------------------------

TEST_F(FrameworkTest, RegisterDeclaresTheFrameworkVariables) {
  load({});
  Framework& fw = registered(kOne);

  const Variable* select = registry_.find("test");
  ASSERT_NE(select, nullptr);
  EXPECT_EQ(select->spec().type, VarType::String);
  EXPECT_EQ(select->as_string(), "");
  EXPECT_TRUE(select->is_default());
  EXPECT_EQ(select->group(), "base");
  EXPECT_TRUE(Contains(select->spec().description, "The test framework"));

  const Variable* verbose = registry_.find("test_base_verbose");
  ASSERT_NE(verbose, nullptr);
  EXPECT_EQ(verbose->spec().type, VarType::Int);
  EXPECT_EQ(verbose->as_int(), 0);
  EXPECT_EQ(fw.verbosity(), 0);
  EXPECT_TRUE(fw.entries().empty());
}

TEST_F(FrameworkTest, RegisterDeclaresTheComponentVariablesWithTheirDefaults) {
  load({"good", "second"});
  Framework& fw = registered(kOne);

  ASSERT_EQ(fw.entries().size(), 2u);
  for (const auto& e : fw.entries()) {
    EXPECT_EQ(e.state, State::Registered) << e.component->name();
    EXPECT_TRUE(e.reason.empty()) << e.reason;
    EXPECT_FALSE(e.opened);
    EXPECT_EQ(e.module, nullptr);
  }

  const Variable* flag = registry_.find("test_good_flag");
  ASSERT_NE(flag, nullptr);
  EXPECT_EQ(flag->spec().type, VarType::Bool);
  EXPECT_FALSE(flag->as_bool());
  EXPECT_EQ(flag->spec().framework, "test");
  EXPECT_EQ(flag->spec().component, "good");
  EXPECT_EQ(flag->group(), "good");
  EXPECT_EQ(flag->spec().level, 2);
  EXPECT_EQ(flag->spec().description, "A boolean");
  EXPECT_EQ(flag->spec().synonyms, (std::vector<std::string>{"test_good_old_flag"}));
  EXPECT_EQ(registry_.find("test_good_old_flag"), flag);

  ASSERT_NE(registry_.find("test_good_priority"), nullptr);
  EXPECT_EQ(registry_.find("test_good_priority")->as_int(), 50);
  ASSERT_NE(registry_.find("test_good_count"), nullptr);
  EXPECT_EQ(registry_.find("test_good_count")->as_unsigned(), 3u);
  ASSERT_NE(registry_.find("test_good_buffer"), nullptr);
  EXPECT_EQ(registry_.find("test_good_buffer")->as_size(), 64u * 1024u);
  ASSERT_NE(registry_.find("test_good_ratio"), nullptr);
  EXPECT_DOUBLE_EQ(registry_.find("test_good_ratio")->as_double(), 0.5);
  ASSERT_NE(registry_.find("test_good_label"), nullptr);
  EXPECT_EQ(registry_.find("test_good_label")->as_string(), "hello");
  const Variable* mode = registry_.find("test_good_mode");
  ASSERT_NE(mode, nullptr);
  EXPECT_EQ(mode->spec().type, VarType::Enum);
  EXPECT_EQ(mode->as_string(), "safe");
  EXPECT_EQ(mode->spec().enum_words, (std::vector<std::string>{"fast", "safe"}));
  ASSERT_NE(registry_.find("test_good_list"), nullptr);
  EXPECT_EQ(registry_.find("test_good_list")->as_list(), (std::vector<std::string>{"a", "b"}));

  // The order: the framework's own, then good's in its table order.
  std::vector<std::string> names;
  for (const auto* v : registry_.variables()) names.push_back(v->name());
  EXPECT_EQ(names, (std::vector<std::string>{"test", "test_base_verbose", "test_good_flag", "test_good_priority",
                                             "test_good_count", "test_good_buffer", "test_good_ratio",
                                             "test_good_label", "test_good_mode", "test_good_list"}));
}

TEST_F(FrameworkTest, ASettingMadeBeforeRegisterIsApplied) {
  load({"good"});
  set("test_good_mode", "fast");
  set("test_good_old_flag", "yes", SourceKind::Environment);  // through the deprecated synonym
  set("test", "good", SourceKind::Environment);
  registered(kOne);

  const Variable* mode = registry_.find("test_good_mode");
  ASSERT_NE(mode, nullptr);
  EXPECT_EQ(mode->as_string(), "fast");
  EXPECT_EQ(mode->source().kind, SourceKind::CommandLine);
  ASSERT_NE(registry_.find("test_good_flag"), nullptr);
  EXPECT_TRUE(registry_.find("test_good_flag")->as_bool());
  EXPECT_EQ(registry_.find("test")->as_string(), "good");
  EXPECT_EQ(registry_.find("test")->source().kind, SourceKind::Environment);
}

TEST_F(FrameworkTest, ABadValueForAComponentVariableIsReportedWithoutFailingTheComponent) {
  load({"good"});
  set("test_good_count", "minus three", SourceKind::Environment);
  Framework& fw = make(kOne);
  Status st = fw.register_vars();

  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().topic(), "bad-value");
  EXPECT_EQ(st.error().arg("name"), "test_good_count");
  EXPECT_EQ(st.error().arg("source"), "environment");
  // The user's setting is wrong, not the component: it stays usable, its
  // variable keeps the default and its later variables are declared too.
  const Framework::Entry* good = entry(fw, "good");
  ASSERT_NE(good, nullptr);
  EXPECT_EQ(good->state, State::Registered) << good->reason;
  ASSERT_NE(registry_.find("test_good_count"), nullptr);
  EXPECT_EQ(registry_.find("test_good_count")->as_unsigned(), 3u);
  EXPECT_NE(registry_.find("test_good_list"), nullptr);

  ASSERT_TRUE(fw.open().ok());
  EXPECT_EQ(good->state, State::Selected);
}

TEST_F(FrameworkTest, ABadValueForTheFrameworkVerboseVariableIsReportedAndComponentsStillRegister) {
  // Like a bad component value (above) and like the mca_base_* variables
  // (Runtime declares them all), one bad setting must not keep the other
  // variables from being declared: the header promises "the first one
  // found" of the bad settings of any of these variables.
  load({"good"});
  set("test_base_verbose", "loud");
  set("test_good_mode", "slow");
  Framework& fw = make(kOne);
  Status st = fw.register_vars();

  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().topic(), "bad-value");
  EXPECT_EQ(st.error().arg("name"), "test_base_verbose");
  EXPECT_EQ(st.error().arg("source"), "command line");
  ASSERT_NE(registry_.find("test_base_verbose"), nullptr);
  EXPECT_EQ(registry_.find("test_base_verbose")->as_int(), 0);
  EXPECT_EQ(fw.entries().size(), 1u);
  EXPECT_NE(registry_.find("test_good_mode"), nullptr);
}

TEST_F(FrameworkTest, RegisterKeepsEachDeclaredRange) {
  load({"good"});
  registered(kOne);
  const std::vector<std::pair<std::string, std::pair<std::string, std::string>>> ranges = {
      {"test_base_verbose", {"0", "100"}},   {"test_good_priority", {"-1000", "1000"}},
      {"test_good_count", {"1", "100"}},      {"test_good_buffer", {"4k", "1G"}},
      {"test_good_ratio", {"0", "1"}},        {"test_good_label", {"", ""}},
  };
  for (const auto& [name, range] : ranges) {
    SCOPED_TRACE(name);
    const Variable* v = registry_.find(name);
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->spec().min_text, range.first);
    EXPECT_EQ(v->spec().max_text, range.second);
  }
  EXPECT_EQ(valid_values(registry_.find("test_good_buffer")->spec()),
            "a byte count from 4k to 1G with an optional suffix k, M, G or T (powers of 1024)");
}

TEST_F(FrameworkTest, AnOutOfRangeValueForAComponentVariableIsABadValueNamingTheRange) {
  load({"good"});
  set_good_priority("1001");
  Framework& fw = make(kOne);
  Status st = fw.register_vars();

  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().topic(), "bad-value");
  EXPECT_EQ(st.error().arg("name"), "test_good_priority");
  EXPECT_EQ(st.error().arg("source"), "command line");
  EXPECT_EQ(st.error().arg("why"), "out of range");
  EXPECT_EQ(st.error().arg("valid"), "a whole number from -1000 to 1000");
  // As for any bad value: the component is fine and keeps its default.
  const Framework::Entry* good = entry(fw, "good");
  ASSERT_NE(good, nullptr);
  EXPECT_EQ(good->state, State::Registered) << good->reason;
  EXPECT_EQ(registry_.find("test_good_priority")->as_int(), 50);
  ASSERT_TRUE(fw.open().ok());
  EXPECT_EQ(good->priority, 50);
}

TEST_F(FrameworkTest, AnOutOfRangeFrameworkVerbosityIsABadValue) {
  load({});
  set("test_base_verbose", "101", SourceKind::Environment);
  Framework& fw = make(kOne);
  Status st = fw.register_vars();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().topic(), "bad-value");
  EXPECT_EQ(st.error().arg("name"), "test_base_verbose");
  EXPECT_EQ(st.error().arg("source"), "environment");
  EXPECT_TRUE(Contains(st.error().arg("valid"), "from 0 to 100"));
  EXPECT_EQ(fw.verbosity(), 0);
}

TEST_F(FrameworkTest, AnOlderInterfaceVersionFailsTheComponent) {
  load({"oldiface", "second"});
  Framework& fw = registered(kOne);

  const Framework::Entry* old = entry(fw, "oldiface");
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(old->state, State::Failed);
  EXPECT_TRUE(Contains(old->reason, "interface version 2"));
  EXPECT_TRUE(Contains(old->reason, "version 3"));

  // It is never opened, even though its priority (99) would win.
  ASSERT_TRUE(fw.open().ok());
  EXPECT_EQ(old->state, State::Failed);
  EXPECT_FALSE(old->opened);
  EXPECT_EQ(old->module, nullptr);
  EXPECT_EQ(selected_names(fw), (std::vector<std::string>{"second"}));
}

TEST_F(FrameworkTest, AWronglyDeclaredVariableFailsTheComponentOnly) {
  load({"badvar", "second"});
  Framework& fw = make(kOne);
  Status st = fw.register_vars();
  EXPECT_TRUE(st.ok()) << "a broken component is not the user's error: " << st.error().summary();

  const Framework::Entry* bad = entry(fw, "badvar");
  ASSERT_NE(bad, nullptr);
  EXPECT_EQ(bad->state, State::Failed);
  EXPECT_TRUE(Contains(bad->reason, "could not declare its variables"));
  EXPECT_TRUE(Contains(bad->reason, "test_badvar_broken"));
  EXPECT_TRUE(Contains(bad->reason, "enum"));
  EXPECT_EQ(registry_.find("test_badvar_broken"), nullptr);

  ASSERT_TRUE(fw.open().ok());
  EXPECT_EQ(bad->state, State::Failed);
  EXPECT_FALSE(bad->opened);
  EXPECT_EQ(selected_names(fw), (std::vector<std::string>{"second"}));
}

// --- open: selection by priority --------------------------------------------

TEST_F(FrameworkTest, SelectOnePicksTheHighestPriority) {
  load({"good", "second"});
  Framework& fw = registered(kOne);
  Status st = fw.open();
  ASSERT_TRUE(st.ok()) << st.error().summary();

  const Framework::Entry* good = entry(fw, "good");
  const Framework::Entry* second = entry(fw, "second");
  ASSERT_NE(good, nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(good->state, State::Selected);
  EXPECT_EQ(good->priority, 50);
  EXPECT_TRUE(good->opened);
  ASSERT_NE(good->module, nullptr);
  EXPECT_STREQ(static_cast<const TestModule*>(good->module)->component, "good");

  EXPECT_EQ(second->state, State::Available);
  EXPECT_EQ(second->priority, 10);
  EXPECT_TRUE(Contains(second->reason, "10"));
  EXPECT_TRUE(Contains(second->reason, "good"));
  EXPECT_TRUE(Contains(second->reason, "50"));
  EXPECT_FALSE(second->opened);  // released: only one module is used
  EXPECT_EQ(second->module, nullptr);

  EXPECT_EQ(selected_names(fw), (std::vector<std::string>{"good"}));
}

TEST_F(FrameworkTest, SelectOneFollowsAChangedPriority) {
  load({"good", "second"});
  set_good_priority("5");
  Framework& fw = registered(kOne);
  Status st = fw.open();
  ASSERT_TRUE(st.ok()) << st.error().summary();

  EXPECT_EQ(selected_names(fw), (std::vector<std::string>{"second"}));
  const Framework::Entry* good = entry(fw, "good");
  ASSERT_NE(good, nullptr);
  EXPECT_EQ(good->state, State::Available);
  EXPECT_EQ(good->priority, 5);
  EXPECT_TRUE(Contains(good->reason, "second"));
  EXPECT_FALSE(good->opened);
  EXPECT_EQ(good->module, nullptr);
  const Framework::Entry* second = entry(fw, "second");
  ASSERT_NE(second, nullptr);
  ASSERT_NE(second->module, nullptr);
  EXPECT_STREQ(static_cast<const TestModule*>(second->module)->component, "second");
}

TEST_F(FrameworkTest, SelectAllKeepsEveryModuleInPriorityOrder) {
  load({"good", "second"});
  {
    set_good_priority("5");
    Framework& fw = registered(kAll);
    ASSERT_TRUE(fw.open().ok());
    EXPECT_EQ(selected_names(fw), (std::vector<std::string>{"second", "good"}));
    for (const auto* e : fw.selected()) {
      EXPECT_EQ(e->state, State::Selected);
      EXPECT_TRUE(e->opened);
      EXPECT_NE(e->module, nullptr);
      EXPECT_TRUE(e->reason.empty()) << e->reason;
    }
  }
  framework_.reset();
  Registry fresh;
  Framework fw(kAll, fresh, repository_, [](const std::string&) {});
  ASSERT_TRUE(fw.register_vars().ok());
  ASSERT_TRUE(fw.open().ok());
  EXPECT_EQ(selected_names(fw), (std::vector<std::string>{"good", "second"}));
  ASSERT_EQ(fw.selected().size(), 2u);
  EXPECT_EQ(fw.selected()[0]->priority, 50);
  EXPECT_EQ(fw.selected()[1]->priority, 10);
}

TEST_F(FrameworkTest, ADecliningComponentIsKeptWithItsReason) {
  load({"decliner", "good"});
  Framework& fw = registered(kAll);
  ASSERT_TRUE(fw.open().ok());

  const Framework::Entry* decliner = entry(fw, "decliner");
  ASSERT_NE(decliner, nullptr);
  EXPECT_EQ(decliner->state, State::Declined);
  EXPECT_EQ(decliner->reason, "no hardware for it on this host");
  EXPECT_FALSE(decliner->opened);
  EXPECT_EQ(decliner->module, nullptr);
  EXPECT_EQ(selected_names(fw), (std::vector<std::string>{"good"}));
}

// --- open: the selection variable -------------------------------------------

TEST_F(FrameworkTest, TheSelectionVariableIncludesOnlyTheNamedComponents) {
  load({"good", "second"});
  set("test", "second");
  Framework& fw = registered(kOne);
  ASSERT_TRUE(fw.open().ok());

  const Framework::Entry* good = entry(fw, "good");
  ASSERT_NE(good, nullptr);
  EXPECT_EQ(good->state, State::Excluded);
  EXPECT_TRUE(Contains(good->reason, "test=second"));
  EXPECT_TRUE(Contains(good->reason, "command line"));
  EXPECT_FALSE(good->opened);
  EXPECT_EQ(selected_names(fw), (std::vector<std::string>{"second"}));
}

TEST_F(FrameworkTest, TheSelectionVariableCanExclude) {
  load({"good", "second"});
  set("test", "^good", SourceKind::Environment);
  Framework& fw = registered(kOne);
  ASSERT_TRUE(fw.open().ok());

  const Framework::Entry* good = entry(fw, "good");
  ASSERT_NE(good, nullptr);
  EXPECT_EQ(good->state, State::Excluded);
  EXPECT_TRUE(Contains(good->reason, "test=^good"));
  EXPECT_TRUE(Contains(good->reason, "environment"));
  EXPECT_EQ(selected_names(fw), (std::vector<std::string>{"second"}));
  EXPECT_EQ(entry(fw, "second")->state, State::Selected);
}

// A component left out unloaded (LeaveOut) is still a name: a selection
// that names it parses, and it simply is not there.
TEST_F(FrameworkTest, ASelectionMayNameALeftOutComponent) {
  copy_fixture(dir_, "good");
  copy_fixture(dir_, "second");
  repository_ = ComponentRepository::scan({dir_.path().string()}, {}, LeaveOut{.components = {"test/good"}, .why = "unused"});
  set("test", "^good");
  Framework& fw = registered(kAll);
  ASSERT_TRUE(fw.open().ok());
  EXPECT_EQ(entry(fw, "good"), nullptr);
  EXPECT_EQ(selected_names(fw), (std::vector<std::string>{"second"}));
}

TEST_F(FrameworkTest, AnUnknownComponentInTheSelectionFailsOpen) {
  load({"good", "second"});
  set("test", "nosuch");
  Framework& fw = registered(kOne);
  Status st = fw.open();

  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().area(), "mca-base");
  EXPECT_EQ(st.error().topic(), "bad-selection");
  EXPECT_EQ(st.error().arg("framework"), "test");
  EXPECT_EQ(st.error().arg("value"), "nosuch");
  EXPECT_EQ(st.error().arg("source"), "command line");
  EXPECT_EQ(st.error().arg("available"), "good, second");
  for (const auto& e : fw.entries()) {
    EXPECT_EQ(e.state, State::Registered) << e.component->name();
    EXPECT_FALSE(e.opened) << e.component->name();
  }
  EXPECT_TRUE(fw.selected().empty());
}

TEST_F(FrameworkTest, SelectOneWithNothingLeftIsAnErrorSayingWhy) {
  load({"decliner", "good"});
  set("test", "^good");
  Framework& fw = registered(kOne);
  Status st = fw.open();

  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().topic(), "no-component");
  EXPECT_EQ(st.error().arg("framework"), "test");
  const std::string tried = st.error().arg("tried");
  EXPECT_TRUE(Contains(tried, "good: excluded"));
  EXPECT_TRUE(Contains(tried, "test=^good"));
  EXPECT_TRUE(Contains(tried, "decliner: declined"));
  EXPECT_TRUE(Contains(tried, "no hardware for it on this host"));
}

TEST_F(FrameworkTest, SelectOneWithNoComponentAtAllIsAnError) {
  load({});
  Framework& fw = registered(kOne);
  Status st = fw.open();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().topic(), "no-component");
  EXPECT_TRUE(Contains(st.error().arg("tried"), "no component of this framework was found"));
}

TEST_F(FrameworkTest, SelectAllWithNothingLeftIsNoError) {
  load({"decliner"});
  Framework& fw = registered(kAll);
  EXPECT_TRUE(fw.open().ok());
  EXPECT_TRUE(fw.selected().empty());
}

TEST_F(FrameworkTest, OnlyComponentsOfTheFrameworkTakePart) {
  // A second framework sees none of framework "test"'s components.
  load({"good"});
  Framework other(FrameworkDecl{"other", "Another framework", 3, SelectMode::All}, registry_, repository_,
                  [](const std::string&) {});
  ASSERT_TRUE(other.register_vars().ok());
  EXPECT_TRUE(other.entries().empty());
  EXPECT_EQ(registry_.find("test_good_flag"), nullptr);
  ASSERT_TRUE(other.open().ok());
  EXPECT_TRUE(other.selected().empty());
}

// --- verbose output ---------------------------------------------------------

TEST_F(FrameworkTest, QuietByDefault) {
  load({"good", "decliner", "oldiface"});
  Framework& fw = registered(kOne);
  ASSERT_TRUE(fw.open().ok());
  EXPECT_TRUE(log_.empty()) << log_.front();
}

TEST_F(FrameworkTest, VerboseTenExplainsSelection) {
  load({"good", "decliner", "oldiface"});
  set("test_base_verbose", "10");
  Framework& fw = registered(kOne);
  EXPECT_EQ(fw.verbosity(), 10);
  ASSERT_TRUE(fw.open().ok());

  std::string all;
  for (const auto& line : log_) all += line + "\n";
  EXPECT_TRUE(Contains(all, "oldiface"));
  EXPECT_TRUE(Contains(all, "interface version 2"));
  EXPECT_TRUE(Contains(all, "no hardware for it on this host"));
  EXPECT_TRUE(Contains(all, "selected component good (priority 50)"));
  EXPECT_TRUE(LacksText(all, "opening component"));  // that is level 20
}

TEST_F(FrameworkTest, VerboseTwentyShowsEveryComponentCall) {
  load({"good"});
  set("test_base_verbose", "20");
  Framework& fw = registered(kOne);
  ASSERT_TRUE(fw.open().ok());

  std::string all;
  for (const auto& line : log_) all += line + "\n";
  EXPECT_TRUE(Contains(all, "opening component good"));
  EXPECT_TRUE(Contains(all, "querying component good"));
}

// --- lifecycle --------------------------------------------------------------

TEST_F(FrameworkTest, DestructionClosesOpenComponentsBeforeTheRepositoryGoes) {
  // good allocates its state in open and frees it in close; a missing
  // close is a leak that valgrind or LeakSanitizer reports for this test.
  load({"good", "second", "decliner"});
  {
    Framework& fw = registered(kAll);
    ASSERT_TRUE(fw.open().ok());
    ASSERT_EQ(selected_names(fw), (std::vector<std::string>{"good", "second"}));
    EXPECT_TRUE(entry(fw, "good")->opened);
  }
  framework_.reset();  // closes good, then the repository may unload it
  SUCCEED();
}

TEST_F(FrameworkTest, DestructionWithoutOpenIsFine) {
  load({"good", "second"});
  registered(kOne);
  framework_.reset();
  SUCCEED();
}

TEST(FrameworkState, NamesEveryState) {
  EXPECT_EQ(Framework::state_name(State::Registered), "registered");
  EXPECT_EQ(Framework::state_name(State::Excluded), "excluded");
  EXPECT_EQ(Framework::state_name(State::Failed), "failed");
  EXPECT_EQ(Framework::state_name(State::Declined), "declined");
  EXPECT_EQ(Framework::state_name(State::Available), "available");
  EXPECT_EQ(Framework::state_name(State::Selected), "selected");
}

// --- ComponentRegistrar: the C declaration's range --------------------------

// A declaration as a C component writes it, range included.
orca_mca_var_decl decl(orca_mca_var_type type, const char* def, const char* min, const char* max) {
  orca_mca_var_decl d{};
  d.name = "knob";
  d.type = type;
  d.default_value = def;
  d.level = 3;
  d.description = "A knob of the tests";
  d.min_value = min;
  d.max_value = max;
  return d;
}

TEST(ComponentRegistrar, CopiesTheRangeAndNullLeavesASideOpen) {
  Registry registry;
  ComponentRegistrar registrar(registry, "test", "fake");
  const orca_mca_var_decl d = decl(ORCA_MCA_VAR_SIZE, "64k", "1k", nullptr);
  ASSERT_EQ(registrar.c_handle()->declare_var(registrar.c_handle(), &d), ORCA_MCA_OK);
  ASSERT_FALSE(registrar.error().has_value()) << registrar.error()->summary();
  const Variable* v = registry.find("test_fake_knob");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->spec().min_text, "1k");
  EXPECT_EQ(v->spec().max_text, "");
  EXPECT_EQ(v->as_size(), 64u << 10);
  EXPECT_TRUE(Contains(valid_values(v->spec()), "of at least 1k"));
}

TEST(ComponentRegistrar, ABadRangeFailsTheDeclaration) {
  struct Case {
    orca_mca_var_decl d;
    const char* why;  // part of the reason
  };
  const Case cases[] = {
      {decl(ORCA_MCA_VAR_INT, "5", "10", "1"), "above its maximum"},
      {decl(ORCA_MCA_VAR_INT, "5", "one", "10"), "its minimum 'one' is invalid"},
      {decl(ORCA_MCA_VAR_INT, "0", "1", "10"), "its default '0' is invalid: out of range"},
      {decl(ORCA_MCA_VAR_STRING, "x", "a", nullptr), "only to int, unsigned, size and double"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.why);
    Registry registry;
    ComponentRegistrar registrar(registry, "test", "fake");
    EXPECT_EQ(registrar.c_handle()->declare_var(registrar.c_handle(), &c.d), ORCA_MCA_FAILED);
    ASSERT_TRUE(registrar.error().has_value());
    EXPECT_EQ(registrar.error()->topic(), "bad-declaration");
    EXPECT_EQ(registrar.error()->arg("name"), "test_fake_knob");
    EXPECT_TRUE(Contains(registrar.error()->arg("why"), c.why));
    EXPECT_EQ(registry.find("test_fake_knob"), nullptr);
  }
}

// --- opening twice, typed modules, the process role -------------------------

TEST_F(FrameworkTest, OpeningTwiceIsHarmlessAndKeepsTheSameModules) {
  load({"good", "second"});
  set("test_base_verbose", "20");
  Framework& fw = registered(kOne);
  ASSERT_TRUE(fw.open().ok());
  const auto first = fw.selected_modules<TestModule>();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_TRUE(fw.opened());
  // A second open (another part of the process asking) opens nothing more.
  ASSERT_TRUE(fw.open().ok());
  EXPECT_EQ(fw.selected_modules<TestModule>(), first);
  EXPECT_EQ(fw.selected_module<TestModule>(), first.front());
  EXPECT_EQ(std::count_if(log_.begin(), log_.end(),
                          [](const std::string& l) { return l.find("opening component good") != std::string::npos; }),
            1);
}

TEST_F(FrameworkTest, TheContextTellsAComponentWhatTheProcessIs) {
  load({"good"});
  for (orca_process_role role : {ORCA_PROCESS_TOOL, ORCA_PROCESS_LAUNCHER, ORCA_PROCESS_DAEMON}) {
    Registry registry;  // outlives the framework below
    Framework fw(kOne, registry, repository_, Framework::Log{}, role);
    ASSERT_TRUE(fw.register_vars().ok());
    ASSERT_TRUE(fw.open().ok());
    const TestModule* m = fw.selected_module<TestModule>();
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->process_role, role);
  }
}

}  // namespace
}  // namespace orca::mca
