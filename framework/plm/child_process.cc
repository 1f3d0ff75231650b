// spawn_child: fork/exec with pipes, a process group and an exec report.
#include <orca/child_process.h>

#include "launch/cpu_topology.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <signal.h>
#include <linux/close_range.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <optional>

// Under AddressSanitizer a child that shares the parent's memory runs
// instrumented code on a stack the runtime does not know: such builds
// fork (see clone_child).
#include <orca/address_sanitizer.h>
#ifdef ORCA_ADDRESS_SANITIZER
#define ORCA_CHILD_FORKS 1
#endif

extern char** environ;

namespace orca::plm {
namespace {

Message spawn_error(const std::string& program, const std::string& call, int err) {
  return Message("plm", "spawn-failed",
                 {{"program", program}, {"call", call}, {"why", std::strerror(err)}, {"hint", limit_hint(call, err)}});
}

bool make_pipe(UniqueFd& read_end, UniqueFd& write_end) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  read_end.reset(fds[0]);
  write_end.reset(fds[1]);
  return true;
}

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

// In the child: only async-signal-safe calls from here to exec.
// What the child tells the parent when it cannot exec: which step failed, and errno.
enum ExecStep : int { kExec = 0, kDirectory = 1, kCpus = 2 };

[[noreturn]] void exec_failed(int report_fd, ExecStep step) {
  const int failure[2] = {step, errno};
  (void)!::write(report_fd, failure, sizeof failure);
  ::_exit(127);
}

// `cpus`: the affinity mask to take before exec (`cpus_bytes` 0: keep the parent's).
[[noreturn]] void exec_child(const SpawnSpec& spec, char* const* argv, char** envp, int in_fd, int out_fd, int err_fd,
                             int report_fd, pid_t parent, const cpu_set_t* cpus, size_t cpus_bytes) {
  if (spec.own_process_group) ::setpgid(0, 0);
  if (spec.parent_death_signal != 0) {
    ::prctl(PR_SET_PDEATHSIG, spec.parent_death_signal);
    // The parent may have died before prctl: then no signal will come.
    if (::getppid() != parent) ::_exit(127);
  }
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; ++s) ::sigaction(s, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  // Nothing the launcher holds open leaks into the program: every other
  // descriptor closes at exec (the report pipe too, which signals success).
  ::syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC);
  for (int fd : spec.inherit_fds) {
    if (fd >= 3) ::fcntl(fd, F_SETFD, 0);
  }
  // dup2 clears close-on-exec on the copies; the originals close at exec.
  // A pipe end that already is the target (the parent had fd 0 closed)
  // only needs its close-on-exec cleared.
  auto wire = [](int from, int to) { return from == to ? ::fcntl(to, F_SETFD, 0) : ::dup2(from, to); };
  if (wire(in_fd, 0) < 0 || wire(out_fd, 1) < 0 || wire(err_fd, 2) < 0) exec_failed(report_fd, kExec);
  if (!spec.directory.empty() && ::chdir(spec.directory.c_str()) != 0) exec_failed(report_fd, kDirectory);
  if (cpus_bytes != 0 && ::sched_setaffinity(0, cpus_bytes, cpus) != 0) exec_failed(report_fd, kCpus);
  // execvpe, not environ = envp: a child that shares the parent's memory
  // must write nothing of it.
  ::execvpe(argv[0], argv, envp);
  exec_failed(report_fd, kExec);
}

struct ChildStart {
  const SpawnSpec* spec;
  char* const* argv;
  char** envp;
  int in_fd, out_fd, err_fd, report_fd;
  pid_t parent;
  const cpu_set_t* cpus;
  size_t cpus_bytes;
};

int child_main(void* arg) {
  const auto* c = static_cast<const ChildStart*>(arg);
  exec_child(*c->spec, c->argv, c->envp, c->in_fd, c->out_fd, c->err_fd, c->report_fd, c->parent, c->cpus,
             c->cpus_bytes);
}

// The child of the fork path, started like posix_spawn starts one: in the
// parent's memory (CLONE_VM) on a stack of its own, the parent waiting
// until it has called exec or exited (CLONE_VFORK). fork() would copy the
// page tables of the parent (orcad, with its libraries and heap), and then
// every page either of them writes would be copied once more: measurable
// per rank on a loaded host. exec_child writes nothing of the parent's
// memory (execvpe, no environ), and the parent blocks every signal around
// the clone, so that none runs a parent's handler in the child before
// exec_child puts them back to the default. Returns -1 with errno.
pid_t clone_child(ChildStart& start) {
#ifdef ORCA_CHILD_FORKS
  const pid_t pid = ::fork();
  if (pid == 0) child_main(&start);
  return pid;
#else
  constexpr size_t kStack = 64 * 1024;  // exec_child and execvpe's path buffer
  struct Stack {
    void* base = ::mmap(nullptr, kStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    ~Stack() {
      if (base != MAP_FAILED) ::munmap(base, kStack);
    }
  } stack;
  if (stack.base == MAP_FAILED) return -1;
  sigset_t all, before;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &before);
  const pid_t pid = ::clone(child_main, static_cast<char*>(stack.base) + kStack, CLONE_VM | CLONE_VFORK | SIGCHLD, &start);
  const int clone_errno = errno;
  ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
  errno = clone_errno;
  return pid;
#endif
}

