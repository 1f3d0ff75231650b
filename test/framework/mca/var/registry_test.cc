// Registry: declarations and their errors, ranges from every source,
// settings before and after a declaration, deprecated synonyms, file-proof
// variables, unclaimed settings, and the canonical text of values.
#include <orca/mca_var.h>

#include <gtest/gtest.h>

#include "lib/mca_var_util.h"
#include "lib/result_assertions.h"

#include <string>
#include <vector>

namespace orca::mca {
namespace {

using test::FailedWith;
using test::make_setting;
using test::make_source;
using test::make_spec;
using test::Succeeded;

const Source kEnv = make_source(SourceKind::Environment);
const Source kCmd = make_source(SourceKind::CommandLine);

Source param_file(int line, int order = 0) {
  return make_source(SourceKind::ParamFile, "/etc/orca-mca-params.conf", line, order);
}

std::vector<std::string> topics(const std::vector<Message>& messages) {
  std::vector<std::string> out;
  for (const auto& m : messages) out.push_back(m.topic());
  return out;
}

// ---------------------------------------------------------------- declarations

TEST(RegistryDeclare, ReturnsTheVariableWithItsDefault) {
  Registry reg;
  Result<const Variable*> v = reg.declare(make_spec("mca", "base", "verbose", VarType::Int, "3"));
  ASSERT_TRUE(Succeeded(v));
  EXPECT_EQ(v.value()->name(), "mca_base_verbose");
  EXPECT_EQ(v.value()->as_int(), 3);
  EXPECT_TRUE(v.value()->is_default());
  EXPECT_EQ(v.value()->source().kind, SourceKind::Default);
  EXPECT_EQ(reg.find("mca_base_verbose"), v.value());
  EXPECT_EQ(reg.find("mca_base_verbos"), nullptr);
}

TEST(RegistryDeclare, DuplicateNameIsABadDeclaration) {
  Registry reg;
  ASSERT_TRUE(Succeeded(reg.declare(make_spec("oob", "tcp", "port", VarType::Int, "1"))));
  Result<const Variable*> again = reg.declare(make_spec("oob", "tcp", "port", VarType::String, "x"));
  ASSERT_TRUE(FailedWith(again, "mca-var", "bad-declaration"));
  EXPECT_EQ(again.error().arg("name"), "oob_tcp_port");
  EXPECT_EQ(again.error().arg("why"), "declared twice");
  // The first declaration is untouched.
  ASSERT_NE(reg.find("oob_tcp_port"), nullptr);
  EXPECT_EQ(reg.find("oob_tcp_port")->spec().type, VarType::Int);
  EXPECT_EQ(reg.variables().size(), 1u);
}

TEST(RegistryDeclare, SameFullNameFromDifferentPartsIsADuplicate) {
  Registry reg;
  ASSERT_TRUE(Succeeded(reg.declare(make_spec("oob", "tcp", "port"))));
  EXPECT_TRUE(FailedWith(reg.declare(make_spec("oob", "", "tcp_port")), "mca-var", "bad-declaration"));
}

TEST(RegistryDeclare, LevelMustBeOneToNine) {
  for (int level : {0, -1, 10}) {
    SCOPED_TRACE(level);
    Registry reg;
    VarSpec s = make_spec("test", "reg", "lvl");
    s.level = level;
    Result<const Variable*> r = reg.declare(s);
    ASSERT_TRUE(FailedWith(r, "mca-var", "bad-declaration"));
    EXPECT_EQ(r.error().arg("why"), "the level must be 1..9");
    EXPECT_EQ(reg.find("test_reg_lvl"), nullptr);
  }
  for (int level : {1, 9}) {
    SCOPED_TRACE(level);
    Registry reg;
    VarSpec s = make_spec("test", "reg", "lvl");
    s.level = level;
    EXPECT_TRUE(Succeeded(reg.declare(s)));
  }
}

TEST(RegistryDeclare, EnumNeedsWords) {
  Registry reg;
  Result<const Variable*> r = reg.declare(make_spec("test", "reg", "mode", VarType::Enum, "x"));
  ASSERT_TRUE(FailedWith(r, "mca-var", "bad-declaration"));
  EXPECT_EQ(r.error().arg("why"), "an enum needs at least one word");
}

TEST(RegistryDeclare, BadDefaultIsABadDeclaration) {
  Registry reg;
  Result<const Variable*> r = reg.declare(make_spec("test", "reg", "count", VarType::Int, "many"));
  ASSERT_TRUE(FailedWith(r, "mca-var", "bad-declaration"));
  EXPECT_EQ(r.error().arg("name"), "test_reg_count");
  EXPECT_NE(r.error().arg("why").find("'many'"), std::string::npos) << r.error().arg("why");
  EXPECT_EQ(reg.find("test_reg_count"), nullptr);

  // An empty default is no value for most types.
  EXPECT_TRUE(FailedWith(reg.declare(make_spec("test", "reg", "flag", VarType::Bool, "")), "mca-var",
                         "bad-declaration"));
  VarSpec e = make_spec("test", "reg", "mode", VarType::Enum, "off");
  e.enum_words = {"low", "high"};
  EXPECT_TRUE(FailedWith(reg.declare(e), "mca-var", "bad-declaration"));
  EXPECT_TRUE(reg.variables().empty());
}

TEST(RegistryDeclare, InvalidNameIsABadDeclaration) {
  const std::vector<VarSpec> specs = {
      make_spec("", "", ""),            // empty
      make_spec("Mca", "base", "x"),     // upper case
      make_spec("mca", "base", "a-b"),   // '-'
      make_spec("mca", "base", "a.b"),   // '.'
      make_spec("mca", "ba se", "x"),    // space
  };
  for (const auto& s : specs) {
    SCOPED_TRACE("'" + s.full_name() + "'");
    Registry reg;
    Result<const Variable*> r = reg.declare(s);
    ASSERT_TRUE(FailedWith(r, "mca-var", "bad-declaration"));
    EXPECT_EQ(r.error().arg("why"), "the name must be [a-z0-9_]+");
  }
}

TEST(RegistryDeclare, SynonymCollisionsAreBadDeclarations) {
  Registry reg;
  VarSpec first = make_spec("oob", "tcp", "if_include");
  first.synonyms = {"oob_tcp_include"};
  ASSERT_TRUE(Succeeded(reg.declare(first)));

  auto with_synonym = [](std::string name, std::string synonym) {
    VarSpec s = make_spec("oob", "tcp", std::move(name));
    s.synonyms = {std::move(synonym)};
    return s;
  };
  // A synonym that is its own name, another variable's name, another
  // variable's synonym, or not a valid name.
  const std::vector<VarSpec> bad = {
      with_synonym("a", "oob_tcp_a"),
      with_synonym("b", "oob_tcp_if_include"),
      with_synonym("c", "oob_tcp_include"),
      with_synonym("d", "Old-Name"),
  };
  for (const auto& s : bad) {
    SCOPED_TRACE(s.full_name() + " ~ " + s.synonyms[0]);
    Result<const Variable*> r = reg.declare(s);
    ASSERT_TRUE(FailedWith(r, "mca-var", "bad-declaration"));
    EXPECT_NE(r.error().arg("why").find("'" + s.synonyms[0] + "'"), std::string::npos) << r.error().arg("why");
    EXPECT_EQ(reg.find(s.full_name()), nullptr);
  }
  // A new variable whose name is an existing synonym.
  Result<const Variable*> r = reg.declare(make_spec("oob", "tcp", "include"));
  ASSERT_TRUE(FailedWith(r, "mca-var", "bad-declaration"));
  EXPECT_EQ(r.error().arg("why"), "declared twice");
  // The existing synonym still leads to the first variable.
  EXPECT_EQ(reg.find("oob_tcp_include"), reg.find("oob_tcp_if_include"));
  EXPECT_EQ(reg.variables().size(), 1u);
}

TEST(RegistryDeclare, VariablesAreInDeclarationOrder) {
  Registry reg;
  for (const char* n : {"zeta", "alpha", "mid"}) ASSERT_TRUE(Succeeded(reg.declare(make_spec("test", "reg", n))));
  std::vector<std::string> names;
  for (const Variable* v : reg.variables()) names.push_back(v->name());
  EXPECT_EQ(names, (std::vector<std::string>{"test_reg_zeta", "test_reg_alpha", "test_reg_mid"}));
}

// ---------------------------------------------------------------- ranges

VarSpec timeout_spec(std::string def = "5000") {
  VarSpec s = make_spec("oob", "tcp", "connect_timeout", VarType::Int, std::move(def));
  s.min_text = "1";
  s.max_text = "3600000";
  return s;
}

TEST(RegistryRange, IsKeptWithTheDeclaration) {
  Registry reg;
  Result<const Variable*> v = reg.declare(timeout_spec());
  ASSERT_TRUE(Succeeded(v));
  EXPECT_EQ(v.value()->spec().min_text, "1");
  EXPECT_EQ(v.value()->spec().max_text, "3600000");
  EXPECT_EQ(valid_values(v.value()->spec()), "a whole number from 1 to 3600000");
}

TEST(RegistryRange, DefaultOutsideTheRangeIsABadDeclaration) {
  for (const std::string def : {"0", "3600001", "-5"}) {
    SCOPED_TRACE(def);
    Registry reg;
    Result<const Variable*> r = reg.declare(timeout_spec(def));
    ASSERT_TRUE(FailedWith(r, "mca-var", "bad-declaration"));
    EXPECT_EQ(r.error().arg("name"), "oob_tcp_connect_timeout");
    const std::string why = r.error().arg("why");
    EXPECT_NE(why.find("'" + def + "'"), std::string::npos) << why;
    EXPECT_NE(why.find("out of range"), std::string::npos) << why;
    EXPECT_NE(why.find("from 1 to 3600000"), std::string::npos) << why;
    EXPECT_EQ(reg.find("oob_tcp_connect_timeout"), nullptr);
  }
}

TEST(RegistryRange, MalformedRangeIsABadDeclaration) {
  auto with_range = [](VarType type, std::string def, std::string min, std::string max) {
    VarSpec s = make_spec("test", "reg", "r", type, std::move(def));
    s.min_text = std::move(min);
    s.max_text = std::move(max);
    return s;
  };
  const std::vector<VarSpec> bad = {
      with_range(VarType::Int, "5", "10", "1"),          // min > max
      with_range(VarType::Size, "4k", "1k", "lots"),    // max does not parse
      with_range(VarType::Unsigned, "1", "-1", "9"),    // min does not parse as unsigned
      with_range(VarType::String, "b", "a", "z"),       // not a numeric type
      with_range(VarType::Bool, "true", "0", "1"),      // not a numeric type
  };
  for (const auto& spec : bad) {
    SCOPED_TRACE(std::string(type_name(spec.type)) + " " + spec.min_text + ".." + spec.max_text);
    Registry reg;
    Result<const Variable*> r = reg.declare(spec);
    ASSERT_TRUE(FailedWith(r, "mca-var", "bad-declaration"));
    EXPECT_EQ(r.error().arg("name"), "test_reg_r");
    EXPECT_EQ(reg.find("test_reg_r"), nullptr);
  }
}

// Every source goes through the same check: a setting outside the range is
// a bad value naming variable, source and range, before or after the
// declaration, and the variable keeps the value it had.
class RegistryRangeFromEverySource : public ::testing::TestWithParam<SourceKind> {};

Source source_of(SourceKind kind) {
  const bool file = kind == SourceKind::ParamFile || kind == SourceKind::TuneFile || kind == SourceKind::OverrideFile;
  return file ? make_source(kind, "/conf/" + test::kind_label(kind) + ".conf", 3) : make_source(kind);
}

TEST_P(RegistryRangeFromEverySource, OutOfRangeIsABadValue) {
  const Source source = source_of(GetParam());
  for (bool declare_first : {true, false}) {
    for (const std::string text : {"0", "9223372036854775807", "3600001"}) {
      SCOPED_TRACE(source.describe() + " " + text + (declare_first ? ", declared first" : ", declared last"));
      Registry reg;
      Status st;
      if (declare_first) {
        ASSERT_TRUE(Succeeded(reg.declare(timeout_spec())));
        st = reg.add_setting(make_setting("oob_tcp_connect_timeout", text, source));
      } else {
        ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("oob_tcp_connect_timeout", text, source))));
        Result<const Variable*> r = reg.declare(timeout_spec());
        if (!r) st = r.error();
      }
      ASSERT_TRUE(FailedWith(st, "mca-var", "bad-value"));
      const Message& m = st.error();
      EXPECT_EQ(m.arg("name"), "oob_tcp_connect_timeout");
      EXPECT_EQ(m.arg("value"), text);
      EXPECT_EQ(m.arg("source"), source.describe());
      EXPECT_EQ(m.arg("why"), "out of range");
      EXPECT_EQ(m.arg("valid"), "a whole number from 1 to 3600000");
      const Variable* v = reg.find("oob_tcp_connect_timeout");
      ASSERT_NE(v, nullptr);
      EXPECT_EQ(v->as_int(), 5000);
      EXPECT_TRUE(v->is_default());
    }
  }
}

