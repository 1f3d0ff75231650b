// LineAssembler: a child's pipe bytes to whole lines, partial tails on a
// timer, bounded pieces for long lines.
#include "iof_lines.h"

#include <algorithm>
#include <utility>

namespace orca::iof {

LineAssembler::LineAssembler(std::chrono::milliseconds partial_delay, Hooks hooks, std::size_t max_piece)
    : partial_delay_(partial_delay), hooks_(std::move(hooks)), max_piece_(std::max<std::size_t>(max_piece, 1)) {}

void LineAssembler::feed(std::string_view bytes) noexcept {
  if (finished_ || bytes.empty()) return;
  // Whether the tail held on entry left (completed or cut at the bound):
  // whatever is held afterwards is then a new tail with its own deadline.
  bool tail_replaced = false;
  while (!bytes.empty()) {
    // Never look past what fits beside the tail: that is the bound.
    const std::size_t room = max_piece_ - held_.size();
    const std::string_view window = bytes.substr(0, room);
    const std::size_t newline = window.find('\n');
    if (newline != std::string_view::npos) {
      emit_with_held(window.substr(0, newline + 1), /*ends_line=*/true);
      bytes.remove_prefix(newline + 1);
    } else if (window.size() == room) {
      emit_with_held(window, /*ends_line=*/false);
      bytes.remove_prefix(room);
    } else {
      held_.append(window);
      break;
    }
    tail_replaced = true;
  }
  // Invariant: the timer is armed exactly while a tail is held.
  if (held_.empty()) {
    disarm();
  } else if (tail_replaced) {
    disarm();
    arm();
  } else if (!timer_armed_) {
    arm();
  }
}

void LineAssembler::on_timer() noexcept {
  if (!timer_armed_) return;  // raced a cancel
  timer_armed_ = false;
  if (!held_.empty()) flush_tail();
}

void LineAssembler::finish() noexcept {
  if (finished_) return;
  finished_ = true;
  disarm();
  if (!held_.empty()) flush_tail();
}

void LineAssembler::emit_with_held(std::string_view completion, bool ends_line) noexcept {
  const bool partial = continuing_ || !ends_line;
  continuing_ = !ends_line;
  if (held_.empty()) {
    hooks_.emit(completion, partial);  // the common case: no copy
    return;
  }
  // held_ is left empty before the hook runs, so the state is already
  // what it will be afterwards; scratch_ is empty between uses.
  scratch_.swap(held_);
  scratch_.append(completion);
  hooks_.emit(scratch_, partial);
  scratch_.clear();
}

void LineAssembler::flush_tail() noexcept {
  continuing_ = true;
  scratch_.swap(held_);
  hooks_.emit(scratch_, /*partial=*/true);
  scratch_.clear();
}

void LineAssembler::arm() noexcept {
  timer_armed_ = true;
  hooks_.arm_timer(partial_delay_);
}

void LineAssembler::disarm() noexcept {
  if (!timer_armed_) return;
  timer_armed_ = false;
  hooks_.cancel_timer();
}

}  // namespace orca::iof
