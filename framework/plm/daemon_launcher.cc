// DaemonLauncher: agents as child processes, their bootstrap written to
// stdin, their output kept, their exits reported.
#include <orca/child_process.h>
#include "plm/daemon_launcher.h"

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

namespace orca::plm {

struct DaemonLauncher::Agent {
  std::uint32_t vpid = 0;
  SpawnedChild child;
  std::vector<std::uint8_t> unwritten;  // input bytes (the bootstrap, then send()s) not all written yet
  size_t written = 0;                   // of unwritten
  int kill_signal = SIGKILL;
  std::unique_ptr<IoWatch> input_watch;
  std::unique_ptr<IoWatch> output_watch;
  std::unique_ptr<ChildWatch> exit_watch;
  std::string line;  // output not yet ended by '\n'
  std::string tail;  // the last kTailBytes of output
  bool in_flight = true;
  bool exited = false;
  int wait_status = 0;
  bool output_done = false;
};

DaemonLauncher::DaemonLauncher(EventLoop& loop, std::uint32_t max_concurrent, Hooks hooks)
    : loop_(loop), max_concurrent_(max_concurrent), hooks_(std::move(hooks)) {}

namespace {

// Reaps `pid` if it has ended by `deadline`; false if it still runs.
bool reaped_by(pid_t pid, std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  if (!exits_within(pid, std::max(left, std::chrono::milliseconds(0)))) return false;
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  return true;
}

}  // namespace

DaemonLauncher::~DaemonLauncher() {
  // An agent that must act on its way out (srun cancelling its step) gets
  // its own signal and a bounded time; a stopped one must run to act.
  const auto deadline = std::chrono::steady_clock::now() + kKillSignalLimit;
  for (auto& [vpid, a] : agents_) {
    if (a->exited) continue;
    ::kill(-a->child.pid, a->kill_signal);
    if (a->kill_signal != SIGKILL) ::kill(-a->child.pid, SIGCONT);
    a->exit_watch.reset();  // stop watching; reap here, it is going
  }
  for (auto& [vpid, a] : agents_) {
    if (a->exited) continue;
    if (a->kill_signal != SIGKILL && reaped_by(a->child.pid, deadline)) continue;
    ::kill(-a->child.pid, SIGKILL);
    while (::waitpid(a->child.pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
}

void DaemonLauncher::launch(Launch launch) {
  waiting_.push_back(std::move(launch));
  start_next();
}

void DaemonLauncher::start_next() {
  while (!waiting_.empty() && (max_concurrent_ == 0 || in_flight_ < max_concurrent_)) {
    Launch l = std::move(waiting_.front());
    waiting_.pop_front();
    start(std::move(l));
  }
}

void DaemonLauncher::start(Launch launch) {
  if (launch.make_bootstrap) launch.bootstrap = launch.make_bootstrap();
  SpawnSpec spec;
  spec.argv = launch.argv;
  spec.environment = current_environment();
  apply_environment(spec.environment, launch.environment);
  spec.pipe_input = true;
  spec.merge_errors = true;
  spec.parent_death_signal = launch.parent_death_signal;
  auto spawned = spawn_child(spec);
  if (!spawned) {
    if (hooks_.on_failed_start) hooks_.on_failed_start(launch.vpid, spawned.error());
    return;
  }
  auto agent = std::make_unique<Agent>();
  Agent* a = agent.get();
  a->vpid = launch.vpid;
  a->child = std::move(spawned.value());
  if (!a->child.exec_error.empty()) a->tail = "cannot run " + launch.argv[0] + ": " + a->child.exec_error + "\n";
  a->unwritten = std::move(launch.bootstrap);
  a->kill_signal = launch.kill_signal;
  last_start_ = std::chrono::steady_clock::now();
  ++in_flight_;
  const std::uint32_t vpid = launch.vpid;

  // The bootstrap goes now, while the agent starts: a pipe takes 64 KiB
  // at once, so a daemon waits for the rest only with huge settings.
  a->input_watch = std::make_unique<IoWatch>(loop_, a->child.input.get(), IoWatch::kWrite,
                                             [a](short) { write_bootstrap(*a); });
  if (!write_bootstrap(*a)) a->input_watch->enable();

  a->output_watch = std::make_unique<IoWatch>(loop_, a->child.output.get(), IoWatch::kRead, [this, a](short) {
    if (read_output(*a) && a->exited) ended(a->vpid, a->wait_status);
  });
  a->output_watch->enable();

  a->exit_watch = std::make_unique<ChildWatch>(loop_, a->child.pid, [this, a](int status) {
    a->exited = true;
    a->wait_status = status;
    // Take what is in the pipe now, then report: a daemon that outlives
    // its agent and keeps the pipe open must not hold the report back.
    (void)read_output(*a);
    ended(a->vpid, status);
  });
  agents_.emplace(vpid, std::move(agent));
}

bool DaemonLauncher::write_bootstrap(Agent& a) {
  while (a.written < a.unwritten.size()) {
    const ssize_t n = ::write(a.child.input.get(), a.unwritten.data() + a.written, a.unwritten.size() - a.written);
    if (n > 0) {
      a.written += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return false;
    break;  // the agent closed its stdin: its exit will say why
  }
  if (a.input_watch) a.input_watch->disable();
  a.unwritten.clear();
  a.unwritten.shrink_to_fit();
  a.written = 0;
  return true;
}

bool DaemonLauncher::send(std::uint32_t vpid, std::vector<std::uint8_t> bytes) {
  auto it = agents_.find(vpid);
  if (it == agents_.end() || it->second->exited) return false;
  Agent& a = *it->second;
  const bool idle = a.unwritten.empty();
  a.unwritten.insert(a.unwritten.end(), bytes.begin(), bytes.end());
  if (idle && !write_bootstrap(a)) a.input_watch->enable();
  return true;
}

bool DaemonLauncher::read_output(Agent& a) {
  if (a.output_done) return true;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(a.child.output.get(), buf, sizeof buf);
    if (n > 0) {
      // ssh ends its own messages with "\r\n": the '\r' is line-end
      // noise, not text to quote.
      std::string chunk(buf, static_cast<size_t>(n));
      for (size_t r; (r = chunk.find("\r\n")) != std::string::npos;) chunk.erase(r, 1);
      a.tail.append(chunk);
      if (a.tail.size() > kTailBytes) a.tail.erase(0, a.tail.size() - kTailBytes);
      a.line.append(chunk);
      size_t nl;
      while ((nl = a.line.find('\n')) != std::string::npos) {
        std::string line = a.line.substr(0, nl);
        if (!line.empty() && line.back() == '\r') line.pop_back();  // a "\r\n" split across reads
        if (hooks_.on_output) hooks_.on_output(a.vpid, line);
        a.line.erase(0, nl + 1);
      }
      if (a.line.size() > kTailBytes) {
        if (hooks_.on_output) hooks_.on_output(a.vpid, a.line);
        a.line.clear();
      }
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return false;
    // EOF (or an error): everything the agent wrote.
    if (!a.line.empty() && hooks_.on_output) hooks_.on_output(a.vpid, a.line);
    a.line.clear();
    a.output_watch->disable();
    a.output_done = true;
    return true;
  }
}

void DaemonLauncher::ended(std::uint32_t vpid, int wait_status) {
  auto it = agents_.find(vpid);
  if (it == agents_.end()) return;
  std::unique_ptr<Agent> a = std::move(it->second);
  agents_.erase(it);
  if (a->in_flight) --in_flight_;
  // A last line without '\n' (the agent exited while its daemon still
  // held the pipe) is still passed on.
  if (!a->line.empty() && hooks_.on_output) hooks_.on_output(vpid, a->line);
  std::string tail = std::move(a->tail);
  if (!tail.empty() && tail.back() == '\r') tail.pop_back();
  // Our own callbacks may be on the stack: free the agent after them, its
  // watches off so that nothing calls back into this launcher meanwhile.
  if (a->input_watch) a->input_watch->disable();
  if (a->output_watch) a->output_watch->disable();
  loop_.defer([gone = std::shared_ptr<Agent>(std::move(a))] {});
  // Before the hook: a hook may end the job and destroy this launcher.
  start_next();
  if (hooks_.on_exit) hooks_.on_exit(vpid, wait_status, tail);
}

void DaemonLauncher::daemon_up(std::uint32_t vpid) {
  auto it = agents_.find(vpid);
  if (it == agents_.end() || !it->second->in_flight) return;
  it->second->in_flight = false;
  --in_flight_;
  start_next();
}

void DaemonLauncher::signal(std::uint32_t vpid, int signo) {
  auto it = agents_.find(vpid);
  if (it != agents_.end() && !it->second->exited) ::kill(-it->second->child.pid, signo);
}

bool DaemonLauncher::runs(std::uint32_t vpid) const {
  auto it = agents_.find(vpid);
  return it != agents_.end() && !it->second->exited;
}

void DaemonLauncher::end_lost(std::uint32_t vpid) {
  signal(vpid, SIGCONT);
  signal(vpid, SIGTERM);
}

void DaemonLauncher::signal_all(int signo) {
  for (auto& [vpid, a] : agents_) {
    if (!a->exited) ::kill(-a->child.pid, signo == SIGKILL ? a->kill_signal : signo);
  }
}

}  // namespace orca::plm