TEST_P(RegistryRangeFromEverySource, TheEdgesAreAccepted) {
  const Source source = source_of(GetParam());
  for (const std::string text : {"1", "3600000"}) {
    SCOPED_TRACE(source.describe() + " " + text);
    Registry reg;
    const Variable* v = reg.declare(timeout_spec()).value();
    ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("oob_tcp_connect_timeout", text, source))));
    EXPECT_EQ(v->text(), text);
    EXPECT_EQ(v->source().kind, GetParam());
  }
}

INSTANTIATE_TEST_SUITE_P(Sources, RegistryRangeFromEverySource,
                         ::testing::Values(SourceKind::ParamFile, SourceKind::TuneFile, SourceKind::Environment,
                                           SourceKind::CommandLine, SourceKind::OverrideFile),
                         [](const ::testing::TestParamInfo<SourceKind>& p) { return test::kind_label(p.param); });

// ---------------------------------------------------------------- settings

TEST(RegistrySettings, SettingBeforeDeclarationIsUsedAtDeclaration) {
  Registry reg;
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("test_reg_count", "17", param_file(4)))));
  Result<const Variable*> v = reg.declare(make_spec("test", "reg", "count", VarType::Int, "1"));
  ASSERT_TRUE(Succeeded(v));
  EXPECT_EQ(v.value()->as_int(), 17);
  EXPECT_FALSE(v.value()->is_default());
  EXPECT_EQ(v.value()->source().kind, SourceKind::ParamFile);
  EXPECT_EQ(v.value()->source().file, "/etc/orca-mca-params.conf");
  EXPECT_EQ(v.value()->source().line, 4);
}

