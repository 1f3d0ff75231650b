// RankProcess: a rank's process, pipes, line assembly and exit.
#include "rank_process.h"

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <chrono>

namespace orca::orcad {

// A rank that exited while something it started still holds its output
// open: what arrives within this time is still shown, then its output
// ends (the descendant's later output is not waited for).
static constexpr std::chrono::milliseconds kDrainAfterExit{1000};
// How long a killed rank's group is waited for, at most, to be gone.
static constexpr std::chrono::milliseconds kKilledGroupWait{50};

struct RankProcess::Pipe {
  launch::Stream stream;
  UniqueFd fd;
  std::unique_ptr<IoWatch> watch;
  std::unique_ptr<Timer> partial_timer;
  std::unique_ptr<iof::LineAssembler> lines;
  std::string batch;  // whole lines of this read, not handed on yet
  bool done = false;
};

RankProcess::RankProcess(EventLoop& loop, std::uint32_t rank, const plm::SpawnSpec& spec,
                         std::chrono::milliseconds partial_delay, Hooks hooks)
    : loop_(loop), rank_(rank), hooks_(std::move(hooks)), reads_stdin_(spec.pipe_input) {
  auto spawned = plm::spawn_child(spec);
  if (!spawned) {
    // No process at all (fork failed): report as a command that could not start.
    reaped_ = true;
    reported_ = true;
    launch::ExitRecord r{.rank = rank_, .wait_status = 127 << 8, .started = false,
                         .message = spawned.error().arg("call") + " failed: " + spawned.error().arg("why")};
    loop_.defer([h = hooks_.exited, r] { h(r); });
    return;
  }
  child_ = std::move(spawned.value());
  auto make_pipe = [&](launch::Stream stream, UniqueFd fd) {
    auto p = std::make_unique<Pipe>();
    Pipe* raw = p.get();
    p->stream = stream;
    p->fd = std::move(fd);
    // A tail held while output is paused is incomplete only because its
    // pipe is not read: it is not shown as a partial line (that would cut
    // a whole line in two at the pause) until reading resumes.
    p->partial_timer = std::make_unique<Timer>(loop_, [this, raw, partial_delay] {
      if (paused_) {
        raw->partial_timer->start(partial_delay);
        return;
      }
      raw->lines->on_timer();
    });
    iof::LineAssembler::Hooks lh;
    lh.emit = [this, raw](std::string_view text, bool partial) {
      if (!partial) {
        raw->batch.append(text);
        return;
      }
      flush(*raw);
      hooks_.output(rank_, raw->stream, text, true);
    };
    lh.arm_timer = [raw](std::chrono::milliseconds d) { raw->partial_timer->start(d); };
    lh.cancel_timer = [raw] { raw->partial_timer->cancel(); };
    p->lines = std::make_unique<iof::LineAssembler>(partial_delay, std::move(lh));
    p->watch = std::make_unique<IoWatch>(loop_, p->fd.get(), IoWatch::kRead, [this, raw](short) { read_pipe(*raw); });
    p->watch->enable();
    return p;
  };
  out_ = make_pipe(launch::Stream::Stdout, std::move(child_.output));
  err_ = make_pipe(launch::Stream::Stderr, std::move(child_.errors));
  if (child_.input.valid()) {
    stdin_watch_ = std::make_unique<IoWatch>(loop_, child_.input.get(), IoWatch::kWrite, [this](short) { write_pending(); });
  }
  exit_watch_ = std::make_unique<ChildWatch>(loop_, child_.pid, [this](int status) {
    reaped_ = true;
    wait_status_ = status;
    stdin_watch_.reset();
    child_.input.reset();
    // Take what the pipes hold now, paused or not: the rank is gone, so
    // that is at most what a pipe holds, and a pause may outlast the drain
    // time below (what the rank wrote last must not be cut with what its
    // descendants keep writing). Then give descendants a moment more.
    if (!out_->done) read_pipe(*out_, true);
    if (!err_->done) read_pipe(*err_, true);
    if (!out_->done || !err_->done) {
      drain_ = std::make_unique<Timer>(loop_, [this] {
        for (Pipe* p : {out_.get(), err_.get()}) {
          if (p->done) continue;
          read_pipe(*p, true);  // what arrived meanwhile, paused or not (bounded)
          if (!p->done) pipe_done(*p);
        }
        maybe_report();
      });
      drain_->start(kDrainAfterExit);
    }
    maybe_report();
  });
}

RankProcess::~RankProcess() {
  if (child_.pid <= 0) return;
  // The group, also once the rank itself was reaped: what it started in
  // the background is part of the job and must not outlive it.
  ::kill(-child_.pid, SIGKILL);
  if (!reaped_) {
    exit_watch_.reset();
    while (::waitpid(child_.pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  // Its members gone (kKilledGroupWait at most: one in uninterruptible
  // sleep, or left a zombie of a parent that does not reap, is not waited
  // for), what they held is closed before the job's PMI service goes: a
  // rank's PMIx connection its background child kept open would otherwise
  // still be open when the job's namespace is deregistered (see
  // PmixServer::retire).
  const auto until = std::chrono::steady_clock::now() + kKilledGroupWait;
  while (!group_gone() && std::chrono::steady_clock::now() < until) {
    const timespec tick{.tv_sec = 0, .tv_nsec = 200'000};
    ::nanosleep(&tick, nullptr);
  }
}

void RankProcess::read_pipe(Pipe& pipe, bool despite_pause) {
  char buf[64 * 1024];
  for (int reads = 0; reads < 4; ++reads) {  // bounded: other ranks get their turn
    const ssize_t n = ::read(pipe.fd.get(), buf, sizeof buf);
    if (n > 0) {
      pipe.lines->feed(std::string_view(buf, static_cast<size_t>(n)));
      flush(pipe);
      if (paused_ && !despite_pause) return;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    pipe_done(pipe);
    maybe_report();
    return;
  }
}

void RankProcess::flush(Pipe& pipe) {
  if (pipe.batch.empty()) return;
  hooks_.output(rank_, pipe.stream, pipe.batch, false);
  pipe.batch.clear();
}

void RankProcess::pipe_done(Pipe& pipe) {
  pipe.lines->finish();
  flush(pipe);
  pipe.watch.reset();
  pipe.fd.reset();
  pipe.done = true;
}

void RankProcess::maybe_report() {
  if (reported_ || !reaped_ || !out_->done || !err_->done) return;
  reported_ = true;
  drain_.reset();
  launch::ExitRecord r{.rank = rank_, .wait_status = wait_status_, .started = child_.exec_error.empty(), .message = {}};
  if (!r.started) r.message = child_.exec_error;
  hooks_.exited(r);
}

bool RankProcess::group_gone() const {
  if (child_.pid <= 0) return true;
  return ::kill(-child_.pid, 0) < 0 && errno == ESRCH;
}

void RankProcess::signal(int signo) {
  // The group even after the rank was reaped: its background children are
  // still in it (the group's id stays taken while any member lives).
  if (child_.pid > 0) ::kill(-child_.pid, signo);
}

void RankProcess::pause_output() {
  paused_ = true;
  for (Pipe* p : {out_.get(), err_.get()}) {
    if (p && p->watch) p->watch->disable();
  }
}

void RankProcess::resume_output() {
  if (!paused_) return;
  paused_ = false;
  // The watches are level-triggered: what waited is read from the loop,
  // every resumed rank in its turn, not this one first.
  for (Pipe* p : {out_.get(), err_.get()}) {
    if (p && p->watch) p->watch->enable();
  }
}

void RankProcess::write_stdin(std::span<const std::uint8_t> bytes, bool eof) {
  if (!child_.input.valid()) {
    // Not reading stdin (or gone): the bytes are dropped, but credited so
    // that orcarun does not stall.
    if (!bytes.empty() && hooks_.stdin_written) hooks_.stdin_written(static_cast<std::uint32_t>(bytes.size()));
    return;
  }
  stdin_pending_.insert(stdin_pending_.end(), bytes.begin(), bytes.end());
  stdin_eof_ = stdin_eof_ || eof;
  write_pending();
}

void RankProcess::write_pending() {
  std::uint8_t buf[16384];
  std::uint32_t written = 0;
  while (!stdin_pending_.empty() && child_.input.valid()) {
    const size_t n = std::min(sizeof buf, stdin_pending_.size());
    std::copy_n(stdin_pending_.begin(), n, buf);
    const ssize_t k = ::write(child_.input.get(), buf, n);
    if (k > 0) {
      stdin_pending_.erase(stdin_pending_.begin(), stdin_pending_.begin() + k);
      written += static_cast<std::uint32_t>(k);
      continue;
    }
    if (k < 0 && errno == EINTR) continue;
    if (k < 0 && errno == EAGAIN) break;
    // The rank closed its stdin (EPIPE): drop the rest, credited.
    written += static_cast<std::uint32_t>(stdin_pending_.size());
    stdin_pending_.clear();
    stdin_watch_.reset();
    child_.input.reset();
    break;
  }
  if (written > 0 && hooks_.stdin_written) hooks_.stdin_written(written);
  if (stdin_pending_.empty()) {
    if (stdin_watch_) stdin_watch_->disable();
    if (stdin_eof_) {
      stdin_watch_.reset();
      child_.input.reset();
    }
  } else if (stdin_watch_ && !stdin_watch_->enabled()) {
    stdin_watch_->enable();
  }
}

}  // namespace orca::orcad
