// plm/slurm's cache of srun's options (components/plm/slurm/
// srun_options_cache.cc): which file is srun, the cache's lines (a changed
// srun misses, malformed lines are dropped, the newest first and 16 at
// most), where the file is, and that only a file of this user that nobody
// else may write is read, and it is replaced whole. Real files in a
// temporary directory; the environment is a fake lookup.
#include "plm/slurm/srun_options_cache.h"

#include "lib/fake_environment.h"
#include "lib/result_assertions.h"
#include "lib/temp_dir.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace orca::plm::slurm {
namespace {

namespace fs = std::filesystem;
using test::Succeeded;
using Env = test::FakeEnvironment;

class SrunOptionsCacheTest : public ::testing::Test {
 protected:
  /* A file at dir_/relative with `text`, made executable when asked. */
  std::string make_file(const std::string& relative, const std::string& text, bool executable) {
    const std::string p = temp_.write(relative, text);
    ::chmod(p.c_str(), executable ? 0755 : 0644);
    return p;
  }

  test::TempDir temp_;
  const fs::path& dir_ = temp_.path();
};

SrunFile file_named(const std::string& path, std::uint64_t inode) {
  return SrunFile{.path = path, .device = 2049, .inode = inode, .size = 165432, .modified_ns = 1700000000123456789,
                  .changed_ns = 1700000001000000000};
}

constexpr SrunFeatures kBoth{.overlap = true, .external_launcher = true};
constexpr SrunFeatures kOverlapOnly{.overlap = true, .external_launcher = false};

bool same(const std::optional<SrunFeatures>& got, const SrunFeatures& want) {
  return got && got->overlap == want.overlap && got->external_launcher == want.external_launcher;
}

TEST_F(SrunOptionsCacheTest, FindsTheFirstExecutableFileInPathAsExecvpWould) {
  make_file("a/srun", "not executable", false);
  const std::string b = make_file("b/srun", "#!/bin/sh\n", true);
  make_file("c/srun", "#!/bin/sh\n", true);
  fs::create_directories(dir_ / "d/srun");  // a directory is not a program
  Env env;
  env.vars["PATH"] = (dir_ / "d").string() + ":" + (dir_ / "a").string() + "::" + (dir_ / "b").string() + ":" +
                     (dir_ / "c").string();
  auto f = find_srun_file("srun", env.lookup());
  ASSERT_TRUE(Succeeded(f));
  EXPECT_EQ(f->path, b);
  struct stat st{};
  ASSERT_EQ(::stat(b.c_str(), &st), 0);
  EXPECT_EQ(f->inode, static_cast<std::uint64_t>(st.st_ino));
  EXPECT_EQ(f->size, static_cast<std::uint64_t>(st.st_size));
}

TEST_F(SrunOptionsCacheTest, ANameWithASlashIsThatFileAndAMissingOneIsSaid) {
  const std::string c = make_file("c/srun", "#!/bin/sh\n", true);
  Env env;
  env.vars["PATH"] = (dir_ / "nowhere").string();
  auto f = find_srun_file(c, env.lookup());
  ASSERT_TRUE(Succeeded(f));
  EXPECT_EQ(f->path, c);
  auto missing = find_srun_file("srun", env.lookup());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().arg("why"), "srun is not in PATH");
  EXPECT_EQ(find_srun_file((dir_ / "c").string(), env.lookup()).error().arg("why"),
            (dir_ / "c").string() + " is not an executable file");
}

TEST_F(SrunOptionsCacheTest, ARewrittenSrunIsAnotherFile) {
  const std::string path = make_file("bin/srun", "#!/bin/sh\n", true);
  Env env;
  env.vars["PATH"] = (dir_ / "bin").string();
  auto before = find_srun_file("srun", env.lookup());
  ASSERT_TRUE(Succeeded(before));
  const std::string text = with_features("", before.value(), kBoth);
  EXPECT_TRUE(same(cached_features(text, before.value()), kBoth));
  // An upgrade: new bytes, a new modification time.
  std::ofstream(path) << "#!/bin/sh\nexec /usr/bin/srun \"$@\"\n";
  auto after = find_srun_file("srun", env.lookup());
  ASSERT_TRUE(Succeeded(after));
  EXPECT_FALSE(cached_features(text, after.value()));
}

