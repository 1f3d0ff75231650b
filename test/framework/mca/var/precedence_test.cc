// Precedence of settings: for every pair of source kinds the higher kind
// wins whatever the arrival order and whether the variable is declared
// before, between or after the settings; then the later param file; then
// the later setting.
#include "mca/var/mca_sources.h"
#include <orca/mca_var.h>

#include <gtest/gtest.h>

#include "lib/mca_var_util.h"
#include "lib/result_assertions.h"

#include <string>
#include <vector>

namespace orca::mca {
namespace {

using test::kAllSourceKinds;
using test::kind_label;
using test::make_setting;
using test::make_source;
using test::make_spec;
using test::Succeeded;

constexpr const char* kVar = "test_prec_level";

VarSpec level_spec() { return make_spec("test", "prec", "level", VarType::Int, "0"); }

// A distinct source per kind: file kinds get their own file and line.
Source source_for(SourceKind kind) {
  const int k = static_cast<int>(kind);
  switch (kind) {
    case SourceKind::ParamFile:
    case SourceKind::TuneFile:
    case SourceKind::OverrideFile:
      return make_source(kind, "/conf/" + kind_label(kind) + ".conf", 10 + k, 0);
    default:
      return make_source(kind);
  }
}

// The value a setting of `kind` carries.
std::int64_t value_for(SourceKind kind) { return 100 + static_cast<int>(kind); }

enum class Declared { Before, Between, After };

const char* label(Declared d) {
  switch (d) {
    case Declared::Before: return "DeclaredBefore";
    case Declared::Between: return "DeclaredBetween";
    case Declared::After: return "DeclaredAfter";
  }
  return "?";
}

struct PairCase {
  SourceKind first;   // arrives first
  SourceKind second;  // arrives second
  Declared declared;
};

class PrecedenceMatrix : public ::testing::TestWithParam<PairCase> {};

TEST_P(PrecedenceMatrix, HigherKindWins) {
  const PairCase& c = GetParam();
  const SourceKind winner = c.first > c.second ? c.first : c.second;

  Registry reg;
  auto declare = [&] { ASSERT_TRUE(Succeeded(reg.declare(level_spec()))); };
  auto add = [&](SourceKind kind) {
    ASSERT_TRUE(Succeeded(reg.add_setting(make_setting(kVar, std::to_string(value_for(kind)), source_for(kind)))));
  };

  if (c.declared == Declared::Before) declare();
  add(c.first);
  if (c.declared == Declared::Between) declare();
  add(c.second);
  if (c.declared == Declared::After) declare();

  const Variable* v = reg.find(kVar);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->as_int(), value_for(winner));
  const Source expected = source_for(winner);
  EXPECT_EQ(v->source().kind, expected.kind);
  EXPECT_EQ(v->source().file, expected.file);
  EXPECT_EQ(v->source().line, expected.line);
  EXPECT_EQ(v->source().describe(), expected.describe());
  EXPECT_FALSE(v->is_default()) << "a setting of any kind, even Default, is not the declared default";
  EXPECT_TRUE(reg.take_notices().empty());
}

std::vector<PairCase> all_pairs() {
  std::vector<PairCase> out;
  for (SourceKind a : kAllSourceKinds) {
    for (SourceKind b : kAllSourceKinds) {
      if (a == b) continue;
      for (Declared d : {Declared::Before, Declared::Between, Declared::After}) out.push_back({a, b, d});
    }
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(EveryOrderedPair, PrecedenceMatrix, ::testing::ValuesIn(all_pairs()),
                         [](const ::testing::TestParamInfo<PairCase>& p) {
                           return kind_label(p.param.first) + "_then_" + kind_label(p.param.second) + "_" +
                                  label(p.param.declared);
                         });

TEST(PrecedenceMatrixCoverage, EveryOrderedPairOfDistinctKinds) {
  // 6 kinds: 30 ordered pairs, each declared before, between and after.
  EXPECT_EQ(all_pairs().size(), 6u * 5u * 3u);
}

// ---------------------------------------------------------------- within a kind

struct ArrivalCase {
  bool reversed;
  Declared declared;
};

class LaterParamFile : public ::testing::TestWithParam<ArrivalCase> {};

TEST_P(LaterParamFile, WinsWhateverTheArrivalOrder) {
  const Setting system = make_setting(kVar, "1", make_source(SourceKind::ParamFile, "/etc/orca.conf", 5, 0));
  const Setting user = make_setting(kVar, "2", make_source(SourceKind::ParamFile, "/home/u/.orca/p.conf", 2, 1));
  std::vector<Setting> arrival = {system, user};
  if (GetParam().reversed) std::swap(arrival[0], arrival[1]);

  Registry reg;
  if (GetParam().declared == Declared::Before) {
    ASSERT_TRUE(Succeeded(reg.declare(level_spec())));
  }
  ASSERT_TRUE(Succeeded(reg.add_setting(arrival[0])));
  if (GetParam().declared == Declared::Between) {
    ASSERT_TRUE(Succeeded(reg.declare(level_spec())));
  }
  ASSERT_TRUE(Succeeded(reg.add_setting(arrival[1])));
  if (GetParam().declared == Declared::After) {
    ASSERT_TRUE(Succeeded(reg.declare(level_spec())));
  }

  const Variable* v = reg.find(kVar);
  EXPECT_EQ(v->as_int(), 2);
  EXPECT_EQ(v->source().kind, SourceKind::ParamFile);
  EXPECT_EQ(v->source().file, "/home/u/.orca/p.conf");
  EXPECT_EQ(v->source().line, 2);
  EXPECT_EQ(v->source().order, 1);
}

INSTANTIATE_TEST_SUITE_P(ArrivalAndDeclaration, LaterParamFile,
                         ::testing::Values(ArrivalCase{false, Declared::Before}, ArrivalCase{false, Declared::Between},
                                           ArrivalCase{false, Declared::After}, ArrivalCase{true, Declared::Before},
                                           ArrivalCase{true, Declared::Between}, ArrivalCase{true, Declared::After}),
                         [](const ::testing::TestParamInfo<ArrivalCase>& p) {
                           return std::string(p.param.reversed ? "LaterFileFirst_" : "InFileOrder_") +
                                  label(p.param.declared);
                         });

TEST(Precedence, KindBeatsFileOrder) {
  Registry reg;
  ASSERT_TRUE(Succeeded(reg.declare(level_spec())));
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting(kVar, "1", make_source(SourceKind::TuneFile, "/t", 1, 0)))));
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting(kVar, "2", make_source(SourceKind::ParamFile, "/p", 1, 9)))));
  EXPECT_EQ(reg.find(kVar)->as_int(), 1);
  EXPECT_EQ(reg.find(kVar)->source().kind, SourceKind::TuneFile);
}