TEST(RegistrySettings, SettingAfterDeclarationReResolves) {
  Registry reg;
  const Variable* v = reg.declare(make_spec("test", "reg", "count", VarType::Int, "1")).value();
  EXPECT_EQ(v->as_int(), 1);
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("test_reg_count", "5", kEnv))));
  EXPECT_EQ(v->as_int(), 5);
  EXPECT_EQ(v->source().kind, SourceKind::Environment);
  // A lower source arriving later changes nothing.
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("test_reg_count", "9", param_file(1)))));
  EXPECT_EQ(v->as_int(), 5);
  EXPECT_EQ(v->source().kind, SourceKind::Environment);
  // A higher one does.
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("test_reg_count", "6", kCmd))));
  EXPECT_EQ(v->as_int(), 6);
  EXPECT_EQ(v->source().kind, SourceKind::CommandLine);
}

TEST(RegistrySettings, SettingOfAnotherVariableLeavesThisOneAlone) {
  Registry reg;
  const Variable* v = reg.declare(make_spec("test", "reg", "count", VarType::Int, "1")).value();
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("test_reg_other", "junk", kCmd))));
  EXPECT_EQ(v->as_int(), 1);
  EXPECT_TRUE(v->is_default());
}

TEST(RegistrySettings, BadValueAfterDeclarationKeepsThePreviousValue) {
  Registry reg;
  const Variable* v = reg.declare(make_spec("test", "reg", "count", VarType::Int, "1")).value();
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("test_reg_count", "5", param_file(2)))));

  Status st = reg.add_setting(make_setting("test_reg_count", "five", kEnv));
  ASSERT_TRUE(FailedWith(st, "mca-var", "bad-value"));
  EXPECT_EQ(st.error().arg("name"), "test_reg_count");
  EXPECT_EQ(st.error().arg("value"), "five");
  EXPECT_EQ(st.error().arg("source"), "environment");
  EXPECT_EQ(v->as_int(), 5);
  EXPECT_EQ(v->source().kind, SourceKind::ParamFile);
  EXPECT_EQ(v->source().line, 2);

  // A valid setting above the bad one repairs it.
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("test_reg_count", "8", kCmd))));
  EXPECT_EQ(v->as_int(), 8);
  EXPECT_EQ(v->source().kind, SourceKind::CommandLine);
}

