// LineAssembler with a fake timer: lines whole and in order however the
// bytes are cut, partial tails shown after the delay and not before,
// everything flushed at EOF, long lines bounded, bytes opaque.
#include "framework/iof/assembler_harness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <random>
#include <string>
#include <vector>

namespace orca::iof::test {
namespace {

using namespace std::chrono_literals;

TEST(LineAssembler, WholeLinesComeOutAtOnceAndArmNoTimer) {
  AssemblerHarness h;
  h.lines.feed("one\ntwo\n\nthree\n");
  EXPECT_EQ(h.emitted, (Emissions{{"one\n", false}, {"two\n", false}, {"\n", false}, {"three\n", false}}));
  EXPECT_TRUE(h.log.empty());
  EXPECT_EQ(h.lines.held(), 0u);
  EXPECT_FALSE(h.lines.mid_line());
}

TEST(LineAssembler, EmptyFeedDoesNothing) {
  AssemblerHarness h;
  h.lines.feed("");
  h.lines.feed("ab");
  h.lines.feed("");
  EXPECT_TRUE(h.emitted.empty());
  EXPECT_EQ(h.log, Log{"arm 100"});
}

TEST(LineAssembler, LinesSplitAtEveryPairOfByteBoundariesComeOutWhole) {
  const std::string text = "alpha\nbeta\n\ngamma delta\nz\n";
  const Emissions whole{{"alpha\n", false}, {"beta\n", false}, {"\n", false}, {"gamma delta\n", false}, {"z\n", false}};
  for (std::size_t i = 0; i <= text.size(); ++i) {
    for (std::size_t j = i; j <= text.size(); ++j) {
      AssemblerHarness h;
      h.lines.feed(std::string_view(text).substr(0, i));
      h.lines.feed(std::string_view(text).substr(i, j - i));
      h.lines.feed(std::string_view(text).substr(j));
      EXPECT_EQ(h.emitted, whole) << "cut at " << i << " and " << j;
      EXPECT_FALSE(h.deadline.has_value()) << "cut at " << i << " and " << j;
      EXPECT_FALSE(h.lines.mid_line());
    }
  }
}

TEST(LineAssembler, OneByteAtATimeEmitsEachLineOnItsNewline) {
  const std::string text = "first line\nsecond\n";
  AssemblerHarness h;
  for (std::size_t i = 0; i < text.size(); ++i) {
    h.lines.feed(std::string_view(text).substr(i, 1));
    if (i < 10) {
      EXPECT_TRUE(h.emitted.empty()) << i;
    } else if (i == 10) {
      EXPECT_EQ(h.emitted, (Emissions{{"first line\n", false}}));
    }
  }
  EXPECT_EQ(h.emitted, (Emissions{{"first line\n", false}, {"second\n", false}}));
  // One deadline per tail: armed by its first byte, cancelled by its newline.
  EXPECT_EQ(h.log, (Log{"arm 100", "disarm", "arm 100", "disarm"}));
}

// 10,000 lines of random bytes (NUL and '\r' included) in random chunks.
std::vector<std::string> random_lines(std::mt19937& rng, std::size_t count, std::size_t max_length) {
  std::uniform_int_distribution<std::size_t> length(0, max_length);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<std::string> lines;
  lines.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    std::string line(length(rng), '\0');
    for (char& c : line) {
      do c = static_cast<char>(byte(rng));
      while (c == '\n');
    }
    lines.push_back(line + '\n');
  }
  return lines;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += line;
  return out;
}

TEST(LineAssembler, TenThousandLinesInRandomChunksNoneLostNoneTornOrderKept) {
  std::mt19937 rng(20240611);
  const std::vector<std::string> lines = random_lines(rng, 10000, 300);
  const std::string all = joined(lines);
  AssemblerHarness h;
  std::uniform_int_distribution<std::size_t> chunk(1, 4096);
  for (std::size_t at = 0; at < all.size();) {
    const std::size_t n = std::min(chunk(rng), all.size() - at);
    h.lines.feed(std::string_view(all).substr(at, n));
    at += n;
  }
  ASSERT_EQ(h.emitted.size(), lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    ASSERT_EQ(h.emitted[i], (Emission{lines[i], false})) << "line " << i;
  }
  EXPECT_FALSE(h.deadline.has_value());
}

// The same with the timer firing between chunks and a small bound: lines
// come out in pieces, and joining each line's pieces gives it back.
TEST(LineAssembler, TenThousandLinesWithTimersAndABoundReassembleExactly) {
  std::mt19937 rng(7);
  const std::vector<std::string> lines = random_lines(rng, 10000, 200);
  const std::string all = joined(lines);
  AssemblerHarness h(100ms, 64);
  std::uniform_int_distribution<std::size_t> chunk(1, 300);
  std::uniform_int_distribution<int> pause(0, 150);
  for (std::size_t at = 0; at < all.size();) {
    const std::size_t n = std::min(chunk(rng), all.size() - at);
    h.lines.feed(std::string_view(all).substr(at, n));
    at += n;
    h.advance(std::chrono::milliseconds(pause(rng)));
  }
  h.lines.finish();
  EXPECT_EQ(h.all_text(), all);
  std::vector<std::string> rebuilt;
  std::string current;
  std::size_t pieces = 0, partial_pieces = 0;
  for (const Emission& e : h.emitted) {
    current += e.text;
    ++pieces;
    if (e.partial) ++partial_pieces;
    if (current.back() == '\n') {
      // One piece: a whole line; several: every one of them partial.
      if (pieces == 1) {
        EXPECT_FALSE(e.partial) << "line " << rebuilt.size();
      } else {
        EXPECT_EQ(partial_pieces, pieces) << "line " << rebuilt.size();
      }
      rebuilt.push_back(current);
      current.clear();
      pieces = partial_pieces = 0;
    }
  }
  EXPECT_TRUE(current.empty());
  ASSERT_EQ(rebuilt.size(), lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) ASSERT_EQ(rebuilt[i], lines[i]) << "line " << i;
  const std::size_t fired = std::count(h.log.begin(), h.log.end(), "fire");
  EXPECT_GT(fired, 100u);  // the timer did take part
}

TEST(LineAssembler, APartialLineShowsWhenTheTimerFiresAndNotBefore) {
  AssemblerHarness h;
  h.lines.feed("prompt> ");
  EXPECT_TRUE(h.emitted.empty());
  EXPECT_EQ(h.log, Log{"arm 100"});
  EXPECT_TRUE(h.lines.timer_armed());
  EXPECT_EQ(h.lines.held(), 8u);
  h.advance(99ms);
  EXPECT_TRUE(h.emitted.empty());
  h.advance(1ms);
  EXPECT_EQ(h.emitted, (Emissions{{"prompt> ", true}}));
  EXPECT_EQ(h.lines.held(), 0u);
  EXPECT_TRUE(h.lines.mid_line());
  EXPECT_FALSE(h.lines.timer_armed());
  // The answer continues the line: partial up to and including its '\n'.
  h.lines.feed("yes\n");
  h.lines.feed("next\n");
  EXPECT_EQ(h.emitted, (Emissions{{"prompt> ", true}, {"yes\n", true}, {"next\n", false}}));
  EXPECT_EQ(h.log, (Log{"arm 100", "fire"}));
  EXPECT_FALSE(h.lines.mid_line());
}

TEST(LineAssembler, ANewlineBeforeTheTimerCancelsIt) {
  AssemblerHarness h;
  h.lines.feed("abc");
  h.advance(50ms);
  h.lines.feed("def\n");
  EXPECT_EQ(h.emitted, (Emissions{{"abcdef\n", false}}));
  EXPECT_EQ(h.log, (Log{"arm 100", "disarm"}));
  EXPECT_FALSE(h.deadline.has_value());
  h.advance(1000ms);
  EXPECT_EQ(h.emitted.size(), 1u);
}

TEST(LineAssembler, MoreBytesOfTheSameTailDoNotPushTheDeadlineBack) {
  AssemblerHarness h;
  h.lines.feed("[");
  for (int i = 0; i < 9; ++i) {
    h.advance(10ms);
    h.lines.feed("#");
  }
  EXPECT_EQ(h.log, Log{"arm 100"});  // armed once, at t = 0
  h.advance(10ms);                   // t = 100
  EXPECT_EQ(h.emitted, (Emissions{{"[#########", true}}));
  // A progress bar keeps showing: each new tail gets its own deadline.
  h.lines.feed("#");
  h.advance(100ms);
  h.lines.feed("]\n");
  EXPECT_EQ(h.emitted, (Emissions{{"[#########", true}, {"#", true}, {"]\n", true}}));
  EXPECT_EQ(h.log, (Log{"arm 100", "fire", "arm 100", "fire"}));
}

TEST(LineAssembler, ANewTailAfterACompletedLineGetsAFreshDeadline) {
  AssemblerHarness h;
  h.lines.feed("a");
  h.advance(60ms);
  h.lines.feed("\nb");  // completes "a", holds "b" from t = 60
  EXPECT_EQ(h.emitted, (Emissions{{"a\n", false}}));
  EXPECT_EQ(h.log, (Log{"arm 100", "disarm", "arm 100"}));
  ASSERT_TRUE(h.deadline.has_value());
  EXPECT_EQ(*h.deadline, 160ms);
  h.advance(99ms);
  EXPECT_EQ(h.emitted.size(), 1u);
  h.advance(1ms);
  EXPECT_EQ(h.emitted, (Emissions{{"a\n", false}, {"b", true}}));
}

TEST(LineAssembler, TheDelayIsTheCallersChoice) {
  AssemblerHarness h(250ms);
  h.lines.feed("x");
  EXPECT_EQ(h.log, Log{"arm 250"});
  h.advance(249ms);
  EXPECT_TRUE(h.emitted.empty());
  h.advance(1ms);
  EXPECT_EQ(h.emitted, (Emissions{{"x", true}}));
}

TEST(LineAssembler, FinishFlushesEverythingOfARankThatPrintsAndExitsAtOnce) {
  AssemblerHarness h;
  h.lines.feed("last line\nno newline");
  h.lines.finish();
  EXPECT_EQ(h.emitted, (Emissions{{"last line\n", false}, {"no newline", true}}));
  EXPECT_EQ(h.log, (Log{"arm 100", "disarm"}));
  EXPECT_TRUE(h.lines.finished());
  EXPECT_FALSE(h.lines.timer_armed());
  EXPECT_EQ(h.lines.held(), 0u);
}

TEST(LineAssembler, FinishWithNothingHeldEmitsNothingAndTouchesNoTimer) {
  AssemblerHarness h;
  h.lines.feed("done\n");
  h.lines.finish();
  EXPECT_EQ(h.emitted, (Emissions{{"done\n", false}}));
  EXPECT_TRUE(h.log.empty());
}

TEST(LineAssembler, FinishAfterAPartialShowsOnlyTheRest) {
  AssemblerHarness h;
  h.lines.feed("50%");
  h.advance(100ms);
  h.lines.feed(" 60%");
  h.lines.finish();
  EXPECT_EQ(h.emitted, (Emissions{{"50%", true}, {" 60%", true}}));
  EXPECT_EQ(h.log, (Log{"arm 100", "fire", "arm 100", "disarm"}));
}

TEST(LineAssembler, AfterFinishNothingChanges) {
  AssemblerHarness h;
  h.lines.feed("x");
  h.lines.finish();
  const Emissions at_finish = h.emitted;
  const Log log_at_finish = h.log;
  h.lines.feed("late\n");
  h.lines.on_timer();
  h.lines.finish();
  EXPECT_EQ(h.emitted, at_finish);
  EXPECT_EQ(h.log, log_at_finish);
}

TEST(LineAssembler, AStrayTimerDoesNothing) {
  AssemblerHarness h;
  h.lines.on_timer();  // nothing armed
  h.lines.feed("abc\n");
  h.lines.on_timer();
  EXPECT_EQ(h.emitted, (Emissions{{"abc\n", false}}));
  EXPECT_TRUE(h.log.empty());
}

TEST(LineAssembler, ALineLongerThanTheBoundComesOutInBoundedPartialPieces) {
  AssemblerHarness h(100ms, 8);
  h.lines.feed("0123456789abcdefXY\nok\n");
  EXPECT_EQ(h.emitted,
            (Emissions{{"01234567", true}, {"89abcdef", true}, {"XY\n", true}, {"ok\n", false}}));
  EXPECT_TRUE(h.log.empty());  // nothing was ever held
}

TEST(LineAssembler, TheBoundCountsTheNewline) {
  AssemblerHarness h(100ms, 8);
  h.lines.feed("1234567\n");  // 8 bytes with its '\n': fits
  h.lines.feed("12345678\n");  // 9: the '\n' comes alone
  EXPECT_EQ(h.emitted, (Emissions{{"1234567\n", false}, {"12345678", true}, {"\n", true}}));
}

TEST(LineAssembler, HeldBytesNeverReachTheBound) {
  AssemblerHarness h(100ms, 8);
  const std::string text = "abcdefghijklmnopqrstu\n";
  for (char c : text) {
    h.lines.feed(std::string_view(&c, 1));
    EXPECT_LT(h.lines.held(), 8u);
  }
  EXPECT_EQ(h.emitted, (Emissions{{"abcdefgh", true}, {"ijklmnop", true}, {"qrstu\n", true}}));
  // Each cut leaves nothing held, so the deadline starts again after it.
  EXPECT_EQ(h.log, (Log{"arm 100", "disarm", "arm 100", "disarm", "arm 100", "disarm"}));
}

TEST(LineAssembler, TheRestAfterACutWaitsForTheTimer) {
  AssemblerHarness h(100ms, 8);
  h.lines.feed("0123456789");
  EXPECT_EQ(h.emitted, (Emissions{{"01234567", true}}));
  EXPECT_EQ(h.lines.held(), 2u);
  EXPECT_EQ(h.log, Log{"arm 100"});
  h.advance(100ms);
  h.lines.feed("\n");
  EXPECT_EQ(h.emitted, (Emissions{{"01234567", true}, {"89", true}, {"\n", true}}));
}

TEST(LineAssembler, TheDefaultBoundIs64KiB) {
  static_assert(kMaxPieceBytes == 65536);
  AssemblerHarness h;
  const std::string huge(3 * kMaxPieceBytes + 10, 'x');
  h.lines.feed(huge);
  ASSERT_EQ(h.emitted.size(), 3u);
  for (const Emission& e : h.emitted) EXPECT_EQ(e, (Emission{std::string(kMaxPieceBytes, 'x'), true}));
  EXPECT_EQ(h.lines.held(), 10u);
  h.lines.finish();
  EXPECT_EQ(h.all_text(), huge);
  EXPECT_EQ(h.emitted.back(), (Emission{std::string(10, 'x'), true}));
}

TEST(LineAssembler, ABoundOfZeroCountsAsOne) {
  Emissions emitted;
  LineAssembler zero(100ms,
                     {.emit = [&](std::string_view t, bool p) { emitted.push_back({std::string(t), p}); },
                      .arm_timer = [](std::chrono::milliseconds) {},
                      .cancel_timer = [] {}},
                     0);
  zero.feed("ab\n");
  EXPECT_EQ(emitted, (Emissions{{"a", true}, {"b", true}, {"\n", true}}));
}

TEST(LineAssembler, NulBytesAndOtherControlBytesPassThrough) {
  using namespace std::string_literals;
  AssemblerHarness h;
  h.lines.feed("a\0b\r\n\0\n"s);
  h.lines.feed("\xff\0"s);
  h.advance(100ms);
  h.lines.feed("\0\n"s);
  EXPECT_EQ(h.emitted, (Emissions{{"a\0b\r\n"s, false}, {"\0\n"s, false}, {"\xff\0"s, true}, {"\0\n"s, true}}));
  EXPECT_EQ(h.emitted[2].text.size(), 2u);
}

TEST(LineAssembler, AHookSeesTheStateAfterTheEmission) {
  AssemblerHarness h;
  std::vector<std::size_t> held_during;
  h.on_emit = [&](std::string_view, bool) { held_during.push_back(h.lines.held()); };
  h.lines.feed("ab");
  h.lines.feed("c\nd");
  EXPECT_EQ(h.emitted, (Emissions{{"abc\n", false}}));
  EXPECT_EQ(held_during, std::vector<std::size_t>{0});
}

}  // namespace
}  // namespace orca::iof::test