TEST(SrunOptionsCacheLines, RoundTripsAndEveryFieldMustMatch) {
  const SrunFile f = file_named("/usr/bin/srun", 1234);
  const std::string text = with_features("", f, kOverlapOnly);
  EXPECT_EQ(text, "srun1 2049 1234 165432 1700000000123456789 1700000001000000000 1 0 /usr/bin/srun\n");
  EXPECT_TRUE(same(cached_features(text, f), kOverlapOnly));
  for (int field = 0; field < 6; ++field) {
    SrunFile other = f;
    switch (field) {
      case 0: other.path = "/usr/local/bin/srun"; break;
      case 1: other.device = 2050; break;
      case 2: other.inode = 1235; break;
      case 3: other.size = 165433; break;
      case 4: other.modified_ns += 1; break;
      default: other.changed_ns += 1; break;
    }
    EXPECT_FALSE(cached_features(text, other)) << "field " << field;
  }
}

TEST(SrunOptionsCacheLines, APathWithSpacesIsKeptWhole) {
  const SrunFile f = file_named("/opt/slurm 23.11/bin/srun", 7);
  const std::string text = with_features("", f, kBoth);
  EXPECT_TRUE(same(cached_features(text, f), kBoth));
  EXPECT_FALSE(cached_features(text, file_named("/opt/slurm", 7)));
}

TEST(SrunOptionsCacheLines, APathThatCannotBeOneLineIsNotCached) {
  const std::string old = with_features("", file_named("/usr/bin/srun", 1), kBoth);
  EXPECT_EQ(with_features(old, file_named("/tmp/sr\nun", 2), kBoth), old);
  EXPECT_EQ(with_features(old, file_named("", 2), kBoth), old);
}

TEST(SrunOptionsCacheLines, MalformedLinesAreNeverBelievedAndAreDropped) {
  const SrunFile f = file_named("/usr/bin/srun", 1234);
  const std::string good = with_features("", f, kBoth);
  const std::string body = good.substr(good.find(' '));  // " 2049 1234 ... /usr/bin/srun\n"
  for (const std::string& bad : std::vector<std::string>{
           "srun2" + body,                                                                  // another format
           "srun1 2049 1234 165432 1700000000123456789 1700000001000000000 2 0 /usr/bin/srun\n",  // flag 2
           "srun1 2049 x1234 165432 1700000000123456789 1700000001000000000 1 1 /usr/bin/srun\n", // not a number
           "srun1 2049 1234 165432 1700000000123456789 1700000001000000000 1 1 \n",            // no path
           "srun1 2049 1234 165432 1700000000123456789 1700000001000000000 1 1\n",             // too few words
           "srun1 -2049 1234 165432 1700000000123456789 1700000001000000000 1 1 /usr/bin/srun\n",
           "srun1  2049 1234 165432 1700000000123456789 1700000001000000000 1 1 /usr/bin/srun\n",
           "srun1 2049 1234 165432 1700000000123456789 1700000001000000000 1 1 /usr/bin/srun" + std::string(1, '\0') + "\n",
       }) {
    EXPECT_FALSE(cached_features(bad, f)) << bad;
    // Rewriting the cache for another srun leaves only good lines.
    const std::string rewritten = with_features(bad, file_named("/other/srun", 9), kOverlapOnly);
    EXPECT_EQ(rewritten, with_features("", file_named("/other/srun", 9), kOverlapOnly)) << bad;
  }
}

TEST(SrunOptionsCacheLines, TheNewestComesFirstTheSamePathOnceAndSixteenAtMost) {
  std::string text;
  for (std::uint64_t i = 0; i < 20; ++i) text = with_features(text, file_named("/srun/" + std::to_string(i), i), kBoth);
  // 19 is newest; 4..19 are kept.
  std::size_t lines = 0;
  for (char c : text) lines += c == '\n';
  EXPECT_EQ(lines, kMaxCachedSruns);
  EXPECT_EQ(text.rfind("srun1 2049 19 ", 0), 0u);
  EXPECT_TRUE(cached_features(text, file_named("/srun/4", 4)));
  EXPECT_FALSE(cached_features(text, file_named("/srun/3", 3)));
  // /srun/10 upgraded: its old line goes, the new one is first.
  SrunFile upgraded = file_named("/srun/10", 10);
  upgraded.inode = 99;
  text = with_features(text, upgraded, kOverlapOnly);
  EXPECT_EQ(text.rfind("srun1 2049 99 ", 0), 0u);
  EXPECT_FALSE(cached_features(text, file_named("/srun/10", 10)));
  EXPECT_TRUE(same(cached_features(text, upgraded), kOverlapOnly));
}

