// The job secret: how it reaches a process without a command line.
#include "oob/oob_host.h"

#include <orca/oob_random.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace orca::oob {

namespace {

constexpr size_t kMinSecretBytes = 16;

}  // namespace

Result<std::vector<std::uint8_t>> parse_job_secret(std::string_view hex, const std::string& where) {
  while (!hex.empty() && (hex.back() == '\n' || hex.back() == ' ' || hex.back() == '\r')) hex.remove_suffix(1);
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::vector<std::uint8_t> out;
  for (char c : hex) {
    if (nibble(c) < 0) return Message("oob", "bad-secret", {{"where", where}, {"why", "not hexadecimal"}});
  }
  if (hex.size() % 2 != 0) return Message("oob", "bad-secret", {{"where", where}, {"why", "an odd number of hex digits"}});
  for (size_t i = 0; i < hex.size(); i += 2) {
    out.push_back(static_cast<std::uint8_t>(nibble(hex[i]) << 4 | nibble(hex[i + 1])));
  }
  if (out.size() < kMinSecretBytes) {
    return Message("oob", "bad-secret",
                   {{"where", where}, {"why", "shorter than " + std::to_string(kMinSecretBytes) + " bytes"}});
  }
  return out;
}

Result<std::vector<std::uint8_t>> job_secret_from_environment() {
  if (const char* hex = std::getenv("ORCA_JOB_SECRET")) return parse_job_secret(hex, "ORCA_JOB_SECRET");
  if (const char* fd_text = std::getenv("ORCA_JOB_SECRET_FD")) {
    int fd = -1;
    const std::string_view digits(fd_text);
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), fd);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || fd < 0) {
      return Message("oob", "bad-secret", {{"where", "ORCA_JOB_SECRET_FD"}, {"why", "not a file descriptor number"}});
    }
    std::string text;
    char buf[256];
    while (true) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return Message("oob", "bad-secret", {{"where", "ORCA_JOB_SECRET_FD"}, {"why", std::strerror(errno)}});
      if (n == 0) break;
      text.append(buf, static_cast<size_t>(n));
      if (text.size() > 4096) break;
    }
    return parse_job_secret(text, "ORCA_JOB_SECRET_FD=" + std::string(fd_text));
  }
  return Message("oob", "no-secret", {});
}

std::string job_secret_hex(std::span<const std::uint8_t> secret) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(secret.size() * 2);
  for (std::uint8_t b : secret) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

std::string new_job_secret_hex() {
  std::uint8_t bytes[32];
  if (std::string why; !random_bytes(bytes, &why)) throw std::runtime_error(why);
  return job_secret_hex(bytes);
}

}  // namespace orca::oob
