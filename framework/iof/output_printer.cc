// OutputPrinter: emissions of many ranks onto orcarun's stdout and stderr,
// tagged per line, with the interleaving rule of iof_lines.h.
#include "iof_lines.h"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <utility>

namespace orca::iof {

namespace {
void append_tag(std::string& buffer, std::uint32_t rank, std::string_view host) {
  char digits[16];
  const auto end = std::to_chars(digits, digits + sizeof digits, rank).ptr;
  buffer += '[';
  if (!host.empty()) {
    buffer.append(host);
    buffer += ':';
  }
  buffer.append(digits, end);
  buffer += "] ";
}
}  // namespace

std::string local_time_of_day() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm local{};
  ::localtime_r(&seconds, &local);
  char text[32];
  std::snprintf(text, sizeof text, "%02d:%02d:%02d.%03d", local.tm_hour, local.tm_min, local.tm_sec,
                static_cast<int>(millis));
  return text;
}

OutputPrinter::OutputPrinter(Sinks sinks, bool tag_output, std::function<std::string()> timestamp,
                             std::function<std::string_view(std::uint32_t)> host_of)
    : tag_output_(tag_output), timestamp_(std::move(timestamp)), host_of_(std::move(host_of)) {
  out_.sink = std::move(sinks.out);
  err_.sink = std::move(sinks.err);
}

void OutputPrinter::print(std::uint32_t rank, Stream stream, std::string_view text, bool partial) noexcept {
  if (text.empty()) return;
  PerStream& s = of(stream);
  std::string& buffer = s.buffer;
  buffer.clear();
  // Rule 1: another rank's line (or, for a whole line, this rank's own
  // fragment) is open where the cursor is: end it visually first.
  if (s.cursor_rank && (*s.cursor_rank != rank || !partial)) {
    buffer += '\n';
    s.cursor_rank.reset();
  }
  // Rule 2 / 3: in place only if the cursor is still in this rank's line.
  bool at_line_start = !s.cursor_rank.has_value();
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    const std::size_t n = newline == std::string_view::npos ? text.size() : newline + 1;
    if (at_line_start && timestamp_) {
      buffer += '[';
      buffer += timestamp_();
      buffer += "] ";
    }
    if (at_line_start && tag_output_) append_tag(buffer, rank, host_of_ ? host_of_(rank) : std::string_view());
    buffer.append(text.substr(0, n));
    at_line_start = newline != std::string_view::npos;
    text.remove_prefix(n);
  }
  if (at_line_start) {
    s.cursor_rank.reset();
  } else {
    s.cursor_rank = rank;
  }
  s.sink(buffer);
}

void OutputPrinter::end_open_line(Stream stream) noexcept {
  PerStream& s = of(stream);
  if (!s.cursor_rank) return;
  s.cursor_rank.reset();
  s.sink("\n");
}

std::optional<std::uint32_t> OutputPrinter::mid_line_rank(Stream stream) const noexcept {
  return of(stream).cursor_rank;
}

}  // namespace orca::iof