TEST(RegistrySettings, LosingBadValueIsNoError) {
  Registry reg;
  const Variable* v = reg.declare(make_spec("test", "reg", "count", VarType::Int, "1")).value();
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("test_reg_count", "5", kCmd))));
  EXPECT_TRUE(Succeeded(reg.add_setting(make_setting("test_reg_count", "junk", param_file(1)))));
  EXPECT_EQ(v->as_int(), 5);
}

TEST(RegistrySettings, BadValueBeforeDeclarationFailsButKeepsTheDefault) {
  Registry reg;
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("test_reg_count", "lots", param_file(9)))));
  Result<const Variable*> r = reg.declare(make_spec("test", "reg", "count", VarType::Int, "1"));
  ASSERT_TRUE(FailedWith(r, "mca-var", "bad-value"));
  EXPECT_EQ(r.error().arg("source"), "param file /etc/orca-mca-params.conf:9");
  // Tools can still show the variable, with its default.
  const Variable* v = reg.find("test_reg_count");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->as_int(), 1);
  EXPECT_TRUE(v->is_default());
}

// ---------------------------------------------------------------- synonyms

VarSpec with_old_name() {
  VarSpec s = make_spec("oob", "tcp", "if_include", VarType::StringList, "");
  s.synonyms = {"oob_tcp_include"};
  return s;
}

