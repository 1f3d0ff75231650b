// Settings a launcher forwards: the winners per name, and their text form.
#include "mca/var/mca_forward.h"

#include "mca/var/text.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <tuple>

namespace orca::mca {

namespace {

constexpr std::string_view kHeader = "orca-settings 1";

struct KindWord {
  SourceKind kind;
  std::string_view word;
};
constexpr KindWord kKinds[] = {
    {SourceKind::Default, "default"},         {SourceKind::ParamFile, "param-file"},
    {SourceKind::TuneFile, "tune-file"},      {SourceKind::Environment, "environment"},
    {SourceKind::CommandLine, "command-line"}, {SourceKind::OverrideFile, "override-file"},
};

std::string_view word_of(SourceKind k) {
  for (const auto& kw : kKinds) {
    if (kw.kind == k) return kw.word;
  }
  return "default";
}

bool needs_escape(unsigned char c) { return c == '%' || c <= 0x20 || c == 0x7f; }

void put_field(std::string& out, std::string_view field) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  if (field.empty()) {
    out += '%';
    return;
  }
  for (const char ch : field) {
    const auto c = static_cast<unsigned char>(ch);
    if (needs_escape(c)) {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out += ch;
    }
  }
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// false on a bad escape or a raw byte that should have been escaped.
bool get_field(std::string_view in, std::string& out) {
  out.clear();
  if (in == "%") return true;
  for (size_t i = 0; i < in.size(); ++i) {
    const auto c = static_cast<unsigned char>(in[i]);
    if (c == '%') {
      if (i + 2 >= in.size()) return false;
      const int hi = hex_value(in[i + 1]), lo = hex_value(in[i + 2]);
      if (hi < 0 || lo < 0) return false;
      out += static_cast<char>(hi << 4 | lo);
      i += 2;
    } else if (needs_escape(c)) {
      return false;
    } else {
      out += in[i];
    }
  }
  return true;
}

template <typename T>
bool get_number(std::string_view in, T& out) {
  auto [end, ec] = std::from_chars(in.data(), in.data() + in.size(), out);
  return ec == std::errc() && end == in.data() + in.size();
}

Message bad_line(size_t line, std::string why) {
  return Message("mca-var", "bad-forwarded-settings", {{"line", std::to_string(line)}, {"why", std::move(why)}});
}

}  // namespace

std::vector<Setting> forwardable_settings(const Registry& registry) {
  const std::vector<Setting> all = registry.settings();
  // The winner per name, as the registry ranks them: kind, file order, arrival.
  std::map<std::string, size_t> winner;
  auto rank = [&](size_t i) { return std::make_tuple(static_cast<int>(all[i].source.kind), all[i].source.order, i); };
  for (size_t i = 0; i < all.size(); ++i) {
    auto [it, inserted] = winner.emplace(all[i].name, i);
    if (!inserted && rank(i) > rank(it->second)) it->second = i;
  }
  std::vector<size_t> chosen;
  for (const auto& [name, i] : winner) chosen.push_back(i);
  std::sort(chosen.begin(), chosen.end());  // arrival order, so ties resolve alike at the other end
  std::vector<Setting> out;
  for (size_t i : chosen) out.push_back(all[i]);
  return out;
}

std::string encode_settings(const std::vector<Setting>& settings) {
  std::string out(kHeader);
  out += '\n';
  for (const auto& s : settings) {
    put_field(out, s.name);
    out += ' ';
    out += word_of(s.source.kind);
    out += ' ' + std::to_string(s.source.order) + ' ' + std::to_string(s.source.line) + ' ';
    put_field(out, s.source.file);
    out += ' ';
    put_field(out, s.text);
    out += '\n';
  }
  return out;
}

Result<std::vector<Setting>> decode_settings(std::string_view text) {
  std::vector<Setting> out;
  const size_t first_end = text.find('\n');
  if (first_end == std::string_view::npos || text.substr(0, first_end) != kHeader) {
    return bad_line(1, "it does not start with \"" + std::string(kHeader) + "\"");
  }
  size_t pos = first_end + 1;
  size_t line_no = 1;
  while (pos < text.size()) {
    ++line_no;
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) return bad_line(line_no, "the last line has no newline");
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (out.size() >= kMaxForwardedSettings) {
      return bad_line(line_no, "more than " + std::to_string(kMaxForwardedSettings) + " settings");
    }
    std::vector<std::string_view> fields;
    size_t start = 0;
    while (true) {
      const size_t sp = line.find(' ', start);
      fields.push_back(line.substr(start, sp == std::string_view::npos ? std::string_view::npos : sp - start));
      if (sp == std::string_view::npos) break;
      start = sp + 1;
    }
    if (fields.size() != 6) return bad_line(line_no, std::to_string(fields.size()) + " fields, not 6");
    Setting s;
    if (!get_field(fields[0], s.name) || s.name.empty()) return bad_line(line_no, "a malformed name");
    bool known = false;
    for (const auto& kw : kKinds) {
      if (fields[1] == kw.word) {
        s.source.kind = kw.kind;
        known = true;
      }
    }
    if (!known) return bad_line(line_no, "an unknown source kind");
    if (!get_number(fields[2], s.source.order) || !get_number(fields[3], s.source.line)) {
      return bad_line(line_no, "a malformed order or line number");
    }
    if (!get_field(fields[4], s.source.file)) return bad_line(line_no, "a malformed file name");
    if (!get_field(fields[5], s.text)) return bad_line(line_no, "a malformed value");
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace orca::mca
