// spawn_child (framework/plm/child_process.cc) on real programs: an exec
// failure is reported and the child still exits 127; the pipes carry what
// the child writes and reads; the process group, the parent-death signal,
// the environment and the directory are the ones asked for; and what the
// launcher changed in itself (SIGPIPE ignored, signals blocked) does not
// leak into the program.
#include <orca/child_process.h>

#include "lib/descriptors_exhausted.h"
#include "lib/result_assertions.h"
#include "lib/temp_dir.h"
#include "framework/plm/process_probe.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace orca::plm {
namespace {

using test::FailedWith;
using test::read_to_eof;
using test::reap;
using test::Succeeded;

// The tests' programs are named by path or found in this PATH, whatever
// the tester's own PATH holds.
const std::string kPath = "PATH=/usr/local/bin:/usr/bin:/bin";

SpawnSpec spec_of(std::vector<std::string> argv) {
  SpawnSpec s;
  s.argv = std::move(argv);
  s.environment = {kPath};
  return s;
}

/* Starts `spec`, expecting exec to succeed. */
SpawnedChild start(const SpawnSpec& spec) {
  auto r = spawn_child(spec);
  EXPECT_TRUE(Succeeded(r));
  if (!r) return {};
  EXPECT_EQ(r->exec_error, "") << "exec of " << spec.argv[0];
  return std::move(r.value());
}

bool exited_with(std::optional<int> status, int code) {
  return status && WIFEXITED(*status) && WEXITSTATUS(*status) == code;
}

/* A child killed and reaped when the test ends, whatever it asserted. */
struct KillOnExit {
  pid_t pid;
  ~KillOnExit() {
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      (void)reap(pid);
    }
  }
};

TEST(SpawnChild, NoArgvIsAnError) {
  EXPECT_TRUE(FailedWith(spawn_child(SpawnSpec{}), "plm", "spawn-failed"));
}

