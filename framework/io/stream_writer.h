/*
 * StreamWriter: writes to a descriptor the process inherited (orcarun's
 * stdout and stderr) without ever blocking the event loop, and without
 * changing the descriptor's flags.
 *
 * Why: a blocking write(1) to a pipe nobody reads (`| less`, Ctrl-S on a
 * terminal, a slow ssh session) stops the loop, and with it the
 * heartbeats that tell the daemons their launcher lives. O_NONBLOCK on
 * the inherited descriptor is no answer: the flag belongs to the open
 * file description, shared with the shell and every other process that
 * writes to the same terminal or pipe.
 *
 * So the writer gets a descriptor of its own where it can:
 *   pipe, FIFO, terminal, character device
 *                 reopened through /proc/self/fd/N: a new open file
 *                 description of the same pipe or terminal, O_NONBLOCK
 *                 on it alone (O_APPEND kept, O_NOCTTY added);
 *   socket        the inherited descriptor, with send(MSG_DONTWAIT), a
 *                 per-call flag;
 *   regular file, block device, or a reopen that failed (no /proc)
 *                 the inherited descriptor, written as before: a file's
 *                 write does not wait for a reader, and reopening a file
 *                 would give it an offset of its own.
 * What cannot be written at once is queued, in order, and written when
 * the descriptor is writable. The caller bounds the queue (orcarun: by
 * the output credit of iof/iof_flow.h); queued() tells it.
 *
 * Each write() may carry an owner and a credit: `written` is called with
 * them once the last byte of that write reached the descriptor, so that
 * orcarun credits a daemon for output really written.
 *
 * The reader going away (EPIPE) calls `broken` once; what was queued and
 * everything after it is dropped, with its credit called as written (no
 * sender waits on a reader that is gone). Any other error drops the one
 * write it happened on, likewise.
 *
 * Threading: the event loop's thread. Hooks run inside write() or the
 * loop's callback and must not throw.
 */
#ifndef ORCA_IO_STREAM_WRITER_H
#define ORCA_IO_STREAM_WRITER_H

#include <orca/event_loop.h>
#include <orca/export.h>
#include <orca/unique_fd.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace orca {

class ORCA_EXPORT StreamWriter {
 public:
  struct Hooks {
    /* A write() with a nonzero credit was written whole (or dropped). */
    std::function<void(std::uint32_t owner, std::uint64_t credit)> written;
    /* The reader is gone (EPIPE); called once. */
    std::function<void()> broken;
  };
  enum class Mode { Reopened, Socket, Blocking };

  /* `fd` stays open and unchanged; the writer never closes it. */
  StreamWriter(EventLoop& loop, int fd, Hooks hooks);
  ~StreamWriter();
  StreamWriter(const StreamWriter&) = delete;
  StreamWriter& operator=(const StreamWriter&) = delete;

  void write(std::string_view bytes, std::uint32_t owner = 0, std::uint64_t credit = 0);
  /* Bytes accepted and not written yet. */
  std::size_t queued() const noexcept { return queued_; }
  bool broken() const noexcept { return broken_; }
  Mode mode() const noexcept { return mode_; }
  /* Writes what is queued, waiting for the reader as long as it takes
   * (poll, outside the loop): for the end of the process, once the loop
   * has stopped. Returns at once when the reader is gone. */
  void flush_blocking();

 private:
  struct Entry {
    std::string bytes;
    std::size_t done = 0;
    std::uint32_t owner = 0;
    std::uint64_t credit = 0;
  };
  enum class Outcome { Written, Again, Failed };
  /* Writes as much of the queue as the descriptor takes. */
  void drain();
  Outcome write_some(Entry& e);
  void finished(const Entry& e);
  void fail_all(bool reader_gone);
  int out_fd() const noexcept { return own_.valid() ? own_.get() : fd_; }

  int fd_;
  UniqueFd own_;
  Mode mode_ = Mode::Blocking;
  Hooks hooks_;
  std::deque<Entry> queue_;
  std::size_t queued_ = 0;
  std::unique_ptr<IoWatch> watch_;
  bool broken_ = false;
};

}  // namespace orca

#endif  // ORCA_IO_STREAM_WRITER_H
