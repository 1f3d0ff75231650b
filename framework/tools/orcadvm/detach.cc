// orcadvm start --daemonize.
#include "detach.h"

#include <orca/unique_fd.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace orca::orcadvm {
namespace {

// Copies what `from` holds to `to`; false at its end (or an error).
// `line_ended`: what was copied ended a line.
bool relay(int from, int to, bool& line_ended) {
  char buffer[4096];
  const ssize_t n = ::read(from, buffer, sizeof buffer);
  if (n < 0 && errno == EINTR) return true;
  if (n <= 0) return false;
  line_ended = buffer[n - 1] == '\n';
  for (ssize_t done = 0; done < n;) {
    const ssize_t w = ::write(to, buffer + done, static_cast<size_t>(n - done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;  // our own reader is gone: the child's lines are lost, not its start
    done += w;
  }
  return true;
}

[[noreturn]] void relay_until_ready(pid_t child, UniqueFd out, UniqueFd err) {
  // The child's only line on standard output is its ready line; what it
  // writes on either after that goes to /dev/null. (The descriptors its
  // output writers reopened still reach these pipes, so their end is not
  // awaited once the line came.)
  bool ready = false, said = false;
  pollfd fds[2] = {{out.get(), POLLIN, 0}, {err.get(), POLLIN, 0}};
  while ((fds[0].fd >= 0 || fds[1].fd >= 0) && !ready) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[0].revents != 0 && !relay(fds[0].fd, 1, ready)) fds[0].fd = -1;
    if (fds[1].revents != 0 && !relay(fds[1].fd, 2, said)) fds[1].fd = -1;
  }
  if (ready) std::_Exit(0);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  std::_Exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0));
}

}  // namespace

bool detach() {
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return false;
  UniqueFd out_read(out[0]), out_write(out[1]);
  if (::pipe2(err, O_CLOEXEC) != 0) return false;
  UniqueFd err_read(err[0]), err_write(err[1]);
  const pid_t child = ::fork();
  if (child < 0) return false;
  if (child > 0) {
    out_write.reset();
    err_write.reset();
    relay_until_ready(child, std::move(out_read), std::move(err_read));
  }
  ::setsid();
  if (UniqueFd null(::open("/dev/null", O_RDONLY | O_CLOEXEC)); null.get() >= 0) ::dup2(null.get(), 0);
  ::dup2(out_write.get(), 1);
  ::dup2(err_write.get(), 2);
  return true;
}

bool detached_ready(const std::string& log) {
  // Made anew: a file of that name is a log of an earlier DVM that had
  // this pid, in this user's own directory.
  ::unlink(log.c_str());
  UniqueFd file(::open(log.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC, 0600));
  const bool made = file.get() >= 0;
  if (!made) file = UniqueFd(::open("/dev/null", O_WRONLY | O_CLOEXEC));
  if (file.get() < 0) return false;
  ::dup2(file.get(), 1);
  ::dup2(file.get(), 2);
  return made;
}

}  // namespace orca::orcadvm