TEST(SpawnChild, OutOfDescriptorsIsAnErrorNamingTheLimitToRaise) {
  SpawnSpec spec = spec_of({"/bin/true"});
  spec.pipe_input = true;  // a pipe(), not the open() of /dev/null, is the first to fail
  auto r = [&] {
    const test::DescriptorsExhausted none_left;
    return spawn_child(spec);
  }();
  ASSERT_TRUE(FailedWith(r, "plm", "spawn-failed"));
  EXPECT_EQ(r.error().arg("call"), "pipe");
  const std::string text = spawn_failure_text(r.error());
  EXPECT_NE(text.find("pipe failed: Too many open files (this process has as many descriptors open as RLIMIT_NOFILE"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("ulimit -n"), std::string::npos) << text;
}

TEST(SpawnChild, LimitHintsNameTheLimitOnlyWhereOneExplainsTheError) {
  EXPECT_NE(limit_hint("fork", EAGAIN).find("pids.max"), std::string::npos);
  EXPECT_NE(limit_hint("fork", EAGAIN).find("RLIMIT_NPROC"), std::string::npos);
  EXPECT_EQ(limit_hint("pipe", EAGAIN), "") << "EAGAIN is a task limit only from fork";
  EXPECT_NE(limit_hint("open /dev/null", ENFILE).find("fs.file-max"), std::string::npos);
  EXPECT_EQ(limit_hint("fork", EPERM), "");
  EXPECT_EQ(spawn_failure_text(Message("plm", "spawn-failed", {{"call", "exec"}, {"why", "no command"}})),
            "exec failed: no command");
}

TEST(SpawnChild, AMissingProgramIsAnExecErrorAndTheChildExits127) {
  for (const char* program : {"/nonexistent/orca-no-such-program", "orca-no-such-program-in-path"}) {
    auto r = spawn_child(spec_of({program, "arg"}));
    ASSERT_TRUE(Succeeded(r)) << program;
    EXPECT_EQ(r->exec_error, "No such file or directory") << program;
    ASSERT_GT(r->pid, 0);
    EXPECT_TRUE(exited_with(reap(r->pid), 127)) << program;
  }
}

TEST(SpawnChild, AProgramThatCannotBeExecutedIsAnExecError) {
  test::TempDir dir;
  const std::string file = dir.write("not-executable", "#!/bin/sh\necho ran\n");
  auto r = spawn_child(spec_of({file}));
  ASSERT_TRUE(Succeeded(r));
  EXPECT_EQ(r->exec_error, "Permission denied");
  EXPECT_TRUE(exited_with(reap(r->pid), 127));
}

TEST(SpawnChild, StdoutAndStderrHaveAPipeEach) {
  SpawnedChild c = start(spec_of({"/bin/sh", "-c", "printf out; printf err >&2; exit 3"}));
  ASSERT_TRUE(c.output.valid());
  ASSERT_TRUE(c.errors.valid());
  EXPECT_FALSE(c.input.valid()) << "a stdin pipe nobody asked for";
  EXPECT_EQ(read_to_eof(c.output.get()), "out");
  EXPECT_EQ(read_to_eof(c.errors.get()), "err");
  EXPECT_TRUE(exited_with(reap(c.pid), 3));
}

TEST(SpawnChild, MergeErrorsSendsStderrDownTheStdoutPipe) {
  SpawnSpec s = spec_of({"/bin/sh", "-c", "printf 1; printf 2 >&2; printf 3"});
  s.merge_errors = true;
  SpawnedChild c = start(s);
  EXPECT_FALSE(c.errors.valid());
  EXPECT_EQ(read_to_eof(c.output.get()), "123");
  EXPECT_TRUE(exited_with(reap(c.pid), 0));
}

TEST(SpawnChild, ThePipesAreNonblocking) {
  SpawnSpec s = spec_of({"/bin/cat"});
  s.pipe_input = true;
  SpawnedChild c = start(s);
  KillOnExit guard{c.pid};
  for (const UniqueFd* fd : {&c.input, &c.output, &c.errors}) {
    ASSERT_TRUE(fd->valid());
    EXPECT_NE(::fcntl(fd->get(), F_GETFL) & O_NONBLOCK, 0);
    EXPECT_NE(::fcntl(fd->get(), F_GETFD) & FD_CLOEXEC, 0) << "a later child would inherit this end";
  }
}

TEST(SpawnChild, PipeInputReachesTheChild) {
  SpawnSpec s = spec_of({"cat"});
  s.pipe_input = true;
  SpawnedChild c = start(s);
  ASSERT_TRUE(c.input.valid());
  const std::string text = "hello through stdin\nsecond line\n";
  ASSERT_EQ(::write(c.input.get(), text.data(), text.size()), static_cast<ssize_t>(text.size()));
  c.input.reset();  // EOF for cat
  EXPECT_EQ(read_to_eof(c.output.get()), text);
  EXPECT_TRUE(exited_with(reap(c.pid), 0));
}

TEST(SpawnChild, WithoutPipeInputStdinIsDevNull) {
  SpawnedChild c = start(spec_of({"/bin/sh", "-c", "cat; echo \"rc=$?\"; readlink /proc/self/fd/0"}));
  EXPECT_EQ(read_to_eof(c.output.get()), "rc=0\n/dev/null\n");
  EXPECT_TRUE(exited_with(reap(c.pid), 0));
}

TEST(SpawnChild, OwnProcessGroupMakesTheChildAGroupLeader) {
  SpawnedChild c = start(spec_of({"sleep", "100"}));
  KillOnExit guard{c.pid};
  // Set by the parent too, so it holds as soon as spawn_child returns.
  EXPECT_EQ(::getpgid(c.pid), c.pid);
}

TEST(SpawnChild, WithoutOwnProcessGroupTheChildStaysInOurs) {
  SpawnSpec s = spec_of({"sleep", "100"});
  s.own_process_group = false;
  SpawnedChild c = start(s);
  KillOnExit guard{c.pid};
  EXPECT_EQ(::getpgid(c.pid), ::getpgrp());
}

/* In a forked intermediate process: spawns `sleep 100` twice, one with
 * parent_death_signal SIGKILL and one without, writes both pids to
 * `report` and exits, orphaning both. */
[[noreturn]] void orphan_two_sleeps(int report) {
  SpawnSpec with = spec_of({"sleep", "100"});
  with.parent_death_signal = SIGKILL;
  SpawnSpec without = spec_of({"sleep", "100"});
  auto a = spawn_child(with);
  auto b = spawn_child(without);
  pid_t pids[2] = {a ? a->pid : -1, b ? b->pid : -1};
  (void)!::write(report, pids, sizeof pids);
  ::_exit(0);
}

TEST(SpawnChild, AChildWhosParentDiesGetsTheParentDeathSignal) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t middle = ::fork();
  ASSERT_GE(middle, 0);
  if (middle == 0) {
    ::close(fds[0]);
    orphan_two_sleeps(fds[1]);
  }
  ::close(fds[1]);
  pid_t pids[2] = {-1, -1};
  ASSERT_EQ(::read(fds[0], pids, sizeof pids), static_cast<ssize_t>(sizeof pids));
  ::close(fds[0]);
  ASSERT_TRUE(exited_with(reap(middle), 0));
  ASSERT_GT(pids[0], 0);
  ASSERT_GT(pids[1], 0);
  // Not our children: killed on our way out by pid.
  struct Kill {
    pid_t pid;
    ~Kill() { ::kill(pid, SIGKILL); }
  } kill_a{pids[0]}, kill_b{pids[1]};
  EXPECT_TRUE(test::wait_dead(pids[0])) << "the sleep with parent_death_signal outlived its parent";
  // The control: the same orphan without the signal lives on, so the
  // first one died of the signal and not of being orphaned.
  EXPECT_FALSE(test::is_dead(pids[1])) << "the sleep without parent_death_signal died too";
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

TEST(SpawnChild, TheEnvironmentGivenIsTheWholeEnvironment) {
  ::setenv("ORCA_SPAWN_TEST_LEAK", "from the parent", 1);
  SpawnSpec s = spec_of({"/usr/bin/env"});
  s.environment = {"A=1", "B=two words", "C=", "D=x=y"};
  SpawnedChild c = start(s);
  auto out = read_to_eof(c.output.get());
  ASSERT_TRUE(out.has_value());
  auto lines = lines_of(*out);
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<std::string>{"A=1", "B=two words", "C=", "D=x=y"}));
  EXPECT_TRUE(exited_with(reap(c.pid), 0));
  ::unsetenv("ORCA_SPAWN_TEST_LEAK");
}

