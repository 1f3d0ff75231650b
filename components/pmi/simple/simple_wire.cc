#include "simple_wire.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace orca::pmi {

namespace {

constexpr std::string_view kCmdKey = "cmd";
constexpr std::string_view kPmi1Prefix = "cmd=";
constexpr std::string_view kPmi1MultiPrefix = "mcmd=";
constexpr std::string_view kPmi1SpawnEnd = "endcmd";

Message malformed(Framing framing, std::string problem) {
  return Message("pmi", "wire-malformed",
                 {{"framing", std::string(framing_name(framing))}, {"problem", std::move(problem)}});
}

Message unformattable(Framing framing, std::string problem) {
  return Message("pmi", "wire-unformattable",
                 {{"framing", std::string(framing_name(framing))}, {"problem", std::move(problem)}});
}

bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

/* Checks one key=value pair and adds it to `out` (the command first). */
Status add_pair(Framing framing, std::string_view token, WireMessage& out, std::set<std::string, std::less<>>& seen) {
  const auto eq = token.find('=');
  if (eq == std::string_view::npos) return malformed(framing, "a pair without '='");
  const std::string_view key = token.substr(0, eq);
  const std::string_view value = token.substr(eq + 1);
  if (key.empty()) return malformed(framing, "a pair with an empty key");
  if (key.size() > kMaxKeyBytes) return malformed(framing, "a key longer than " + std::to_string(kMaxKeyBytes) + " bytes");
  if (value.size() > kMaxValueBytes) {
    return malformed(framing, "a value longer than " + std::to_string(kMaxValueBytes) + " bytes");
  }
  if (framing == Framing::Pmi2 && key.find(';') != std::string_view::npos) {
    return malformed(framing, "a key holding ';'");
  }
  if (!seen.emplace(key).second) return malformed(framing, "the key '" + printable(key) + "' twice");
  if (out.command.empty() && out.pairs.empty() && seen.size() == 1) {
    if (key != kCmdKey) return malformed(framing, "a message not starting with cmd=");
    if (value.empty()) return malformed(framing, "an empty command");
    if (value.size() > kMaxCommandBytes) {
      return malformed(framing, "a command longer than " + std::to_string(kMaxCommandBytes) + " bytes");
    }
    out.command = std::string(value);
    return {};
  }
  out.pairs.emplace_back(std::string(key), std::string(value));
  return {};
}

/* The length of a PMI-2 field: optional spaces, digits, optional spaces. */
std::optional<std::size_t> parse_length_field(std::string_view field) {
  std::size_t i = 0;
  while (i < field.size() && field[i] == ' ') ++i;
  const std::size_t digits_start = i;
  std::size_t n = 0;
  while (i < field.size() && is_digit(field[i])) {
    n = n * 10 + static_cast<std::size_t>(field[i] - '0');
    ++i;
  }
  if (i == digits_start) return std::nullopt;
  while (i < field.size() && field[i] == ' ') ++i;
  if (i != field.size()) return std::nullopt;
  return n;
}

}  // namespace

