// UniqueFd: closes once; in sanitized builds a close that finds the
// descriptor closed already (a double close, or someone closing it under
// its owner) stops the process with a stack, since that descriptor's
// number may have been another object's in between.
#include <orca/unique_fd.h>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

namespace orca {
namespace {

TEST(UniqueFd, ClosesItsDescriptorOnceAndReleaseGivesItUp) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  {
    UniqueFd r(fds[0]);
    UniqueFd moved(std::move(r));
    EXPECT_FALSE(r.valid());
    EXPECT_EQ(moved.get(), fds[0]);
  }
  EXPECT_EQ(::fcntl(fds[0], F_GETFD), -1) << "not closed";
  UniqueFd w(fds[1]);
  const int raw = w.release();
  EXPECT_FALSE(w.valid());
  EXPECT_NE(::fcntl(raw, F_GETFD), -1) << "release closed it";
  ::close(raw);
}

TEST(UniqueFdDeathTest, ADescriptorClosedUnderItsOwnerStopsASanitizedBuild) {
#ifndef ORCA_UNIQUE_FD_CHECKS
  GTEST_SKIP() << "only sanitized builds check closes";
#else
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        int fds[2];
        if (::pipe(fds) != 0) std::abort();
        UniqueFd owner(fds[0]);
        ::close(fds[0]);  // someone else's close
        ::close(fds[1]);
        owner.reset();
      },
      "which was closed already \\(a double close\\)");
#endif
}

}  // namespace
}  // namespace orca
