// LineAssemblers (what orcad runs per child pipe) feeding one OutputPrinter
// (what orcarun runs), with fake timers: the user-visible promise of the
// launcher issue, end to end without I/O.
#include "framework/iof/assembler_harness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace orca::iof::test {
namespace {

using namespace std::chrono_literals;

// Ranks 0..n-1, one stream each (stdout), printing to one string.
class Job {
 public:
  Job(std::size_t ranks, bool tag, std::size_t max_piece = kMaxPieceBytes)
      : printer({.out = [this](std::string_view t) { out += t; }, .err = [this](std::string_view t) { err += t; }},
                tag) {
    for (std::size_t r = 0; r < ranks; ++r) {
      auto h = std::make_unique<AssemblerHarness>(100ms, max_piece);
      h->on_emit = [this, r](std::string_view text, bool partial) {
        printer.print(static_cast<std::uint32_t>(r), Stream::Stdout, text, partial);
      };
      rank.push_back(std::move(h));
    }
  }
  // Every rank's clock moves together; due timers fire in rank order.
  void advance(std::chrono::milliseconds d) {
    for (auto& h : rank) h->advance(d);
  }
  LineAssembler& operator[](std::size_t r) { return rank[r]->lines; }

  std::string out, err;
  OutputPrinter printer;
  std::vector<std::unique_ptr<AssemblerHarness>> rank;
};

TEST(IofPipeline, PromptsProgressAndExitFollowTheRuleExactly) {
  Job job(2, /*tag=*/true);
  job[0].feed("Enter a number: ");
  job[1].feed("rank 1 starting\nstep 1");
  EXPECT_EQ(job.out, "[1] rank 1 starting\n");  // the partials wait for the timer
  job.advance(100ms);                          // both tails show, rank 0's first
  job[0].feed("42\n");
  job[1].feed(" done\n");
  job[1].feed("bye");
  job[1].finish();  // exits at once: its tail is shown without waiting
  job[0].feed("exit\n");
  job[0].finish();
  EXPECT_EQ(job.out,
            "[1] rank 1 starting\n"
            "[0] Enter a number: \n"
            "[1] step 1\n"
            "[0] 42\n"
            "[1]  done\n"
            "[1] bye\n"
            "[0] exit\n");
  EXPECT_EQ(job.err, "");
}

TEST(IofPipeline, WithoutTagsOnlyTheBreaksAreAdded) {
  Job job(2, /*tag=*/false);
  job[0].feed("loading");
  job.advance(100ms);  // "loading" shows
  job[0].feed("...");  // held: its deadline has not passed
  job[1].feed("ready\n");  // not held up by rank 0's tail; breaks its line
  job.advance(100ms);  // "..." shows on the next line
  job[0].feed(" ok\n");
  EXPECT_EQ(job.out, "loading\nready\n... ok\n");
}

TEST(IofPipeline, AWholeLineIsNeverSplitByAnotherRanksLine) {
  Job job(2, /*tag=*/true);
  job[0].feed("the first half, ");
  job[1].feed("interloper\n");
  job[0].feed("the second half\n");
  EXPECT_EQ(job.out, "[1] interloper\n[0] the first half, the second half\n");
}

// Lines of printable text, so that the output can be read back.
std::vector<std::string> printable_lines(std::mt19937& rng, std::size_t count, std::size_t rank) {
  std::uniform_int_distribution<std::size_t> length(0, 120);
  std::uniform_int_distribution<int> letter('a', 'z');
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < count; ++i) {
    std::string line = "r" + std::to_string(rank) + "-" + std::to_string(i) + ":";
    for (std::size_t n = length(rng); n > 0; --n) line += static_cast<char>(letter(rng));
    lines.push_back(line + '\n');
  }
  return lines;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
    lines.push_back(text.substr(start, nl + 1 - start));
  }
  if (start < text.size()) lines.push_back(text.substr(start));
  return lines;
}

struct Tagged {
  std::size_t rank;
  std::string rest;
};

// "[r] rest" -> {r, rest}; fails the test on a line without a tag.
Tagged untag(const std::string& line) {
  const std::size_t close = line.find("] ");
  if (line.empty() || line[0] != '[' || close == std::string::npos) {
    ADD_FAILURE() << "untagged output line \"" << line << "\"";
    return {0, line};
  }
  return {std::stoul(line.substr(1, close - 1)), line.substr(close + 2)};
}

