// What the plm tests need to watch real processes: read a nonblocking
// pipe to its end, reap a child, and tell whether a process that is not
// ours (an orphan, reparented) is gone. Every wait is bounded: the bounds
// are hang guards, never what a test asserts.
#ifndef ORCA_TEST_FRAMEWORK_PLM_PROCESS_PROBE_H
#define ORCA_TEST_FRAMEWORK_PLM_PROCESS_PROBE_H

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

namespace orca::test {

inline constexpr std::chrono::seconds kHangGuard{20};

/* Everything `fd` (nonblocking or not) carries until EOF; nullopt when
 * EOF did not come within `limit`. */
inline std::optional<std::string> read_to_eof(int fd, std::chrono::milliseconds limit = kHangGuard) {
  std::string out;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd p{fd, POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return std::nullopt;
    char buf[4096];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
    } else if (n == 0) {
      return out;
    } else if (errno != EAGAIN && errno != EINTR) {
      return std::nullopt;
    }
  }
}

/* Reaps our child `pid` and returns its wait status; nullopt (after
 * SIGKILLing and reaping it) when it did not end within `limit`. */
inline std::optional<int> reap(pid_t pid, std::chrono::milliseconds limit = kHangGuard) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    int status = 0;
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (r < 0 && errno != EINTR) return std::nullopt;
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
      return std::nullopt;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

/* The state letter of /proc/PID/stat ('R', 'S', 'Z', ...), or nullopt
 * when no such process exists. */
inline std::optional<char> process_state(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return std::nullopt;
  // "pid (comm) S ...": comm may hold spaces and parentheses; the state
  // follows the last ')'.
  const auto close = text.rfind(')');
  if (close == std::string::npos || close + 2 >= text.size()) return std::nullopt;
  return text[close + 2];
}

/* Dead: no longer in /proc, or a zombie nobody reaped yet (an orphan
 * whose new parent, PID 1 of a container, may never reap it). */
inline bool is_dead(pid_t pid) {
  const auto s = process_state(pid);
  return !s || *s == 'Z' || *s == 'X';
}

/* Waits until `pid` is dead; false if it still lives after `limit`. */
inline bool wait_dead(pid_t pid, std::chrono::milliseconds limit = kHangGuard) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!is_dead(pid)) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

/* A field of /proc/PID/status ("SigIgn", ...), without the name. */
inline std::optional<std::string> status_field(pid_t pid, const std::string& name) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.compare(0, name.size() + 1, name + ":") == 0) {
      const auto value = line.find_first_not_of(" \t", name.size() + 1);
      return value == std::string::npos ? std::string() : line.substr(value);
    }
  }
  return std::nullopt;
}

}  // namespace orca::test

#endif  // ORCA_TEST_FRAMEWORK_PLM_PROCESS_PROBE_H
