// What every fuzz target shares: reading choices off the front of the
// input, and failing loudly when an invariant breaks.
//
// A target takes its decisions (chunk sizes, modes, which frame to
// tamper with) from the input bytes themselves, so that libFuzzer can
// mutate them like the rest and a saved crash input replays exactly.
#ifndef ORCA_TEST_FUZZ_FUZZ_INPUT_H
#define ORCA_TEST_FUZZ_FUZZ_INPUT_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string_view>

namespace orca::fuzz {

/* A cursor over the input. Reading past the end yields zeros and empty
 * spans, never an error: every input is a valid script. */
class FuzzInput {
 public:
  FuzzInput(const std::uint8_t* data, std::size_t size) : bytes_(data, size) {}

  bool empty() const noexcept { return bytes_.empty(); }
  std::size_t size() const noexcept { return bytes_.size(); }

  std::uint8_t byte() noexcept {
    if (bytes_.empty()) return 0;
    const std::uint8_t b = bytes_.front();
    bytes_ = bytes_.subspan(1);
    return b;
  }
  std::uint16_t u16() noexcept { return static_cast<std::uint16_t>(byte() << 8 | byte()); }
  /* Up to `n` bytes from the front. */
  std::span<const std::uint8_t> take(std::size_t n) noexcept {
    const std::size_t k = std::min(n, bytes_.size());
    auto out = bytes_.first(k);
    bytes_ = bytes_.subspan(k);
    return out;
  }
  std::span<const std::uint8_t> rest() noexcept { return take(bytes_.size()); }
  std::string_view rest_text() noexcept {
    const auto r = rest();
    return {reinterpret_cast<const char*>(r.data()), r.size()};
  }

 private:
  std::span<const std::uint8_t> bytes_;
};

inline std::string_view as_text(std::span<const std::uint8_t> b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

/* An invariant of the code under test broke: say which, then abort so
 * that libFuzzer (or the corpus replay) records the input. */
[[noreturn]] inline void fuzz_fail(const char* what) {
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
  std::abort();
}

inline void fuzz_require(bool holds, const char* what) {
  if (!holds) fuzz_fail(what);
}

}  // namespace orca::fuzz

#endif