TEST(SrunOptionsCachePath, XdgCacheHomeThenHomeAndOnlyAbsolutePaths) {
  Env env;
  EXPECT_EQ(cache_file_path(env.lookup()), "");
  env.vars["HOME"] = "relative/home";
  EXPECT_EQ(cache_file_path(env.lookup()), "");
  env.vars["HOME"] = "/home/ada";
  EXPECT_EQ(cache_file_path(env.lookup()), "/home/ada/.cache/orca/srun-options");
  env.vars["XDG_CACHE_HOME"] = "cache";
  EXPECT_EQ(cache_file_path(env.lookup()), "/home/ada/.cache/orca/srun-options");
  env.vars["XDG_CACHE_HOME"] = "/scratch/ada/cache";
  EXPECT_EQ(cache_file_path(env.lookup()), "/scratch/ada/cache/orca/srun-options");
}

TEST_F(SrunOptionsCacheTest, WritesTheUsersOwnFileWholeAndReadsItBack) {
  const std::string path = (dir_ / "home/.cache/orca/srun-options").string();
  EXPECT_EQ(read_cache(path), "");  // none yet
  ASSERT_TRUE(Succeeded(write_cache(path, "first\n")));
  ASSERT_TRUE(Succeeded(write_cache(path, "second\n")));
  EXPECT_EQ(read_cache(path), "second\n");
  struct stat st{};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  ASSERT_EQ(::stat((dir_ / "home/.cache/orca").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  ASSERT_EQ(::stat((dir_ / "home/.cache").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  // Nothing but the file is left beside it.
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_ / "home/.cache/orca")) ++entries;
  EXPECT_EQ(entries, 1u);
}

TEST_F(SrunOptionsCacheTest, AWriteThatCannotBeDoneIsSaid) {
  make_file("plain", "a file where the directory would be", false);
  auto st = write_cache((dir_ / "plain/orca/srun-options").string(), "x\n");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().arg("why").find("cannot make " + (dir_ / "plain").string()), std::string::npos)
      << st.error().arg("why");
  EXPECT_FALSE(write_cache("", "x\n").ok());
}

TEST_F(SrunOptionsCacheTest, AFileOthersMayWriteOrThatIsNotAFileIsNotRead) {
  const std::string path = make_file("cache/srun-options", "text\n", false);
  ::chmod(path.c_str(), 0600);
  EXPECT_EQ(read_cache(path), "text\n");
  ::chmod(path.c_str(), 0620);
  EXPECT_EQ(read_cache(path), "");
  ::chmod(path.c_str(), 0602);
  EXPECT_EQ(read_cache(path), "");
  ::chmod(path.c_str(), 0644);  // readable by others is fine: nothing secret
  EXPECT_EQ(read_cache(path), "text\n");
  const fs::path link = dir_ / "cache/link";
  fs::create_symlink(path, link);
  EXPECT_EQ(read_cache(link.string()), "");
  EXPECT_EQ(read_cache((dir_ / "cache").string()), "");
  const std::string big = make_file("cache/big", std::string(kMaxCacheBytes + 1, 'x'), false);
  EXPECT_EQ(read_cache(big), "");
  EXPECT_EQ(read_cache(""), "");
}

TEST_F(SrunOptionsCacheTest, AnotherUsersFileIsNotRead) {
  if (::geteuid() != 0) GTEST_SKIP() << "only root can give a file to another user";
  const std::string path = make_file("cache/srun-options", "text\n", false);
  ASSERT_EQ(::chown(path.c_str(), 65534, 65534), 0);
  EXPECT_EQ(read_cache(path), "");
}

}  // namespace
}  // namespace orca::plm::slurm
