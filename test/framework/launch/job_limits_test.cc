// check_job_fits over made-up limits: each limit refuses by name, with
// what the job needs and what the host leaves; a job that fits passes;
// unknown limits (0, unset) never refuse.
#include "launch/job_limits.h"

#include <gtest/gtest.h>

namespace orca::launch {
namespace {

HostLimits roomy() {
  return HostLimits{.open_files = 1024,
                    .open_files_hard = 1u << 20,
                    .processes = std::nullopt,
                    .processes_in_use = 0,
                    .pid_max = 4u << 20,
                    .threads_max = 1u << 20,
                    .tasks_in_use = 300,
                    .memory_available = std::uint64_t{24} << 30};
}

JobFootprint simulated(std::uint64_t daemons) {
  return JobFootprint{.local_daemons = daemons, .local_ranks = 1, .children = daemons, .connections = daemons,
                      .daemons = daemons};
}

TEST(JobLimits, AJobThatFitsPasses) {
  EXPECT_TRUE(check_job_fits(simulated(1024), roomy()).ok());
  EXPECT_TRUE(check_job_fits(simulated(1), HostLimits{}).ok()) << "unknown limits never refuse";
}

TEST(JobLimits, MoreTasksThanPidMaxAreRefusedNamingIt) {
  HostLimits l = roomy();
  l.pid_max = 32768;
  const Status st = check_job_fits(simulated(65536), l);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().topic(), "job-exceeds-limit");
  EXPECT_NE(st.error().arg("limit").find("kernel.pid_max"), std::string::npos);
  EXPECT_EQ(st.error().arg("need"), std::to_string(65536 * kTasksPerLocalDaemon + 1));
  EXPECT_EQ(st.error().arg("have"), std::to_string(32768 - 300));
  EXPECT_NE(st.error().arg("change").find("sysctl kernel.pid_max"), std::string::npos);
}

// A DVM job starts no daemon: its ranks are what it adds, and running
// fewer of them (not fewer simulated nodes) is what would make it fit.
TEST(JobLimits, AJobOnRunningDaemonsIsToldOfItsRanks) {
  HostLimits l = roomy();
  l.pid_max = 32768;
  const JobFootprint dvm_job{.local_ranks = 40000, .most_local_ranks = 5000};
  const Status st = check_job_fits(dvm_job, l);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().arg("need"), "40000");
  EXPECT_EQ(st.error().arg("what"), "40000 ranks on this host");
  EXPECT_EQ(st.error().arg("change"), "run fewer ranks on this host (-n, -N), or raise it: sysctl kernel.pid_max=N");
  EXPECT_EQ(check_job_fits(simulated(65536), l).error().arg("change"),
            "run fewer daemons on this host (plm_local_num_nodes), or raise it: sysctl kernel.pid_max=N");
  l = roomy();
  l.processes = 100;
  l.processes_in_use = 100;
  EXPECT_EQ(check_job_fits(JobFootprint{.local_ranks = 1, .most_local_ranks = 1}, l).error().arg("what"),
            "1 rank on this host");
}

TEST(JobLimits, ThreadsMaxAndTheUsersProcessesToo) {
  HostLimits l = roomy();
  l.threads_max = 2000;
  auto st = check_job_fits(simulated(1000), l);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().arg("limit").find("kernel.threads-max"), std::string::npos);
  l = roomy();
  l.processes = 4096;
  l.processes_in_use = 1000;
  st = check_job_fits(simulated(1100), l);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().arg("limit").find("RLIMIT_NPROC"), std::string::npos);
  EXPECT_EQ(st.error().arg("have"), "3096");
  EXPECT_TRUE(check_job_fits(simulated(700), l).ok());
}

TEST(JobLimits, DescriptorsBeyondTheHardLimitAreRefusedNamingRlimitNofile) {
  HostLimits l = roomy();
  l.open_files = 512;
  l.open_files_hard = 512;
  const Status st = check_job_fits(simulated(1000), l);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().arg("limit").find("RLIMIT_NOFILE"), std::string::npos);
  EXPECT_EQ(st.error().arg("need"), std::to_string(files_needed(simulated(1000))));
  EXPECT_NE(st.error().arg("change").find("ulimit -n"), std::string::npos);
  // A soft limit below the need is no refusal while the hard one allows it.
  l.open_files_hard = 1u << 20;
  EXPECT_TRUE(check_job_fits(simulated(1000), l).ok());
  // A tree: orcarun starts and connects to few daemons itself.
  l.open_files_hard = 512;
  EXPECT_TRUE(check_job_fits(JobFootprint{.local_daemons = 0, .local_ranks = 0, .children = 8, .connections = 8, .daemons = 1000}, l).ok());
}

// The daemons here inherit orcarun's RLIMIT_NOFILE: one with thousands of
// ranks would run out of pipes half way through starting them.
TEST(JobLimits, TheRanksOfOneDaemonBeyondTheHardLimitAreRefusedNamingIt) {
  HostLimits l = roomy();
  l.open_files = 512;
  l.open_files_hard = 512;
  const JobFootprint one{.local_daemons = 1, .local_ranks = 2000, .most_local_ranks = 2000, .children = 1,
                         .connections = 1, .daemons = 1};
  const Status st = check_job_fits(one, l);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().arg("limit").find("open files of each daemon"), std::string::npos);
  EXPECT_EQ(st.error().arg("need"), std::to_string(kDaemonFilesBase + 2000 * kDaemonFilesPerRank));
  EXPECT_EQ(st.error().arg("what"), "2000 ranks of one daemon on this host");
  EXPECT_NE(st.error().arg("change").find("ulimit -n"), std::string::npos);
  // The same ranks over 20 daemons of 100 each fit.
  EXPECT_TRUE(check_job_fits({.local_daemons = 20, .local_ranks = 2000, .most_local_ranks = 100, .children = 20,
                              .connections = 20, .daemons = 20},
                             l)
                  .ok());
  // Daemons elsewhere have their own hosts' limits.
  EXPECT_EQ(daemon_files_needed({.local_daemons = 0, .daemons = 4}), 0u);
  // A soft limit below the need is raised (to at most the hard one).
  l.open_files_hard = 1u << 20;
  EXPECT_TRUE(check_job_fits(one, l).ok());
}

TEST(JobLimits, MemoryForTheDaemonsOfThisHost) {
  HostLimits l = roomy();
  l.memory_available = std::uint64_t{1} << 30;
  const Status st = check_job_fits(simulated(1000), l);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().arg("limit").find("MemAvailable 1024 MiB"), std::string::npos);
  EXPECT_TRUE(check_job_fits(simulated(100), l).ok());
}

TEST(JobLimits, ThisHostsLimitsAreRead) {
  const HostLimits l = read_host_limits();
  EXPECT_GT(l.open_files, 0u);
  EXPECT_GE(l.open_files_hard, l.open_files);
  EXPECT_GT(l.pid_max, 0u);
  EXPECT_GT(l.tasks_in_use, 0u);
  EXPECT_TRUE(l.memory_available.has_value());
}

}  // namespace
}  // namespace orca::launch
