// The bootstrap on a daemon's standard input: length-prefixed, read with
// a time limit so that a launcher that never writes cannot hang orcad.
#include "launch_wire.h"

#include <errno.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace orca::launch {
namespace {

Message stdin_error(const std::string& why) { return Message("launch", "bad-bootstrap", {{"why", why}}); }

// What makes a well-formed bootstrap unusable; "" if nothing. orcad sizes
// its routing tree by `daemons` and indexes `hosts` by vpid, so these are
// checked before anything is built from them.
std::string inconsistency(const Bootstrap& b) {
  if (b.daemons == 0) return "a job of 0 daemons";
  if (b.hosts.size() != b.daemons) {
    return std::to_string(b.hosts.size()) + " hosts for " + std::to_string(b.daemons) + " daemons";
  }
  // vpid 0: one bootstrap for every daemon (a launcher that starts them
  // all at once); each finds its vpid, and so its parent, itself.
  if (b.vpid > b.daemons) {
    return "vpid " + std::to_string(b.vpid) + " outside 1.." + std::to_string(b.daemons);
  }
  if (b.vpid == 0 && b.parent != 0) return "parent " + std::to_string(b.parent) + " in a bootstrap for every daemon";
  if ((b.vpid != 0 && b.parent == b.vpid) || b.parent > b.daemons) {
    return "parent " + std::to_string(b.parent) + " for vpid " + std::to_string(b.vpid);
  }
  if (b.secret.size() < 16) return "a job secret of " + std::to_string(b.secret.size()) + " bytes (16 at least)";
  return {};
}

Status read_exactly(int fd, std::uint8_t* out, size_t n, int limit_ms) {
  size_t got = 0;
  while (got < n) {
    pollfd p{fd, POLLIN, 0};
    const int r = ::poll(&p, 1, limit_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return stdin_error(std::string("poll failed: ") + std::strerror(errno));
    if (r == 0) return stdin_error("nothing arrived for " + std::to_string(limit_ms) + " ms");
    const ssize_t k = ::read(fd, out + got, n - got);
    if (k < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (k < 0) return stdin_error(std::string("read failed: ") + std::strerror(errno));
    if (k == 0) return stdin_error("standard input ended after " + std::to_string(got) + " of " + std::to_string(n) + " bytes");
    got += static_cast<size_t>(k);
  }
  return {};
}

}  // namespace

std::uint64_t monotonic_microseconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000u + static_cast<std::uint64_t>(ts.tv_nsec) / 1000u;
}

Result<std::vector<std::uint8_t>> stdin_frame(const WireMessage& message) {
  auto body = encode(message);
  if (!body) return body.error();
  // Refused here, where the job can say why, rather than by every orcad.
  if (body->size() > kMaxBootstrap) {
    return Message("launch", "bad-wire-message",
                   {{"message", kind_name(message)},
                    {"field", "the whole message"},
                    {"why", std::to_string(body->size()) + " bytes is above the bound of " + std::to_string(kMaxBootstrap)}});
  }
  const auto n = static_cast<std::uint32_t>(body->size());
  std::vector<std::uint8_t> out{static_cast<std::uint8_t>(n >> 24), static_cast<std::uint8_t>(n >> 16),
                                static_cast<std::uint8_t>(n >> 8), static_cast<std::uint8_t>(n)};
  out.insert(out.end(), body->begin(), body->end());
  return out;
}

Result<std::vector<std::uint8_t>> bootstrap_frame(const Bootstrap& bootstrap) { return stdin_frame(bootstrap); }

Result<WireMessage> read_stdin_message(int fd, int limit_ms) {
  std::uint8_t head[4];
  if (Status st = read_exactly(fd, head, 4, limit_ms); !st) return st.error();
  const std::uint32_t n = std::uint32_t{head[0]} << 24 | std::uint32_t{head[1]} << 16 | std::uint32_t{head[2]} << 8 | head[3];
  if (n == 0 || n > kMaxBootstrap) return stdin_error("a length of " + std::to_string(n) + " bytes");
  // The buffer grows with the bytes that arrived, a step ahead at most (as
  // the oob's frame reader does): a length that lies costs what was sent.
  constexpr size_t kStep = 1u << 20;
  std::vector<std::uint8_t> body;
  while (body.size() < n) {
    const size_t have = body.size();
    body.resize(std::min<size_t>(n, have + kStep));
    if (Status st = read_exactly(fd, body.data() + have, body.size() - have, limit_ms); !st) return st.error();
  }
  return decode(body);
}

namespace {

Result<Bootstrap> usable_bootstrap(Result<WireMessage> m) {
  if (!m) return m.error();
  if (!std::holds_alternative<Bootstrap>(m.value())) {
    return stdin_error(std::string("a ") + kind_name(m.value()) + " instead of a bootstrap");
  }
  Bootstrap b = std::get<Bootstrap>(std::move(m.value()));
  if (std::string why = inconsistency(b); !why.empty()) return stdin_error(why);
  return b;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Result<Bootstrap> read_bootstrap(int fd, int limit_ms) { return usable_bootstrap(read_stdin_message(fd, limit_ms)); }

std::string bootstrap_text(std::span<const std::uint8_t> frame) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  text.reserve(frame.size() * 2);
  for (std::uint8_t b : frame) {
    text.push_back(kDigits[b >> 4]);
    text.push_back(kDigits[b & 15]);
  }
  return text;
}

Result<Bootstrap> parse_bootstrap_text(std::string_view text) {
  auto bad = [](const std::string& why) { return Message("launch", "bad-bootstrap", {{"why", std::string(kBootstrapVariable) + " holds " + why}}); };
  if (text.size() % 2 != 0 || text.size() < 10) return bad("no whole frame (" + std::to_string(text.size()) + " characters)");
  if (text.size() / 2 > 4 + static_cast<size_t>(kMaxBootstrap)) return bad("more than a bootstrap frame may");
  std::vector<std::uint8_t> bytes(text.size() / 2);
  for (size_t i = 0; i < bytes.size(); ++i) {
    const int hi = hex_digit(text[2 * i]), lo = hex_digit(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return bad("a character that is not a hex digit at " + std::to_string(2 * i));
    bytes[i] = static_cast<std::uint8_t>(hi << 4 | lo);
  }
  const std::uint32_t n = std::uint32_t{bytes[0]} << 24 | std::uint32_t{bytes[1]} << 16 | std::uint32_t{bytes[2]} << 8 | bytes[3];
  if (n != bytes.size() - 4) {
    return bad("a frame of " + std::to_string(n) + " bytes in " + std::to_string(bytes.size() - 4));
  }
  auto b = usable_bootstrap(decode(std::span<const std::uint8_t>(bytes).subspan(4)));
  if (!b) return bad("a frame that is not a usable bootstrap: " + b.error().arg("why") + b.error().arg("field"));
  return b;
}

}  // namespace orca::launch