// Four ranks, interleaved random chunks: with whole lines only, each output
// line is exactly one line of one rank, and each rank's order is kept.
TEST(IofPipeline, ManyRanksRandomChunksWholeLinesOnly) {
  constexpr std::size_t kRanks = 4;
  std::mt19937 rng(99);
  Job job(kRanks, /*tag=*/true);
  std::vector<std::string> all(kRanks);
  std::vector<std::vector<std::string>> lines(kRanks);
  for (std::size_t r = 0; r < kRanks; ++r) {
    lines[r] = printable_lines(rng, 2500, r);
    for (const auto& l : lines[r]) all[r] += l;
  }
  std::vector<std::size_t> at(kRanks, 0);
  std::uniform_int_distribution<std::size_t> pick(0, kRanks - 1), chunk(1, 700);
  for (std::size_t left = kRanks; left > 0;) {
    const std::size_t r = pick(rng);
    if (at[r] == all[r].size()) continue;
    const std::size_t n = std::min(chunk(rng), all[r].size() - at[r]);
    job[r].feed(std::string_view(all[r]).substr(at[r], n));
    at[r] += n;
    if (at[r] == all[r].size()) {
      job[r].finish();
      --left;
    }
  }
  std::vector<std::vector<std::string>> seen(kRanks);
  for (const std::string& line : split_lines(job.out)) {
    const Tagged t = untag(line);
    ASSERT_LT(t.rank, kRanks);
    seen[t.rank].push_back(t.rest);
  }
  for (std::size_t r = 0; r < kRanks; ++r) EXPECT_EQ(seen[r], lines[r]) << "rank " << r;
}

// The same with timers firing and a small bound: every output line still
// starts with one rank's tag, and each rank's bytes come out in order,
// with only line breaks added where another rank interrupted a partial.
TEST(IofPipeline, ManyRanksWithTimersEveryLineTaggedNothingLost) {
  constexpr std::size_t kRanks = 4;
  std::mt19937 rng(4242);
  Job job(kRanks, /*tag=*/true, 48);
  std::vector<std::string> all(kRanks);
  for (std::size_t r = 0; r < kRanks; ++r) {
    for (const auto& l : printable_lines(rng, 1500, r)) all[r] += l;
  }
  all[2] += "tail without newline";
  std::vector<std::size_t> at(kRanks, 0);
  std::uniform_int_distribution<std::size_t> pick(0, kRanks - 1), chunk(1, 90);
  std::uniform_int_distribution<int> pause(0, 60);
  for (std::size_t left = kRanks; left > 0;) {
    const std::size_t r = pick(rng);
    if (at[r] == all[r].size()) continue;
    const std::size_t n = std::min(chunk(rng), all[r].size() - at[r]);
    job[r].feed(std::string_view(all[r]).substr(at[r], n));
    at[r] += n;
    if (at[r] == all[r].size()) {
      job[r].finish();
      --left;
    }
    job.advance(std::chrono::milliseconds(pause(rng)));
  }
  std::vector<std::string> seen(kRanks);
  std::size_t breaks_added = 0;
  for (const std::string& line : split_lines(job.out)) {
    const Tagged t = untag(line);
    ASSERT_LT(t.rank, kRanks);
    seen[t.rank] += t.rest;
  }
  for (std::size_t r = 0; r < kRanks; ++r) {
    // seen[r] is all[r] with some '\n' added: delete only those to match.
    std::size_t i = 0, j = 0, added = 0;
    while (i < seen[r].size()) {
      if (j < all[r].size() && seen[r][i] == all[r][j]) {
        ++i, ++j;
      } else if (seen[r][i] == '\n') {
        ++i, ++added;
      } else {
        break;
      }
    }
    EXPECT_EQ(i, seen[r].size()) << "rank " << r;
    EXPECT_EQ(j, all[r].size()) << "rank " << r;
    breaks_added += added;
  }
  EXPECT_GT(breaks_added, 0u);  // partials were interrupted, so the rule was exercised
}

}  // namespace
}  // namespace orca::iof::test