const std::string* WireMessage::find(std::string_view key) const noexcept {
  for (const auto& [k, v] : pairs) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::string_view framing_name(Framing framing) noexcept {
  switch (framing) {
    case Framing::Pmi1:
      return "PMI-1";
    case Framing::Pmi2:
      return "PMI-2";
  }
  return "?";
}

Framing detect_framing(char first_byte) noexcept {
  return is_digit(first_byte) || first_byte == ' ' ? Framing::Pmi2 : Framing::Pmi1;
}

Result<WireMessage> parse_pmi1_line(std::string_view line) {
  if (line.find('\0') != std::string_view::npos) return malformed(Framing::Pmi1, "a NUL byte");
  if (line.find('\n') != std::string_view::npos) return malformed(Framing::Pmi1, "a newline inside a line");
  if (!line.starts_with(kPmi1Prefix)) return malformed(Framing::Pmi1, "a line not starting with cmd=");
  WireMessage out;
  std::set<std::string, std::less<>> seen;
  std::size_t i = 0;
  while (i < line.size()) {
    if (line[i] == ' ') {
      ++i;
      continue;
    }
    const std::size_t end = std::min(line.find(' ', i), line.size());
    if (auto added = add_pair(Framing::Pmi1, line.substr(i, end - i), out, seen); !added) return added.error();
    i = end;
  }
  return out;
}

Result<WireMessage> parse_pmi2_body(std::string_view body) {
  if (body.find('\0') != std::string_view::npos) return malformed(Framing::Pmi2, "a NUL byte");
  if (body.empty()) return malformed(Framing::Pmi2, "an empty message");
  WireMessage out;
  std::set<std::string, std::less<>> seen;
  std::string token;
  std::size_t i = 0;
  while (i < body.size()) {
    const char c = body[i];
    if (c == ';') {
      if (i + 1 < body.size() && body[i + 1] == ';') {
        token.push_back(';');
        i += 2;
        continue;
      }
      if (auto added = add_pair(Framing::Pmi2, token, out, seen); !added) return added.error();
      token.clear();
      ++i;
      continue;
    }
    token.push_back(c);
    ++i;
  }
  if (!token.empty()) {
    if (auto added = add_pair(Framing::Pmi2, token, out, seen); !added) return added.error();
  }
  if (out.command.empty()) return malformed(Framing::Pmi2, "an empty command");
  return out;
}

Result<std::string> format(Framing framing, const WireMessage& message) {
  if (message.multi_command) return unformattable(framing, "a multi-line command");
  if (message.command.empty()) return unformattable(framing, "an empty command");
  std::set<std::string_view> seen{kCmdKey};
  for (const auto& [k, v] : message.pairs) {
    if (k.empty()) return unformattable(framing, "an empty key");
    if (!seen.insert(k).second) return unformattable(framing, "the key '" + printable(k) + "' twice");
    if (k.find('=') != std::string::npos) return unformattable(framing, "a key holding '='");
  }
  const auto bad_byte = [framing](std::string_view text, bool is_key) {
    if (text.find('\0') != std::string_view::npos) return true;
    if (framing == Framing::Pmi1) return text.find_first_of(" \n") != std::string_view::npos;
    return is_key && text.find(';') != std::string_view::npos;
  };
  if (bad_byte(message.command, false)) return unformattable(framing, "a command it cannot carry");
  for (const auto& [k, v] : message.pairs) {
    if (bad_byte(k, true) || bad_byte(v, false)) {
      return unformattable(framing, "a byte it cannot carry in '" + printable(k) + "'");
    }
  }
  std::string out;
  if (framing == Framing::Pmi1) {
    out = "cmd=" + message.command;
    for (const auto& [k, v] : message.pairs) out += " " + k + "=" + v;
    out += '\n';
    if (out.size() > kMaxPmi1LineBytes) return unformattable(framing, "a line over the size bound");
    return out;
  }
  const auto escaped = [](std::string_view text) {
    std::string e;
    for (const char c : text) {
      e.push_back(c);
      if (c == ';') e.push_back(';');
    }
    return e;
  };
  std::string body = "cmd=" + escaped(message.command) + ";";
  for (const auto& [k, v] : message.pairs) body += k + "=" + escaped(v) + ";";
  if (body.size() > kMaxPmi2BodyBytes) return unformattable(framing, "a message over the size bound");
  char field[kPmi2LengthBytes + 1];
  std::snprintf(field, sizeof field, "%-6zu", body.size());
  out.assign(field, kPmi2LengthBytes);
  out += body;
  return out;
}

void StreamDecoder::append(std::string_view bytes) {
  if (failure_) return;
  buffer_.append(bytes);
}

Result<std::optional<WireMessage>> StreamDecoder::fail(Message why) {
  failure_ = why;
  buffer_.clear();
  start_ = 0;
  scan_ = 0;
  return why;
}

void StreamDecoder::compact() {
  if (start_ == buffer_.size()) {
    buffer_.clear();
    start_ = 0;
  } else if (start_ > 4096 && start_ > buffer_.size() / 2) {
    buffer_.erase(0, start_);
    start_ = 0;
  }
}

Result<std::optional<WireMessage>> StreamDecoder::next() {
  if (failure_) return *failure_;
  if (buffered() == 0) return std::optional<WireMessage>();
  if (!framing_) framing_ = detect_framing(buffer_[start_]);
  auto r = *framing_ == Framing::Pmi1 ? next_pmi1() : next_pmi2();
  compact();
  return r;
}

Result<std::optional<WireMessage>> StreamDecoder::next_pmi1() {
  const std::string_view pending = std::string_view(buffer_).substr(start_);
  // Refuse a line that cannot start a message as early as its first bytes.
  const std::size_t head = std::min(pending.size(), kPmi1MultiPrefix.size());
  const bool may_be_cmd = kPmi1Prefix.starts_with(pending.substr(0, std::min(head, kPmi1Prefix.size())));
  const bool may_be_mcmd = kPmi1MultiPrefix.starts_with(pending.substr(0, head));
  if (!may_be_cmd && !may_be_mcmd) return fail(malformed(Framing::Pmi1, "a line not starting with cmd="));
  if (may_be_mcmd && pending.size() >= kPmi1MultiPrefix.size()) return next_spawn_block();
  const auto nl = pending.find('\n', scan_);
  if (nl == std::string_view::npos) {
    if (pending.find('\0', scan_) != std::string_view::npos) return fail(malformed(Framing::Pmi1, "a NUL byte"));
    if (pending.size() >= kMaxPmi1LineBytes) return fail(malformed(Framing::Pmi1, "a line over the size bound"));
    scan_ = pending.size();
    return std::optional<WireMessage>();
  }
  if (nl + 1 > kMaxPmi1LineBytes) return fail(malformed(Framing::Pmi1, "a line over the size bound"));
  auto parsed = parse_pmi1_line(pending.substr(0, nl));
  if (!parsed) return fail(parsed.error());
  start_ += nl + 1;
  scan_ = 0;
  return std::optional<WireMessage>(std::move(parsed).value());
}

Result<std::optional<WireMessage>> StreamDecoder::next_spawn_block() {
  const std::string_view pending = std::string_view(buffer_).substr(start_);
  while (true) {
    const auto nl = pending.find('\n', scan_);
    const std::size_t line_end = nl == std::string_view::npos ? pending.size() : nl;
    const std::string_view line = pending.substr(spawn_line_start_, line_end - spawn_line_start_);
    if (pending.substr(scan_, line_end - scan_).find('\0') != std::string_view::npos) {
      return fail(malformed(Framing::Pmi1, "a NUL byte"));
    }
    if (line.size() + 1 > kMaxPmi1LineBytes) return fail(malformed(Framing::Pmi1, "a line over the size bound"));
    if (line_end + 1 > kMaxPmi1SpawnBytes) {
      return fail(malformed(Framing::Pmi1, "a multi-line command over the size bound"));
    }
    if (nl == std::string_view::npos) {
      scan_ = pending.size();
      return std::optional<WireMessage>();
    }
    if (spawn_line_start_ == 0) {
      spawn_command_ = std::string(line.substr(kPmi1MultiPrefix.size()));
      if (spawn_command_.empty()) return fail(malformed(Framing::Pmi1, "an empty command"));
      if (spawn_command_.size() > kMaxCommandBytes || spawn_command_.find(' ') != std::string::npos) {
        return fail(malformed(Framing::Pmi1, "a malformed multi-line command name"));
      }
    } else if (line == kPmi1SpawnEnd) {
      start_ += nl + 1;
      scan_ = 0;
      spawn_line_start_ = 0;
      return std::optional<WireMessage>(
          WireMessage{.command = std::move(spawn_command_), .pairs = {}, .multi_command = true});
    }
    spawn_line_start_ = nl + 1;
    scan_ = nl + 1;
  }
}

Result<std::optional<WireMessage>> StreamDecoder::next_pmi2() {
  const std::string_view pending = std::string_view(buffer_).substr(start_);
  const std::string_view field = pending.substr(0, std::min(pending.size(), kPmi2LengthBytes));
  for (const char c : field) {
    if (!is_digit(c) && c != ' ') return fail(malformed(Framing::Pmi2, "a length field that is not decimal"));
  }
  if (pending.size() < kPmi2LengthBytes) return std::optional<WireMessage>();
  const auto length = parse_length_field(field);
  if (!length) return fail(malformed(Framing::Pmi2, "a length field that is not decimal"));
  if (*length == 0) return fail(malformed(Framing::Pmi2, "an empty message"));
  if (*length > kMaxPmi2BodyBytes) return fail(malformed(Framing::Pmi2, "a length over the size bound"));
  if (pending.size() - kPmi2LengthBytes < *length) return std::optional<WireMessage>();
  auto parsed = parse_pmi2_body(pending.substr(kPmi2LengthBytes, *length));
  if (!parsed) return fail(parsed.error());
  start_ += kPmi2LengthBytes + *length;
  return std::optional<WireMessage>(std::move(parsed).value());
}

Result<std::vector<WireMessage>> StreamDecoder::feed(std::string_view bytes) {
  append(bytes);
  std::vector<WireMessage> out;
  while (true) {
    auto r = next();
    if (!r) return r.error();
    if (!r.value()) return out;
    out.push_back(std::move(*r.value()));
  }
}

}  // namespace orca::pmi
