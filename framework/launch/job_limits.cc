// Job limits: the host's limits read once, and the pure comparison.
#include "job_limits.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace orca::launch {

namespace {

std::uint64_t read_number(const char* path) {
  std::ifstream in(path);
  std::uint64_t v = 0;
  in >> v;
  return in ? v : 0;
}

// Tasks (threads) the machine runs now: /proc/loadavg's "running/total".
std::uint64_t machine_tasks() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c, tasks;
  if (!(in >> a >> b >> c >> tasks)) return 0;
  const auto slash = tasks.find('/');
  return slash == std::string::npos ? 0 : std::strtoull(tasks.c_str() + slash + 1, nullptr, 10);
}

// Tasks of this user (what RLIMIT_NPROC counts): the Threads of every
// process whose real uid is ours.
std::uint64_t user_tasks() {
  const std::string uid = std::to_string(::getuid());
  std::uint64_t total = 0;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return 0;
  while (const dirent* e = ::readdir(proc)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::ifstream status(std::string("/proc/") + e->d_name + "/status");
    std::string key, value;
    bool ours = false;
    while (status >> key) {
      if (key == "Uid:") {
        status >> value;
        ours = value == uid;
      } else if (key == "Threads:" && ours) {
        std::uint64_t n = 0;
        status >> n;
        total += n;
        break;
      }
      std::getline(status, value);
    }
  }
  ::closedir(proc);
  return total;
}

std::optional<std::uint64_t> memory_available() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit) {
    if (key == "MemAvailable:") return kb * 1024;
  }
  return std::nullopt;
}

std::string mib(std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

Message exceeds(const std::string& limit, std::uint64_t need, std::uint64_t have, const std::string& what,
                const std::string& change) {
  return Message("launch", "job-exceeds-limit",
                 {{"limit", limit}, {"need", std::to_string(need)}, {"have", std::to_string(have)}, {"what", what},
                  {"change", change}, {"started", "Nothing was started."}});
}

}  // namespace

HostLimits read_host_limits() {
  HostLimits l;
  rlimit r{};
  if (::getrlimit(RLIMIT_NOFILE, &r) == 0) {
    l.open_files = r.rlim_cur == RLIM_INFINITY ? UINT64_MAX : r.rlim_cur;
    l.open_files_hard = r.rlim_max == RLIM_INFINITY ? UINT64_MAX : r.rlim_max;
  }
  // The kernel does not apply RLIMIT_NPROC to root.
  if (::getuid() != 0 && ::getrlimit(RLIMIT_NPROC, &r) == 0 && r.rlim_cur != RLIM_INFINITY) {
    l.processes = r.rlim_cur;
    l.processes_in_use = user_tasks();
  }
  l.pid_max = read_number("/proc/sys/kernel/pid_max");
  l.threads_max = read_number("/proc/sys/kernel/threads-max");
  l.tasks_in_use = machine_tasks();
  l.memory_available = memory_available();
  l.cgroup_tasks = read_cgroup_task_limit();
  return l;
}

std::uint64_t files_needed(const JobFootprint& job) noexcept {
  return kFilesBase + job.children * kFilesPerChild + job.connections * kFilesPerConnection;
}

std::uint64_t daemon_files_needed(const JobFootprint& job) noexcept {
  return job.local_daemons == 0 ? 0 : kDaemonFilesBase + job.most_local_ranks * kDaemonFilesPerRank;
}

