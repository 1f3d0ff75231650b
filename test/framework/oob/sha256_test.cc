// Sha256 against FIPS 180-4's examples and against libcrypto's SHA-256,
// which the tests link for this purpose only.
#include "oob/sha256.h"

#include "lib/hex_text.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace orca::oob {
namespace {

std::string hex(const Sha256::Digest& d) { return test::hex_of(d); }

std::span<const std::uint8_t> bytes(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

Sha256::Digest libcrypto_sha256(std::span<const std::uint8_t> data) {
  Sha256::Digest out{};
  unsigned int len = 0;
  EXPECT_EQ(EVP_Digest(data.data(), data.size(), out.data(), &len, EVP_sha256(), nullptr), 1);
  EXPECT_EQ(len, out.size());
  return out;
}

TEST(Sha256, Fips180Examples) {
  EXPECT_EQ(hex(Sha256::of(bytes(""))), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(hex(Sha256::of(bytes("abc"))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hex(Sha256::of(bytes("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"))),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  // A million 'a', given in uneven pieces.
  Sha256 h;
  const std::string piece(997, 'a');
  size_t left = 1000000;
  while (left > 0) {
    const size_t n = std::min(left, piece.size());
    h.update(bytes(std::string_view(piece).substr(0, n)));
    left -= n;
  }
  EXPECT_EQ(hex(h.finish()), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, AgreesWithLibcryptoOnEveryLengthAroundTheBlocksAndEverySplit) {
  std::uint32_t seed = 7;
  auto next = [&seed] { return static_cast<std::uint8_t>((seed = seed * 1103515245u + 12345u) >> 16); };
  std::vector<std::uint8_t> data(300);
  for (auto& b : data) b = next();
  for (size_t n = 0; n <= data.size(); ++n) {
    const std::span<const std::uint8_t> all(data.data(), n);
    const Sha256::Digest want = libcrypto_sha256(all);
    ASSERT_EQ(Sha256::of(all), want) << n << " bytes";
    // Split in three anywhere that matters: inside, at and across blocks.
    for (size_t a : {size_t{0}, size_t{1}, size_t{55}, size_t{56}, size_t{63}, size_t{64}, size_t{65}}) {
      if (a > n) continue;
      const size_t b = a + (n - a) / 2;
      Sha256 h;
      h.update(all.subspan(0, a));
      h.update(all.subspan(a, b - a));
      h.update(all.subspan(b));
      ASSERT_EQ(h.finish(), want) << n << " bytes split at " << a << " and " << b;
    }
  }
}

TEST(Sha256, EmptyUpdatesChangeNothing) {
  // An empty span with no data pointer at all, before, between and after.
  const std::span<const std::uint8_t> none;
  Sha256 h;
  h.update(none);
  h.update(bytes("ab"));
  h.update(none);
  h.update(bytes("c"));
  h.update(none);
  EXPECT_EQ(hex(h.finish()), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(ConstantTimeEqual, TellsEqualFromDifferentAnywhere) {
  std::vector<std::uint8_t> a(32, 0x5a), b = a;
  EXPECT_TRUE(equal_in_constant_time(a.data(), b.data(), a.size()));
  EXPECT_TRUE(equal_in_constant_time(a.data(), b.data(), 0));
  for (size_t i = 0; i < a.size(); ++i) {
    b = a;
    b[i] ^= 0x01;
    EXPECT_FALSE(equal_in_constant_time(a.data(), b.data(), a.size())) << "differs at " << i;
  }
}

TEST(Wipe, ZeroesEveryByte) {
  std::vector<std::uint8_t> secret(77, 0xee);
  wipe(secret.data(), secret.size());
  EXPECT_EQ(secret, std::vector<std::uint8_t>(77, 0));
}

}  // namespace
}  // namespace orca::oob
