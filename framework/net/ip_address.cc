// IpAddress / IpPrefix: parsing, formatting and classification.
#include <orca/ip_address.h>

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>

namespace orca::net {

IpAddress::IpAddress(Family family, const std::uint8_t* bytes, std::uint32_t scope_id)
    : family_(family), scope_id_(scope_id) {
  std::memcpy(bytes_.data(), bytes, family == Family::V4 ? 4 : 16);
}

int IpAddress::af() const noexcept { return family_ == Family::V4 ? AF_INET : AF_INET6; }

std::optional<IpAddress> IpAddress::parse(std::string_view text, std::string* why) {
  auto fail = [&](const char* reason) -> std::optional<IpAddress> {
    if (why != nullptr) *why = reason;
    return std::nullopt;
  };
  // The C functions below stop at a NUL: "10.0.0.1\0junk" must not pass.
  if (text.find('\0') != std::string_view::npos) return fail("a NUL byte in the address");
  std::string s(text);
  std::uint32_t scope = 0;
  if (size_t pct = s.find('%'); pct != std::string::npos) {
    const std::string zone = s.substr(pct + 1);
    s.resize(pct);
    if (zone.empty()) return fail("an empty scope after '%'");
    if (std::all_of(zone.begin(), zone.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      auto [end, ec] = std::from_chars(zone.data(), zone.data() + zone.size(), scope);
      if (ec != std::errc() || end != zone.data() + zone.size())
        return fail("the scope index after '%' must be 1..4294967295");
      if (scope == 0) return fail("the scope after '%' is not an interface of this host");
    } else {
      // The kernel reads an interface name only up to a ':' (an alias) and
      // IFNAMSIZ: "lo:<anything>" would name lo. A scope is a whole name.
      const bool plain = zone.size() < IF_NAMESIZE && std::all_of(zone.begin(), zone.end(), [](char c) {
                           const auto u = static_cast<unsigned char>(c);
                           return u > 0x20 && u != 0x7f && c != ':' && c != '/' && c != '%';
                         });
      if (!plain) return fail("the scope after '%' is not an interface name");
      scope = if_nametoindex(zone.c_str());
      if (scope == 0) return fail("the scope after '%' is not an interface of this host");
    }
  }
  std::uint8_t buf[16];
  if (s.find(':') == std::string::npos) {
    if (scope != 0) return fail("an IPv4 address has no scope");
    if (inet_pton(AF_INET, s.c_str(), buf) != 1) return fail("not an IPv4 address (a.b.c.d)");
    return IpAddress(Family::V4, buf);
  }
  if (inet_pton(AF_INET6, s.c_str(), buf) != 1) return fail("not an IPv6 address");
  return IpAddress(Family::V6, buf, scope);
}

bool IpAddress::is_loopback() const noexcept {
  if (family_ == Family::V4) return bytes_[0] == 127;
  static constexpr std::uint8_t kLoop[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  return std::memcmp(bytes_.data(), kLoop, 16) == 0;
}

bool IpAddress::is_link_local() const noexcept {
  if (family_ == Family::V4) return bytes_[0] == 169 && bytes_[1] == 254;
  return bytes_[0] == 0xfe && (bytes_[1] & 0xc0) == 0x80;
}

bool IpAddress::is_private() const noexcept {
  if (family_ == Family::V4) {
    return bytes_[0] == 10 || (bytes_[0] == 172 && (bytes_[1] & 0xf0) == 16) ||
           (bytes_[0] == 192 && bytes_[1] == 168) || (bytes_[0] == 100 && (bytes_[1] & 0xc0) == 64);
  }
  return (bytes_[0] & 0xfe) == 0xfc;
}

bool IpAddress::is_unspecified() const noexcept {
  return std::all_of(bytes_.begin(), bytes_.begin() + static_cast<long>(size()), [](std::uint8_t b) { return b == 0; });
}

std::string IpAddress::to_string() const {
  char buf[INET6_ADDRSTRLEN];
  inet_ntop(af(), bytes_.data(), buf, sizeof buf);
  return buf;
}

bool IpAddress::same_address(const IpAddress& other) const noexcept {
  return family_ == other.family_ && std::memcmp(bytes_.data(), other.bytes_.data(), size()) == 0;
}

std::strong_ordering operator<=>(const IpAddress& a, const IpAddress& b) noexcept {
  if (auto c = a.family_ <=> b.family_; std::is_neq(c)) return c;
  if (int c = std::memcmp(a.bytes_.data(), b.bytes_.data(), a.size()); c != 0) return c <=> 0;
  return a.scope_id_ <=> b.scope_id_;
}

bool same_subnet(const IpAddress& a, const IpAddress& b, int prefix_len) noexcept {
  if (a.family() != b.family() || prefix_len < 0) return false;
  const int bits = std::min<int>(prefix_len, static_cast<int>(a.size()) * 8);
  const int whole = bits / 8;
  if (std::memcmp(a.bytes(), b.bytes(), static_cast<size_t>(whole)) != 0) return false;
  if (bits % 8 == 0) return true;
  const auto mask = static_cast<std::uint8_t>(0xff << (8 - bits % 8));
  return (a.bytes()[whole] & mask) == (b.bytes()[whole] & mask);
}

IpPrefix::IpPrefix(IpAddress address, int length) : address_(address), length_(length) {}

std::optional<IpPrefix> IpPrefix::parse(std::string_view text, std::string* why) {
  const size_t slash = text.find('/');
  auto addr = IpAddress::parse(text.substr(0, slash), why);
  if (!addr) return std::nullopt;
  const int max = addr->family() == Family::V4 ? 32 : 128;
  int length = max;
  if (slash != std::string_view::npos) {
    const std::string_view len = text.substr(slash + 1);
    int v = -1;
    auto [end, ec] = std::from_chars(len.data(), len.data() + len.size(), v);
    if (len.empty() || ec != std::errc() || end != len.data() + len.size() || v < 0 || v > max) {
      if (why != nullptr) *why = "the prefix length after '/' must be 0.." + std::to_string(max);
      return std::nullopt;
    }
    length = v;
  }
  return IpPrefix(*addr, length);
}

bool IpPrefix::contains(const IpAddress& a) const noexcept { return same_subnet(address_, a, length_); }

std::string IpPrefix::to_string() const { return address_.to_string() + "/" + std::to_string(length_); }

}  // namespace orca::net
