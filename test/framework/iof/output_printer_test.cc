// OutputPrinter: tags at line starts only, one sink per stream, and the
// interleaving rule of iof_lines.h, asserted on the whole output text.
#include "iof/iof_lines.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

namespace orca::iof {
namespace {

// A printer writing into two strings, counting the writes.
struct Terminal {
  explicit Terminal(bool tag)
      : printer({.out = [this](std::string_view t) { out += t; ++out_writes; },
                 .err = [this](std::string_view t) { err += t; ++err_writes; }},
                tag) {}
  std::string out, err;
  std::size_t out_writes = 0, err_writes = 0;
  OutputPrinter printer;
};

constexpr Stream kOut = Stream::Stdout;
constexpr Stream kErr = Stream::Stderr;

TEST(OutputPrinter, UntaggedLinesGoToTheirStreamUnchanged) {
  Terminal t(false);
  t.printer.print(0, kOut, "to stdout\n", false);
  t.printer.print(1, kErr, "to stderr\n", false);
  t.printer.print(1, kOut, "more\n", false);
  EXPECT_EQ(t.out, "to stdout\nmore\n");
  EXPECT_EQ(t.err, "to stderr\n");
}

TEST(OutputPrinter, TaggedLinesStartWithTheirRank) {
  Terminal t(true);
  t.printer.print(0, kOut, "a\n", false);
  t.printer.print(12, kOut, "b\n", false);
  t.printer.print(4294967295u, kErr, "c\n", false);
  t.printer.print(3, kOut, "\n", false);
  EXPECT_EQ(t.out, "[0] a\n[12] b\n[3] \n");
  EXPECT_EQ(t.err, "[4294967295] c\n");
}

TEST(OutputPrinter, ADetailedTagNamesTheRanksHostBeforeItsRank) {
  std::string out;
  const std::vector<std::string> hosts{"node1", "node2"};
  OutputPrinter printer({.out = [&](std::string_view t) { out += t; }, .err = [](std::string_view) {}}, true, {},
                        [&](std::uint32_t r) { return std::string_view(hosts[r % 2]); });
  printer.print(0, kOut, "a\nb\n", false);
  printer.print(3, kOut, "part ", true);
  printer.print(3, kOut, "whole\n", true);
  EXPECT_EQ(out, "[node1:0] a\n[node1:0] b\n[node2:3] part whole\n");
  OutputPrinter untagged({.out = [&](std::string_view t) { out = t; }, .err = [](std::string_view) {}}, false, {},
                         [&](std::uint32_t) { return std::string_view("node1"); });
  untagged.print(0, kOut, "x\n", false);
  EXPECT_EQ(out, "x\n");
}

TEST(OutputPrinter, ATimestampStartsEveryLineBeforeTheTagAndNeverAContinuation) {
  std::string out;
  int clock = 0;
  OutputPrinter printer({.out = [&](std::string_view t) { out += t; }, .err = [](std::string_view) {}}, true,
                        [&] { return "t" + std::to_string(++clock); });
  printer.print(0, kOut, "a\nb\n", false);
  printer.print(1, kOut, "prompt> ", true);
  printer.print(1, kOut, "yes\n", true);
  EXPECT_EQ(out, "[t1] [0] a\n[t2] [0] b\n[t3] [1] prompt> yes\n");
  OutputPrinter untagged({.out = [&](std::string_view t) { out = t; }, .err = [](std::string_view) {}}, false,
                         [] { return std::string("12:00:00.000"); });
  untagged.print(5, kOut, "x\n", false);
  EXPECT_EQ(out, "[12:00:00.000] x\n");
}

TEST(OutputPrinter, TheRealClockGivesHoursMinutesSecondsAndMilliseconds) {
  const std::string t = local_time_of_day();
  ASSERT_EQ(t.size(), 12u) << t;
  for (size_t i : {2u, 5u}) EXPECT_EQ(t[i], ':') << t;
  EXPECT_EQ(t[8], '.') << t;
  EXPECT_LT(std::stoi(t.substr(0, 2)), 24) << t;
  EXPECT_LT(std::stoi(t.substr(3, 2)), 60) << t;
}

TEST(OutputPrinter, AContinuationIsNeverTagged) {
  Terminal t(true);
  t.printer.print(2, kOut, "prompt> ", true);
  t.printer.print(2, kOut, "y", true);
  t.printer.print(2, kOut, "es\n", true);
  t.printer.print(2, kOut, "next\n", false);
  EXPECT_EQ(t.out, "[2] prompt> yes\n[2] next\n");
  EXPECT_FALSE(t.printer.mid_line_rank(kOut).has_value());
}

TEST(OutputPrinter, AnotherRanksLineEndsAnOpenPartialFirstAndTheOwnerIsTaggedAgain) {
  Terminal t(true);
  t.printer.print(0, kOut, "prompt> ", true);
  EXPECT_EQ(t.printer.mid_line_rank(kOut), 0u);
  t.printer.print(1, kOut, "hello\n", false);
  t.printer.print(0, kOut, "yes\n", true);
  EXPECT_EQ(t.out, "[0] prompt> \n[1] hello\n[0] yes\n");
}

TEST(OutputPrinter, TheSameRuleWithoutTags) {
  Terminal t(false);
  t.printer.print(0, kOut, "prompt> ", true);
  t.printer.print(1, kOut, "hello\n", false);
  t.printer.print(0, kOut, "yes\n", true);
  EXPECT_EQ(t.out, "prompt> \nhello\nyes\n");
}

TEST(OutputPrinter, TwoRanksAlternatingPartials) {
  Terminal t(true);
  t.printer.print(0, kOut, "aa", true);
  t.printer.print(1, kOut, "bb", true);
  t.printer.print(0, kOut, "cc", true);
  t.printer.print(0, kOut, "dd", true);  // in place: the cursor is in rank 0's line
  t.printer.print(1, kOut, "ee\n", true);
  t.printer.print(0, kOut, "\n", true);
  t.printer.print(1, kOut, "ff\n", false);
  EXPECT_EQ(t.out, "[0] aa\n[1] bb\n[0] ccdd\n[1] ee\n[0] \n[1] ff\n");
}

TEST(OutputPrinter, AWholeLineAfterAnotherRanksCompletedLineNeedsNoBreak) {
  Terminal t(true);
  t.printer.print(0, kOut, "part", true);
  t.printer.print(0, kOut, "ial\n", true);
  t.printer.print(1, kOut, "whole\n", false);
  EXPECT_EQ(t.out, "[0] partial\n[1] whole\n");
}

TEST(OutputPrinter, StdoutAndStderrKeepSeparateCursors) {
  Terminal t(true);
  t.printer.print(0, kOut, "out-partial ", true);
  t.printer.print(1, kErr, "err line\n", false);
  t.printer.print(1, kErr, "err-partial ", true);
  t.printer.print(0, kOut, "continued\n", true);
  t.printer.print(1, kErr, "done\n", true);
  EXPECT_EQ(t.out, "[0] out-partial continued\n");
  EXPECT_EQ(t.err, "[1] err line\n[1] err-partial done\n");
}

TEST(OutputPrinter, ARanksOwnStdoutAndStderrDoNotInterfere) {
  Terminal t(true);
  t.printer.print(5, kOut, "Password: ", true);
  t.printer.print(5, kErr, "warning: echo on\n", false);
  t.printer.print(5, kOut, "ok\n", true);
  EXPECT_EQ(t.out, "[5] Password: ok\n");
  EXPECT_EQ(t.err, "[5] warning: echo on\n");
}

TEST(OutputPrinter, EndOpenLineBreaksTheLineAndTheOwnerIsTaggedAgain) {
  Terminal t(true);
  t.printer.end_open_line(kOut);  // nothing open: nothing written
  EXPECT_EQ(t.out_writes, 0u);
  t.printer.print(3, kOut, "working", true);
  t.printer.end_open_line(kOut);
  t.printer.end_open_line(kOut);  // already at a line start
  EXPECT_FALSE(t.printer.mid_line_rank(kOut).has_value());
  t.printer.print(3, kOut, "... done\n", true);
  EXPECT_EQ(t.out, "[3] working\n[3] ... done\n");
  EXPECT_EQ(t.err, "");
}

TEST(OutputPrinter, AChildsLastLineWithoutNewlineStaysSo) {
  Terminal t(false);
  t.printer.print(0, kOut, "no newline at exit", true);
  EXPECT_EQ(t.out, "no newline at exit");
  EXPECT_EQ(t.printer.mid_line_rank(kOut), 0u);
}

TEST(OutputPrinter, EachPrintIsOneWrite) {
  Terminal t(true);
  t.printer.print(0, kOut, "a", true);
  t.printer.print(1, kOut, "b\n", false);  // break, tag and text together
  t.printer.print(2, kErr, "c\n", false);
  t.printer.print(0, kOut, "", true);  // empty: nothing
  EXPECT_EQ(t.out_writes, 2u);
  EXPECT_EQ(t.err_writes, 1u);
  EXPECT_EQ(t.out, "[0] a\n[1] b\n");
}

TEST(OutputPrinter, TextWithSeveralLinesIsTaggedLineByLine) {
  Terminal t(true);
  t.printer.print(0, kOut, "one\ntwo\nthr", true);
  t.printer.print(0, kOut, "ee\nfour\n", true);
  EXPECT_EQ(t.out, "[0] one\n[0] two\n[0] three\n[0] four\n");
}

TEST(OutputPrinter, AWholeLineWhileItsOwnLineIsOpenStartsOnANewLine) {
  // Not something a LineAssembler sends; the printer stays readable anyway.
  Terminal t(true);
  t.printer.print(0, kOut, "fragment", true);
  t.printer.print(0, kOut, "whole\n", false);
  EXPECT_EQ(t.out, "[0] fragment\n[0] whole\n");
}

TEST(OutputPrinter, NulBytesPassThrough) {
  using namespace std::string_literals;
  Terminal t(true);
  t.printer.print(1, kOut, "a\0b\n"s, false);
  t.printer.print(1, kOut, "\0"s, true);
  t.printer.print(2, kOut, "c\n"s, false);
  EXPECT_EQ(t.out, "[1] a\0b\n[1] \0\n[2] c\n"s);
}

}  // namespace
}  // namespace orca::iof
