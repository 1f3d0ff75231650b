// read_bounded_file's rules for a file whose contents are trusted
// (framework/io/bounded_file.cc): no symbolic link, and the user's own
// file that nobody else may write (or, holding a secret, read); without
// them, both are read. write_private_file (framework/io/private_file.cc)
// writes such a file whole, 0600, in directories it makes 0700.
#include <orca/bounded_file.h>
#include <orca/private_file.h>

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

TEST(BoundedFileRules, ASecretOthersMayReadIsRefused) {
  test::TempDir dir;
  const std::string file = dir.write("f", "secret\n");
  constexpr BoundedFileRules kSecret{.no_symlink = true, .private_to_user = true, .secret = true};
  for (mode_t mode : {0640, 0604, 0610}) {
    ::chmod(file.c_str(), mode);
    const BoundedFile got = read_bounded_file(file, 100, "a contact file", kSecret);
    EXPECT_FALSE(got.ok()) << std::oct << mode;
    EXPECT_NE(got.error.find("others may read it"), std::string::npos) << got.error;
    EXPECT_EQ(got.text, "");
  }
  ::chmod(file.c_str(), 0600);
  EXPECT_EQ(read_bounded_file(file, 100, "a contact file", kSecret).text, "secret\n");
}

TEST(PrivateFile, WrittenWholeModeSixHundredInDirectoriesMadeSevenHundred) {
  test::TempDir dir;
  const std::string path = (dir.path() / "a" / "b" / "contact").string();
  ASSERT_EQ(write_private_file(path, "one\n"), "");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  ASSERT_EQ(::stat((dir.path() / "a" / "b").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  ASSERT_EQ(write_private_file(path, "two\n"), "") << "rewritten over the old one";
  constexpr BoundedFileRules kSecret{.no_symlink = true, .private_to_user = true, .secret = true};
  EXPECT_EQ(read_bounded_file(path, 100, "a contact file", kSecret).text, "two\n");
  // No temporary file is left beside it.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path() / "a" / "b"),
                          std::filesystem::directory_iterator{}),
            1);
}

TEST(PrivateFile, ADirectoryThatCannotBeMadeIsSaid) {
  test::TempDir dir;
  const std::string blocker = dir.write("file", "x");
  const std::string why = write_private_file(blocker + "/sub/contact", "x");
  EXPECT_NE(why.find("cannot make " + blocker + "/sub"), std::string::npos) << why;
  EXPECT_NE(write_private_file("relative", "x"), "");
}

}  // namespace
}  // namespace orca