TEST(RegistrySynonyms, ValueIsTakenThroughTheSynonym) {
  for (bool declare_first : {true, false}) {
    SCOPED_TRACE(declare_first ? "declared first" : "declared last");
    Registry reg;
    if (declare_first) {
      ASSERT_TRUE(Succeeded(reg.declare(with_old_name())));
    }
    ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("oob_tcp_include", "eth0,eth1", kEnv))));
    if (!declare_first) {
      ASSERT_TRUE(Succeeded(reg.declare(with_old_name())));
    }

    const Variable* v = reg.find("oob_tcp_if_include");
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(reg.find("oob_tcp_include"), v);
    EXPECT_EQ(v->as_list(), (std::vector<std::string>{"eth0", "eth1"}));
    EXPECT_EQ(v->source().kind, SourceKind::Environment);

    std::vector<Message> notices = reg.take_notices();
    ASSERT_EQ(notices.size(), 1u);
    EXPECT_EQ(notices[0].area(), "mca-var");
    EXPECT_EQ(notices[0].topic(), "deprecated-synonym");
    EXPECT_EQ(notices[0].arg("old"), "oob_tcp_include");
    EXPECT_EQ(notices[0].arg("name"), "oob_tcp_if_include");
    EXPECT_EQ(notices[0].arg("source"), "environment");
    EXPECT_TRUE(reg.take_notices().empty());
    EXPECT_TRUE(reg.unclaimed_settings().empty());
  }
}

TEST(RegistrySynonyms, NoNoticeWhenTheRealNameWins) {
  Registry reg;
  ASSERT_TRUE(Succeeded(reg.declare(with_old_name())));
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("oob_tcp_include", "old", param_file(1)))));
  (void)reg.take_notices();
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("oob_tcp_if_include", "new", kCmd))));
  EXPECT_EQ(reg.find("oob_tcp_if_include")->as_list(), std::vector<std::string>{"new"});
  EXPECT_TRUE(reg.take_notices().empty());
}

TEST(RegistrySynonyms, OneNoticeAfterManyReResolutions) {
  Registry reg;
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("oob_tcp_include", "eth0", kCmd))));
  ASSERT_TRUE(Succeeded(reg.declare(with_old_name())));
  // Each lower setting re-resolves; the synonym keeps winning.
  for (int line = 1; line <= 3; ++line) {
    ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("oob_tcp_if_include", "lo", param_file(line)))));
  }
  EXPECT_EQ(reg.find("oob_tcp_if_include")->as_list(), std::vector<std::string>{"eth0"});
  EXPECT_EQ(topics(reg.take_notices()), std::vector<std::string>{"deprecated-synonym"});
}

// Regression: the deprecated-synonym notice was once repeated after every
// re-resolution instead of once per registry.
TEST(RegistrySynonyms, NoticeIsNotRepeatedAfterItWasTaken) {
  Registry reg;
  ASSERT_TRUE(Succeeded(reg.declare(with_old_name())));
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("oob_tcp_include", "eth0", kCmd))));
  ASSERT_EQ(topics(reg.take_notices()), std::vector<std::string>{"deprecated-synonym"});

  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("oob_tcp_if_include", "lo", param_file(1)))));
  EXPECT_EQ(reg.find("oob_tcp_if_include")->as_list(), std::vector<std::string>{"eth0"});
  EXPECT_TRUE(reg.take_notices().empty()) << "the deprecated-synonym notice was reported twice";
}

