/*
 * The task limit of the cgroups this process is in: the `pids.max` of
 * its pids cgroup and of every ancestor (cgroup v1's pids hierarchy, or
 * the v2 unified one). systemd sets it for services and login sessions
 * (TasksMax=, a share of kernel.pid_max by default), and container
 * runtimes set it too, so a job
 * can pass kernel.pid_max and RLIMIT_NPROC and still find fork() failing
 * with EAGAIN half way through its launch.
 *
 * The parse is pure: the caller passes the text of /proc/self/cgroup and
 * /proc/self/mountinfo and a reader of files (a test gives made-up ones).
 */
#ifndef ORCA_LAUNCH_CGROUP_TASK_LIMIT_H
#define ORCA_LAUNCH_CGROUP_TASK_LIMIT_H

#include <orca/export.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace orca::launch {

struct CgroupTaskLimit {
  std::string directory;      // the cgroup's directory, whose pids.max binds (/sys/fs/cgroup/pids/user.slice)
  std::uint64_t max = 0;      // its pids.max
  std::uint64_t current = 0;  // its pids.current: the tasks in it and below it now
  /* The tasks it still takes (0 when a lowered limit is below what runs). */
  std::uint64_t left() const noexcept { return current < max ? max - current : 0; }
};

/* Reads a whole file; nullopt when it cannot. */
using FileReader = std::function<std::optional<std::string>(const std::string& path)>;

/* Of every limited pids.max on the way from this process's cgroups up to
 * their roots, the one that leaves the fewest tasks (max - current);
 * nullopt when none is set ("max" everywhere) or nothing can be read. */
ORCA_EXPORT std::optional<CgroupTaskLimit> tightest_cgroup_task_limit(std::string_view proc_self_cgroup,
                                                                      std::string_view mountinfo,
                                                                      const FileReader& read);

/* The same for this process, from /proc and /sys. */
ORCA_EXPORT std::optional<CgroupTaskLimit> read_cgroup_task_limit();

}  // namespace orca::launch

#endif  // ORCA_LAUNCH_CGROUP_TASK_LIMIT_H
