// OutputFiles (--output-filename): the layout, bytes in order, a rerun
// emptying the last run's files, and the errors that name the file.
#include "orcarun/output_files.h"

#include "lib/temp_dir.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace orca::orcarun {
namespace {

using Stream = OutputFiles::Stream;

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(OutputFiles, EachRankAndStreamHasItsFileInOrder) {
  test::TempDir dir;
  auto files = OutputFiles::open((dir.path() / "out/job1/").string());
  ASSERT_TRUE(files.ok()) << files.error().summary();
  const std::string root = (dir.path() / "out/job1").string();
  EXPECT_EQ(files->path(3, Stream::Stdout), root + "/rank.3/stdout");
  EXPECT_EQ(files->path(3, Stream::Stderr), root + "/rank.3/stderr");
  ASSERT_TRUE(files->write(0, Stream::Stdout, "line 1\nline").ok());
  ASSERT_TRUE(files->write(1, Stream::Stderr, std::string("a\0b\n", 4)).ok());
  ASSERT_TRUE(files->write(0, Stream::Stdout, " 2\n").ok());
  EXPECT_EQ(contents(root + "/rank.0/stdout"), "line 1\nline 2\n");
  EXPECT_EQ(contents(root + "/rank.1/stderr"), std::string("a\0b\n", 4));
  // Nothing for what was never written.
  EXPECT_NE(::access((root + "/rank.0/stderr").c_str(), F_OK), 0);
  EXPECT_NE(::access((root + "/rank.1/stdout").c_str(), F_OK), 0);
}

TEST(OutputFiles, ARunAgainReplacesTheLastRunsFiles) {
  test::TempDir dir;
  const std::string root = (dir.path() / "o").string();
  {
    auto first = OutputFiles::open(root);
    ASSERT_TRUE(first->write(0, Stream::Stdout, "old run, a longer text\n").ok());
  }
  auto second = OutputFiles::open(root);
  ASSERT_TRUE(second->write(0, Stream::Stdout, "new\n").ok());
  ASSERT_TRUE(second->write(0, Stream::Stdout, "run\n").ok());
  EXPECT_EQ(contents(root + "/rank.0/stdout"), "new\nrun\n");
}

TEST(OutputFiles, WhatCannotBeWrittenIsNamed) {
  test::TempDir dir;
  const std::string file = dir.write("a-file", "x");
  auto not_a_dir = OutputFiles::open(file);
  ASSERT_FALSE(not_a_dir.ok());
  EXPECT_EQ(not_a_dir.error().topic(), "output-files");
  EXPECT_EQ(not_a_dir.error().arg("path"), file);
  auto below_a_file = OutputFiles::open(file + "/sub");
  ASSERT_FALSE(below_a_file.ok());
  EXPECT_EQ(below_a_file.error().arg("what"), "cannot make the directory");
  // A full disk: /dev/full refuses every write with ENOSPC.
  auto files = OutputFiles::open(dir.path().string());
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(::mkdir((dir.path() / "rank.5").c_str(), 0755), 0);
  ASSERT_EQ(::symlink("/dev/full", (dir.path() / "rank.5/stdout").c_str()), 0);
  auto full = files->write(5, Stream::Stdout, "x\n");
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(full.error().arg("what"), "cannot write");
  EXPECT_EQ(full.error().arg("why"), "No space left on device");
}

}  // namespace
}  // namespace orca::orcarun