// The child as the caller gets it: the parent's pipe ends, nonblocking.
SpawnedChild parent_ends(pid_t pid, UniqueFd input, UniqueFd output, UniqueFd errors, std::string exec_error) {
  SpawnedChild child;
  child.pid = pid;
  child.input = std::move(input);
  child.output = std::move(output);
  child.errors = std::move(errors);
  child.exec_error = std::move(exec_error);
  for (const UniqueFd* fd : {&child.input, &child.output, &child.errors}) {
    if (fd->valid()) set_nonblocking(fd->get());
  }
  return child;
}

// argv0 as execvp would find it in the PATH of `environment`; empty when
// it is not there (the fork path then reports exec's own error).
std::string resolve(const std::string& argv0, const std::vector<std::string>& environment) {
  if (argv0.find('/') != std::string::npos) return ::access(argv0.c_str(), X_OK) == 0 ? argv0 : std::string();
  std::string path = "/usr/local/bin:/usr/bin:/bin";
  for (const auto& e : environment) {
    if (e.compare(0, 5, "PATH=") == 0) path = e.substr(5);
  }
  size_t start = 0;
  while (start <= path.size()) {
    const size_t end = std::min(path.find(':', start), path.size());
    const std::string dir = end > start ? path.substr(start, end - start) : ".";
    std::string candidate = dir + "/" + argv0;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return {};
}

// posix_spawn (a vfork-style clone in glibc) costs the launcher far less
// than fork when it starts many agents: no copy of its page tables. It
// cannot ask for a parent-death signal, so ranks take the fork path.
// Returns nullopt when it cannot be used here (the caller forks instead).
std::optional<pid_t> spawn_without_fork(const SpawnSpec& spec, const std::string& path, char* const* argv,
                                        char* const* envp, int in_fd, int out_fd, int err_fd) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  if (posix_spawn_file_actions_init(&actions) != 0) return std::nullopt;
  if (posix_spawnattr_init(&attr) != 0) {
    posix_spawn_file_actions_destroy(&actions);
    return std::nullopt;
  }
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  short flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
  if (spec.own_process_group) flags |= POSIX_SPAWN_SETPGROUP;
  bool ok = posix_spawnattr_setflags(&attr, flags) == 0 && posix_spawnattr_setsigdefault(&attr, &all) == 0 &&
            posix_spawnattr_setsigmask(&attr, &none) == 0 && posix_spawnattr_setpgroup(&attr, 0) == 0 &&
            // A dup2 onto itself clears close-on-exec (POSIX; glibc 2.29+).
            posix_spawn_file_actions_adddup2(&actions, in_fd, 0) == 0 &&
            posix_spawn_file_actions_adddup2(&actions, out_fd, 1) == 0 &&
            posix_spawn_file_actions_adddup2(&actions, err_fd, 2) == 0 &&
            posix_spawn_file_actions_addclosefrom_np(&actions, 3) == 0 &&
            (spec.directory.empty() || posix_spawn_file_actions_addchdir_np(&actions, spec.directory.c_str()) == 0);
  pid_t pid = -1;
  std::optional<pid_t> out;
  if (ok && posix_spawn(&pid, path.c_str(), &actions, &attr, argv, envp) == 0) out = pid;
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  return out;
}

}  // namespace

