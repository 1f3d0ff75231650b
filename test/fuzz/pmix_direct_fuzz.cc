// pmi/pmix's direct modex messages (components/pmi/pmix/direct_wire.h):
// what one daemon's PMIx server sends another's, decoded by the daemon of
// the rank asked about and by the one that asked.
//
// Checks: bytes that decode encode back to exactly themselves (the format
// has one spelling), and a request is exactly 13 bytes.
#include "pmi/pmix/direct_wire.h"

#include "fuzz_input.h"

#include <algorithm>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  using namespace orca::pmi;
  using orca::fuzz::fuzz_require;
  const std::span<const std::uint8_t> bytes(data, size);
  auto message = decode_direct(bytes);
  if (!message) return 0;
  if (std::holds_alternative<DirectRequest>(*message)) fuzz_require(size == 13, "a request that is not 13 bytes");
  const auto again = encode_direct(*message);
  fuzz_require(again.size() == size && std::equal(again.begin(), again.end(), data), "a message does not encode back to itself");
  return 0;
}
