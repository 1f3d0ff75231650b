// The iof line machinery (framework/iof/iof_lines.h): a LineAssembler fed a
// child's pipe bytes in arbitrary reads with timer firings and EOF in
// between, its emissions and other ranks' output chunks (as orcarun
// decodes them from orcads) printed by an OutputPrinter.
//
// Input: a byte for the assembler's max_piece, then ops:
//   op % 4 == 0  feed (a length byte, then the bytes)
//   op % 4 == 1  the timer fires (if armed)
//   op % 4 == 2  EOF (finish)
//   op % 4 == 3  another rank's chunk to the printer (rank, flags,
//                length, bytes)
// Checks: the assembler's emission contract (never empty, at most one
// '\n' and only last, at most max_piece bytes, a whole line is never
// flagged partial and a continuation always is, nothing lost or
// invented), its timer contract (armed exactly while a tail is held,
// never armed twice or cancelled unarmed); the printer writes every
// print in one sink call and adds only '\n's when tagging is off.
#include "iof/iof_lines.h"

#include "fuzz_input.h"

#include <algorithm>
#include <string>

namespace orca::iof {
namespace {

using fuzz::fuzz_require;

std::string without_newlines(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), '\n'), s.end());
  return s;
}

struct Pipeline {
  explicit Pipeline(size_t max_piece)
      : max_piece_(max_piece),
        printer_({.out = [this](std::string_view t) { sink(t); }, .err = [this](std::string_view t) { sink(t); }},
                 /*tag_output=*/false),
        assembler_(std::chrono::milliseconds(10),
                   {.emit = [this](std::string_view t, bool partial) { emitted(t, partial); },
                    .arm_timer = [this](std::chrono::milliseconds) {
                      fuzz_require(!armed_, "the timer was armed twice");
                      armed_ = true;
                    },
                    .cancel_timer = [this] {
                      fuzz_require(armed_, "an unarmed timer was cancelled");
                      armed_ = false;
                    }},
                   max_piece) {}

  void feed(std::string_view bytes) {
    if (!assembler_.finished()) fed_ += bytes;
    assembler_.feed(bytes);
    check_held();
  }
  void fire() {
    if (!armed_) return;
    armed_ = false;  // a firing disarms it
    assembler_.on_timer();
    check_held();
  }
  void finish() {
    assembler_.finish();
    fuzz_require(!armed_ && assembler_.held() == 0, "EOF left a tail or a timer");
  }
  void other_rank(std::uint32_t rank, Stream stream, std::string_view text, bool partial) {
    print(rank, stream, text, partial);
  }
  void check_end() {
    assembler_.finish();
    fuzz_require(emitted_ == fed_, "the assembler lost or invented bytes");
    fuzz_require(without_newlines(sunk_) == without_newlines(printed_), "the printer changed more than newlines");
  }

 private:
  void emitted(std::string_view t, bool partial) {
    fuzz_require(!t.empty(), "an empty emission");
    fuzz_require(t.size() <= max_piece_, "an emission longer than max_piece");
    const size_t nl = t.find('\n');
    fuzz_require(nl == std::string_view::npos || nl + 1 == t.size(), "an emission with a '\\n' before its end");
    const bool ends_line = nl != std::string_view::npos;
    if (continuing_) fuzz_require(partial, "a line's continuation was not flagged partial");
    if (!ends_line) fuzz_require(partial, "a piece without '\\n' was not flagged partial");
    if (!partial) fuzz_require(ends_line && !continuing_, "a whole line that is not one");
    continuing_ = !ends_line;
    emitted_ += t;
    print(0, Stream::Stdout, t, partial);
  }
  void print(std::uint32_t rank, Stream stream, std::string_view text, bool partial) {
    const size_t calls = sink_calls_;
    printer_.print(rank, stream, text, partial);
    fuzz_require(sink_calls_ == calls + (text.empty() ? 0 : 1), "a print did not reach its sink in one call");
    printed_ += text;
  }
  void sink(std::string_view t) {
    ++sink_calls_;
    sunk_ += t;
  }
  void check_held() {
    fuzz_require(assembler_.held() < max_piece_ || assembler_.finished(), "the assembler holds a whole piece");
    fuzz_require(armed_ == (assembler_.held() > 0 && !assembler_.finished()),
                 "the timer is not armed exactly while a tail is held");
  }

  size_t max_piece_;
  OutputPrinter printer_;
  LineAssembler assembler_;
  bool armed_ = false;
  bool continuing_ = false;
  size_t sink_calls_ = 0;
  std::string fed_, emitted_, printed_, sunk_;
};

}  // namespace
}  // namespace orca::iof

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  using namespace orca::iof;
  orca::fuzz::FuzzInput in(data, size);
  Pipeline pipeline(1 + in.byte() % 64);
  while (!in.empty()) {
    switch (in.byte() % 4) {
      case 0: pipeline.feed(orca::fuzz::as_text(in.take(in.byte()))); break;
      case 1: pipeline.fire(); break;
      case 2: pipeline.finish(); break;
      default: {
        const std::uint32_t rank = in.byte();
        const std::uint8_t flags = in.byte();
        pipeline.other_rank(rank, (flags & 1) ? Stream::Stderr : Stream::Stdout, orca::fuzz::as_text(in.take(in.byte())),
                            (flags & 2) != 0);
        break;
      }
    }
  }
  pipeline.check_end();
  return 0;
}
