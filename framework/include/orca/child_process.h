/*
 * spawn_child: fork and exec one program with its standard streams wired
 * the way a launcher needs them. Used for agents (plm) and for a job's
 * ranks (orcad).
 *
 * Between fork and exec the child only resets what a launcher changed
 * (signal dispositions and mask: SIGPIPE is ignored in every Orca
 * process, and must not be in the program), joins a process group of its
 * own when asked (so that a signal to the group reaches everything it
 * starts), asks the kernel for a signal when its parent dies, and dups
 * its streams. Whether exec succeeded is known before spawn_child
 * returns: a close-on-exec pipe carries errno back.
 */
#ifndef ORCA_CHILD_PROCESS_H
#define ORCA_CHILD_PROCESS_H

#include <orca/export.h>
#include <orca/result.h>
#include <orca/unique_fd.h>

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace orca::plm {

struct SpawnSpec {
  std::vector<std::string> argv;         // argv[0] is searched in the PATH of `environment`
  std::vector<std::string> environment;  // the child's whole environment, NAME=VALUE
  std::string directory;                 // empty: the parent's
  bool pipe_input = false;               // false: /dev/null
  bool merge_errors = false;             // stderr into the stdout pipe
  bool own_process_group = true;
  int parent_death_signal = 0;           // PR_SET_PDEATHSIG; 0: none
  std::vector<int> inherit_fds;          // descriptors (>= 3) the child keeps at the same number (PMI_FD)
  std::vector<unsigned> cpus;            // CPUs it is bound to before exec (sched_setaffinity); empty: the parent's
};

struct SpawnedChild {
  pid_t pid = -1;
  UniqueFd input;   // write end of its stdin (pipe_input), nonblocking
  UniqueFd output;  // read end of its stdout, nonblocking
  UniqueFd errors;  // read end of its stderr (unless merged), nonblocking
  /* Empty when exec succeeded; otherwise why it failed ("No such file or
   * directory", or "cannot enter the working directory DIR: ..." when the
   * directory failed, "cannot bind to CPUs 0-3: ..." when the binding
   * did). The child has then exited with 127 and must still be reaped (it
   * is a child like any other). */
  std::string exec_error;
};

/* Errors (area "plm", topic "spawn-failed"): no argv, pipe or fork
 * failed (args "call" and "why", errno's text, and "hint" when a limit
 * explains it: see limit_hint). */
ORCA_EXPORT Result<SpawnedChild> spawn_child(const SpawnSpec& spec);

/* What a pipe(), open() or fork() that failed with `err` ran into and
 * what to set, when that is a limit (EMFILE: RLIMIT_NOFILE; EAGAIN from
 * fork: the task limits); empty otherwise. */
ORCA_EXPORT std::string limit_hint(const std::string& call, int err);

/* One line for an error of spawn_child (or of anything with the same
 * "call", "why" and "hint" args): "fork failed: Resource temporarily
 * unavailable (HINT)". */
ORCA_EXPORT std::string spawn_failure_text(const Message& error);

/* How a process ended, for messages: "exited with status 3", "was killed
 * by signal 9 (Killed)". `wait_status` as waitpid gave it. */
ORCA_EXPORT std::string describe_wait_status(int wait_status);

/* Whether process `pid` (a child of ours, not reaped: it is not reaped
 * here) has exited or exits within `limit`; true also when it is no
 * child of ours any more. Waits without polling where the kernel has
 * pidfds (a 1 ms sleep loop cost every daemon's end a millisecond). */
ORCA_EXPORT bool exits_within(pid_t pid, std::chrono::milliseconds limit);

/* This process's environment as NAME=VALUE strings. */
ORCA_EXPORT std::vector<std::string> current_environment();
/* Sets NAME=VALUE in `env`, replacing an entry of the same name. */
ORCA_EXPORT void set_environment(std::vector<std::string>& env, const std::string& name, const std::string& value);
/* Removes NAME from `env`. */
ORCA_EXPORT void unset_environment(std::vector<std::string>& env, const std::string& name);
/* Each word NAME=VALUE set, each word NAME (no '=') removed, in order. */
ORCA_EXPORT void apply_environment(std::vector<std::string>& env, const std::vector<std::string>& words);

}  // namespace orca::plm

#endif  // ORCA_CHILD_PROCESS_H