TEST(Precedence, WithinOneFileTheLaterLineWins) {
  Result<std::vector<Setting>> lines = parse_param_text(
      "test_prec_level = 1\n"
      "# changed my mind\n"
      "test_prec_level = 2\n"
      "test_prec_level = 3\n",
      make_source(SourceKind::ParamFile, "/etc/orca.conf"));
  ASSERT_TRUE(Succeeded(lines));
  ASSERT_EQ(lines.value().size(), 3u);
  for (bool declare_first : {true, false}) {
    SCOPED_TRACE(declare_first ? "declared first" : "declared last");
    Registry reg;
    if (declare_first) {
      ASSERT_TRUE(Succeeded(reg.declare(level_spec())));
    }
    for (const Setting& s : lines.value()) ASSERT_TRUE(Succeeded(reg.add_setting(s)));
    if (!declare_first) {
      ASSERT_TRUE(Succeeded(reg.declare(level_spec())));
    }
    EXPECT_EQ(reg.find(kVar)->as_int(), 3);
    EXPECT_EQ(reg.find(kVar)->source().line, 4);
    EXPECT_EQ(reg.find(kVar)->source().file, "/etc/orca.conf");
  }
}

TEST(Precedence, TheLaterMcaOptionWins) {
  const char* argv[] = {"tool", "--mca", kVar, "1", "-mca", kVar, "2", "--mca", kVar, "7"};
  Result<ToolOptions> opts = parse_tool_options(10, argv);
  ASSERT_TRUE(Succeeded(opts));
  ASSERT_EQ(opts.value().mca.size(), 3u);
  for (bool declare_first : {true, false}) {
    SCOPED_TRACE(declare_first ? "declared first" : "declared last");
    Registry reg;
    if (declare_first) {
      ASSERT_TRUE(Succeeded(reg.declare(level_spec())));
    }
    for (const Setting& s : opts.value().mca) ASSERT_TRUE(Succeeded(reg.add_setting(s)));
    if (!declare_first) {
      ASSERT_TRUE(Succeeded(reg.declare(level_spec())));
    }
    EXPECT_EQ(reg.find(kVar)->as_int(), 7);
    EXPECT_EQ(reg.find(kVar)->source().kind, SourceKind::CommandLine);
  }
}

TEST(Precedence, NoSettingKeepsTheDefault) {
  Registry reg;
  ASSERT_TRUE(Succeeded(reg.add_setting(make_setting("test_prec_other", "5", make_source(SourceKind::CommandLine)))));
  const Variable* v = reg.declare(level_spec()).value();
  EXPECT_EQ(v->as_int(), 0);
  EXPECT_TRUE(v->is_default());
  EXPECT_EQ(v->source().describe(), "default");
}

}  // namespace
}  // namespace orca::mca