TEST(SpawnChild, AChildWithAParentDeathSignalChangesNothingOfItsParent) {
  // That child shares our memory until it calls exec (clone_child): its
  // environment, PATH search, resets and a failed exec must leave ours,
  // our signal mask and our handlers as they were.
  ::setenv("ORCA_SPAWN_TEST_OURS", "kept", 1);
  char** const environment_before = environ;
  sigset_t mask_before, mask_after;
  ASSERT_EQ(::pthread_sigmask(SIG_SETMASK, nullptr, &mask_before), 0);
  struct sigaction usr1_before {}, usr1_after {}, mine {};
  mine.sa_handler = [](int) {};
  ASSERT_EQ(::sigaction(SIGUSR1, &mine, &usr1_before), 0);
  for (const char* program : {"env", "orca-no-such-program-here"}) {
    SpawnSpec s = spec_of({program});
    s.environment = {"PATH=/usr/bin:/bin", "ONLY=the child's"};
    s.parent_death_signal = SIGTERM;
    auto c = spawn_child(s);
    ASSERT_TRUE(c.ok()) << c.error().summary();
    const auto out = read_to_eof(c.value().output.get());
    if (std::string(program) == "env") {
      EXPECT_EQ(out, "PATH=/usr/bin:/bin\nONLY=the child's\n");
      EXPECT_TRUE(exited_with(reap(c.value().pid), 0));
    } else {
      EXPECT_FALSE(c.value().exec_error.empty());
      EXPECT_TRUE(exited_with(reap(c.value().pid), 127));
    }
    EXPECT_EQ(environ, environment_before) << program;
    EXPECT_STREQ(::getenv("ORCA_SPAWN_TEST_OURS"), "kept") << program;
    EXPECT_EQ(::getenv("ONLY"), nullptr) << program;
    ASSERT_EQ(::pthread_sigmask(SIG_SETMASK, nullptr, &mask_after), 0);
    for (int sig = 1; sig < NSIG; ++sig) {
      EXPECT_EQ(sigismember(&mask_after, sig), sigismember(&mask_before, sig)) << program << ": signal " << sig;
    }
    ASSERT_EQ(::sigaction(SIGUSR1, nullptr, &usr1_after), 0);
    EXPECT_EQ(usr1_after.sa_handler, mine.sa_handler) << program << ": our SIGUSR1 handler was reset";
  }
  ::sigaction(SIGUSR1, &usr1_before, nullptr);
  ::unsetenv("ORCA_SPAWN_TEST_OURS");
}

TEST(SpawnChild, TheProgramIsSearchedInThePathOfTheGivenEnvironment) {
  test::TempDir dir;
  const std::string script = dir.write("orca-spawn-test-program", "#!/bin/sh\necho \"found $1\"\n");
  ASSERT_EQ(::chmod(script.c_str(), 0755), 0);
  SpawnSpec s = spec_of({"orca-spawn-test-program", "it"});
  s.environment = {"PATH=" + dir.path().string() + ":/usr/bin:/bin"};
  SpawnedChild c = start(s);
  EXPECT_EQ(read_to_eof(c.output.get()), "found it\n");
  EXPECT_TRUE(exited_with(reap(c.pid), 0));
}

