// Bytes as lower-case hex, for comparing digests and MACs with published
// test vectors.
#ifndef ORCA_TEST_LIB_HEX_TEXT_H
#define ORCA_TEST_LIB_HEX_TEXT_H

#include <cstdint>
#include <span>
#include <string>

namespace orca::test {

inline std::string hex_of(std::span<const std::uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (std::uint8_t b : bytes) {
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

}  // namespace orca::test

#endif
