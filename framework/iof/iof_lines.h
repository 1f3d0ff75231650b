/*
 * IOF lines: how a rank's stdout / stderr bytes become lines (LineAssembler,
 * in orcad) and how lines from many ranks reach orcarun's own stdout and
 * stderr (OutputPrinter).
 *
 * Both are pure state machines: no I/O, no clock. Bytes come in through
 * method calls; text, timers and writes go out through hooks the caller
 * injects, so every ordering is tested with a fake timer
 * (test/framework/iof/).
 *
 * The promise to the user (the launcher issue):
 *   - a whole line of one rank is never interleaved with another rank's
 *     output mid-line;
 *   - a partial line (a prompt, a progress bar, an fflush without '\n') is
 *     still shown, `partial_delay` after its first byte arrived, instead of
 *     waiting for a newline that may never come;
 *   - everything a child wrote is shown: finish() at EOF flushes the tail.
 *
 * One emission is a piece of one line, never more: it contains at most one
 * '\n', and only as its last byte.
 *   partial == false  `text` is one whole line, ending in '\n'.
 *   partial == true   `text` is a fragment of a line: the line's start was
 *                     already emitted (a continuation; it may end in '\n',
 *                     which ends the line), or the line goes on in a later
 *                     emission, or it never ends (EOF without '\n').
 * After a partial emission every further piece of that line is partial
 * too, up to and including the one ending in '\n'; the next line starts
 * fresh. The printer tags a line where it starts and never mid-line.
 *
 * Bytes are opaque: no encoding is assumed, NUL bytes pass through, '\r'
 * is an ordinary byte (a progress bar redrawing with '\r' is one long
 * partial line, shown every time the timer fires).
 *
 * Threading: each object belongs to one thread (the event loop's); nothing
 * locks. Hooks run synchronously inside the call that caused them and must
 * not call back into the object that called them, nor throw: every method
 * here is noexcept, so a throwing hook ends the process instead of
 * unwinding through the event loop with a buffer half consumed.
 */
#ifndef ORCA_IOF_IOF_LINES_H
#define ORCA_IOF_IOF_LINES_H

#include <orca/export.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace orca::iof {

enum class Stream : std::uint8_t { Stdout, Stderr };

/* The longest piece a LineAssembler holds: a longer line is emitted in
 * pieces of this size (partial), so a child printing megabytes without a
 * newline costs orcad 64 KiB, not megabytes. */
inline constexpr std::size_t kMaxPieceBytes = 64 * 1024;

/*
 * LineAssembler: one stream (stdout or stderr) of one rank.
 *
 * One object per child pipe, because that is what orcad reads: each pipe
 * has its own tail and its own deadline, so the machine needs no key and
 * no timer multiplexing; orcad keeps them beside the pipe's IoWatch.
 *
 * feed() emits each line as soon as its '\n' arrives and holds the rest.
 * A held tail arms the timer (arm_timer(partial_delay)); when it fires
 * (on_timer) the tail is emitted as partial. The deadline counts from the
 * first byte of the held tail: more bytes of the same tail do not push it
 * back (a progress bar printing one character every few milliseconds is
 * still shown), a newline that completes the tail cancels it, and a new
 * tail after a completed line (or a cut at the bound) gets a fresh
 * deadline. finish() (EOF, also
 * when the child failed) emits whatever is held and cancels the timer.
 *
 * Timer contract: at most one timer at a time. arm_timer is called only
 * when none is armed, cancel_timer only when one is; a firing disarms it
 * (the caller then calls on_timer). on_timer with no timer armed (a
 * firing that raced a cancel) does nothing.
 */
class ORCA_EXPORT LineAssembler {
 public:
  struct Hooks {
    /* A piece of one line (see the overview for `partial`). `text` is valid
     * only during the call and never empty. Required. */
    std::function<void(std::string_view text, bool partial)> emit;
    /* Call on_timer() once, `delay` from now. Required. */
    std::function<void(std::chrono::milliseconds delay)> arm_timer;
    /* Forget the armed timer. Required. */
    std::function<void()> cancel_timer;
  };

  /* `max_piece` (at least 1; 0 counts as 1) bounds what is held, see
   * kMaxPieceBytes; tests pass small values. */
  LineAssembler(std::chrono::milliseconds partial_delay, Hooks hooks, std::size_t max_piece = kMaxPieceBytes);

  /* Appends bytes read from the child. Emits every line completed by
   * them, in order, and every full max_piece fragment of a long line.
   * Ignored after finish(). */
  void feed(std::string_view bytes) noexcept;

  /* The armed timer fired: emits the held tail as partial. */
  void on_timer() noexcept;

  /* EOF: emits the held tail (partial; no '\n' is invented) and cancels
   * the timer. Idempotent; feed() and on_timer() do nothing afterwards. */
  void finish() noexcept;

