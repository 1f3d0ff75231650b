// Frame header codec and the incremental FrameReader.
#include "oob/frame_codec.h"

#include <algorithm>
#include <cstring>

namespace orca::oob {

void put_u16(std::vector<std::uint8_t>& out, std::uint16_t v) {
  out.push_back(static_cast<std::uint8_t>(v >> 8));
  out.push_back(static_cast<std::uint8_t>(v));
}
void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<std::uint8_t>(v >> s));
}
void put_u64(std::vector<std::uint8_t>& out, std::uint64_t v) {
  for (int s = 56; s >= 0; s -= 8) out.push_back(static_cast<std::uint8_t>(v >> s));
}
std::uint16_t get_u16(const std::uint8_t* p) { return static_cast<std::uint16_t>(p[0] << 8 | p[1]); }
std::uint32_t get_u32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} << 24 | std::uint32_t{p[1]} << 16 | std::uint32_t{p[2]} << 8 | p[3];
}
std::uint64_t get_u64(const std::uint8_t* p) { return std::uint64_t{get_u32(p)} << 32 | get_u32(p + 4); }

namespace {
void store_u32(std::uint8_t* p, std::uint32_t v) {
  p[0] = static_cast<std::uint8_t>(v >> 24);
  p[1] = static_cast<std::uint8_t>(v >> 16);
  p[2] = static_cast<std::uint8_t>(v >> 8);
  p[3] = static_cast<std::uint8_t>(v);
}
void store_u64(std::uint8_t* p, std::uint64_t v) {
  store_u32(p, static_cast<std::uint32_t>(v >> 32));
  store_u32(p + 4, static_cast<std::uint32_t>(v));
}
Message bad_frame(std::string why) { return Message("oob", "bad-frame", {{"why", std::move(why)}}); }
}  // namespace

void encode_header(const FrameHeader& h, std::uint8_t out[kHeaderSize]) {
  out[0] = static_cast<std::uint8_t>(h.type);
  out[1] = 0;
  out[2] = 0;
  out[3] = 0;
  store_u32(out + 4, h.tag);
  store_u64(out + 8, h.seq);
  store_u64(out + 16, h.ack);
  store_u32(out + 24, h.length);
}

Result<FrameHeader> decode_header(const std::uint8_t in[kHeaderSize], std::uint64_t max_data,
                                  std::string_view limit_variable) {
  FrameHeader h;
  const std::uint8_t type = in[0];
  if (type < static_cast<std::uint8_t>(FrameType::Data) || type > static_cast<std::uint8_t>(FrameType::Commit))
    return bad_frame("unknown frame type " + std::to_string(type));
  if (in[1] != 0 || in[2] != 0 || in[3] != 0) return bad_frame("reserved header bytes are not zero");
  h.type = static_cast<FrameType>(type);
  h.tag = get_u32(in + 4);
  h.seq = get_u64(in + 8);
  h.ack = get_u64(in + 16);
  h.length = get_u32(in + 24);
  if (h.type == FrameType::Data) {
    if (h.length > max_data) {
      return bad_frame("a message of " + std::to_string(h.length) + " bytes is larger than " + std::string(limit_variable) + " (" +
                       std::to_string(max_data) + ")");
    }
    if (h.seq == 0) return bad_frame("a data frame without a sequence number");
  } else if (h.type == FrameType::Ack || h.type == FrameType::Heartbeat || h.type == FrameType::Commit) {
    if (h.length != 0) return bad_frame("an ack, heartbeat or commit frame with a payload");
  } else if (h.length > kMaxControlPayload) {
    return bad_frame("a handshake frame of " + std::to_string(h.length) + " bytes");
  }
  return h;
}

namespace {
// The first step of a payload buffer; later steps double with what arrived.
constexpr size_t kMinGrowStep = 64u << 10;
}  // namespace

std::span<std::uint8_t> FrameReader::payload_space() {
  if (!in_payload_) return {};
  PayloadBytes& p = current_.payload;
  const size_t length = current_.header.length;
  if (filled_ == p.size() && p.size() < length) {
    // A payload of up to kWholeAtOnce gets its buffer at once: growing it
    // copied and refilled a 1 MiB message four times (0.84x raw TCP).
    // Larger ones grow by what arrived so far (at least a first step, at
    // most kMaxGrowStep): the copies stay linear and the buffer never runs
    // more than one step ahead of the bytes.
    const size_t step = length <= kWholeAtOnce ? length : std::clamp(filled_, kMinGrowStep, kMaxGrowStep);
    const size_t want = std::min<size_t>(length, filled_ + step);
    p.reserve(want);  // exactly this much: resize alone may double
    p.resize(want);
  }
  return std::span<std::uint8_t>(p).subspan(filled_);
}

void FrameReader::finish_if_complete(std::vector<Frame>& out) {
  if (!in_payload_ || filled_ < current_.header.length) return;
  out.push_back(std::move(current_));
  current_ = Frame{};
  filled_ = 0;
  in_payload_ = false;
}

void FrameReader::commit_payload(size_t n, std::vector<Frame>& out) {
  if (!in_payload_) return;
  filled_ += std::min(n, current_.payload.size() - filled_);
  finish_if_complete(out);
}

Result<size_t> FrameReader::feed_some(std::span<const std::uint8_t> bytes, std::vector<Frame>& out) {
  if (failed_) return bad_frame("the stream failed earlier");
  size_t pos = 0;
  while (pos < bytes.size()) {
    if (!in_payload_) {
      const size_t take = std::min(kHeaderSize - header_filled_, bytes.size() - pos);
      std::memcpy(header_ + header_filled_, bytes.data() + pos, take);
      header_filled_ += take;
      pos += take;
      if (header_filled_ < kHeaderSize) break;
      header_filled_ = 0;
      auto h = decode_header(header_, max_data_, limit_variable_);
      if (h && phase_ == Phase::Handshake && !is_handshake_frame(h->type)) {
        h = bad_frame("traffic before the handshake finished");
      }
      if (!h) {
        failed_ = true;
        return h.error();
      }
      current_.header = h.value();
      filled_ = 0;
      in_payload_ = true;
    }
    std::span<std::uint8_t> space = payload_space();
    const size_t take = std::min(space.size(), bytes.size() - pos);
    if (take > 0) std::memcpy(space.data(), bytes.data() + pos, take);
    filled_ += take;
    pos += take;
    const size_t before = out.size();
    finish_if_complete(out);
    if (phase_ == Phase::Handshake && out.size() > before) break;
  }
  return pos;
}

Status FrameReader::feed(std::span<const std::uint8_t> bytes, std::vector<Frame>& out) {
  if (failed_) return bad_frame("the stream failed earlier");
  while (!bytes.empty()) {
    auto taken = feed_some(bytes, out);
    if (!taken) return taken.error();
    bytes = bytes.subspan(taken.value());
  }
  return {};
}

}  // namespace orca::oob