TEST(SpawnChild, SignalDispositionsAndMaskAreResetInTheChild) {
  // What every Orca process does to itself (EventLoop ignores SIGPIPE),
  // plus a blocked and an ignored signal of our own.
  struct sigaction ign {}, old_pipe {}, old_usr2 {};
  ign.sa_handler = SIG_IGN;
  ASSERT_EQ(::sigaction(SIGPIPE, &ign, &old_pipe), 0);
  ASSERT_EQ(::sigaction(SIGUSR2, &ign, &old_usr2), 0);
  sigset_t block, old_mask;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR1);
  ASSERT_EQ(::sigprocmask(SIG_BLOCK, &block, &old_mask), 0);

  SpawnedChild c = start(spec_of({"sleep", "100"}));
  KillOnExit guard{c.pid};
  // spawn_child returns after exec, so this is the program's own state.
  auto ignored = test::status_field(c.pid, "SigIgn");
  auto blocked = test::status_field(c.pid, "SigBlk");

  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  ::sigaction(SIGUSR2, &old_usr2, nullptr);
  ::sigaction(SIGPIPE, &old_pipe, nullptr);

  ASSERT_TRUE(ignored.has_value());
  ASSERT_TRUE(blocked.has_value());
  const unsigned long long ign_mask = std::strtoull(ignored->c_str(), nullptr, 16);
  const unsigned long long blk_mask = std::strtoull(blocked->c_str(), nullptr, 16);
  EXPECT_EQ(ign_mask & (1ull << (SIGPIPE - 1)), 0u) << "SIGPIPE ignored in the child: SigIgn " << *ignored;
  EXPECT_EQ(ign_mask & (1ull << (SIGUSR2 - 1)), 0u) << "SIGUSR2 ignored in the child: SigIgn " << *ignored;
  EXPECT_EQ(blk_mask, 0u) << "signals blocked in the child: SigBlk " << *blocked;
}

TEST(SpawnChild, APipelineEndsOnSigpipeEvenThoughTheParentIgnoresIt) {
  struct sigaction ign {}, old {};
  ign.sa_handler = SIG_IGN;
  ASSERT_EQ(::sigaction(SIGPIPE, &ign, &old), 0);
  // With SIGPIPE ignored, `yes` would see EPIPE and complain on stderr
  // ("Broken pipe"); with the default it dies of the signal silently.
  SpawnedChild c = start(spec_of({"/bin/sh", "-c", "yes | head -n 1"}));
  ::sigaction(SIGPIPE, &old, nullptr);
  EXPECT_EQ(read_to_eof(c.output.get()), "y\n");
  EXPECT_EQ(read_to_eof(c.errors.get()), "");
  EXPECT_TRUE(exited_with(reap(c.pid), 0));
}

TEST(SpawnChild, TheDirectoryIsHonoured) {
  test::TempDir dir;
  SpawnSpec s = spec_of({"/bin/pwd", "-P"});
  s.directory = dir.path().string();
  SpawnedChild c = start(s);
  EXPECT_EQ(read_to_eof(c.output.get()), std::filesystem::canonical(dir.path()).string() + "\n");
  EXPECT_TRUE(exited_with(reap(c.pid), 0));
}

TEST(SpawnChild, AMissingDirectoryIsReportedAndTheChildExits127) {
  SpawnSpec s = spec_of({"/bin/pwd"});
  s.directory = "/nonexistent/orca-no-such-dir";
  auto r = spawn_child(s);
  ASSERT_TRUE(Succeeded(r));
  // The directory is named, not taken for a missing program.
  EXPECT_EQ(r->exec_error, "cannot enter the working directory /nonexistent/orca-no-such-dir: No such file or directory");
  EXPECT_TRUE(exited_with(reap(r->pid), 127));
}

