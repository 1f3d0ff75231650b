// Sources of settings: param-file text and files, the environment block
// and the --mca / --tune options every tool accepts.
#include <orca/mca_sources.h>

#include <gtest/gtest.h>

#include "lib/mca_var_util.h"
#include "lib/result_assertions.h"
#include "lib/temp_dir.h"
#include "mca/var/text.h"

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

namespace orca::mca {
namespace {

using test::FailedWith;
using test::make_source;
using test::Succeeded;

const Source kSystemFile = make_source(SourceKind::ParamFile, "/etc/orca-mca-params.conf", 0, 3);

// name=text pairs, for compact comparisons.
std::vector<std::string> pairs(const std::vector<Setting>& settings) {
  std::vector<std::string> out;
  for (const auto& s : settings) out.push_back(s.name + "=" + s.text);
  return out;
}

// ---------------------------------------------------------------- parse_param_text

TEST(ParseParamText, SkipsCommentsAndBlankLines) {
  Result<std::vector<Setting>> r = parse_param_text(
      "# Orca settings\n"
      "\n"
      "   \t\n"
      "   # an indented comment\n"
      "mca_base_verbose = 3\n"
      "#mca_base_help_path = /nowhere\n",
      kSystemFile);
  ASSERT_TRUE(Succeeded(r));
  ASSERT_EQ(pairs(r.value()), std::vector<std::string>{"mca_base_verbose=3"});
  EXPECT_EQ(r.value()[0].source.line, 5);
}

TEST(ParseParamText, EmptyTextHasNoSettings) {
  for (const char* text : {"", "\n", "\n\n# only\n"}) {
    Result<std::vector<Setting>> r = parse_param_text(text, kSystemFile);
    ASSERT_TRUE(Succeeded(r));
    EXPECT_TRUE(r.value().empty());
  }
}

TEST(ParseParamText, SpacesAroundTheEqualsSignAreTrimmed) {
  Result<std::vector<Setting>> r = parse_param_text(
      "a=1\n"
      "b =2\n"
      "c= 3\n"
      "   d   =   4   \n"
      "\te\t=\t5\t\n"
      "f = two words\n"
      "g =\n",
      kSystemFile);
  ASSERT_TRUE(Succeeded(r));
  EXPECT_EQ(pairs(r.value()),
            (std::vector<std::string>{"a=1", "b=2", "c=3", "d=4", "e=5", "f=two words", "g="}));
}

TEST(ParseParamText, QuotesKeepSpacesAndHashes) {
  Result<std::vector<Setting>> r = parse_param_text(
      "a = \"  padded  \"\n"
      "b = \"# not a comment\"\n"
      "c = \"\"\n"
      "d = \"unbalanced\n"
      "e = in\"side\n",
      kSystemFile);
  ASSERT_TRUE(Succeeded(r));
  EXPECT_EQ(pairs(r.value()), (std::vector<std::string>{"a=  padded  ", "b=# not a comment", "c=",
                                                         "d=\"unbalanced", "e=in\"side"}));
}

TEST(ParseParamText, ValueMayContainEqualsSigns) {
  Result<std::vector<Setting>> r = parse_param_text("opts = a=b=c\nx==y\n", kSystemFile);
  ASSERT_TRUE(Succeeded(r));
  EXPECT_EQ(pairs(r.value()), (std::vector<std::string>{"opts=a=b=c", "x==y"}));
}

TEST(ParseParamText, WindowsLineEndings) {
  Result<std::vector<Setting>> r = parse_param_text("# c\r\na = 1\r\n\r\nb = x y\r\n", kSystemFile);
  ASSERT_TRUE(Succeeded(r));
  EXPECT_EQ(pairs(r.value()), (std::vector<std::string>{"a=1", "b=x y"}));
  EXPECT_EQ(r.value()[1].source.line, 4);
}

TEST(ParseParamText, EachSettingRecordsOriginAndLine) {
  Source origin = make_source(SourceKind::TuneFile, "/job/tune.conf", 99, 2);
  Result<std::vector<Setting>> r = parse_param_text("a = 1\n\n# x\nb = 2\nc = 3", origin);
  ASSERT_TRUE(Succeeded(r));
  ASSERT_EQ(r.value().size(), 3u);
  const int lines[] = {1, 4, 5};
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(r.value()[i].name);
    const Source& s = r.value()[i].source;
    EXPECT_EQ(s.kind, SourceKind::TuneFile);
    EXPECT_EQ(s.file, "/job/tune.conf");
    EXPECT_EQ(s.order, 2);
    EXPECT_EQ(s.line, lines[i]);
  }
  EXPECT_EQ(r.value()[1].source.describe(), "tune file /job/tune.conf:4");
}

struct BadLine {
  std::string label;
  std::string line;
  std::string why;
};

class MalformedParamLine : public ::testing::TestWithParam<BadLine> {};

TEST_P(MalformedParamLine, IsAnErrorNamingFileAndLine) {
  const std::string text = "# header\nmca_base_verbose = 1\n\n" + GetParam().line + "\nlater = 2\n";
  Result<std::vector<Setting>> r =
      parse_param_text(text, make_source(SourceKind::ParamFile, "/etc/orca-mca-params.conf"));
  ASSERT_TRUE(FailedWith(r, "mca-var", "bad-param-line"));
  const Message& m = r.error();
  EXPECT_EQ(m.arg("source"), "param file /etc/orca-mca-params.conf:4");
  EXPECT_EQ(m.arg("line"), std::string(trim(GetParam().line)));
  EXPECT_EQ(m.arg("why"), GetParam().why);
}

INSTANTIATE_TEST_SUITE_P(
    Lines, MalformedParamLine,
    ::testing::Values(BadLine{"NoEquals", "mca_base_verbose 1", "there is no '='"},
                      BadLine{"WordOnly", "  verbose  ", "there is no '='"},
                      BadLine{"EmptyName", "= 5", "the name before '=' is not letters, digits and '_'"},
                      BadLine{"Dash", "mca-base-verbose = 1", "the name before '=' is not letters, digits and '_'"},
                      BadLine{"Dot", "mca.base = 1", "the name before '=' is not letters, digits and '_'"},
                      BadLine{"Space", "mca base = 1", "the name before '=' is not letters, digits and '_'"},
                      BadLine{"MinusMinusMca", "--mca x = 1", "the name before '=' is not letters, digits and '_'"}),
    [](const ::testing::TestParamInfo<BadLine>& p) { return p.param.label; });

// ---------------------------------------------------------------- read_param_file

TEST(ReadParamFile, ReadsTheFileAndRecordsItsPath) {
  test::TempDir dir;
  const std::string path = dir.write("site.conf", "# site\nmca_base_verbose = 2\noob = ^tcp\n");
  Result<std::vector<Setting>> r =
      read_param_file(path, make_source(SourceKind::ParamFile, "ignored", 0, 1), false);
  ASSERT_TRUE(Succeeded(r));
  ASSERT_EQ(pairs(r.value()), (std::vector<std::string>{"mca_base_verbose=2", "oob=^tcp"}));
  EXPECT_EQ(r.value()[0].source.file, path);
  EXPECT_EQ(r.value()[0].source.line, 2);
  EXPECT_EQ(r.value()[1].source.line, 3);
  EXPECT_EQ(r.value()[1].source.order, 1);
  EXPECT_EQ(r.value()[1].source.kind, SourceKind::ParamFile);
}

TEST(ReadParamFile, MalformedLineNamesTheFile) {
  test::TempDir dir;
  const std::string path = dir.write("bad.conf", "a = 1\nthis is wrong\n");
  Result<std::vector<Setting>> r = read_param_file(path, make_source(SourceKind::TuneFile), false);
  ASSERT_TRUE(FailedWith(r, "mca-var", "bad-param-line"));
  EXPECT_EQ(r.error().arg("source"), "tune file " + path + ":2");
}

TEST(ReadParamFile, MissingFileIsFineWhenMissingIsOk) {
  test::TempDir dir;
  Result<std::vector<Setting>> r =
      read_param_file((dir.path() / "absent.conf").string(), make_source(SourceKind::ParamFile), true);
  ASSERT_TRUE(Succeeded(r));
  EXPECT_TRUE(r.value().empty());
}

TEST(ReadParamFile, MissingFileIsAnErrorOtherwise) {
  test::TempDir dir;
  const std::string path = (dir.path() / "absent.conf").string();
  Result<std::vector<Setting>> r = read_param_file(path, make_source(SourceKind::TuneFile), false);
  ASSERT_TRUE(FailedWith(r, "mca-var", "unreadable-param-file"));
  EXPECT_EQ(r.error().arg("file"), path);
  EXPECT_EQ(r.error().arg("why"), std::strerror(ENOENT));
}

TEST(ReadParamFile, MissingDirectoryOnTheWayIsAnErrorEvenWhenMissingIsOk) {
  test::TempDir dir;
  const std::string file = dir.write("plain", "x = 1\n");
  // A path through a regular file: ENOTDIR, not a missing file.
  Result<std::vector<Setting>> r = read_param_file(file + "/sub.conf", make_source(SourceKind::ParamFile), true);
  EXPECT_TRUE(FailedWith(r, "mca-var", "unreadable-param-file"));
}

// Regression: the message once named the kind as "tune file /x:0".
TEST(ReadParamFile, ErrorNamesTheKindOfFile) {
  test::TempDir dir;
  const std::string path = (dir.path() / "absent.conf").string();
  Result<std::vector<Setting>> r = read_param_file(path, make_source(SourceKind::TuneFile, path, 0, 0), false);
  ASSERT_TRUE(FailedWith(r, "mca-var", "unreadable-param-file"));
  EXPECT_EQ(r.error().arg("kind"), "tune file");
}

// Regression: a directory was once read as an empty param file.
TEST(ReadParamFile, DirectoryIsUnreadable) {
  test::TempDir dir;
  for (bool missing_ok : {true, false}) {
    SCOPED_TRACE(missing_ok ? "missing_ok" : "required");
    Result<std::vector<Setting>> r =
        read_param_file(dir.path().string(), make_source(SourceKind::ParamFile), missing_ok);
    EXPECT_TRUE(FailedWith(r, "mca-var", "unreadable-param-file"));
  }
}

// ---------------------------------------------------------------- environment

TEST(SettingsFromEnvironment, TakesOnlyOrcaMcaEntries) {
  const char* envp[] = {
      "PATH=/usr/bin:/bin",
      "ORCA_MCA_mca_base_verbose=5",
      "HOME=/home/u",
      "ORCA_MCA_opts=a=b",
      "ORCA_MCAX_nope=1",
      "orca_mca_lower=1",
      "XORCA_MCA_prefixed=1",
      "ORCA_MCA_no_equals",
      "ORCA_MCA_empty=",
      nullptr,
  };
  std::vector<Setting> s = settings_from_environment(envp);
  EXPECT_EQ(pairs(s), (std::vector<std::string>{"mca_base_verbose=5", "opts=a=b", "empty="}));
  for (const auto& one : s) {
    EXPECT_EQ(one.source.kind, SourceKind::Environment);
    EXPECT_EQ(one.source.describe(), "environment");
  }
}

TEST(SettingsFromEnvironment, EmptyAndNullBlocks) {
  const char* empty[] = {nullptr};
  EXPECT_TRUE(settings_from_environment(empty).empty());
  EXPECT_TRUE(settings_from_environment(nullptr).empty());
}

// ---------------------------------------------------------------- tool options

Result<ToolOptions> parse_args(std::vector<const char*> args) {
  args.insert(args.begin(), "tool");
  return parse_tool_options(static_cast<int>(args.size()), args.data());
}

TEST(ParseToolOptions, ExtractsMcaAndTuneAndKeepsTheRestInOrder) {
  Result<ToolOptions> r = parse_args({"--param", "--mca", "a_b", "1", "all", "-mca", "c", "two words", "--tune",
                                      "/t1.conf", "--tune=/t2.conf", "-v", "--mcax", "x"});
  ASSERT_TRUE(Succeeded(r));
  const ToolOptions& o = r.value();
  EXPECT_EQ(pairs(o.mca), (std::vector<std::string>{"a_b=1", "c=two words"}));
  for (const auto& s : o.mca) {
    EXPECT_EQ(s.source.kind, SourceKind::CommandLine);
    EXPECT_EQ(s.source.describe(), "command line");
  }
  EXPECT_EQ(o.tune_files, (std::vector<std::string>{"/t1.conf", "/t2.conf"}));
  EXPECT_EQ(o.rest, (std::vector<std::string>{"--param", "all", "-v", "--mcax", "x"}));
}

TEST(ParseToolOptions, NoArguments) {
  Result<ToolOptions> r = parse_args({});
  ASSERT_TRUE(Succeeded(r));
  EXPECT_TRUE(r.value().mca.empty());
  EXPECT_TRUE(r.value().tune_files.empty());
  EXPECT_TRUE(r.value().rest.empty());
}

TEST(ParseToolOptions, McaValueMayLookLikeAnOption) {
  Result<ToolOptions> r = parse_args({"--mca", "x", "--tune", "--mca", "y", "--"});
  ASSERT_TRUE(Succeeded(r));
  EXPECT_EQ(pairs(r.value().mca), (std::vector<std::string>{"x=--tune", "y=--"}));
  EXPECT_TRUE(r.value().rest.empty());
}

TEST(ParseToolOptions, McaNeedsNameAndValue) {
  for (const auto& args : std::vector<std::vector<const char*>>{{"--mca"}, {"--mca", "name"}, {"x", "--mca", "n"}}) {
    Result<ToolOptions> r = parse_args(args);
    ASSERT_TRUE(FailedWith(r, "mca-var", "mca-option-args"));
    EXPECT_EQ(r.error().arg("option"), "--mca");
  }
  Result<ToolOptions> single = parse_args({"-mca", "name"});
  ASSERT_TRUE(FailedWith(single, "mca-var", "mca-option-args"));
  EXPECT_EQ(single.error().arg("option"), "-mca");
}

TEST(ParseToolOptions, TuneNeedsAFile) {
  EXPECT_TRUE(FailedWith(parse_args({"--tune"}), "mca-var", "tune-option-args"));
  EXPECT_TRUE(FailedWith(parse_args({"--mca", "a", "1", "--tune"}), "mca-var", "tune-option-args"));
}

TEST(ParseToolOptions, DoubleDashStopsOptionProcessing) {
  Result<ToolOptions> r =
      parse_args({"--mca", "a", "1", "keep", "--", "--mca", "b", "2", "--tune", "f", "--", "tail"});
  ASSERT_TRUE(Succeeded(r));
  EXPECT_EQ(pairs(r.value().mca), std::vector<std::string>{"a=1"});
  EXPECT_TRUE(r.value().tune_files.empty());
  EXPECT_EQ(r.value().rest,
            (std::vector<std::string>{"keep", "--", "--mca", "b", "2", "--tune", "f", "--", "tail"}));
}

TEST(ParseToolOptions, MissingArgumentsAfterDoubleDashAreNoError) {
  Result<ToolOptions> r = parse_args({"--", "--mca"});
  ASSERT_TRUE(Succeeded(r));
  EXPECT_EQ(r.value().rest, (std::vector<std::string>{"--", "--mca"}));
}

}  // namespace
}  // namespace orca::mca