  /* Bytes held, waiting for their newline or the timer (< max_piece). */
  std::size_t held() const noexcept { return held_.size(); }
  /* The current line is open: bytes are held or a fragment of it was
   * emitted and its '\n' has not arrived. */
  bool mid_line() const noexcept { return continuing_ || !held_.empty(); }
  bool timer_armed() const noexcept { return timer_armed_; }
  bool finished() const noexcept { return finished_; }

 private:
  void emit_with_held(std::string_view completion, bool ends_line) noexcept;
  void flush_tail() noexcept;
  void arm() noexcept;
  void disarm() noexcept;

  std::chrono::milliseconds partial_delay_;
  Hooks hooks_;
  std::size_t max_piece_;
  std::string held_;     // the tail: no '\n', shorter than max_piece_
  std::string scratch_;  // held_ + completion while it is emitted (keeps both capacities)
  bool continuing_ = false;  // a fragment of the current line is out
  bool timer_armed_ = false;
  bool finished_ = false;
};

/*
 * OutputPrinter: what orcarun does with the emissions of every rank.
 *
 * Writes each emission to the sink of its stream at once, with "[rank] "
 * (or "[host:rank] ") before the start of every line when tagging is on
 * (and "[TIME] " before that with a timestamp), and never before the
 * continuation of a line. Each stream has its own cursor: whether the sink
 * was left in the middle of some rank's line.
 *
 * The interleaving rule, per stream (stdout and stderr never affect each
 * other):
 *   1. The sink was left mid-line by rank A and rank B (!= A) prints: a
 *      '\n' is written first, ending A's line visually. A's line stays
 *      open.
 *   2. A rank whose open line is still where the cursor is continues it in
 *      place, untagged.
 *   3. A rank whose open line was ended visually by rule 1 (or by
 *      end_open_line) continues on a new line, tagged again.
 * So with tagging, rank 0 writing "prompt> " (timer), rank 1 "hello\n",
 * rank 0 "yes\n" prints
 *   [0] prompt> \n[1] hello\n[0] yes\n
 * and without tagging "prompt> \nhello\nyes\n". Every line on the sink
 * starts with the tag of the one rank whose bytes it holds.
 *
 * The printer adds nothing else: a child's last line without '\n' stays
 * without one unless orcarun calls end_open_line (before writing its own
 * messages to that stream, say).
 *
 * Each print() reaches its sink in one call (the tag, any '\n' of rule 1
 * and the text together). The only state is each stream's cursor, so the
 * printer's memory does not grow with the number of ranks.
 */
/* The local time of day now, "HH:MM:SS.mmm": what --timestamp-output
 * prints (the date stays out: a job's lines are read within a day). */
ORCA_EXPORT std::string local_time_of_day();

class ORCA_EXPORT OutputPrinter {
 public:
  struct Sinks {
    /* Write these bytes to orcarun's stdout / stderr. Required. */
    std::function<void(std::string_view)> out;
    std::function<void(std::string_view)> err;
  };

  /* `timestamp`, when set, is asked for the time at the start of every
   * line, which is then prefixed "[TIME] " (before the rank's tag):
   * orcarun's --timestamp-output; a test passes a fake clock. `host_of`,
   * when set with tagging, names each rank's host in its tag,
   * "[HOST:RANK] " (--output tag-detailed); the view must stay valid for
   * the printer's life. */
  OutputPrinter(Sinks sinks, bool tag_output, std::function<std::string()> timestamp = {},
                std::function<std::string_view(std::uint32_t)> host_of = {});

  /* One emission of `rank`'s LineAssembler for `stream`. Also accepts
   * text a LineAssembler would not produce: several lines in one call are
   * tagged line by line; a whole line (partial == false) while the sink is
   * mid-line of the same rank's line starts on a new line, as in rule 1.
   * Empty text does nothing. */
  void print(std::uint32_t rank, Stream stream, std::string_view text, bool partial) noexcept;

  /* If the sink of `stream` was left mid-line, writes '\n'; the rank whose
   * line it was continues on a new line, tagged again (rule 3). */
  void end_open_line(Stream stream) noexcept;

  /* The rank whose line the sink of `stream` was left in the middle of. */
  std::optional<std::uint32_t> mid_line_rank(Stream stream) const noexcept;

 private:
  struct PerStream {
    std::function<void(std::string_view)> sink;
    std::optional<std::uint32_t> cursor_rank;  // the sink is mid-line of this rank's line
    std::string buffer;                        // one write being composed (keeps its capacity)
  };
  PerStream& of(Stream stream) noexcept { return stream == Stream::Stdout ? out_ : err_; }
  const PerStream& of(Stream stream) const noexcept { return stream == Stream::Stdout ? out_ : err_; }

  PerStream out_;
  PerStream err_;
  bool tag_output_;
  std::function<std::string()> timestamp_;
  std::function<std::string_view(std::uint32_t)> host_of_;
};

}  // namespace orca::iof

#endif  // ORCA_IOF_IOF_LINES_H
