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
// anything is allocated for it.
#ifndef ORCA_OOB_FRAME_CODEC_H
#define ORCA_OOB_FRAME_CODEC_H

#include <orca/result.h>

#include <cstddef>
#include <cstdint>
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
  Accept = 7,
  Refuse = 8,
};

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
 * rest (Ack and Heartbeat carry none). The error says which. */
Result<FrameHeader> decode_header(const std::uint8_t in[kHeaderSize], std::uint64_t max_data,
                                  std::string_view limit_variable = "oob_tcp_max_msg_size");

struct Frame {
  FrameHeader header;
  std::vector<std::uint8_t> payload;
};

/* Reassembles frames from a byte stream fed in arbitrary pieces. */
class FrameReader {
 public:
  /* `limit_variable` names the variable that sets max_data, for errors. */
  explicit FrameReader(std::uint64_t max_data, std::string limit_variable = "oob_tcp_max_msg_size")
      : max_data_(max_data), limit_variable_(std::move(limit_variable)) {}

  /* Appends bytes; complete frames go to `out`. An error leaves the
   * reader unusable: the connection must be closed. */
  Status feed(std::span<const std::uint8_t> bytes, std::vector<Frame>& out);

  /* Where the rest of the payload being read goes (empty between frames):
   * a caller may read a large payload straight into place, then commit. */
  std::span<std::uint8_t> payload_space() noexcept {
    return in_payload_ ? std::span<std::uint8_t>(current_.payload).subspan(filled_) : std::span<std::uint8_t>();
  }
  /* `n` bytes were written into payload_space(); a completed frame goes to `out`. */
  void commit_payload(size_t n, std::vector<Frame>& out);

 private:
  std::uint64_t max_data_;
  std::string limit_variable_;
  std::uint8_t header_[kHeaderSize] = {};
  size_t header_filled_ = 0;
  bool in_payload_ = false;
  Frame current_;
  size_t filled_ = 0;
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
