// Sources of settings: param-file text and files, the environment block
// and the --mca / --tune options every tool accepts.
#include "mca/var/mca_sources.h"

#include <gtest/gtest.h>

#include "lib/mca_var_util.h"
#include "lib/result_assertions.h"
#include "lib/temp_dir.h"
#include "mca/var/text.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <fcntl.h>
#include <unistd.h>

#include <orca/unique_fd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
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

TEST(ParseParamText, LineLengthLimit) {
  const std::string at_limit = "a = " + std::string(kMaxParamLineLength - 4, 'v');
  Result<std::vector<Setting>> ok = parse_param_text(at_limit + "\n", kSystemFile);
  ASSERT_TRUE(Succeeded(ok));
  EXPECT_EQ(ok.value()[0].text.size(), kMaxParamLineLength - 4);
  // One byte more, even in a comment, is refused.
  for (const std::string& line : {at_limit + "v", "#" + std::string(kMaxParamLineLength, ' ')}) {
    Result<std::vector<Setting>> r = parse_param_text("x = 1\n" + line + "\n", kSystemFile);
    ASSERT_TRUE(FailedWith(r, "mca-var", "bad-param-line"));
    EXPECT_EQ(r.error().arg("source"), "param file /etc/orca-mca-params.conf:2");
  }
}

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

// The error of a file that is not a regular one: names it and what it is.
::testing::AssertionResult RefusedAs(const Result<std::vector<Setting>>& r, const std::string& path,
                                     const std::string& what) {
  ::testing::AssertionResult failed = FailedWith(r, "mca-var", "unreadable-param-file");
  if (!failed) return failed;
  if (r.error().arg("file") != path) return ::testing::AssertionFailure() << "names " << r.error().arg("file");
  if (r.error().arg("why").find(what) == std::string::npos)
    return ::testing::AssertionFailure() << "why \"" << r.error().arg("why") << "\" does not say " << what;
  return ::testing::AssertionSuccess();
}

// Regression: a directory was once read as an empty param file.
TEST(ReadParamFile, DirectoryIsUnreadable) {
  test::TempDir dir;
  for (bool missing_ok : {true, false}) {
    SCOPED_TRACE(missing_ok ? "missing_ok" : "required");
    Result<std::vector<Setting>> r =
        read_param_file(dir.path().string(), make_source(SourceKind::ParamFile), missing_ok);
    EXPECT_TRUE(RefusedAs(r, dir.path().string(), "a directory"));
  }
}

// Regression: mca_base_param_files=/dev/zero read until std::bad_alloc.
TEST(ReadParamFile, DeviceIsRefused) {
  for (bool missing_ok : {true, false}) {
    SCOPED_TRACE(missing_ok ? "missing_ok" : "required");
    Result<std::vector<Setting>> r = read_param_file("/dev/zero", make_source(SourceKind::ParamFile), missing_ok);
    EXPECT_TRUE(RefusedAs(r, "/dev/zero", "a character device"));
  }
}

// Regression: a FIFO without a writer blocked the tool forever. Should the
// read block again, a helper opens the writing end after a while, so that
// the test fails (an empty file was read) instead of hanging.
TEST(ReadParamFile, FifoIsRefusedWithoutBlocking) {
  test::TempDir dir;
  const std::string path = (dir.path() / "fifo.conf").string();
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0) << std::strerror(errno);
  std::atomic<bool> done{false};
  std::thread rescuer([&] {
    for (int i = 0; i < 50 && !done; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (!done) UniqueFd(::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC));
  });
  const auto start = std::chrono::steady_clock::now();
  Result<std::vector<Setting>> r = read_param_file(path, make_source(SourceKind::ParamFile), true);
  const auto took = std::chrono::steady_clock::now() - start;
  done = true;
  rescuer.join();
  EXPECT_TRUE(RefusedAs(r, path, "a FIFO"));
  EXPECT_LT(took, std::chrono::seconds(4)) << "the read blocked";
}

TEST(ReadParamFile, SocketIsRefused) {
  test::TempDir dir;
  const std::string path = (dir.path() / "sock.conf").string();
  UniqueFd sock(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  ASSERT_TRUE(sock.valid()) << std::strerror(errno);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(path.size(), sizeof addr.sun_path);
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  ASSERT_EQ(::bind(sock.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0) << std::strerror(errno);
  EXPECT_TRUE(RefusedAs(read_param_file(path, make_source(SourceKind::ParamFile), true), path, "a socket"));
}

// Copies of a setting line, padded with newlines to exactly `bytes`.
std::string settings_text(size_t bytes) {
  const std::string line = "mca_base_verbose = 1\n";
  std::string text;
  while (text.size() + line.size() <= bytes) text += line;
  text += std::string(bytes - text.size(), '\n');
  return text;
}

TEST(ReadParamFile, FileLargerThanTheLimitIsRefused) {
  test::TempDir dir;
  const std::string path = dir.write("huge.conf", settings_text(2 * kMaxParamFileSize));
  Result<std::vector<Setting>> r = read_param_file(path, make_source(SourceKind::TuneFile), false);
  EXPECT_TRUE(RefusedAs(r, path, "larger than the limit of 1 MiB"));
  EXPECT_EQ(r.error().arg("kind"), "tune file");
  // One byte more than the limit is too much; exactly the limit is fine.
  const std::string over = dir.write("over.conf", settings_text(kMaxParamFileSize + 1));
  EXPECT_TRUE(RefusedAs(read_param_file(over, make_source(SourceKind::ParamFile), false), over, "1 MiB"));
  const std::string limit = dir.write("limit.conf", settings_text(kMaxParamFileSize));
  Result<std::vector<Setting>> ok = read_param_file(limit, make_source(SourceKind::ParamFile), false);
  ASSERT_TRUE(Succeeded(ok));
  EXPECT_FALSE(ok.value().empty());
}

TEST(ReadParamFile, LineLongerThanTheLimitNamesFileAndLine) {
  test::TempDir dir;
  const std::string path =
      dir.write("long.conf", "# fine\nmca_base_help_path = " + std::string(70 * 1024, 'x') + "\nlater = 1\n");
  Result<std::vector<Setting>> r = read_param_file(path, make_source(SourceKind::ParamFile), false);
  ASSERT_TRUE(FailedWith(r, "mca-var", "bad-param-line"));
  EXPECT_EQ(r.error().arg("source"), "param file " + path + ":2");
  EXPECT_NE(r.error().arg("why").find("64 KiB"), std::string::npos) << r.error().arg("why");
  // The message shows where the line starts, not all 70 KiB of it.
  EXPECT_LT(r.error().arg("line").size(), 100u);
  EXPECT_EQ(r.error().arg("line").substr(0, 18), "mca_base_help_path");
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
