// read_bounded_file's rules for a file whose contents are trusted
// (framework/io/bounded_file.cc): no symbolic link, and the user's own
// file that nobody else may write; without them, both are read.
#include <orca/bounded_file.h>

#include "lib/temp_dir.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

namespace orca {
namespace {

constexpr BoundedFileRules kTrusted{.no_symlink = true, .private_to_user = true};

TEST(BoundedFileRules, WithoutRulesALinkAndAFileOthersMayWriteAreRead) {
  test::TempDir dir;
  const std::string file = dir.write("f", "text\n");
  ::chmod(file.c_str(), 0666);
  std::filesystem::create_symlink(file, dir.path() / "link");
  EXPECT_EQ(read_bounded_file(file, 100, "a test file").text, "text\n");
  EXPECT_EQ(read_bounded_file((dir.path() / "link").string(), 100, "a test file").text, "text\n");
}

TEST(BoundedFileRules, ASymbolicLinkIsRefusedByName) {
  test::TempDir dir;
  const std::string file = dir.write("f", "text\n");
  ::chmod(file.c_str(), 0600);
  std::filesystem::create_symlink(file, dir.path() / "link");
  const BoundedFile got = read_bounded_file((dir.path() / "link").string(), 100, "a cache", kTrusted);
  EXPECT_FALSE(got.ok());
  EXPECT_EQ(got.error, "it is a symbolic link; only the file itself is read");
  EXPECT_EQ(got.text, "");
  EXPECT_EQ(read_bounded_file(file, 100, "a cache", kTrusted).text, "text\n");
}

TEST(BoundedFileRules, AFileGroupOrOthersMayWriteIsRefused) {
  test::TempDir dir;
  const std::string file = dir.write("f", "text\n");
  ::chmod(file.c_str(), 0620);
  EXPECT_EQ(read_bounded_file(file, 100, "a cache", kTrusted).error, "others may write it (mode 0620)");
  ::chmod(file.c_str(), 0602);
  EXPECT_EQ(read_bounded_file(file, 100, "a cache", kTrusted).error, "others may write it (mode 0602)");
  ::chmod(file.c_str(), 0644);  // others reading it is fine
  EXPECT_TRUE(read_bounded_file(file, 100, "a cache", kTrusted).ok());
}

TEST(BoundedFileRules, AnotherUsersFileIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "only root can give a file to another user";
  test::TempDir dir;
  const std::string file = dir.write("f", "text\n");
  ::chmod(file.c_str(), 0600);
  ASSERT_EQ(::chown(file.c_str(), 65534, 65534), 0);
  EXPECT_EQ(read_bounded_file(file, 100, "a cache", kTrusted).error, "it belongs to another user (uid 65534)");
  EXPECT_TRUE(read_bounded_file(file, 100, "a cache").ok());
}

}  // namespace
}  // namespace orca
