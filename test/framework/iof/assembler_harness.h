// A LineAssembler with the world it talks to: a simulated clock, a
// one-shot fake timer that it arms and cancels, and a record of every
// emission and timer call. Every emission is checked against the contract
// in iof_lines.h as it happens.
#ifndef ORCA_TEST_FRAMEWORK_IOF_ASSEMBLER_HARNESS_H
#define ORCA_TEST_FRAMEWORK_IOF_ASSEMBLER_HARNESS_H

#include "iof/iof_lines.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace orca::iof::test {

using std::chrono::milliseconds;

struct Emission {
  std::string text;
  bool partial = false;
  friend bool operator==(const Emission&, const Emission&) = default;
};

// Bytes shown with C escapes, so NULs and newlines are visible in failures.
inline std::string escaped(std::string_view bytes) {
  std::string out;
  for (unsigned char c : bytes) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c < 0x20 || c >= 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

inline void PrintTo(const Emission& e, std::ostream* os) {
  *os << (e.partial ? "partial \"" : "line \"") << escaped(e.text) << "\"";
}

using Emissions = std::vector<Emission>;
using Log = std::vector<std::string>;

class AssemblerHarness {
 public:
  explicit AssemblerHarness(milliseconds delay = milliseconds(100), std::size_t max_piece = kMaxPieceBytes)
      : lines(delay,
              LineAssembler::Hooks{
                  .emit =
                      [this](std::string_view text, bool partial) {
                        check(text, partial);
                        emitted.push_back({std::string(text), partial});
                        if (on_emit) on_emit(text, partial);
                      },
                  .arm_timer =
                      [this](milliseconds d) {
                        if (deadline) ADD_FAILURE() << "arm_timer while a timer is armed";
                        log.push_back("arm " + std::to_string(d.count()));
                        deadline = now + d;
                      },
                  .cancel_timer =
                      [this]() {
                        if (!deadline) ADD_FAILURE() << "cancel_timer with no timer armed";
                        log.push_back("disarm");
                        deadline.reset();
                      }},
              max_piece),
        max_piece_(max_piece) {}

  // Moves the clock forward by `d`, firing the timer when it is due.
  void advance(milliseconds d) {
    const milliseconds target = now + d;
    while (deadline && *deadline <= target) {
      now = *deadline;
      deadline.reset();
      log.push_back("fire");
      lines.on_timer();
    }
    now = target;
  }

  // The text of every emission, in order.
  std::string all_text() const {
    std::string out;
    for (const Emission& e : emitted) out += e.text;
    return out;
  }

  // Also told about every emission (e.g. to forward it to a printer).
  std::function<void(std::string_view, bool)> on_emit;

  milliseconds now{0};
  std::optional<milliseconds> deadline;
  Emissions emitted;
  Log log;
  LineAssembler lines;

 private:
  // The contract: non-empty, at most max_piece bytes, at most one '\n' and
  // only at the end, a whole line ends in '\n', and a line that began
  // with a partial piece goes on with partial pieces up to its '\n'.
  void check(std::string_view text, bool partial) {
    EXPECT_FALSE(text.empty());
    EXPECT_LE(text.size(), max_piece_);
    const std::size_t newline = text.find('\n');
    EXPECT_TRUE(newline == std::string_view::npos || newline + 1 == text.size())
        << "a '\\n' before the end of \"" << escaped(text) << "\"";
    const bool ends_line = !text.empty() && text.back() == '\n';
    if (!partial) {
      EXPECT_TRUE(ends_line) << "a whole line without '\\n': \"" << escaped(text) << "\"";
    }
    if (line_open_) {
      EXPECT_TRUE(partial) << "continuation not partial: \"" << escaped(text) << "\"";
    }
    line_open_ = !ends_line;
  }

  std::size_t max_piece_;
  bool line_open_ = false;
};

}  // namespace orca::iof::test

#endif
