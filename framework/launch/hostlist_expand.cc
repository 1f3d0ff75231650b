// Hostlist syntax: node[01-04,07], rack[0-1]_blade[0-3], a,b.
#include "launch/hostlist_expand.h"

#include <orca/host_list.h>

#include "launch/launch_text.h"
#include "mca/var/text.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace orca::launch {

namespace {

constexpr std::uint64_t kSaturated = std::numeric_limits<std::uint64_t>::max();

std::uint64_t add_sat(std::uint64_t a, std::uint64_t b) { return a > kSaturated - b ? kSaturated : a + b; }
std::uint64_t mul_sat(std::uint64_t a, std::uint64_t b) {
  return b != 0 && a > kSaturated / b ? kSaturated : a * b;
}

std::string count_text(std::uint64_t n) {
  return n == kSaturated ? "more than " + std::to_string(kSaturated) : std::to_string(n);
}

// Every refusal carries "problem": itself in a few words, for a caller
// that quotes it inside a message of its own (host_list.h).
Message syntax_error(std::string_view source, std::string_view part, std::string why) {
  std::string problem = "at \"" + excerpt(part) + "\": " + why;
  return Message("launch", "hostlist-syntax",
                 {{"source", std::string(source)}, {"part", excerpt(part)}, {"why", std::move(why)},
                  {"problem", std::move(problem)}});
}

enum class Bound { Names, Chars };

Message too_large(std::string_view source, std::string_view part, std::uint64_t count, std::size_t limit,
                  Bound bound = Bound::Names) {
  const bool names = bound == Bound::Names;
  std::string problem = "at \"" + excerpt(part) + "\" it " + (names ? "names " : "expands to ") + count_text(count) +
                        (names ? " hosts" : " characters") + ", above the bound of " + std::to_string(limit);
  return Message("launch", names ? "hostlist-too-large" : "hostlist-too-long",
                 {{"source", std::string(source)},
                  {"part", excerpt(part)},
                  {"count", count_text(count)},
                  {"limit", std::to_string(limit)},
                  {"problem", std::move(problem)}});
}

// One range of a bracket group: lo..hi, printed at least `width` wide.
struct Range {
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;
  std::size_t width = 0;
};

// A piece of an item: literal text, or a bracket group (ranges non-empty).
struct Segment {
  std::string literal;
  std::vector<Range> ranges;
};

bool all_digits(std::string_view s) {
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

std::string padded(std::uint64_t value, std::size_t width) {
  std::string s = std::to_string(value);
  if (s.size() < width) s.insert(0, width - s.size(), '0');
  return s;
}

// The widest number of a group, in characters.
std::size_t group_width(const std::vector<Range>& ranges) {
  std::size_t w = 0;
  for (const Range& r : ranges) w = std::max({w, r.width, std::to_string(r.hi).size()});
  return w;
}

Result<std::vector<Range>> parse_group(std::string_view body, std::string_view source, std::size_t limit) {
  const std::string shown = "[" + std::string(body) + "]";
  if (body.empty()) return syntax_error(source, shown, "the brackets hold no number; write node[1-4] or node[1,3]");
  std::vector<Range> out;
  for (const std::string& piece : mca::split(body, ',')) {
    if (piece.empty()) {
      return syntax_error(source, shown,
                          "it has an empty range: two commas in a row, or a comma next to a bracket");
    }
    const size_t dash = piece.find('-');
    const std::string_view lo_text = std::string_view(piece).substr(0, dash);
    const std::string_view hi_text = dash == std::string::npos ? lo_text : std::string_view(piece).substr(dash + 1);
    if (dash != std::string::npos && (lo_text.empty() || hi_text.empty())) {
      return syntax_error(source, piece, "the range lacks a bound; write both, low to high (1-4)");
    }
    if (!all_digits(lo_text) || !all_digits(hi_text)) {
      return syntax_error(source, piece,
                          "between [ and ] only numbers, ranges (1-4) and commas may appear");
    }
    for (std::string_view bound : {lo_text, hi_text}) {
      if (bound.size() > kMaxRangeDigits) {
        return syntax_error(source, bound,
                            "the number has more than " + std::to_string(kMaxRangeDigits) + " digits");
      }
    }
    Range r;
    r.lo = *parse_whole_number(lo_text, 0, kSaturated);
    r.hi = *parse_whole_number(hi_text, 0, kSaturated);
    r.width = lo_text.size();
    if (r.lo > r.hi) {
      return syntax_error(source, piece,
                          "the range is reversed; write it low to high (" + std::string(hi_text) + "-" +
                              std::string(lo_text) + ")");
    }
    if (r.hi - r.lo + 1 > limit) return too_large(source, piece, r.hi - r.lo + 1, limit);
    out.push_back(r);
  }
  return out;
}

// The item cut into literals and groups, every character checked.
Result<std::vector<Segment>> parse_item(std::string_view item, std::string_view source, std::size_t limit) {
  std::vector<Segment> out;
  std::string literal;
  for (size_t i = 0; i < item.size(); ++i) {
    const char c = item[i];
    if (c == '[') {
      const size_t close = item.find_first_of("[]", i + 1);
      if (close == std::string_view::npos) {
        return syntax_error(source, item.substr(i), "the '[' is never closed by a ']'");
      }
      if (item[close] == '[') {
        return syntax_error(source, item.substr(i), "a '[' inside brackets: bracket groups cannot nest");
      }
      auto ranges = parse_group(item.substr(i + 1, close - i - 1), source, limit);
      if (!ranges) return ranges.error();
      if (!literal.empty()) out.push_back(Segment{std::move(literal), {}});
      literal.clear();
      out.push_back(Segment{"", std::move(ranges).value()});
      i = close;
    } else if (c == ']') {
      return syntax_error(source, item, "a ']' without its '['");
    } else if (is_host_char(c)) {
      literal += c;
    } else {
      return syntax_error(source, item,
                          "the character '" + std::string(1, c) +
                              "' cannot be part of a host name (letters, digits, '.', '-' and '_' can)");
    }
  }
  if (!literal.empty()) out.push_back(Segment{std::move(literal), {}});
  return out;
}

}  // namespace

bool is_host_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
         c == '_';
}

