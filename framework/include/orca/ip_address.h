/*
 * IpAddress and IpPrefix: IPv4 and IPv6 addresses as values.
 *
 * Parsing accepts the usual text forms ("10.0.0.1", "fe80::1%eth0" with a
 * scope, "10.0.0.0/8" for prefixes) and rejects anything else with a
 * reason; formatting gives the canonical text. Classification follows the
 * RFCs: loopback (127/8, ::1), link-local (169.254/16, fe80::/10), private
 * (10/8, 172.16/12, 192.168/16, 100.64/10 shared, fc00::/7 unique-local).
 */
#ifndef ORCA_IP_ADDRESS_H
#define ORCA_IP_ADDRESS_H

#include <orca/export.h>

#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace orca::net {

enum class Family { V4, V6 };

class ORCA_EXPORT IpAddress {
 public:
  IpAddress() = default;
  /* `bytes` holds 4 (V4) or 16 (V6) bytes in network order. */
  IpAddress(Family family, const std::uint8_t* bytes, std::uint32_t scope_id = 0);

  /* "10.1.2.3", "::1", "fe80::1%3" or "fe80::1%eth0" (scope by index or
   * name). Returns nullopt and sets *why on failure. */
  static std::optional<IpAddress> parse(std::string_view text, std::string* why = nullptr);

  Family family() const noexcept { return family_; }
  /* AF_INET or AF_INET6. */
  int af() const noexcept;
  const std::uint8_t* bytes() const noexcept { return bytes_.data(); }
  std::size_t size() const noexcept { return family_ == Family::V4 ? 4 : 16; }
  /* IPv6 link-local scope (interface index); 0 when none. */
  std::uint32_t scope_id() const noexcept { return scope_id_; }
  void set_scope_id(std::uint32_t scope) noexcept { scope_id_ = scope; }

  bool is_loopback() const noexcept;
  bool is_link_local() const noexcept;
  bool is_private() const noexcept;
  bool is_unspecified() const noexcept;

  /* Canonical text, without the scope. */
  std::string to_string() const;

  /* Compares family and bytes, not the scope. */
  bool same_address(const IpAddress& other) const noexcept;
  friend bool operator==(const IpAddress& a, const IpAddress& b) noexcept {
    return a.same_address(b) && a.scope_id_ == b.scope_id_;
  }
  friend ORCA_EXPORT std::strong_ordering operator<=>(const IpAddress& a, const IpAddress& b) noexcept;

 private:
  Family family_ = Family::V4;
  std::array<std::uint8_t, 16> bytes_{};
  std::uint32_t scope_id_ = 0;
};

class ORCA_EXPORT IpPrefix {
 public:
  IpPrefix() = default;
  IpPrefix(IpAddress address, int length);

  /* "10.0.0.0/8", "fd00::/8"; an address without "/n" is a host prefix.
   * Host bits may be set ("10.1.2.3/8" means 10.0.0.0/8). */
  static std::optional<IpPrefix> parse(std::string_view text, std::string* why = nullptr);

  const IpAddress& address() const noexcept { return address_; }
  int length() const noexcept { return length_; }
  bool contains(const IpAddress& a) const noexcept;
  std::string to_string() const;

 private:
  IpAddress address_;
  int length_ = 0;
};

/* True when `a` and `b` share the first `prefix_len` bits (same family). */
ORCA_EXPORT bool same_subnet(const IpAddress& a, const IpAddress& b, int prefix_len) noexcept;

}  // namespace orca::net

#endif  // ORCA_IP_ADDRESS_H
