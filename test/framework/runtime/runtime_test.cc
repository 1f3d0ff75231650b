// Runtime::load: every source of settings, from real files in a private
// install tree and home directory, with mca_base_verbose (declared by the
// runtime itself) as the probe; file errors; and report_settings().
#include "runtime/runtime.h"

#include <gtest/gtest.h>

#include "lib/expect_text.h"
#include "lib/mca_var_util.h"
#include "lib/result_assertions.h"
#include "lib/temp_dir.h"

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <sstream>
#include <string>
#include <vector>

#ifndef ORCA_TEST_HELP_DIR
#error "ORCA_TEST_HELP_DIR must name the directory of Orca's help-*.txt files"
#endif

namespace orca {
namespace {

using mca::SourceKind;
using test::Contains;
using test::FailedWith;
using test::LacksText;
using test::Succeeded;
using test::TempDir;

constexpr const char* kVerbose = "mca_base_verbose";

// A private install (etc, lib, share) and home directory, an environment
// that points at them, and the tool options of one run.
class RuntimeTest : public ::testing::Test {
 protected:
  RuntimeTest() : env_{"HOME=" + home(), "PATH=/usr/bin:/bin",
                       std::string("ORCA_MCA_mca_base_help_path=") + ORCA_TEST_HELP_DIR} {}

  std::string sysconfdir() const { return (tmp_.path() / "etc").string(); }
  std::string home() const { return (tmp_.path() / "home").string(); }
  std::string system_file() const { return sysconfdir() + "/orca-mca-params.conf"; }
  std::string user_file() const { return home() + "/.orca/mca-params.conf"; }
  std::string override_file() const { return sysconfdir() + "/orca-mca-params-override.conf"; }
  std::string tune_file() const { return (tmp_.path() / "job" / "tune.conf").string(); }

  InstallPaths paths() const {
    return InstallPaths{sysconfdir(), (tmp_.path() / "lib").string(), (tmp_.path() / "share").string()};
  }

  // Writes `text` to an absolute path inside the temporary tree.
  std::string write(const std::string& path, const std::string& text) const {
    return tmp_.write(std::filesystem::path(path).lexically_relative(tmp_.path()).string(), text);
  }

  void add_env(const std::string& entry) { env_.push_back(entry); }
  void remove_env(const std::string& prefix) {
    std::erase_if(env_, [&](const std::string& e) { return e.rfind(prefix, 0) == 0; });
  }
  void add_args(std::vector<std::string> args) {
    for (auto& a : args) args_.push_back(std::move(a));
  }

  // Builds the runtime and loads it with the environment and arguments.
  Status load() {
    std::vector<const char*> envp;
    for (const auto& e : env_) envp.push_back(e.c_str());
    envp.push_back(nullptr);
    runtime_ = std::make_unique<Runtime>("orca_test", envp.data(), paths());

    std::vector<const char*> argv = {"orca_test"};
    for (const auto& a : args_) argv.push_back(a.c_str());
    Result<mca::ToolOptions> options = mca::parse_tool_options(static_cast<int>(argv.size()), argv.data());
    if (!options) return options.error();
    return runtime_->load(options.value());
  }

  const mca::Variable& var(const char* name) const {
    const mca::Variable* v = runtime_->registry().find(name);
    if (v == nullptr) throw std::runtime_error(std::string("no variable ") + name);
    return *v;
  }

  Runtime& runtime() { return *runtime_; }