std::vector<std::string_view> split_hostlist_items(std::string_view text) {
  std::vector<std::string_view> out;
  size_t depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '[') {
      ++depth;
    } else if (text[i] == ']') {
      if (depth > 0) --depth;
    } else if (text[i] == ',' && depth == 0) {
      out.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  out.push_back(text.substr(start));
  return out;
}

Status expand_hostlist_item(std::string_view item, std::string_view source, std::vector<std::string>& out,
                            HostlistBudget& budget) {
  if (item.empty()) {
    return syntax_error(source, item, "an item is empty: two commas in a row, or a comma at the start or end");
  }
  const std::size_t room = budget.names;
  auto parsed = parse_item(item, source, kMaxHostNames);
  if (!parsed) return parsed.error();
  const std::vector<Segment>& segments = parsed.value();

  // Count and measure before anything is allocated.
  std::uint64_t names = 1;
  std::size_t length = 0;
  for (const Segment& s : segments) {
    if (s.ranges.empty()) {
      length += s.literal.size();
      continue;
    }
    std::uint64_t in_group = 0;
    for (const Range& r : s.ranges) in_group = add_sat(in_group, r.hi - r.lo + 1);
    names = mul_sat(names, in_group);
    length += group_width(s.ranges);
  }
  if (names > room) return too_large(source, item, add_sat(kMaxHostNames - room, names), kMaxHostNames);
  if (length > kMaxHostNameLength) {
    return syntax_error(source, item,
                        "its names are " + std::to_string(length) + " characters long; a host name has at most " +
                            std::to_string(kMaxHostNameLength));
  }
  // Names times their length: what the expansion costs, before any of it.
  const std::uint64_t chars = mul_sat(names, length);
  if (chars > budget.chars) {
    return too_large(source, item, add_sat(kMaxHostListChars - budget.chars, chars), kMaxHostListChars,
                     Bound::Chars);
  }
  budget.names -= static_cast<std::size_t>(names);
  budget.chars -= static_cast<std::size_t>(chars);

  // Every group's numbers as text, then every combination, the last group
  // varying fastest.
  std::vector<std::vector<std::string>> numbers;
  for (const Segment& s : segments) {
    if (s.ranges.empty()) continue;
    std::vector<std::string> texts;
    for (const Range& r : s.ranges) {
      for (std::uint64_t v = r.lo;; ++v) {
        texts.push_back(padded(v, r.width));
        if (v == r.hi) break;
      }
    }
    numbers.push_back(std::move(texts));
  }
  std::vector<size_t> at(numbers.size(), 0);
  out.reserve(out.size() + static_cast<size_t>(names));
  for (std::uint64_t k = 0; k < names; ++k) {
    std::string name;
    name.reserve(length);
    size_t g = 0;
    for (const Segment& s : segments) {
      if (s.ranges.empty()) {
        name += s.literal;
      } else {
        name += numbers[g][at[g]];
        ++g;
      }
    }
    out.push_back(std::move(name));
    for (size_t j = numbers.size(); j-- > 0;) {
      if (++at[j] < numbers[j].size()) break;
      at[j] = 0;
    }
  }
  return {};
}

Status expand_hostlist_into(std::string_view text, std::string_view source, std::vector<std::string>& out,
                            HostlistBudget& budget) {
  const std::string_view list = mca::trim(text);
  if (list.empty()) return Message("launch", "hostlist-empty", {{"source", std::string(source)}, {"problem", "it is empty"}});
  const size_t before = out.size();
  const HostlistBudget saved = budget;
  for (std::string_view item : split_hostlist_items(list)) {
    if (Status st = expand_hostlist_item(item, source, out, budget); !st) {
      out.resize(before);
      budget = saved;
      return st;
    }
  }
  return {};
}

Result<std::vector<std::string>> expand_hostlist(std::string_view text, std::string_view source) {
  std::vector<std::string> out;
  HostlistBudget budget;
  if (Status st = expand_hostlist_into(text, source, out, budget); !st) return st.error();
  return out;
}

}  // namespace orca::launch
