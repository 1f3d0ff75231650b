// Direct modex messages: fixed fields, then the blob.
#include "direct_wire.h"

namespace orca::pmi {

namespace {
void put(std::vector<std::uint8_t>& out, std::uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
std::uint64_t get(std::span<const std::uint8_t> in, size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = v << 8 | in[at + static_cast<size_t>(i)];
  return v;
}
}  // namespace

std::vector<std::uint8_t> encode_direct(const DirectMessage& message) {
  std::vector<std::uint8_t> out;
  if (const auto* r = std::get_if<DirectRequest>(&message)) {
    out.push_back(1);
    put(out, r->id, 8);
    put(out, r->rank, 4);
  } else {
    const auto& s = std::get<DirectResponse>(message);
    out.push_back(2);
    put(out, s.id, 8);
    put(out, static_cast<std::uint32_t>(s.status), 4);
    out.insert(out.end(), s.blob.begin(), s.blob.end());
  }
  return out;
}

std::optional<DirectMessage> decode_direct(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < 13) return std::nullopt;
  const std::uint64_t id = get(bytes, 1, 8);
  const auto word = static_cast<std::uint32_t>(get(bytes, 9, 4));
  if (bytes[0] == 1 && bytes.size() == 13) return DirectRequest{.id = id, .rank = word};
  if (bytes[0] == 2) {
    return DirectResponse{.id = id,
                          .status = static_cast<std::int32_t>(word),
                          .blob = std::string(reinterpret_cast<const char*>(bytes.data()) + 13, bytes.size() - 13)};
  }
  return std::nullopt;
}

}  // namespace orca::pmi