Result<SpawnedChild> spawn_child(const SpawnSpec& spec) {
  const std::string program = spec.argv.empty() ? std::string() : spec.argv[0];
  if (spec.argv.empty()) return Message("plm", "spawn-failed", {{"program", "(none)"}, {"call", "exec"}, {"why", "no command"}});
  // Everything the child needs is built before fork.
  std::vector<char*> argv;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const auto& e : spec.environment) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  UniqueFd in_read, in_write, out_read, out_write, err_read, err_write, report_read, report_write;
  if (spec.pipe_input) {
    if (!make_pipe(in_read, in_write)) return spawn_error(program, "pipe", errno);
  } else {
    in_read.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (!in_read.valid()) return spawn_error(program, "open /dev/null", errno);
  }
  if (!make_pipe(out_read, out_write)) return spawn_error(program, "pipe", errno);
  if (!spec.merge_errors && !make_pipe(err_read, err_write)) return spawn_error(program, "pipe", errno);

  // The binding's mask, made before the child starts (it may not allocate).
  std::vector<unsigned long> mask;
  for (unsigned cpu : spec.cpus) {
    constexpr unsigned kBits = 8 * sizeof(unsigned long);
    if (cpu / kBits >= mask.size()) mask.resize(cpu / kBits + 1, 0);
    mask[cpu / kBits] |= 1ul << (cpu % kBits);
  }

  if (spec.parent_death_signal == 0 && spec.inherit_fds.empty() && spec.cpus.empty()) {
    const std::string path = resolve(spec.argv[0], spec.environment);
    std::optional<pid_t> pid;
    if (!path.empty()) {
      pid = spawn_without_fork(spec, path, argv.data(), envp.data(), in_read.get(), out_write.get(),
                               spec.merge_errors ? out_write.get() : err_write.get());
    }
    // Not found, or refused at exec (a directory, no permission, a bad
    // chdir): the fork path below gives a child that exits 127 with the
    // reason, as the contract says.
    if (pid) return parent_ends(*pid, std::move(in_write), std::move(out_read), std::move(err_read), {});
  }

  if (!make_pipe(report_read, report_write)) return spawn_error(program, "pipe", errno);
  ChildStart start{.spec = &spec,
                   .argv = argv.data(),
                   .envp = envp.data(),
                   .in_fd = in_read.get(),
                   .out_fd = out_write.get(),
                   .err_fd = spec.merge_errors ? out_write.get() : err_write.get(),
                   .report_fd = report_write.get(),
                   .parent = ::getpid(),
                   .cpus = reinterpret_cast<const cpu_set_t*>(mask.data()),
                   .cpus_bytes = mask.size() * sizeof(unsigned long)};
  const pid_t pid = clone_child(start);
  // Named "fork" for the user: the limit it meets (tasks, memory) is fork's.
  if (pid < 0) return spawn_error(program, "fork", errno);
  // Also in the parent: the child's group exists before anyone signals it.
  if (spec.own_process_group) ::setpgid(pid, pid);
  report_write.reset();
  in_read.reset();
  out_write.reset();
  err_write.reset();

  int failure[2] = {};
  ssize_t n;
  do {
    n = ::read(report_read.get(), failure, sizeof failure);
  } while (n < 0 && errno == EINTR);
  std::string why;
  if (n == static_cast<ssize_t>(sizeof failure)) {
    const int err = failure[1];
    switch (failure[0]) {
      case kDirectory: why = "cannot enter the working directory " + printable(spec.directory) + ": " + std::strerror(err); break;
      case kCpus: why = "cannot bind to CPUs " + launch::cpu_list_text(spec.cpus) + ": " + std::strerror(err); break;
      default: why = std::strerror(err); break;
    }
  }
  return parent_ends(pid, std::move(in_write), std::move(out_read), std::move(err_read), std::move(why));
}

std::string limit_hint(const std::string& call, int err) {
  switch (err) {
    case EMFILE:
      return "this process has as many descriptors open as RLIMIT_NOFILE allows: raise it (ulimit -n), or start "
             "fewer processes from here";
    case ENFILE:
      return "the machine has as many files open as fs.file-max allows";
    case EAGAIN:
      if (call != "fork") return {};
      return "no more processes may start: a task limit is reached (RLIMIT_NPROC, ulimit -u; kernel.pid_max; "
             "or the pids.max of this process's cgroup, systemd's TasksMax=)";
    case ENOMEM:
      return "out of memory";
    default:
      return {};
  }
}

std::string spawn_failure_text(const Message& error) {
  const std::string hint = error.arg("hint");
  return error.arg("call") + " failed: " + error.arg("why") + (hint.empty() ? std::string() : " (" + hint + ")");
}

std::string describe_wait_status(int wait_status) {
  if (WIFSIGNALED(wait_status)) {
    const int s = WTERMSIG(wait_status);
    const char* name = ::strsignal(s);
    return "was killed by signal " + std::to_string(s) + (name ? std::string(" (") + name + ")" : std::string());
  }
  return "exited with status " + std::to_string(WEXITSTATUS(wait_status));
}

std::vector<std::string> current_environment() {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) out.emplace_back(*e);
  return out;
}

void set_environment(std::vector<std::string>& env, const std::string& name, const std::string& value) {
  const std::string prefix = name + "=";
  for (auto& e : env) {
    if (e.compare(0, prefix.size(), prefix) == 0) {
      e = prefix + value;
      return;
    }
  }
  env.push_back(prefix + value);
}

void unset_environment(std::vector<std::string>& env, const std::string& name) {
  const std::string prefix = name + "=";
  std::erase_if(env, [&](const std::string& e) { return e.compare(0, prefix.size(), prefix) == 0; });
}

void apply_environment(std::vector<std::string>& env, const std::vector<std::string>& words) {
  for (const auto& w : words) {
    const auto eq = w.find('=');
    if (eq == std::string::npos) {
      unset_environment(env, w);
    } else {
      set_environment(env, w.substr(0, eq), w.substr(eq + 1));
    }
  }
}

}  // namespace orca::plm
