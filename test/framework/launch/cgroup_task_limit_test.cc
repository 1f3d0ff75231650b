// tightest_cgroup_task_limit over made-up /proc/self/cgroup, mountinfo
// and cgroup files: v1's pids hierarchy and v2's unified one, the
// tightest of a cgroup and its ancestors, a container's mount whose root
// is its own cgroup, and "max" or unreadable files that set no limit.
// check_job_fits refuses a job that needs more tasks than it leaves.
#include "launch/cgroup_task_limit.h"
#include "launch/job_limits.h"

#include <gtest/gtest.h>

#include <map>

namespace orca::launch {
namespace {

struct Files {
  std::map<std::string, std::string> text;
  FileReader reader() const {
    return [this](const std::string& path) -> std::optional<std::string> {
      auto it = text.find(path);
      if (it == text.end()) return std::nullopt;
      return it->second;
    };
  }
};

constexpr std::string_view kV1Mounts =
    "30 25 0:26 / /sys/fs/cgroup rw,nosuid - tmpfs tmpfs ro,mode=755\n"
    "33 30 0:29 / /sys/fs/cgroup/memory rw,relatime shared:12 - cgroup cgroup rw,memory\n"
    "38 30 0:34 / /sys/fs/cgroup/pids rw,relatime shared:17 - cgroup cgroup rw,pids\n"
    "40 30 0:36 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

TEST(CgroupTaskLimit, V1PidsHierarchyTakesTheTightestOfTheCgroupAndItsAncestors) {
  Files f;
  f.text["/sys/fs/cgroup/pids/user.slice/user-1000.slice/pids.max"] = "10813\n";
  f.text["/sys/fs/cgroup/pids/user.slice/user-1000.slice/pids.current"] = "10000\n";
  f.text["/sys/fs/cgroup/pids/user.slice/pids.max"] = "max\n";
  f.text["/sys/fs/cgroup/pids/user.slice/pids.current"] = "12000\n";
  f.text["/sys/fs/cgroup/pids/user.slice/user-1000.slice/session-3.scope/pids.max"] = "5000\n";
  f.text["/sys/fs/cgroup/pids/user.slice/user-1000.slice/session-3.scope/pids.current"] = "12\n";
  const auto l = tightest_cgroup_task_limit("4:memory:/user.slice\n3:pids:/user.slice/user-1000.slice/session-3.scope\n"
                                            "0::/user.slice/user-1000.slice/session-3.scope\n",
                                            kV1Mounts, f.reader());
  ASSERT_TRUE(l.has_value());
  // The session leaves 4988 tasks, its user's slice only 813.
  EXPECT_EQ(l->directory, "/sys/fs/cgroup/pids/user.slice/user-1000.slice");
  EXPECT_EQ(l->max, 10813u);
  EXPECT_EQ(l->current, 10000u);
}

TEST(CgroupTaskLimit, V2UnifiedHierarchyAndAContainersOwnRoot) {
  Files f;
  // A container whose cgroup namespace shows /kubepods/pod1 as the root of
  // the mount: /proc/self/cgroup names it "/" (namespaced) or the full path.
  f.text["/sys/fs/cgroup/pids.max"] = "512\n";
  f.text["/sys/fs/cgroup/pids.current"] = "40\n";
  const std::string mounts = "29 23 0:26 /kubepods/pod1 /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n";
  for (std::string_view self : {"0::/\n", "0::/kubepods/pod1\n"}) {
    const auto l = tightest_cgroup_task_limit(self, mounts, f.reader());
    ASSERT_TRUE(l.has_value()) << self;
    EXPECT_EQ(l->directory, "/sys/fs/cgroup");
    EXPECT_EQ(l->max, 512u);
    EXPECT_EQ(l->current, 40u);
  }
}

TEST(CgroupTaskLimit, NoLimitWhereEveryPidsMaxIsMaxOrNothingCanBeRead) {
  Files f;
  f.text["/sys/fs/cgroup/pids/pids.current"] = "300\n";  // the root has no pids.max
  f.text["/sys/fs/cgroup/pids/job/pids.max"] = "max\n";
  f.text["/sys/fs/cgroup/pids/job/pids.current"] = "3\n";
  EXPECT_FALSE(tightest_cgroup_task_limit("3:pids:/job\n", kV1Mounts, f.reader()).has_value());
  EXPECT_FALSE(tightest_cgroup_task_limit("3:pids:/job\n", "", f.reader()).has_value()) << "no mount of the hierarchy";
  EXPECT_FALSE(tightest_cgroup_task_limit("", kV1Mounts, f.reader()).has_value());
  EXPECT_FALSE(tightest_cgroup_task_limit("garbage without colons\n3:pids\n3:pids:no-slash/at all\n", kV1Mounts,
                                          f.reader())
                   .has_value());
}

TEST(CgroupTaskLimit, AJobNeedingMoreTasksThanTheCgroupLeavesIsRefusedNamingIt) {
  HostLimits l;
  l.cgroup_tasks = CgroupTaskLimit{"/sys/fs/cgroup/pids/user.slice", 1000, 400};
  const JobFootprint job{.local_daemons = 200, .local_ranks = 1, .children = 200, .connections = 200, .daemons = 200};
  const Status st = check_job_fits(job, l);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().topic(), "job-exceeds-limit");
  EXPECT_NE(st.error().arg("limit").find("pids.max of cgroup /sys/fs/cgroup/pids/user.slice"), std::string::npos);
  EXPECT_EQ(st.error().arg("need"), std::to_string(200 * kTasksPerLocalDaemon + 1));
  EXPECT_EQ(st.error().arg("have"), "600");
  EXPECT_NE(st.error().arg("change").find("TasksMax="), std::string::npos);
  const JobFootprint small{.local_daemons = 100, .local_ranks = 1, .children = 100, .connections = 100, .daemons = 100};
  EXPECT_TRUE(check_job_fits(small, l).ok());
}

}  // namespace
}  // namespace orca::launch