 private:
  TempDir tmp_;
  std::vector<std::string> env_;
  std::vector<std::string> args_;
  std::unique_ptr<Runtime> runtime_;
};

// ---------------------------------------------------------------- the source matrix

// The six places mca_base_verbose can come from, lowest first. A run uses
// the subset given by a bit mask; the value of source i is i + 1.
enum Place { kSystem, kUser, kTune, kEnv, kCmd, kOverride, kPlaces };
const char* const kPlaceNames[kPlaces] = {"System", "User", "Tune", "Env", "Cmd", "Override"};

class RuntimeSourceMatrix : public RuntimeTest, public ::testing::WithParamInterface<int> {
 protected:
  bool uses(Place p) const { return (GetParam() >> p) & 1; }
  // Every file exists and has a comment and another setting; only the
  // chosen ones set mca_base_verbose, each on a line of its own.
  std::string file_text(Place p, int line) const {
    std::string text = "# file of place " + std::string(kPlaceNames[p]) + "\n";
    for (int i = 2; i < line; ++i) text += "\n";
    if (uses(p)) text += std::string(kVerbose) + " = " + std::to_string(p + 1) + "\n";
    text += "mca_base_component_path = " + paths().pkglibdir + "\n";
    return text;
  }
};

// Lines of mca_base_verbose in each file.
constexpr int kSystemLine = 2, kUserLine = 3, kTuneLine = 4, kOverrideLine = 5;

TEST_P(RuntimeSourceMatrix, HighestSourceWins) {
  write(system_file(), file_text(kSystem, kSystemLine));
  write(user_file(), file_text(kUser, kUserLine));
  write(tune_file(), file_text(kTune, kTuneLine));
  write(override_file(), file_text(kOverride, kOverrideLine));
  add_args({"--tune", tune_file()});
  if (uses(kEnv)) add_env(std::string("ORCA_MCA_") + kVerbose + "=" + std::to_string(kEnv + 1));
  if (uses(kCmd)) add_args({"--mca", kVerbose, std::to_string(kCmd + 1)});

  ASSERT_TRUE(Succeeded(load()));
  int winner = -1;
  for (int p = 0; p < kPlaces; ++p) {
    if (uses(static_cast<Place>(p))) winner = p;
  }
  const mca::Variable& v = var(kVerbose);
  EXPECT_EQ(v.as_int(), winner + 1);
  EXPECT_EQ(runtime().verbosity(), winner + 1);

  const mca::Source& s = v.source();
  switch (winner) {
    case -1:
      EXPECT_EQ(s.kind, SourceKind::Default);
      EXPECT_TRUE(v.is_default());
      break;
    case kSystem:
      EXPECT_EQ(s.kind, SourceKind::ParamFile);
      EXPECT_EQ(s.file, system_file());
      EXPECT_EQ(s.line, kSystemLine);
      break;
    case kUser:
      EXPECT_EQ(s.kind, SourceKind::ParamFile);
      EXPECT_EQ(s.file, user_file());
      EXPECT_EQ(s.line, kUserLine);
      EXPECT_GT(s.order, 0) << "the user file comes after the system file";
      break;
    case kTune:
      EXPECT_EQ(s.kind, SourceKind::TuneFile);
      EXPECT_EQ(s.file, tune_file());
      EXPECT_EQ(s.line, kTuneLine);
      break;
    case kEnv:
      EXPECT_EQ(s.kind, SourceKind::Environment);
      break;
    case kCmd:
      EXPECT_EQ(s.kind, SourceKind::CommandLine);
      break;
    case kOverride:
      EXPECT_EQ(s.kind, SourceKind::OverrideFile);
      EXPECT_EQ(s.file, override_file());
      EXPECT_EQ(s.line, kOverrideLine);
      break;
  }
  // Every file was read: the other setting of each is claimed, not unknown.
  std::ostringstream err;
  runtime().report_settings(err);
  EXPECT_EQ(err.str(), "");
}

INSTANTIATE_TEST_SUITE_P(EverySubset, RuntimeSourceMatrix, ::testing::Range(0, 1 << kPlaces),
                         [](const ::testing::TestParamInfo<int>& p) {
                           std::string name;
                           for (int i = 0; i < kPlaces; ++i) {
                             if ((p.param >> i) & 1) name += (name.empty() ? "" : "_") + std::string(kPlaceNames[i]);
                           }
                           return name.empty() ? std::string("Nothing") : name;
                         });

// ---------------------------------------------------------------- files

TEST_F(RuntimeTest, NoFilesAtAllIsFine) {
  ASSERT_TRUE(Succeeded(load()));
  EXPECT_TRUE(var(kVerbose).is_default());
  EXPECT_EQ(var(kVerbose).as_int(), 0);
  EXPECT_EQ(var("mca_base_param_files").as_string(), system_file() + ":" + user_file());
  EXPECT_EQ(var("mca_base_override_param_file").as_string(), override_file());
  EXPECT_EQ(runtime().help().dirs(), std::vector<std::string>{ORCA_TEST_HELP_DIR});
}

TEST_F(RuntimeTest, ParamFilesNoneReadsNoParamFiles) {
  write(system_file(), "mca_base_verbose = 1\n");
  write(user_file(), "mca_base_verbose = 2\n");
  add_env("ORCA_MCA_mca_base_param_files=none");
  ASSERT_TRUE(Succeeded(load()));
  EXPECT_EQ(var(kVerbose).as_int(), 0);
  EXPECT_TRUE(var(kVerbose).is_default());
}

TEST_F(RuntimeTest, ParamFilesNoneLeavesTheOverrideFile) {
  write(system_file(), "mca_base_verbose = 1\n");
  write(override_file(), "mca_base_verbose = 6\n");
  add_args({"--mca", "mca_base_param_files", "none"});
  ASSERT_TRUE(Succeeded(load()));
  EXPECT_EQ(var(kVerbose).as_int(), 6);
  EXPECT_EQ(var(kVerbose).source().kind, SourceKind::OverrideFile);
}

TEST_F(RuntimeTest, OverrideFileNoneReadsNoOverride) {
  write(system_file(), "mca_base_verbose = 1\n");
  write(override_file(), "mca_base_verbose = 6\n");
  add_env("ORCA_MCA_mca_base_override_param_file=none");
  ASSERT_TRUE(Succeeded(load()));
  EXPECT_EQ(var(kVerbose).as_int(), 1);
  EXPECT_EQ(var(kVerbose).source().file, system_file());
}

TEST_F(RuntimeTest, ChosenParamFilesAreReadInOrderLaterWins) {
  const std::string a = write(home() + "/a.conf", "mca_base_verbose = 3\n");
  const std::string b = write(home() + "/b.conf", "# b\nmca_base_verbose = 4\n");
  write(system_file(), "mca_base_verbose = 1\n");
  add_args({"--mca", "mca_base_param_files", a + ":" + b});
  ASSERT_TRUE(Succeeded(load()));
  EXPECT_EQ(var(kVerbose).as_int(), 4);
  EXPECT_EQ(var(kVerbose).source().file, b);
  EXPECT_EQ(var(kVerbose).source().line, 2);
}

TEST_F(RuntimeTest, LaterTuneFileWins) {
  const std::string first = write(home() + "/first.conf", "mca_base_verbose = 3\n");
  const std::string second = write(home() + "/second.conf", "mca_base_verbose = 4\n");
  add_args({"--tune", first, "--tune=" + second});
  ASSERT_TRUE(Succeeded(load()));
  EXPECT_EQ(var(kVerbose).as_int(), 4);
  EXPECT_EQ(var(kVerbose).source().file, second);
}

TEST_F(RuntimeTest, MalformedLineFailsNamingFileAndLine) {
  write(system_file(), "mca_base_verbose = 1\n# fine so far\nthis line is wrong\n");
  Status st = load();
  ASSERT_TRUE(FailedWith(st, "mca-var", "bad-param-line"));
  EXPECT_EQ(st.error().arg("source"), "param file " + system_file() + ":3");
  EXPECT_EQ(st.error().arg("line"), "this line is wrong");
  // It renders with the real help text.
  const std::string text = runtime().help().render(st.error());
  EXPECT_TRUE(Contains(text, "orca_test: cannot read a setting at param file " + system_file() + ":3"));
  EXPECT_TRUE(LacksText(text, "not found in:"));
}

TEST_F(RuntimeTest, MalformedLineInTuneFileFails) {
  write(tune_file(), "\n\nmca-base-verbose = 1\n");
  add_args({"--tune", tune_file()});
  Status st = load();
  ASSERT_TRUE(FailedWith(st, "mca-var", "bad-param-line"));
  EXPECT_EQ(st.error().arg("source"), "tune file " + tune_file() + ":3");
}

TEST_F(RuntimeTest, MissingTuneFileIsAnError) {
  add_args({"--tune", tune_file()});
  Status st = load();
  ASSERT_TRUE(FailedWith(st, "mca-var", "unreadable-param-file"));
  EXPECT_EQ(st.error().arg("file"), tune_file());
}

TEST_F(RuntimeTest, BadValueInAFileFails) {
  write(user_file(), "mca_base_verbose = loud\n");
  Status st = load();
  ASSERT_TRUE(FailedWith(st, "mca-var", "bad-value"));
  EXPECT_EQ(st.error().arg("source"), "param file " + user_file() + ":1");
}

TEST_F(RuntimeTest, BadValueInTheEnvironmentFailsButHelpIsUsable) {
  add_env("ORCA_MCA_mca_base_verbose=loud");
  Status st = load();
  ASSERT_TRUE(FailedWith(st, "mca-var", "bad-value"));
  EXPECT_EQ(st.error().arg("source"), "environment");
  // The other base variables were declared, so the message can be shown.
  EXPECT_EQ(runtime().help().dirs(), std::vector<std::string>{ORCA_TEST_HELP_DIR});
  EXPECT_TRUE(LacksText(runtime().help().render(st.error()), "not found in:"));
}

TEST_F(RuntimeTest, OutOfRangeVerbosityInAFileFailsNamingTheRange) {
  write(user_file(), "mca_base_verbose = 101\n");
  Status st = load();
  ASSERT_TRUE(FailedWith(st, "mca-var", "bad-value"));
  EXPECT_EQ(st.error().arg("source"), "param file " + user_file() + ":1");
  EXPECT_EQ(st.error().arg("why"), "out of range");
  const std::string text = runtime().help().render(st.error());
  EXPECT_TRUE(Contains(text, "Valid values: a whole number from 0 to 100"));
}

// Regression: mca_base_param_files=/dev/zero ended in std::bad_alloc.
TEST_F(RuntimeTest, ADeviceAsParamFileIsAnErrorNamingIt) {
  add_env("ORCA_MCA_mca_base_param_files=/dev/zero");
  Status st = load();
  ASSERT_TRUE(FailedWith(st, "mca-var", "unreadable-param-file"));
  EXPECT_EQ(st.error().arg("file"), "/dev/zero");
  const std::string text = runtime().help().render(st.error());
  EXPECT_TRUE(Contains(text, "cannot read the param file \"/dev/zero\": it is a character device"));
}

TEST_F(RuntimeTest, ParamFilesSetInAFileIsIgnoredWithANotice) {
  const std::string elsewhere = write(home() + "/elsewhere.conf", "mca_base_verbose = 7\n");
  write(system_file(), "mca_base_param_files = " + elsewhere + "\nmca_base_verbose = 1\n");
  ASSERT_TRUE(Succeeded(load()));
  EXPECT_EQ(var(kVerbose).as_int(), 1);
  EXPECT_EQ(var(kVerbose).source().file, system_file());
  EXPECT_TRUE(var("mca_base_param_files").is_default());

  std::ostringstream err;
  runtime().report_settings(err);
  EXPECT_TRUE(Contains(err.str(), "orca_test: the MCA variable mca_base_param_files cannot be set in a file "
                                  "(the param file " + system_file() + ":1); that line was ignored."));
  EXPECT_TRUE(LacksText(err.str(), "no MCA variable is named"));
}

// Regression: notices once went through show() once per topic, so a
// second distinct ignored setting was dropped without a word.
TEST_F(RuntimeTest, EveryIgnoredFileSettingIsReported) {
  write(system_file(),
        "mca_base_param_files = /a.conf\n"
        "mca_base_override_param_file = /b.conf\n");
  ASSERT_TRUE(Succeeded(load()));
  EXPECT_TRUE(var("mca_base_param_files").is_default());
  EXPECT_TRUE(var("mca_base_override_param_file").is_default());
  std::ostringstream err;
  runtime().report_settings(err);
  EXPECT_TRUE(Contains(err.str(), "the MCA variable mca_base_param_files cannot be set in a file"));
  EXPECT_TRUE(Contains(err.str(), "the MCA variable mca_base_override_param_file cannot be set in a file"));
}

TEST_F(RuntimeTest, WithoutHomeOnlySystemPathsAreUsed) {
  write(user_file(), "mca_base_verbose = 2\n");
  remove_env("HOME=");
  ASSERT_TRUE(Succeeded(load()));
  EXPECT_EQ(var("mca_base_param_files").as_string(), system_file());
  EXPECT_EQ(var("mca_base_component_path").as_string(), paths().pkglibdir);
  EXPECT_TRUE(var(kVerbose).is_default());
}

TEST_F(RuntimeTest, HelpPathMayComeFromAFile) {
  TempDir other;
  other.write("help-mca-var.txt", "[unknown-var]\ncustom text for {name}\n");
  write(system_file(), "mca_base_help_path = " + other.path().string() + "\n");
  remove_env("ORCA_MCA_mca_base_help_path=");
  add_args({"--mca", "zzz_qqq_xxx", "1"});
  ASSERT_TRUE(Succeeded(load()));
  EXPECT_EQ(runtime().help().dirs(), std::vector<std::string>{other.path().string()});
  std::ostringstream err;
  runtime().report_settings(err);
  EXPECT_EQ(err.str(), "orca_test: custom text for zzz_qqq_xxx\n");
}

// ---------------------------------------------------------------- report_settings

TEST_F(RuntimeTest, ReportSettingsSuggestsTheClosestName) {
  add_env("ORCA_MCA_mca_base_verbsoe=2");
  ASSERT_TRUE(Succeeded(load()));
  EXPECT_EQ(var(kVerbose).as_int(), 0);
  std::ostringstream err;
  runtime().report_settings(err);
  EXPECT_TRUE(Contains(err.str(), "orca_test: warning: no MCA variable is named \"mca_base_verbsoe\" "
                                  "(from the environment); the setting was ignored."));
  EXPECT_TRUE(Contains(err.str(), "Did you mean mca_base_verbose?"));
  EXPECT_TRUE(LacksText(err.str(), "not found in:"));
}

// A program that dealt with some unknown names itself (orcarun passes
// Open MPI's to the ranks) has them left out; the others are still shown.
TEST_F(RuntimeTest, ReportSettingsLeavesOutTheNamesTheProgramHandled) {
  add_args({"--mca", "pml", "ob1", "--mca", "btl", "self"});
  ASSERT_TRUE(Succeeded(load()));
  std::ostringstream err;
  runtime().report_settings(err, {"pml"});
  EXPECT_TRUE(LacksText(err.str(), "\"pml\""));
  EXPECT_TRUE(Contains(err.str(), "no MCA variable is named \"btl\" (from the command line)"));
}

TEST_F(RuntimeTest, ReportSettingsShowsEveryUnknownName) {
  write(user_file(), "# mine\nbtl_openib_flags = 1\n");
  add_args({"--mca", "pml_ob1_priority", "3"});
  ASSERT_TRUE(Succeeded(load()));
  std::ostringstream err;
  runtime().report_settings(err);
  EXPECT_TRUE(Contains(err.str(), "no MCA variable is named \"btl_openib_flags\" (from the param file " +
                                      user_file() + ":2)"));
  EXPECT_TRUE(Contains(err.str(), "no MCA variable is named \"pml_ob1_priority\" (from the command line)"));
  EXPECT_TRUE(Contains(err.str(), "List the variables with: orca_info --param all all"));
  EXPECT_TRUE(LacksText(err.str(), "Did you mean"));
}

TEST_F(RuntimeTest, ReportSettingsIsQuietWhenEverythingIsKnown) {
  add_env("ORCA_MCA_mca_base_verbose=1");
  add_args({"--mca", "mca_base_component_path", "/nowhere"});
  ASSERT_TRUE(Succeeded(load()));
  std::ostringstream err;
  runtime().report_settings(err);
  EXPECT_EQ(err.str(), "");
}

}  // namespace
}  // namespace orca

