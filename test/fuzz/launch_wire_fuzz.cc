// The launcher's wire messages (launch::decode,
// framework/launch/launch_wire.h): the bootstrap, wire-up reports, launch
// commands, output chunks, exit records, teardown, signals, stdin data and
// credit, daemon failures, as orcarun and orcad receive them from each
// other over the oob.
//
// Checks: a message that decodes encodes back to exactly the bytes it
// came from (the encoding is canonical: strict booleans and streams,
// exact lengths, no trailing bytes), so decode(encode(m)) == m for every
// m a peer can make us decode.
#include "launch/launch_wire.h"

#include "fuzz_input.h"

#include <algorithm>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  using namespace orca::launch;
  using orca::fuzz::fuzz_require;
  const std::span<const std::uint8_t> bytes(data, size);
  auto message = decode(bytes);
  if (!message) {
    fuzz_require(!message.error().arg("field").empty(), "a malformed message without the field that is bad");
    return 0;
  }
  (void)kind_name(message.value());
  auto again = encode(message.value());
  fuzz_require(again.ok(), "a decoded message does not encode");
  fuzz_require(again.value().size() == size && std::equal(bytes.begin(), bytes.end(), again.value().begin()),
               "a decoded message encodes to other bytes");
  return 0;
}
