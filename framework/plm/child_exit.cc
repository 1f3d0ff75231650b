// exits_within: waiting for a child's exit without reaping it.
#include <orca/child_process.h>
#include <orca/unique_fd.h>

#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace orca::plm {

bool exits_within(pid_t pid, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  auto left = [&] {
    return std::max<long long>(
        0, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count());
  };
  // A pidfd turns readable when the process exits: no sleep between looks.
  const UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  if (pidfd.valid()) {
    for (;;) {
      pollfd p{.fd = pidfd.get(), .events = POLLIN, .revents = 0};
      const int r = ::poll(&p, 1, static_cast<int>(left()));
      if (r > 0) return true;
      if (r == 0) return false;
      if (errno != EINTR) break;
    }
  } else if (errno == ESRCH) {
    return true;  // gone, and reaped already
  }
  // No pidfd here (a kernel before 5.3): a look every millisecond.
  for (;;) {
    siginfo_t info{};
    if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) return errno == ECHILD;
    if (info.si_pid == pid) return true;
    if (left() == 0) return false;
    ::usleep(1000);
  }
}

}  // namespace orca::plm