Status check_job_fits(const JobFootprint& job, const HostLimits& limits) {
  const std::uint64_t tasks = job.local_daemons * kTasksPerLocalDaemon + job.local_ranks +
                              (job.children > job.local_daemons ? job.children - job.local_daemons : 0);
  // A job on a DVM's running daemons (none of its own) adds its ranks only.
  const bool on_running_daemons = job.daemons == 0;
  const std::string what =
      on_running_daemons
          ? std::to_string(job.local_ranks) + (job.local_ranks == 1 ? " rank" : " ranks") + " on this host"
          : std::to_string(job.daemons) + (job.daemons == 1 ? " daemon" : " daemons") + " (" +
                std::to_string(job.local_daemons) + " on this host, with " + std::to_string(job.local_ranks) + " ranks there)";
  const std::string fewer = on_running_daemons ? "run fewer ranks on this host (-n, -N)" : "run fewer daemons on this host";
  if (limits.pid_max > 0 && limits.tasks_in_use + tasks > limits.pid_max) {
    return exceeds("kernel.pid_max (task ids of the machine, " + std::to_string(limits.tasks_in_use) + " in use)",
                   tasks, limits.pid_max - std::min(limits.pid_max, limits.tasks_in_use), what,
                   fewer + (on_running_daemons ? "" : " (plm_local_num_nodes)") + ", or raise it: sysctl kernel.pid_max=N");
  }
  if (limits.threads_max > 0 && limits.tasks_in_use + tasks > limits.threads_max) {
    return exceeds("kernel.threads-max (" + std::to_string(limits.tasks_in_use) + " tasks in use)", tasks,
                   limits.threads_max - std::min(limits.threads_max, limits.tasks_in_use), what,
                   fewer + ", or raise it: sysctl kernel.threads-max=N");
  }
  if (limits.processes && limits.processes_in_use + tasks > *limits.processes) {
    return exceeds("RLIMIT_NPROC (processes of this user, " + std::to_string(limits.processes_in_use) + " in use)",
                   tasks, *limits.processes - std::min(*limits.processes, limits.processes_in_use), what,
                   fewer + ", or raise it: ulimit -u N");
  }
  if (const auto& cg = limits.cgroup_tasks; cg && cg->current + tasks > cg->max) {
    return exceeds("the pids.max of cgroup " + cg->directory + " (" + std::to_string(cg->current) + " in use)",
                   tasks, cg->left(), what,
                   fewer + ", or raise it: echo N > " + cg->directory +
                       "/pids.max (under systemd: TasksMax= of the service, or of the user's slice)");
  }
  const std::uint64_t files = files_needed(job);
  if (limits.open_files_hard > 0 && files > limits.open_files_hard) {
    return exceeds("RLIMIT_NOFILE (open files of orcarun; hard limit " + std::to_string(limits.open_files_hard) + ")",
                   files, limits.open_files_hard, what,
                   "raise it (ulimit -n N; the hard limit is set in /etc/security/limits.conf), or have orcarun "
                   "start fewer daemons itself (fewer simulated nodes, or plm_rsh_tree_spawn so that daemons start "
                   "daemons)");
  }
  // A daemon here inherits orcarun's limit: one with thousands of ranks
  // would start a few hundred, then fail at the next pipe.
  const std::uint64_t daemon_files = daemon_files_needed(job);
  if (limits.open_files_hard > 0 && daemon_files > limits.open_files_hard) {
    return exceeds("RLIMIT_NOFILE (open files of each daemon, as of orcarun; hard limit " +
                       std::to_string(limits.open_files_hard) + ")",
                   daemon_files, limits.open_files_hard,
                   std::to_string(job.most_local_ranks) + " ranks of one daemon on this host",
                   "raise it (ulimit -n N; the hard limit is set in /etc/security/limits.conf), or run fewer ranks "
                   "a host (-n, -N, or more hosts)");
  }
  const std::uint64_t memory = job.local_daemons * kMemoryPerLocalDaemon + job.daemons * kMemoryPerDaemon;
  if (limits.memory_available && memory > *limits.memory_available) {
    return exceeds("the memory available (MemAvailable " + mib(*limits.memory_available) + ")", memory >> 20,
                   *limits.memory_available >> 20, what + ", in MiB",
                   "run fewer daemons on this host (plm_local_num_nodes), or free memory");
  }
  return {};
}

bool raise_open_files(std::uint64_t needed) {
  rlimit r{};
  if (::getrlimit(RLIMIT_NOFILE, &r) != 0) return false;
  if (r.rlim_cur == RLIM_INFINITY || r.rlim_cur >= needed) return true;
  if (r.rlim_max != RLIM_INFINITY && r.rlim_max < needed) return false;
  r.rlim_cur = needed;
  return ::setrlimit(RLIMIT_NOFILE, &r) == 0;
}

}  // namespace orca::launch
