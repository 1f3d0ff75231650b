// The oob frame decoder (framework/oob/frame_codec.h) fed a byte stream in
// arbitrary pieces, as a socket delivers it.
//
// Input: a mode byte (start phase, max_data, whether payloads are read
// through payload_space()), a count and that many 16-bit piece sizes,
// then the stream. Checks:
//   - the frames and the error do not depend on how the stream was cut
//     (the same stream fed at once gives the same result);
//   - the frames re-encode to exactly the bytes they were decoded from;
//   - a payload buffer never runs far ahead of the bytes that arrived
//     (a header that lies about its length costs nothing);
//   - the sequence numbers and acks of the frames, given to a PeerChannel
//     as the engine does, never break its bookkeeping.
#include "oob/frame_codec.h"
#include "oob/peer_channel.h"

#include "fuzz_input.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace orca::oob {
namespace {

using fuzz::fuzz_require;

struct Outcome {
  std::vector<Frame> frames;
  bool failed = false;
  size_t consumed = 0;  // bytes taken before the error, or all of them
};

// The caller's rule for leaving the handshake phase, as a server does:
// after the client's COMMIT every later frame is established traffic.
void maybe_switch(FrameReader& reader, const std::vector<Frame>& frames, size_t from) {
  for (size_t i = from; i < frames.size(); ++i) {
    if (frames[i].header.type == FrameType::Commit) reader.set_phase(FrameReader::Phase::Established);
  }
}

// Feeds one piece as a connection would: feed_some() until it is taken,
// switching phase between frames; optionally the payload goes through
// payload_space()/commit_payload(), as a zero-copy reader does.
bool feed_piece(FrameReader& reader, std::span<const std::uint8_t> piece, bool direct, Outcome& out,
                size_t total_input) {
  while (!piece.empty()) {
    if (direct) {
      std::span<std::uint8_t> space = reader.payload_space();
      if (!space.empty()) {
        const size_t n = std::min(space.size(), piece.size());
        std::memcpy(space.data(), piece.data(), n);
        const size_t before = out.frames.size();
        reader.commit_payload(n, out.frames);
        maybe_switch(reader, out.frames, before);
        piece = piece.subspan(n);
        out.consumed += n;
        continue;
      }
    }
    const size_t before = out.frames.size();
    auto taken = reader.feed_some(piece, out.frames);
    if (!taken) {
      out.failed = true;
      return false;
    }
    fuzz_require(taken.value() > 0 && taken.value() <= piece.size(), "feed_some took no bytes or too many");
    maybe_switch(reader, out.frames, before);
    piece = piece.subspan(taken.value());
    out.consumed += taken.value();
    // A payload up to kWholeAtOnce gets its whole buffer with its header
    // (an authenticated peer's frame); beyond that, the buffer grows with
    // the bytes.
    fuzz_require(reader.payload_capacity() <= 2 * total_input + std::max<size_t>(64u << 10, FrameReader::kWholeAtOnce),
                 "a payload buffer grew ahead of the bytes that arrived");
  }
  return true;
}

void check_same(const Outcome& a, const Outcome& b) {
  fuzz_require(a.failed == b.failed, "cutting the stream differently changed whether it failed");
  fuzz_require(a.frames.size() == b.frames.size(), "cutting the stream differently changed the frames");
  for (size_t i = 0; i < a.frames.size(); ++i) {
    const FrameHeader& x = a.frames[i].header;
    const FrameHeader& y = b.frames[i].header;
    fuzz_require(x.type == y.type && x.tag == y.tag && x.seq == y.seq && x.ack == y.ack && x.length == y.length,
                 "cutting the stream differently changed a header");
    fuzz_require(a.frames[i].payload == b.frames[i].payload, "cutting the stream differently changed a payload");
  }
}

// Decoded frames are canonical: re-encoding them gives back the stream.
void check_reencodes(const Outcome& o, std::span<const std::uint8_t> stream) {
  size_t pos = 0;
  for (const Frame& f : o.frames) {
    fuzz_require(f.payload.size() == f.header.length, "a frame's payload is not its header's length");
    std::uint8_t header[kHeaderSize];
    encode_header(f.header, header);
    fuzz_require(pos + kHeaderSize + f.payload.size() <= stream.size(), "more frames than bytes");
    fuzz_require(std::memcmp(header, stream.data() + pos, kHeaderSize) == 0, "a header does not re-encode");
    pos += kHeaderSize;
    fuzz_require(f.payload.empty() || std::memcmp(f.payload.data(), stream.data() + pos, f.payload.size()) == 0,
                 "a payload is not the bytes that carried it");
    pos += f.payload.size();
  }
}

// The engine's use of what a peer's frames claim.
void drive_channel(const std::vector<Frame>& frames) {
  PeerChannel channel(1u << 20);
  for (std::uint32_t t = 1; t <= 3; ++t) (void)channel.enqueue(t, std::vector<std::uint8_t>(t));
  channel.restart_from(0);
  for (const Frame& f : frames) {
    channel.acknowledge(f.header.ack);
    if (f.header.type == FrameType::Data) {
      const std::uint64_t before = channel.delivered();
      const auto arrival = channel.on_data(f.header.seq, f.payload.size());
      if (arrival == PeerChannel::Arrival::Duplicate) channel.peer_missed_ack(f.header.seq);
      fuzz_require(channel.delivered() == before + (arrival == PeerChannel::Arrival::Deliver ? 1 : 0),
                   "delivered() moved other than by one delivery");
    }
    if (const OutgoingMessage* m = channel.next_to_send()) {
      fuzz_require(m->seq >= 1 && m->seq <= 3, "next_to_send() points outside the queue");
      channel.mark_sent();
    }
    fuzz_require(channel.unacknowledged() <= 3, "acknowledge() grew the queue");
  }
}

constexpr std::uint64_t kMaxData[] = {16, 1024, 1u << 20, 1u << 24};

}  // namespace
}  // namespace orca::oob

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  using namespace orca::oob;
  orca::fuzz::FuzzInput in(data, size);
  const std::uint8_t mode = in.byte();
  const auto phase = (mode & 1) ? FrameReader::Phase::Handshake : FrameReader::Phase::Established;
  const std::uint64_t max_data = kMaxData[(mode >> 1) & 3];
  const bool direct = (mode & 8) != 0;
  std::vector<size_t> cuts;
  for (int n = in.byte() % 16; n > 0; --n) cuts.push_back(std::max<size_t>(1, in.u16() % 4096));
  if (cuts.empty()) cuts.push_back(size);
  const auto stream = in.rest();

  FrameReader whole_reader(max_data, "oob_tcp_max_msg_size", phase);
  Outcome whole;
  feed_piece(whole_reader, stream, false, whole, size);

  FrameReader cut_reader(max_data, "oob_tcp_max_msg_size", phase);
  Outcome cut;
  size_t pos = 0;
  for (size_t i = 0; pos < stream.size(); ++i) {
    const size_t n = std::min(cuts[i % cuts.size()], stream.size() - pos);
    if (!feed_piece(cut_reader, stream.subspan(pos, n), direct, cut, size)) break;
    pos += n;
  }
  check_same(whole, cut);
  check_reencodes(whole, stream);
  if (whole.failed) {
    // The reader stays failed: a connection must be closed.
    std::vector<Frame> more;
    orca::fuzz::fuzz_require(!whole_reader.feed(stream, more) || stream.empty(), "a failed reader took more bytes");
  }
  drive_channel(whole.frames);
  return 0;
}