TEST(SpawnChild, TheChildRunsOnTheCpusItIsBoundTo) {
  cpu_set_t ours;
  CPU_ZERO(&ours);
  ASSERT_EQ(::sched_getaffinity(0, sizeof ours, &ours), 0);
  unsigned last = 0;
  for (unsigned c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &ours)) last = c;
  }
  SpawnSpec s = spec_of({"/bin/grep", "^Cpus_allowed_list", "/proc/self/status"});
  s.cpus = {last};
  SpawnedChild c = start(s);
  EXPECT_EQ(read_to_eof(c.output.get()), "Cpus_allowed_list:\t" + std::to_string(last) + "\n");
  EXPECT_TRUE(exited_with(reap(c.pid), 0));
  // The parent's own mask is untouched.
  cpu_set_t after;
  ASSERT_EQ(::sched_getaffinity(0, sizeof after, &after), 0);
  EXPECT_TRUE(CPU_EQUAL(&ours, &after));
}

TEST(SpawnChild, ABindingToCpusThisHostLacksIsReportedAndTheChildExits127) {
  SpawnSpec s = spec_of({"/bin/true"});
  s.cpus = {8191};
  auto r = spawn_child(s);
  ASSERT_TRUE(Succeeded(r));
  EXPECT_EQ(r->exec_error, "cannot bind to CPUs 8191: Invalid argument");
  EXPECT_TRUE(exited_with(reap(r->pid), 127));
}

/* In a forked helper whose own stdin is closed (orcarun run as
 * `orcarun ... <&-`, or from a daemonised parent): spawns `cat` with
 * pipe_input, writes `text`, and sends back what cat printed. */
[[noreturn]] void cat_with_stdin_closed(int report, const std::string& text) {
  ::close(0);
  SpawnSpec s = spec_of({"/bin/sh", "-c", "cat; echo \" rc=$?\""});
  s.pipe_input = true;
  auto c = spawn_child(s);
  if (!c || !c->exec_error.empty()) ::_exit(2);
  (void)!::write(c->input.get(), text.data(), text.size());
  c->input.reset();
  const auto out = read_to_eof(c->output.get());
  if (out) (void)!::write(report, out->data(), out->size());
  (void)reap(c->pid);
  ::_exit(0);
}

// Enable with the fix proposed in the report: when a pipe end spawn_child
// creates is already the fd it is meant to become (the lowest free fd is
// 0 when the parent's stdin is closed), dup2(fd, fd) does nothing and
// leaves close-on-exec set, so the program starts with no stdin and the
// bootstrap never reaches it.
TEST(SpawnChild, StdinWorksWhenTheParentsOwnStdinIsClosed) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t helper = ::fork();
  ASSERT_GE(helper, 0);
  if (helper == 0) {
    ::close(fds[0]);
    cat_with_stdin_closed(fds[1], "bootstrap");
  }
  ::close(fds[1]);
  const auto out = read_to_eof(fds[0]);
  ::close(fds[0]);
  EXPECT_TRUE(exited_with(reap(helper), 0));
  EXPECT_EQ(out, "bootstrap rc=0\n");
}

TEST(SpawnEnvironment, SetEnvironmentReplacesOrAppends) {
  std::vector<std::string> env = {"A=1", "AB=2", "B=3"};
  set_environment(env, "A", "x");
  set_environment(env, "C", "y=z");
  EXPECT_EQ(env, (std::vector<std::string>{"A=x", "AB=2", "B=3", "C=y=z"}));
}

TEST(SpawnEnvironment, CurrentEnvironmentIsOurs) {
  ::setenv("ORCA_SPAWN_TEST_MARK", "v 1", 1);
  const auto env = current_environment();
  EXPECT_NE(std::find(env.begin(), env.end(), "ORCA_SPAWN_TEST_MARK=v 1"), env.end());
  ::unsetenv("ORCA_SPAWN_TEST_MARK");
}

// exits_within: the process is looked at, never reaped.
TEST(ExitsWithin, AnExitedChildIsSeenAndLeftToReap) {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(7);
  ASSERT_GT(child, 0);
  EXPECT_TRUE(exits_within(child, std::chrono::milliseconds(10000)));
  int status = 0;
  ASSERT_EQ(child, ::waitpid(child, &status, 0)) << "exits_within must not reap it";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 7);
  EXPECT_TRUE(exits_within(child, std::chrono::milliseconds(10))) << "reaped: no child of ours any more";
}

TEST(ExitsWithin, AChildStillRunningAfterTheLimitIsNot) {
  const pid_t child = ::fork();
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  ASSERT_GT(child, 0);
  EXPECT_FALSE(exits_within(child, std::chrono::milliseconds(20)));
  ::kill(child, SIGKILL);
  EXPECT_TRUE(exits_within(child, std::chrono::milliseconds(10000)));
  EXPECT_EQ(child, ::waitpid(child, nullptr, 0));
}

}  // namespace
}  // namespace orca::plm
