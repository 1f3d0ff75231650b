// Sha256: SHA-256 (FIPS 180-4), for the handshake's HMAC.
//
// Why our own: the handshake needs one hash function, and libcrypto cost
// every process that linked it about 0.45 ms of CPU before main (4.5 MiB
// mapped, some 4000 symbols bound at load, its CPU probing), 7% of an
// orcad's whole CPU at K=64. SHA-256 is a short, fixed algorithm with
// published vectors; the tests check this one against them and against
// libcrypto's on every length and split. It has no branch or table
// lookup that depends on the data, so it takes the same time for any
// key and message of a given length.
#ifndef ORCA_FRAMEWORK_OOB_SHA256_H
#define ORCA_FRAMEWORK_OOB_SHA256_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace orca::oob {

class Sha256 {
 public:
  static constexpr size_t kBlock = 64;
  static constexpr size_t kDigest = 32;
  using Digest = std::array<std::uint8_t, kDigest>;

  Sha256() noexcept;
  ~Sha256();  // wipes the state: it may hold a key's padding
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(std::span<const std::uint8_t> bytes) noexcept;
  /* The digest of everything updated; the object is spent after it. */
  Digest finish() noexcept;

  static Digest of(std::span<const std::uint8_t> bytes) noexcept {
    Sha256 h;
    h.update(bytes);
    return h.finish();
  }

 private:
  void compress(const std::uint8_t* block) noexcept;
  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, kBlock> buffer_{};
  size_t buffered_ = 0;
  std::uint64_t length_ = 0;  // bytes updated so far
};

/* Whether two byte strings of the same length are equal, in a time that
 * does not depend on where they differ. */
bool equal_in_constant_time(const std::uint8_t* a, const std::uint8_t* b, size_t n) noexcept;

/* Overwrites `n` bytes at `p` with zeros in a way the compiler keeps. */
void wipe(void* p, size_t n) noexcept;

}  // namespace orca::oob

#endif
