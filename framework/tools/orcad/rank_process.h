// RankProcess: one rank of the job on this daemon: the process (its own
// process group, SIGKILLed if the daemon dies), its stdout and stderr cut
// into lines (iof::LineAssembler), its stdin fed from orcarun, and how it
// ended. Output is handed on in batches, one per read: whole lines
// together, a partial line on its own.
#ifndef ORCA_TOOLS_ORCAD_RANK_PROCESS_H
#define ORCA_TOOLS_ORCAD_RANK_PROCESS_H

#include "iof/iof_lines.h"
#include "launch/launch_wire.h"

#include <orca/child_process.h>
#include <orca/event_loop.h>

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace orca::orcad {

class RankProcess {
 public:
  struct Hooks {
    /* Bytes of one stream: whole lines, or one piece of a line (partial). */
    std::function<void(std::uint32_t rank, launch::Stream stream, std::string_view bytes, bool partial)> output;
    /* After every byte of output was handed on. */
    std::function<void(const launch::ExitRecord& record)> exited;
    /* Bytes of stdin written to the process (for orcarun's credit). */
    std::function<void(std::uint32_t bytes)> stdin_written;
  };

  RankProcess(EventLoop& loop, std::uint32_t rank, const plm::SpawnSpec& spec, std::chrono::milliseconds partial_delay,
              Hooks hooks);
  ~RankProcess();  // SIGKILLs the group if it still runs, and reaps
  RankProcess(const RankProcess&) = delete;
  RankProcess& operator=(const RankProcess&) = delete;

  std::uint32_t rank() const noexcept { return rank_; }
  bool running() const noexcept { return !reaped_; }
  /* Whether its program started (exec succeeded). */
  bool started() const noexcept { return child_.pid > 0 && child_.exec_error.empty(); }
  bool done() const noexcept { return reported_; }
  /* Whether it was started with a stdin pipe (--stdin chose it). */
  bool reads_stdin() const noexcept { return reads_stdin_; }
  /* The rank's process group (its pid); 0 when it did not start. */
  pid_t process_group() const noexcept { return child_.pid > 0 ? child_.pid : 0; }
  /* Whether the group has no member left (then its number may be reused). */
  bool group_gone() const;
  /* Signals the rank's process group. */
  void signal(int signo);
  /* Stops / resumes reading its pipes (back-pressure upstream). */
  void pause_output();
  void resume_output();
  /* Queues stdin bytes; eof closes its stdin once they are written. */
  void write_stdin(std::span<const std::uint8_t> bytes, bool eof);

 private:
  struct Pipe;
  void read_pipe(Pipe& pipe, bool despite_pause = false);  // despite_pause: the rank is gone, take what its pipe holds
  void flush(Pipe& pipe);
  void pipe_done(Pipe& pipe);
  void maybe_report();
  void write_pending();

  EventLoop& loop_;
  std::uint32_t rank_;
  Hooks hooks_;
  plm::SpawnedChild child_;
  std::unique_ptr<Pipe> out_;
  std::unique_ptr<Pipe> err_;
  std::unique_ptr<ChildWatch> exit_watch_;
  std::unique_ptr<Timer> drain_;  // after the exit: how long pipes held by descendants may stay open
  std::unique_ptr<IoWatch> stdin_watch_;
  std::deque<std::uint8_t> stdin_pending_;
  bool stdin_eof_ = false;
  bool reads_stdin_ = false;
  bool reaped_ = false;
  bool reported_ = false;
  bool paused_ = false;
  int wait_status_ = 0;
};

}  // namespace orca::orcad

#endif
