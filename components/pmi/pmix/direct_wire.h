// The bytes pmi/pmix sends between daemons for a direct modex: a request
// for one rank's data, sent to the daemon that runs the rank, and the
// response (libpmix's blob for that rank, or the error status).
//   request:  u8 1, u64 id, u32 rank
//   response: u8 2, u64 id, i32 status, the blob (the rest)
// Integers big-endian. Decoding is strict (exact lengths).
#ifndef ORCA_COMPONENTS_PMI_PMIX_DIRECT_WIRE_H
#define ORCA_COMPONENTS_PMI_PMIX_DIRECT_WIRE_H

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace orca::pmi {

struct DirectRequest {
  std::uint64_t id = 0;
  std::uint32_t rank = 0;
};
struct DirectResponse {
  std::uint64_t id = 0;
  std::int32_t status = 0;
  std::string blob;
};
using DirectMessage = std::variant<DirectRequest, DirectResponse>;

std::vector<std::uint8_t> encode_direct(const DirectMessage& message);
/* Nothing for bytes that are not exactly one message. */
std::optional<DirectMessage> decode_direct(std::span<const std::uint8_t> bytes);

}  // namespace orca::pmi

#endif