// Precedence is (kind, file order, arrival) whatever the name: at equal
// precedence the later setting wins, be it the real name or a synonym.
TEST(RegistrySynonyms, AtEqualPrecedenceTheLaterSettingWinsEvenIfItIsTheSynonym) {
  Registry reg;
  ASSERT_TRUE(Succeeded(reg.declare(with_old_name())));
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("oob_tcp_if_include", "real", kEnv))));
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("oob_tcp_include", "old", kEnv))));
  EXPECT_EQ(reg.find("oob_tcp_if_include")->as_list(), std::vector<std::string>{"old"});
  EXPECT_EQ(topics(reg.take_notices()), std::vector<std::string>{"deprecated-synonym"});
}

TEST(RegistrySynonyms, AtEqualPrecedenceTheLaterRealNameWins) {
  Registry reg;
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("oob_tcp_include", "old", param_file(1)))));
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("oob_tcp_if_include", "real", param_file(2)))));
  ASSERT_TRUE(Succeeded(reg.declare(with_old_name())));
  const Variable* v = reg.find("oob_tcp_if_include");
  EXPECT_EQ(v->as_list(), std::vector<std::string>{"real"});
  EXPECT_EQ(v->source().line, 2);
  EXPECT_TRUE(reg.take_notices().empty());
}

TEST(RegistrySynonyms, HigherSourceThroughSynonymBeatsLowerRealName) {
  Registry reg;
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("oob_tcp_include", "cmd", kCmd))));
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("oob_tcp_if_include", "env", kEnv))));
  ASSERT_TRUE(Succeeded(reg.declare(with_old_name())));
  EXPECT_EQ(reg.find("oob_tcp_if_include")->as_list(), std::vector<std::string>{"cmd"});
  EXPECT_EQ(reg.find("oob_tcp_if_include")->source().kind, SourceKind::CommandLine);
}

// ---------------------------------------------------------------- not from files

VarSpec file_proof() {
  VarSpec s = make_spec("mca", "base", "param_files", VarType::String, "/default.conf");
  s.flags = ORCA_MCA_VAR_FLAG_NOT_FROM_FILES;
  return s;
}

TEST(RegistryNotFromFiles, FileSettingsAreIgnoredWithANotice) {
  const std::vector<Source> files = {
      make_source(SourceKind::ParamFile, "/p.conf", 2),
      make_source(SourceKind::TuneFile, "/t.conf", 3),
      make_source(SourceKind::OverrideFile, "/o.conf", 4),
  };
  for (const Source& file : files) {
    for (bool declare_first : {true, false}) {
      SCOPED_TRACE(file.describe() + (declare_first ? ", declared first" : ", declared last"));
      Registry reg;
      if (declare_first) {
        ASSERT_TRUE(Succeeded(reg.declare(file_proof())));
      }
      EXPECT_TRUE(Succeeded(reg.add_setting(make_setting("mca_base_param_files", "/evil.conf", file))));
      if (!declare_first) {
        ASSERT_TRUE(Succeeded(reg.declare(file_proof())));
      }

      const Variable* v = reg.find("mca_base_param_files");
      EXPECT_EQ(v->as_string(), "/default.conf");
      EXPECT_TRUE(v->is_default());
      std::vector<Message> notices = reg.take_notices();
      ASSERT_EQ(notices.size(), 1u);
      EXPECT_EQ(notices[0].area(), "mca-var");
      EXPECT_EQ(notices[0].topic(), "not-from-files");
      EXPECT_EQ(notices[0].arg("name"), "mca_base_param_files");
      EXPECT_EQ(notices[0].arg("source"), file.describe());
      // Ignored, but claimed: no "unknown variable" warning as well.
      EXPECT_TRUE(reg.unclaimed_settings().empty());
    }
  }
}

TEST(RegistryNotFromFiles, EnvironmentAndCommandLineAreAccepted) {
  Registry reg;
  ASSERT_TRUE(Succeeded(reg.declare(file_proof())));
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("mca_base_param_files", "/env.conf", kEnv))));
  EXPECT_EQ(reg.find("mca_base_param_files")->as_string(), "/env.conf");
  EXPECT_EQ(reg.find("mca_base_param_files")->source().kind, SourceKind::Environment);
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("mca_base_param_files", "/cmd.conf", kCmd))));
  EXPECT_EQ(reg.find("mca_base_param_files")->as_string(), "/cmd.conf");
  // The override file outranks the command line, but cannot set it.
  ASSERT_TRUE(Succeeded(reg.add_setting(
      make_setting("mca_base_param_files", "/o.conf", make_source(SourceKind::OverrideFile, "/x", 1)))));
  EXPECT_EQ(reg.find("mca_base_param_files")->as_string(), "/cmd.conf");
  EXPECT_EQ(reg.find("mca_base_param_files")->source().kind, SourceKind::CommandLine);
  EXPECT_EQ(topics(reg.take_notices()), std::vector<std::string>{"not-from-files"});
}

