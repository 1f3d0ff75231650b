// The oob stream wire format, shared by every stream component (tcp,
// usock). Not public API: components use the Engine (oob_engine.h).
//
// A stream carries frames. Every frame starts with a 28-byte header, all
// integers big-endian:
//   u8  type    (FrameType)
//   u8  flags   (0; reserved)
//   u16 zero    (reserved)
//   u32 tag     (Data: the receiver's callback tag)
//   u64 seq     (Data: sequence number from 1; Ack: unused)
//   u64 ack     (cumulative: every Data frame of the other direction up
//                to here was delivered; on every frame)
//   u32 length  (payload bytes that follow)
// The payload length is checked against the limit for its type before
// anything is allocated for it, and even a length within the limit is
// not believed: the payload buffer grows with the bytes that arrive.
#ifndef ORCA_OOB_FRAME_CODEC_H
#define ORCA_OOB_FRAME_CODEC_H

#include <orca/result.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <utility>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace orca::oob {

enum class FrameType : std::uint8_t {
  Data = 1,
  Ack = 2,
  Heartbeat = 3,
  Hello = 4,
  Challenge = 5,
  Response = 6,
  Accept = 7,  // protocol 2's answer to a RESPONSE; protocol 3 sends none (a handshake refuses it)
  Refuse = 8,
  Commit = 9,  // client -> server with its RESPONSE: this connection is the one it keeps
};

/* Handshake frames, the only ones a connection takes before the peer has
 * proven the secret. */
constexpr bool is_handshake_frame(FrameType t) noexcept {
  return t != FrameType::Data && t != FrameType::Ack && t != FrameType::Heartbeat;
}

inline constexpr size_t kHeaderSize = 28;
/* Handshake frames are small; anything larger is hostile. */
inline constexpr std::uint32_t kMaxControlPayload = 1024;

struct FrameHeader {
  FrameType type = FrameType::Data;
  std::uint32_t tag = 0;
  std::uint64_t seq = 0;
  std::uint64_t ack = 0;
  std::uint32_t length = 0;
};

void encode_header(const FrameHeader& header, std::uint8_t out[kHeaderSize]);

/* Decodes and validates a header: known type, reserved bytes zero, length
 * within `max_data` for Data frames and within kMaxControlPayload for the
 * rest (Ack, Heartbeat and Commit carry none). The error says which. */
Result<FrameHeader> decode_header(const std::uint8_t in[kHeaderSize], std::uint64_t max_data,
                                  std::string_view limit_variable);

/* Growth leaves the new bytes uninitialized: a received payload is
 * overwritten by recv or memcpy at once, and zeroing it first was ~12% of
 * a receiver's CPU on 64 KiB messages. */
template <class T>
struct UninitializedAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <class U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;  // default-initialized: no zeroing
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
using PayloadBytes = std::vector<std::uint8_t, UninitializedAllocator<std::uint8_t>>;
/* Same bytes, whichever allocator holds them. */
inline bool operator==(const PayloadBytes& a, const std::vector<std::uint8_t>& b) noexcept {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

struct Frame {
  FrameHeader header;
  PayloadBytes payload;
};

/* Reassembles frames from a byte stream fed in arbitrary pieces.
 *
 * In the Handshake phase only handshake frames are taken (anything else
 * fails at its header, before a byte of payload is read) and feed_some()
 * stops after each complete frame, so that the caller can run the
 * handshake and switch phase before the bytes behind it are decoded.
 * In the Established phase Data frames up to `max_data` are taken; their
 * payload buffer is whole at once up to kWholeAtOnce and beyond that grows
 * as bytes arrive (never more than what arrived plus kMaxGrowStep), so a
 * header that lies about its length costs little. */
class FrameReader {
 public:
  enum class Phase { Handshake, Established };
  /* Largest single growth of a payload buffer. */
  static constexpr size_t kMaxGrowStep = 8u << 20;
  /* Payloads up to this size get their whole buffer when their header
   * arrives (within the bound above: a liar costs at most this). */
  static constexpr size_t kWholeAtOnce = 1u << 20;

  /* `limit_variable` names the owning component's variable that sets
   * max_data ("oob_tcp_max_msg_size"), for errors. */
  FrameReader(std::uint64_t max_data, std::string limit_variable, Phase phase = Phase::Established)
      : max_data_(max_data), limit_variable_(std::move(limit_variable)), phase_(phase) {}

  void set_phase(Phase phase) noexcept { phase_ = phase; }
  Phase phase() const noexcept { return phase_; }

  /* Takes bytes from the front of `bytes`; complete frames go to `out`.
   * Returns how many bytes it took: all of them, except in the Handshake
   * phase, where it stops after the first complete frame. An error leaves
   * the reader unusable: the connection must be closed. */
  Result<size_t> feed_some(std::span<const std::uint8_t> bytes, std::vector<Frame>& out);
  /* feed_some() until every byte is taken; for callers that do not change
   * the phase between frames. */
  Status feed(std::span<const std::uint8_t> bytes, std::vector<Frame>& out);

  /* Where the next payload bytes go (empty between frames): a caller may
   * read a large payload straight into place, then commit. It grows the
   * buffer by at most one step; it is never larger than what is missing. */
  std::span<std::uint8_t> payload_space();
  /* Header bytes still missing before the next payload (0 inside one). */
  size_t header_missing() const noexcept { return in_payload_ ? 0 : kHeaderSize - header_filled_; }
  /* Payload length of the frame being read (0 between frames). */
  size_t payload_length() const noexcept { return in_payload_ ? current_.header.length : 0; }
  /* `n` bytes were written into payload_space(); a completed frame goes to `out`. */
  void commit_payload(size_t n, std::vector<Frame>& out);

  /* Bytes held for the payload being read (for tests of the bound). */
  size_t payload_capacity() const noexcept { return current_.payload.capacity(); }

 private:
  void finish_if_complete(std::vector<Frame>& out);

  std::uint64_t max_data_;
  std::string limit_variable_;
  Phase phase_;
  std::uint8_t header_[kHeaderSize] = {};
  size_t header_filled_ = 0;
  bool in_payload_ = false;
  Frame current_;
  size_t filled_ = 0;  // payload bytes that arrived
  bool failed_ = false;
};

/* Big-endian helpers for payload codecs. */
void put_u16(std::vector<std::uint8_t>& out, std::uint16_t v);
void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v);
void put_u64(std::vector<std::uint8_t>& out, std::uint64_t v);
std::uint16_t get_u16(const std::uint8_t* p);
std::uint32_t get_u32(const std::uint8_t* p);
std::uint64_t get_u64(const std::uint8_t* p);

}  // namespace orca::oob

#endif
