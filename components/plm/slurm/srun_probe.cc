// srun_help: `srun --help` through spawn_child, read to its end.
#include "srun_probe.h"

#include <orca/child_process.h>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>

namespace orca::plm::slurm {
namespace {

constexpr std::chrono::milliseconds kLimit{5000};

Message why_not(std::string text) { return Message("plm", "slurm-step", {{"why", std::move(text)}}); }

int reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace

Result<std::string> srun_help(const std::vector<std::string>& srun) {
  SpawnSpec spec;
  spec.argv = srun;
  spec.argv.emplace_back("--help");
  spec.environment = current_environment();
  spec.merge_errors = true;
  auto child = spawn_child(spec);
  if (!child) return why_not("cannot start " + srun.front() + ": " + child.error().arg("call") + " failed: " + child.error().arg("why"));
  if (!child->exec_error.empty()) {
    reap(child->pid);
    const char* path = std::getenv("PATH");
    return why_not("cannot run " + printable(srun.front()) + ": " + child->exec_error + " (PATH=" +
                   printable(path != nullptr ? path : "") +
                   "); plm/slurm starts the daemons with srun inside a Slurm allocation: put Slurm's programs on PATH "
                   "or set plm_slurm_srun");
  }
  std::string text;
  const auto deadline = std::chrono::steady_clock::now() + kLimit;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd p{child->output.get(), POLLIN, 0};
    const int r = left.count() > 0 ? ::poll(&p, 1, static_cast<int>(left.count())) : 0;
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      ::kill(-child->pid, SIGKILL);
      reap(child->pid);
      // Slurm's clients read the configuration first, even for --help, and
      // retry a missing one for a minute: what it printed says which.
      return why_not(printable(srun.front()) + " --help did not end within 5 s; it printed: " +
                     (text.empty() ? std::string("nothing") : printable(text.substr(0, 400))));
    }
    char buf[4096];
    const ssize_t n = ::read(child->output.get(), buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) break;
    if (text.size() < (1u << 20)) text.append(buf, static_cast<size_t>(n));
  }
  const int status = reap(child->pid);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return why_not(printable(srun.front()) + " --help " + describe_wait_status(status) + ": " + printable(text.substr(0, 400)));
  }
  return text;
}

}  // namespace orca::plm::slurm