TEST(RegistryNotFromFiles, OtherVariablesAcceptFiles) {
  Registry reg;
  ASSERT_TRUE(Succeeded(reg.declare(make_spec("mca", "base", "help_path", VarType::String, "/d"))));
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("mca_base_help_path", "/f", param_file(1)))));
  EXPECT_EQ(reg.find("mca_base_help_path")->as_string(), "/f");
  EXPECT_TRUE(reg.take_notices().empty());
}

// ---------------------------------------------------------------- unclaimed

TEST(RegistryUnclaimed, TypoGetsTheClosestName) {
  Registry reg;
  ASSERT_TRUE(Succeeded(reg.declare(make_spec("mca", "base", "verbose", VarType::Int, "0"))));
  ASSERT_TRUE(Succeeded(reg.declare(make_spec("mca", "base", "help_path"))));
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("mca_base_verbsoe", "1", param_file(6)))));

  std::vector<Message> un = reg.unclaimed_settings();
  ASSERT_EQ(un.size(), 1u);
  EXPECT_EQ(un[0].area(), "mca-var");
  EXPECT_EQ(un[0].topic(), "unknown-var-suggest");
  EXPECT_EQ(un[0].arg("name"), "mca_base_verbsoe");
  EXPECT_EQ(un[0].arg("suggestion"), "mca_base_verbose");
  EXPECT_EQ(un[0].arg("source"), "param file /etc/orca-mca-params.conf:6");
  EXPECT_EQ(reg.closest_name("mca_base_verbsoe"), "mca_base_verbose");
  EXPECT_EQ(reg.closest_name("mca_base_help_pth"), "mca_base_help_path");
}

TEST(RegistryUnclaimed, FarNameGetsNoSuggestion) {
  Registry reg;
  ASSERT_TRUE(Succeeded(reg.declare(make_spec("mca", "base", "verbose", VarType::Int, "0"))));
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("btl_openib_flags", "1", kCmd))));

  std::vector<Message> un = reg.unclaimed_settings();
  ASSERT_EQ(un.size(), 1u);
  EXPECT_EQ(un[0].topic(), "unknown-var");
  EXPECT_EQ(un[0].arg("name"), "btl_openib_flags");
  EXPECT_EQ(un[0].arg("source"), "command line");
  EXPECT_EQ(un[0].arg("suggestion"), "");
  EXPECT_EQ(reg.closest_name("btl_openib_flags"), "");
}

TEST(RegistryUnclaimed, ClaimedSettingsAreNotListedAndEachUnclaimedOneIs) {
  Registry reg;
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("mca_base_verbose", "1", kEnv))));
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("oob_tcp_include", "a", kEnv))));
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("nothing_like_it", "1", kEnv))));
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("nothing_like_it", "2", kCmd))));
  // Before any declaration every setting is unclaimed.
  EXPECT_EQ(reg.unclaimed_settings().size(), 4u);

  ASSERT_TRUE(Succeeded(reg.declare(make_spec("mca", "base", "verbose", VarType::Int, "0"))));
  ASSERT_TRUE(Succeeded(reg.declare(with_old_name())));
  std::vector<Message> un = reg.unclaimed_settings();
  ASSERT_EQ(un.size(), 2u);
  EXPECT_EQ(un[0].arg("name"), "nothing_like_it");
  EXPECT_EQ(un[0].arg("source"), "environment");
  EXPECT_EQ(un[1].arg("source"), "command line");
}

// ---------------------------------------------------------------- canonical text

std::string text_of(VarSpec spec, const std::string& setting) {
  Registry reg;
  const std::string name = spec.full_name();
  if (Status st = reg.add_setting(make_setting(name, setting, kCmd)); !st) return "error";
  Result<const Variable*> v = reg.declare(std::move(spec));
  return v ? v.value()->text() : "error: " + v.error().summary();
}

