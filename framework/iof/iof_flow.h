/*
 * IOF flow control: how much of its ranks' output a daemon may have sent
 * to orcarun that orcarun has not yet written to its own stdout / stderr.
 *
 * Without it a reader that pauses (`orcarun ... | less`, Ctrl-S on a
 * terminal, a slow ssh session) makes the output pile up somewhere: in
 * orcarun, or in the oob queues of every daemon. With it each daemon has
 * a window of bytes (output_window): once that many are outstanding it
 * stops reading its ranks' pipes, so a rank blocks in write() as it would
 * under a slow terminal, and orcarun holds at most the sum of the windows,
 * iof_base_output_buffer in all (iof.h). orcarun credits the bytes back as it
 * writes them (OutputCredit, launch/launch_wire.h), in batches.
 *
 * Both halves are pure counters: no I/O, no clock, no thread.
 *
 * Why no deadlock: a daemon stops only when `window` bytes are
 * outstanding; orcarun sends the credit of a daemon as soon as a quarter
 * window of it is written. Of a stopped daemon's outstanding bytes, those
 * not yet credited (less than a quarter) leave three quarters queued in
 * orcarun or in flight, whose writing brings the next credit. So output
 * stops only while orcarun's reader does not read.
 */
#ifndef ORCA_IOF_IOF_FLOW_H
#define ORCA_IOF_IOF_FLOW_H

#include <orca/export.h>

#include <cstdint>
#include <optional>
#include <unordered_map>

namespace orca::iof {

/* Per daemon, never less than this (one piece of a long line, see
 * iof_lines.h, must fit) nor more than kMaxWindow. */
inline constexpr std::uint64_t kMinWindow = 64 * 1024;
inline constexpr std::uint64_t kMaxWindow = 4u << 20;

/* Each daemon's window when orcarun may hold `budget` bytes for
 * `daemons` daemons: budget / daemons within [kMinWindow, kMaxWindow].
 * Every daemon and orcarun compute it alike from the same setting. */
ORCA_EXPORT std::uint64_t output_window(std::uint64_t budget, std::uint32_t daemons) noexcept;

/*
 * OutputWindow: the daemon's side. sent() for every OutputChunk's bytes
 * as it goes up, credited() for every OutputCredit; open() says whether
 * the ranks' pipes may be read. A credit beyond what is outstanding (a
 * confused or hostile peer) only empties the count.
 */
class ORCA_EXPORT OutputWindow {
 public:
  explicit OutputWindow(std::uint64_t window) noexcept : window_(window) {}
  void sent(std::uint64_t bytes) noexcept { outstanding_ += bytes; }
  void credited(std::uint64_t bytes) noexcept { outstanding_ = bytes >= outstanding_ ? 0 : outstanding_ - bytes; }
  /* Fewer than `window` bytes are outstanding: a piece may go (it may
   * take the count past the window by at most its own size). */
  bool open() const noexcept { return outstanding_ < window_; }
  std::uint64_t outstanding() const noexcept { return outstanding_; }
  std::uint64_t window() const noexcept { return window_; }

 private:
  std::uint64_t window_;
  std::uint64_t outstanding_ = 0;
};

/*
 * CreditLedger: orcarun's side. written() for the bytes of a daemon's
 * chunk once orcarun wrote all of it; it answers the credit to send that
 * daemon now, if any: everything owed to it, once that reaches a quarter
 * of the window (one credit message per quarter window of output, not one
 * per chunk).
 */
class ORCA_EXPORT CreditLedger {
 public:
  explicit CreditLedger(std::uint64_t window) noexcept : threshold_(window / 4 > 0 ? window / 4 : 1) {}
  std::optional<std::uint64_t> written(std::uint32_t daemon, std::uint64_t bytes);
  /* Owed to `daemon` and not sent yet. */
  std::uint64_t owed(std::uint32_t daemon) const;

 private:
  std::uint64_t threshold_;
  std::unordered_map<std::uint32_t, std::uint64_t> owed_;
};

}  // namespace orca::iof

#endif  // ORCA_IOF_IOF_FLOW_H