namespace orca {
namespace {

TEST(RuntimeLogSink, EveryLogLineGoesThroughTheSink) {
  const std::string help = std::string("ORCA_MCA_mca_base_help_path=") + ORCA_TEST_HELP_DIR;
  const std::string path = std::string("ORCA_MCA_mca_base_component_path=") + ORCA_TEST_COMPONENT_DIR;
  const char* envp[] = {"ORCA_MCA_mca_base_param_files=none", "ORCA_MCA_mca_base_override_param_file=none",
                        path.c_str(), "ORCA_MCA_test_base_verbose=10", help.c_str(), nullptr};
  Runtime runtime("sink_test", envp);
  ASSERT_TRUE(runtime.load(mca::ToolOptions{}).ok());
  std::vector<std::pair<std::string, std::string>> lines;
  runtime.set_log_sink([&](std::string_view channel, const std::string& text) { lines.emplace_back(channel, text); });
  runtime.log("oob", std::string("a line with a control byte \x1b[2J"));
  // A framework's verbose output is a log line of the runtime too.
  // The fixture components of framework "test" (interface version 3).
  static constexpr mca::FrameworkDecl kTest{"test", "the fixture framework", 3, mca::SelectMode::One};
  auto fw = runtime.add_framework(kTest);
  ASSERT_TRUE(fw.ok()) << fw.error().summary();
  (void)fw.value()->open();  // says which component it selected, at verbose level 10
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[0].first, "oob");
  EXPECT_EQ(lines[0].second, "a line with a control byte \\x1b[2J");
  EXPECT_EQ(lines[1].first, "test");
  const size_t before = lines.size();
  // An empty sink restores standard error.
  runtime.set_log_sink({});
  testing::internal::CaptureStderr();
  runtime.log("oob", "to stderr");
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("oob: to stderr"), std::string::npos) << err;
  EXPECT_EQ(lines.size(), before);
}

}  // namespace
}  // namespace orca