TEST(VariableText, CanonicalForms) {
  EXPECT_EQ(text_of(make_spec("t", "v", "b", VarType::Bool, "0"), "YES"), "true");
  EXPECT_EQ(text_of(make_spec("t", "v", "b", VarType::Bool, "1"), "off"), "false");
  EXPECT_EQ(text_of(make_spec("t", "v", "i", VarType::Int, "0"), "-0x10"), "-16");
  EXPECT_EQ(text_of(make_spec("t", "v", "i", VarType::Int, "0"), "+42"), "42");
  EXPECT_EQ(text_of(make_spec("t", "v", "u", VarType::Unsigned, "0"), "0x10"), "16");
  EXPECT_EQ(text_of(make_spec("t", "v", "s", VarType::Size, "0"), "4k"), "4096");
  EXPECT_EQ(text_of(make_spec("t", "v", "s", VarType::Size, "0"), "1G"), "1073741824");
  EXPECT_EQ(text_of(make_spec("t", "v", "d", VarType::Double, "0"), "0.25"), "0.25");
  EXPECT_EQ(text_of(make_spec("t", "v", "d", VarType::Double, "0"), "3"), "3");
  EXPECT_EQ(text_of(make_spec("t", "v", "d", VarType::Double, "0"), "-1.5e1"), "-15");
  EXPECT_EQ(text_of(make_spec("t", "v", "d", VarType::Double, "0"), "2.50"), "2.5");
  EXPECT_EQ(text_of(make_spec("t", "v", "d", VarType::Double, "0"), "0.1"), "0.1");
  EXPECT_EQ(text_of(make_spec("t", "v", "d", VarType::Double, "0"), "1e-7"), "1e-07");
  EXPECT_EQ(text_of(make_spec("t", "v", "d", VarType::Double, "0"), "0.30000000000000004"), "0.30000000000000004");
  EXPECT_EQ(text_of(make_spec("t", "v", "str", VarType::String, ""), " as is "), " as is ");
  VarSpec e = make_spec("t", "v", "e", VarType::Enum, "none");
  e.enum_words = {"none", "Lazy"};
  EXPECT_EQ(text_of(e, "LAZY"), "Lazy");
  EXPECT_EQ(text_of(make_spec("t", "v", "l", VarType::StringList, ""), " a , b "), "a,b");
  EXPECT_EQ(text_of(make_spec("t", "v", "l", VarType::StringList, "x"), ""), "");
}

TEST(VariableText, DefaultValueText) {
  Registry reg;
  const Variable* v = reg.declare(make_spec("t", "v", "s", VarType::Size, "64k")).value();
  EXPECT_EQ(v->text(), "65536");
  EXPECT_EQ(v->as_size(), 65536u);
}

// Regression: doubles were once printed with six decimals, losing value.
TEST(VariableText, DoubleTextParsesBackToTheSameValue) {
  for (const std::string setting :
       {"0.25", "1e-7", "0.1234567", "123456.789", "1e20", "5e-324", "-1.7976931348623157e308"}) {
    SCOPED_TRACE(setting);
    Registry reg;
    ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("t_v_d", setting, kCmd))));
    const Variable* v = reg.declare(make_spec("t", "v", "d", VarType::Double, "0")).value();
    Result<Value> back = parse_value(v->spec(), v->text(), Source{});
    ASSERT_TRUE(Succeeded(back)) << v->text();
    EXPECT_EQ(std::get<double>(back.value()), v->as_double()) << "text() gave " << v->text();
  }
}

// ---------------------------------------------------------------- names

TEST(VarSpecFullName, JoinsNonEmptyParts) {
  EXPECT_EQ(make_spec("mca", "base", "verbose").full_name(), "mca_base_verbose");
  EXPECT_EQ(make_spec("oob", "", "").full_name(), "oob");
  EXPECT_EQ(make_spec("oob", "tcp", "").full_name(), "oob_tcp");
  EXPECT_EQ(make_spec("oob", "", "base_verbose").full_name(), "oob_base_verbose");
  EXPECT_EQ(make_spec("", "", "x").full_name(), "x");
  EXPECT_EQ(make_spec("", "", "").full_name(), "");
}

TEST(VarSpecFullName, FrameworkSelectionVariable) {
  Registry reg;
  VarSpec s = make_spec("oob", "", "", VarType::String, "");
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("oob", "^tcp", kCmd))));
  Result<const Variable*> v = reg.declare(s);
  ASSERT_TRUE(Succeeded(v));
  EXPECT_EQ(v.value()->name(), "oob");
  EXPECT_EQ(v.value()->group(), "base");
  EXPECT_EQ(v.value()->as_string(), "^tcp");
  EXPECT_EQ(reg.find("oob"), v.value());

  const Variable* tcp = reg.declare(make_spec("oob", "tcp", "port", VarType::Int, "0")).value();
  EXPECT_EQ(tcp->group(), "tcp");
}

}  // namespace
}  // namespace orca::mca
