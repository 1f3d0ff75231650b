// find_program (framework/launch/program_path.cc): a program name resolved
// as execvp resolves it, against real files in a temporary directory.
#include <orca/program_path.h>

#include "lib/temp_dir.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace orca {
namespace {

namespace fs = std::filesystem;

std::string program_in(const test::TempDir& dir, const std::string& name, bool executable) {
  const std::string path = dir.write(name, "#!/bin/sh\n");
  ::chmod(path.c_str(), executable ? 0755 : 0644);
  return path;
}

TEST(ProgramPath, TheFirstExecutableRegularFileInPathOrder) {
  test::TempDir dir;
  program_in(dir, "a/prog", false);         // not executable
  fs::create_directories(dir.path() / "b/prog");  // a directory: execvp goes past it
  const std::string c = program_in(dir, "c/prog", true);
  program_in(dir, "d/prog", true);
  const std::string path = (dir.path() / "a").string() + ":" + (dir.path() / "b").string() + ":" +
                           (dir.path() / "nowhere").string() + ":" + (dir.path() / "c").string() + ":" +
                           (dir.path() / "d").string();
  EXPECT_EQ(find_program("prog", path.c_str()), c);
  EXPECT_EQ(find_program("other", path.c_str()), std::nullopt);
  EXPECT_EQ(find_program("", path.c_str()), std::nullopt);
}

TEST(ProgramPath, ANameWithASlashIsThatNameAsItIs) {
  EXPECT_EQ(find_program("./prog", "/nowhere"), "./prog");
  EXPECT_EQ(find_program("/no/such/prog", "/nowhere"), "/no/such/prog");
}

TEST(ProgramPath, AnEmptyEntryIsTheWorkingDirectory) {
  test::TempDir dir;
  program_in(dir, "prog", true);
  char here[4096];
  ASSERT_NE(::getcwd(here, sizeof here), nullptr);
  ASSERT_EQ(::chdir(dir.path().c_str()), 0);
  const auto leading = find_program("prog", ":/nowhere");
  const auto middle = find_program("prog", "/nowhere::/nowhere2");
  const auto trailing = find_program("prog", "/nowhere:");
  const auto without = find_program("prog", "/nowhere");
  ASSERT_EQ(::chdir(here), 0);
  EXPECT_EQ(leading, "prog");
  EXPECT_EQ(middle, "prog");
  EXPECT_EQ(trailing, "prog");
  EXPECT_EQ(without, std::nullopt);
}

TEST(ProgramPath, NoPathAtAllIsExecvpsDefault) {
  // glibc's execvp searches /bin:/usr/bin when PATH is not set.
  EXPECT_EQ(find_program("sh", nullptr), "/bin/sh");
  EXPECT_EQ(find_program("sh", ""), std::nullopt);  // set but empty: only the working directory
}

}  // namespace
}  // namespace orca
