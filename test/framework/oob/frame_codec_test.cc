// The oob frame header codec, the incremental FrameReader and the
// big-endian payload helpers (framework/oob/frame_codec.h).
#include "oob/frame_codec.h"

#include <gtest/gtest.h>

#include "lib/expect_text.h"
#include "lib/result_assertions.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <new>
#include <random>
#include <span>
#include <string>
#include <vector>

// --- allocation probe ----------------------------------------------------------
// The global operator new of this test program is replaced so that a test
// can see the largest single allocation made while it runs: the reader must
// reject an oversize length before it allocates anything for the payload.
namespace {

// The variable these tests say sets the limit, as oob/tcp would.
constexpr const char* kLimitVariable = "oob_tcp_max_msg_size";
std::atomic<std::size_t> g_largest_allocation{0};

void note_allocation(std::size_t size) {
  std::size_t seen = g_largest_allocation.load(std::memory_order_relaxed);
  while (size > seen && !g_largest_allocation.compare_exchange_weak(seen, size, std::memory_order_relaxed)) {
  }
}
}  // namespace

// Out of line, so that the compiler does not see a free() of memory that
// came from new (-Wmismatched-new-delete) where these get inlined.
__attribute__((noinline)) void* operator new(std::size_t size) {
  note_allocation(size);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
__attribute__((noinline)) void* operator new[](std::size_t size) { return ::operator new(size); }
__attribute__((noinline)) void operator delete(void* p) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete[](void* p) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete(void* p, std::size_t) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace orca::oob {
namespace {

using test::Contains;
using test::FailedWith;
using test::Succeeded;

constexpr std::uint64_t k64MiB = std::uint64_t{64} << 20;
constexpr std::uint64_t kMaxU64 = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint32_t kMaxU32 = std::numeric_limits<std::uint32_t>::max();

using Bytes = std::vector<std::uint8_t>;

Bytes header_bytes(const FrameHeader& h) {
  Bytes out(kHeaderSize);
  encode_header(h, out.data());
  return out;
}

/* A whole frame on the wire; header.length is taken from the payload. */
Bytes wire(FrameHeader h, const Bytes& payload) {
  h.length = static_cast<std::uint32_t>(payload.size());
  Bytes out = header_bytes(h);
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

FrameHeader header(FrameType type, std::uint32_t tag, std::uint64_t seq, std::uint64_t ack, std::uint32_t length) {
  FrameHeader h;
  h.type = type;
  h.tag = tag;
  h.seq = seq;
  h.ack = ack;
  h.length = length;
  return h;
}

Bytes pattern(size_t n, std::uint8_t start) {
  Bytes b(n);
  for (size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(start + 7 * i);
  return b;
}

void expect_same_header(const FrameHeader& got, const FrameHeader& want) {
  EXPECT_EQ(got.type, want.type);
  EXPECT_EQ(got.tag, want.tag);
  EXPECT_EQ(got.seq, want.seq);
  EXPECT_EQ(got.ack, want.ack);
  EXPECT_EQ(got.length, want.length);
}

/* The "why" of a bad-frame error, after checking area and topic. */
std::string bad_frame_why(const Result<FrameHeader>& r) {
  EXPECT_TRUE(FailedWith(r, "oob", "bad-frame"));
  return r.ok() ? std::string() : r.error().arg("why");
}

// --- encode / decode -------------------------------------------------------------

TEST(FrameHeaderCodec, HeaderIs28Bytes) { EXPECT_EQ(kHeaderSize, 28u); }

TEST(FrameHeaderCodec, BigEndianLayoutByteByByte) {
  const FrameHeader h = header(FrameType::Data, 0x01020304u, 0x1112131415161718ull, 0x2122232425262728ull, 0x31);
  const std::array<std::uint8_t, 28> expected = {
      0x01,                                            // type Data
      0x00,                                            // flags
      0x00, 0x00,                                      // reserved
      0x01, 0x02, 0x03, 0x04,                          // tag
      0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18,  // seq
      0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28,  // ack
      0x00, 0x00, 0x00, 0x31,                          // length
  };
  const Bytes got = header_bytes(h);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(got[i], expected[i]) << "byte " << i;

  auto back = decode_header(expected.data(), 1024, kLimitVariable);
  ASSERT_TRUE(Succeeded(back));
  expect_same_header(back.value(), h);
}

TEST(FrameHeaderCodec, MaximumValuesLayoutAndRoundTrip) {
  const FrameHeader h = header(FrameType::Data, kMaxU32, kMaxU64, kMaxU64, kMaxU32);
  std::array<std::uint8_t, 28> expected{};
  expected.fill(0xFF);
  expected[0] = 0x01;
  expected[1] = expected[2] = expected[3] = 0x00;
  const Bytes got = header_bytes(h);
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(got[i], expected[i]) << "byte " << i;

  auto back = decode_header(got.data(), kMaxU64, kLimitVariable);
  ASSERT_TRUE(Succeeded(back));
  expect_same_header(back.value(), h);
}

TEST(FrameHeaderCodec, EncodeOverwritesEveryByte) {
  // A buffer full of garbage must come out exactly as the layout says:
  // the reserved bytes are written as zero, not left alone.
  std::uint8_t out[kHeaderSize];
  std::fill(std::begin(out), std::end(out), 0xAB);
  encode_header(header(FrameType::Ack, 0, 0, 5, 0), out);
  const std::array<std::uint8_t, 28> expected = {0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                                 0,    0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0};
  for (size_t i = 0; i < kHeaderSize; ++i) EXPECT_EQ(out[i], expected[i]) << "byte " << i;
}

TEST(FrameHeaderCodec, RoundTripOfEveryTypeAndField) {
  struct Case {
    FrameType type;
    std::uint32_t length;
  };
  const Case cases[] = {{FrameType::Data, 4096},     {FrameType::Ack, 0},
                        {FrameType::Heartbeat, 0},   {FrameType::Hello, kMaxControlPayload},
                        {FrameType::Challenge, 80},  {FrameType::Response, 32},
                        {FrameType::Accept, 0},      {FrameType::Refuse, 1}};
  for (const Case& c : cases) {
    for (std::uint64_t v : {std::uint64_t{1}, std::uint64_t{0x0102030405060708ull}, kMaxU64}) {
      const FrameHeader h = header(c.type, static_cast<std::uint32_t>(v * 3), v, v - 1, c.length);
      const Bytes b = header_bytes(h);
      EXPECT_EQ(b[0], static_cast<std::uint8_t>(c.type));
      auto back = decode_header(b.data(), 4096, kLimitVariable);
      ASSERT_TRUE(Succeeded(back)) << "type " << int(c.type) << " v " << v;
      expect_same_header(back.value(), h);
    }
  }
}

TEST(FrameHeaderCodec, DataLengthExactlyAtTheLimitIsAccepted) {
  const Bytes b = header_bytes(header(FrameType::Data, 0, 1, 0, 1000));
  EXPECT_TRUE(Succeeded(decode_header(b.data(), 1000, kLimitVariable)));
  const Bytes c = header_bytes(header(FrameType::Hello, 0, 0, 0, kMaxControlPayload));
  EXPECT_TRUE(Succeeded(decode_header(c.data(), 0, kLimitVariable)));
}

TEST(FrameHeaderCodec, UnknownTypesAreRejected) {
  for (int type : {0, 10, 11, 127, 128, 255}) {
    Bytes b = header_bytes(header(FrameType::Data, 0, 1, 0, 0));
    b[0] = static_cast<std::uint8_t>(type);
    const std::string why = bad_frame_why(decode_header(b.data(), 1024, kLimitVariable));
    EXPECT_TRUE(Contains(why, "unknown frame type " + std::to_string(type))) << "type " << type;
  }
}

TEST(FrameHeaderCodec, NonZeroReservedBytesAreRejected) {
  for (size_t index : {1u, 2u, 3u}) {
    for (std::uint8_t value : {std::uint8_t{1}, std::uint8_t{0x80}, std::uint8_t{0xFF}}) {
      Bytes b = header_bytes(header(FrameType::Ack, 0, 0, 3, 0));
      b[index] = value;
      const std::string why = bad_frame_why(decode_header(b.data(), 1024, kLimitVariable));
      EXPECT_TRUE(Contains(why, "reserved")) << "byte " << index << " = " << int(value);
    }
  }
}

TEST(FrameHeaderCodec, DataLongerThanMaxDataNamesTheParameter) {
  const Bytes b = header_bytes(header(FrameType::Data, 7, 1, 0, 1001));
  const std::string why = bad_frame_why(decode_header(b.data(), 1000, kLimitVariable));
  EXPECT_TRUE(Contains(why, "oob_tcp_max_msg_size"));
  EXPECT_TRUE(Contains(why, "1001"));
  EXPECT_TRUE(Contains(why, "(1000)"));
}

TEST(FrameHeaderCodec, DataWithMaxLengthAgainst64MiB) {
  const Bytes b = header_bytes(header(FrameType::Data, 0, 1, 0, kMaxU32));
  const std::string why = bad_frame_why(decode_header(b.data(), k64MiB, kLimitVariable));
  EXPECT_TRUE(Contains(why, "oob_tcp_max_msg_size"));
  EXPECT_TRUE(Contains(why, std::to_string(kMaxU32)));
}

TEST(FrameHeaderCodec, DataWithSequenceZeroIsRejected) {
  const Bytes b = header_bytes(header(FrameType::Data, 1, 0, 0, 4));
  const std::string why = bad_frame_why(decode_header(b.data(), 1024, kLimitVariable));
  EXPECT_TRUE(Contains(why, "sequence number"));
}

TEST(FrameHeaderCodec, AckAndHeartbeatWithAPayloadAreRejected) {
  for (FrameType type : {FrameType::Ack, FrameType::Heartbeat}) {
    for (std::uint32_t length : {1u, 28u, kMaxU32}) {
      const Bytes b = header_bytes(header(type, 0, 0, 9, length));
      const std::string why = bad_frame_why(decode_header(b.data(), kMaxU64, kLimitVariable));
      EXPECT_TRUE(Contains(why, "with a payload")) << "type " << int(type) << " length " << length;
    }
  }
}

TEST(FrameHeaderCodec, HandshakeFramesOverTheControlLimitAreRejected) {
  for (FrameType type :
       {FrameType::Hello, FrameType::Challenge, FrameType::Response, FrameType::Accept, FrameType::Refuse}) {
    for (std::uint32_t length : {kMaxControlPayload + 1, kMaxU32}) {
      const Bytes b = header_bytes(header(type, 0, 0, 0, length));
      // max_data does not raise the limit of a control frame
      const std::string why = bad_frame_why(decode_header(b.data(), kMaxU64, kLimitVariable));
      EXPECT_TRUE(Contains(why, "handshake frame of " + std::to_string(length))) << "type " << int(type);
    }
  }
}

// --- FrameReader ---------------------------------------------------------------

struct SampleStream {
  std::vector<FrameHeader> headers;
  std::vector<Bytes> payloads;
  Bytes bytes;
};

/* Three frames of different sizes, one with an empty payload. */
SampleStream three_frames() {
  SampleStream s;
  s.headers = {header(FrameType::Data, 0xCAFEBABE, 1, 0, 0), header(FrameType::Ack, 0, 0, 41, 0),
               header(FrameType::Data, 3, 2, 41, 0)};
  s.payloads = {pattern(37, 1), Bytes{}, pattern(300, 99)};
  for (size_t i = 0; i < s.headers.size(); ++i) {
    s.headers[i].length = static_cast<std::uint32_t>(s.payloads[i].size());
    const Bytes w = wire(s.headers[i], s.payloads[i]);
    s.bytes.insert(s.bytes.end(), w.begin(), w.end());
  }
  return s;
}

void expect_frames(const std::vector<Frame>& got, const SampleStream& want, const std::string& where) {
  ASSERT_EQ(got.size(), want.headers.size()) << where;
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(where + ", frame " + std::to_string(i));
    expect_same_header(got[i].header, want.headers[i]);
    EXPECT_EQ(got[i].payload, want.payloads[i]);
  }
}

TEST(FrameReader, WholeStreamInOnePiece) {
  const SampleStream s = three_frames();
  FrameReader reader(1024, kLimitVariable);
  std::vector<Frame> out;
  ASSERT_TRUE(Succeeded(reader.feed(s.bytes, out)));
  expect_frames(out, s, "one piece");
  EXPECT_EQ(reader.payload_space().size(), 0u);
}

TEST(FrameReader, EmptyFeedDoesNothing) {
  FrameReader reader(1024, kLimitVariable);
  std::vector<Frame> out;
  ASSERT_TRUE(Succeeded(reader.feed({}, out)));
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(reader.payload_space().size(), 0u);
}

TEST(FrameReader, ByteByByte) {
  const SampleStream s = three_frames();
  FrameReader reader(1024, kLimitVariable);
  std::vector<Frame> out;
  // Frame boundaries: a frame must appear exactly when its last byte arrives.
  std::vector<size_t> ends;
  size_t end = 0;
  for (const Bytes& p : s.payloads) ends.push_back(end += kHeaderSize + p.size());
  for (size_t i = 0; i < s.bytes.size(); ++i) {
    ASSERT_TRUE(Succeeded(reader.feed(std::span(&s.bytes[i], 1), out))) << "byte " << i;
    const size_t complete = static_cast<size_t>(std::count_if(ends.begin(), ends.end(), [&](size_t e) { return e <= i + 1; }));
    ASSERT_EQ(out.size(), complete) << "after byte " << i;
  }
  expect_frames(out, s, "byte by byte");
}

TEST(FrameReader, SplitAtEveryOffset) {
  const SampleStream s = three_frames();
  for (size_t split = 0; split <= s.bytes.size(); ++split) {
    FrameReader reader(1024, kLimitVariable);
    std::vector<Frame> out;
    const std::span<const std::uint8_t> all(s.bytes);
    ASSERT_TRUE(Succeeded(reader.feed(all.first(split), out))) << "split " << split;
    ASSERT_TRUE(Succeeded(reader.feed(all.subspan(split), out))) << "split " << split;
    expect_frames(out, s, "split at " + std::to_string(split));
    EXPECT_EQ(reader.payload_space().size(), 0u);
  }
}

TEST(FrameReader, SplitAtEveryPairOfOffsets) {
  const SampleStream s = three_frames();
  const std::span<const std::uint8_t> all(s.bytes);
  for (size_t a = 0; a <= s.bytes.size(); ++a) {
    for (size_t b = a; b <= s.bytes.size(); ++b) {
      FrameReader reader(1024, kLimitVariable);
      std::vector<Frame> out;
      ASSERT_TRUE(Succeeded(reader.feed(all.subspan(0, a), out)));
      ASSERT_TRUE(Succeeded(reader.feed(all.subspan(a, b - a), out)));
      ASSERT_TRUE(Succeeded(reader.feed(all.subspan(b), out)));
      ASSERT_EQ(out.size(), 3u) << "splits " << a << ", " << b;
      for (size_t i = 0; i < 3; ++i) {
        ASSERT_EQ(out[i].payload, s.payloads[i]) << "splits " << a << ", " << b << " frame " << i;
        ASSERT_EQ(out[i].header.seq, s.headers[i].seq);
        ASSERT_EQ(out[i].header.type, s.headers[i].type);
      }
    }
  }
}

TEST(FrameReader, PayloadSpaceShrinksAsBytesArrive) {
  const Bytes f = wire(header(FrameType::Data, 1, 1, 0, 0), pattern(10, 0));
  FrameReader reader(1024, kLimitVariable);
  std::vector<Frame> out;
  const std::span<const std::uint8_t> all(f);
  ASSERT_TRUE(Succeeded(reader.feed(all.first(kHeaderSize - 1), out)));
  EXPECT_EQ(reader.payload_space().size(), 0u);  // still in the header
  ASSERT_TRUE(Succeeded(reader.feed(all.subspan(kHeaderSize - 1, 1), out)));
  EXPECT_EQ(reader.payload_space().size(), 10u);
  ASSERT_TRUE(Succeeded(reader.feed(all.subspan(kHeaderSize, 3), out)));
  EXPECT_EQ(reader.payload_space().size(), 7u);
  EXPECT_TRUE(out.empty());
  ASSERT_TRUE(Succeeded(reader.feed(all.subspan(kHeaderSize + 3), out)));
  EXPECT_EQ(reader.payload_space().size(), 0u);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].payload, pattern(10, 0));
}

TEST(FrameReader, PayloadReadStraightIntoPlace) {
  // A caller reads the header through feed(), then writes the payload into
  // payload_space() in pieces and commits; the frame appears on the last
  // commit, and the next frame is read normally.
  const Bytes payload = pattern(5000, 3);
  const Bytes first = wire(header(FrameType::Data, 9, 1, 4, 0), payload);
  const Bytes second = wire(header(FrameType::Data, 10, 2, 4, 0), pattern(3, 8));
  FrameReader reader(1u << 20, kLimitVariable);
  std::vector<Frame> out;
  ASSERT_TRUE(Succeeded(reader.feed(std::span(first).first(kHeaderSize), out)));
  size_t written = 0;
  for (size_t chunk : {1000u, 1u, 2999u}) {
    std::span<std::uint8_t> space = reader.payload_space();
    ASSERT_EQ(space.size(), payload.size() - written);
    std::copy_n(payload.begin() + static_cast<std::ptrdiff_t>(written), chunk, space.begin());
    reader.commit_payload(chunk, out);
    written += chunk;
    EXPECT_TRUE(out.empty()) << "after " << written;
  }
  // the last 1000 bytes: half direct, half through feed()
  std::span<std::uint8_t> space = reader.payload_space();
  ASSERT_EQ(space.size(), 1000u);
  std::copy_n(payload.begin() + 4000, 500, space.begin());
  reader.commit_payload(500, out);
  EXPECT_TRUE(out.empty());
  ASSERT_TRUE(Succeeded(reader.feed(std::span(first).subspan(kHeaderSize + 4500, 499), out)));
  EXPECT_TRUE(out.empty());
  ASSERT_EQ(reader.payload_space().size(), 1u);
  reader.payload_space()[0] = payload.back();
  reader.commit_payload(1, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].header.tag, 9u);
  EXPECT_EQ(out[0].payload, payload);
  EXPECT_TRUE(reader.payload_space().empty());

  ASSERT_TRUE(Succeeded(reader.feed(second, out)));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].header.seq, 2u);
  EXPECT_EQ(out[1].payload, pattern(3, 8));
}

TEST(FrameReader, PayloadSpaceIsEmptyBetweenFramesAndAfterAnEmptyPayload) {
  FrameReader reader(1024, kLimitVariable);
  std::vector<Frame> out;
  EXPECT_TRUE(reader.payload_space().empty());
  ASSERT_TRUE(Succeeded(reader.feed(wire(header(FrameType::Heartbeat, 0, 0, 1, 0), {}), out)));
  EXPECT_EQ(out.size(), 1u);  // complete with its header, nothing to commit
  EXPECT_TRUE(reader.payload_space().empty());
}

TEST(FrameReader, SaysWhatIsMissingOfTheHeaderAndHowLongThePayloadIs) {
  // What a reader asks before choosing where its next recv goes.
  const Bytes f = wire(header(FrameType::Data, 1, 1, 0, 0), pattern(70000, 2));
  FrameReader reader(1u << 20, kLimitVariable);
  std::vector<Frame> out;
  EXPECT_EQ(reader.header_missing(), kHeaderSize);
  EXPECT_EQ(reader.payload_length(), 0u);
  const std::span<const std::uint8_t> all(f);
  ASSERT_TRUE(Succeeded(reader.feed(all.first(10), out)));
  EXPECT_EQ(reader.header_missing(), kHeaderSize - 10);
  EXPECT_EQ(reader.payload_length(), 0u);
  ASSERT_TRUE(Succeeded(reader.feed(all.subspan(10, kHeaderSize - 10 + 5), out)));
  EXPECT_EQ(reader.header_missing(), 0u);
  EXPECT_EQ(reader.payload_length(), 70000u);  // the whole length, not what is left
  ASSERT_TRUE(Succeeded(reader.feed(all.subspan(kHeaderSize + 5), out)));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(reader.header_missing(), kHeaderSize);
  EXPECT_EQ(reader.payload_length(), 0u);
  // A frame without payload is done with its header.
  ASSERT_TRUE(Succeeded(reader.feed(wire(header(FrameType::Ack, 0, 0, 3, 0), {}), out)));
  EXPECT_EQ(reader.header_missing(), kHeaderSize);
  EXPECT_EQ(reader.payload_length(), 0u);
}

TEST(FrameReader, ManyFramesInOneBuffer) {
  Bytes stream;
  constexpr size_t kFrames = 1000;
  for (size_t i = 0; i < kFrames; ++i) {
    const Bytes w = wire(header(FrameType::Data, static_cast<std::uint32_t>(i), i + 1, i / 2, 0),
                         pattern(i % 53, static_cast<std::uint8_t>(i)));
    stream.insert(stream.end(), w.begin(), w.end());
  }
  FrameReader reader(1024, kLimitVariable);
  std::vector<Frame> out;
  ASSERT_TRUE(Succeeded(reader.feed(stream, out)));
  ASSERT_EQ(out.size(), kFrames);
  for (size_t i = 0; i < kFrames; ++i) {
    ASSERT_EQ(out[i].header.seq, i + 1);
    ASSERT_EQ(out[i].header.tag, i);
    ASSERT_EQ(out[i].header.ack, i / 2);
    ASSERT_EQ(out[i].header.length, i % 53);
    ASSERT_EQ(out[i].payload, pattern(i % 53, static_cast<std::uint8_t>(i))) << "frame " << i;
  }
}

TEST(FrameReader, FramesAreAppendedToWhatOutAlreadyHolds) {
  const SampleStream s = three_frames();
  FrameReader reader(1024, kLimitVariable);
  std::vector<Frame> out(2);
  ASSERT_TRUE(Succeeded(reader.feed(s.bytes, out)));
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[4].payload, s.payloads[2]);
}

TEST(FrameReader, ProbeSeesALegitimatePayloadAllocation) {
  // Proves the allocation probe works, so the tests below cannot pass by
  // accident: a valid 1 MiB payload is allocated as its bytes arrive.
  const std::uint32_t length = 1u << 20;
  const Bytes f = wire(header(FrameType::Data, 0, 1, 0, length), pattern(length, 5));
  FrameReader reader(k64MiB, kLimitVariable);
  std::vector<Frame> out;
  g_largest_allocation = 0;
  ASSERT_TRUE(Succeeded(reader.feed(f, out)));
  EXPECT_GE(g_largest_allocation.load(), std::size_t{length});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].payload, pattern(length, 5));
}

TEST(FrameReader, AHeaderThatLiesAboutItsLengthCostsOnlyWhatArrived) {
  // An authenticated peer announces 64 MiB and sends 1000 bytes: the
  // reader holds about what arrived, not what the header claims.
  const Bytes h = header_bytes(header(FrameType::Data, 0, 1, 0, static_cast<std::uint32_t>(k64MiB)));
  FrameReader reader(k64MiB, kLimitVariable);
  std::vector<Frame> out;
  g_largest_allocation = 0;
  ASSERT_TRUE(Succeeded(reader.feed(h, out)));
  ASSERT_TRUE(Succeeded(reader.feed(pattern(1000, 1), out)));
  EXPECT_LT(g_largest_allocation.load(), std::size_t{1} << 20);
  EXPECT_LE(reader.payload_capacity(), std::size_t{64} << 10);
  EXPECT_TRUE(out.empty());
}

TEST(FrameReader, APayloadUpToOneMebibyteIsAllocatedOnce) {
  // Growing a 1 MiB buffer step by step copied it four times; now it is
  // made whole when its first byte arrives, and never grows again.
  const size_t length = FrameReader::kWholeAtOnce;
  const Bytes payload = pattern(length, 3);
  FrameReader reader(k64MiB, kLimitVariable);
  std::vector<Frame> out;
  ASSERT_TRUE(Succeeded(reader.feed(header_bytes(header(FrameType::Data, 0, 1, 0, static_cast<std::uint32_t>(length))), out)));
  ASSERT_TRUE(Succeeded(reader.feed(std::span(payload).subspan(0, 1000), out)));
  EXPECT_EQ(reader.payload_capacity(), length);
  g_largest_allocation = 0;
  ASSERT_TRUE(Succeeded(reader.feed(std::span(payload).subspan(1000), out)));
  EXPECT_LT(g_largest_allocation.load(), length) << "the buffer was allocated again";
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].payload, payload);
}

TEST(FrameReader, PayloadBufferStaysWithinOneStepOfTheBytes) {
  // 32 MiB in 1 MiB pieces: after every piece the buffer is at most what
  // arrived plus one growth step, and the frame is whole at the end.
  const size_t length = 32u << 20;
  const Bytes payload = pattern(length, 7);
  FrameReader reader(k64MiB, kLimitVariable);
  std::vector<Frame> out;
  ASSERT_TRUE(Succeeded(reader.feed(header_bytes(header(FrameType::Data, 0, 1, 0, static_cast<std::uint32_t>(length))), out)));
  for (size_t pos = 0; pos < length; pos += 1u << 20) {
    ASSERT_TRUE(Succeeded(reader.feed(std::span(payload).subspan(pos, 1u << 20), out)));
    if (out.empty()) {
      ASSERT_LE(reader.payload_capacity(), pos + (1u << 20) + FrameReader::kMaxGrowStep) << "at " << pos;
    }
  }
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].payload, payload);
}

TEST(FrameReader, HandshakePhaseRefusesTrafficAtItsHeader) {
  for (FrameType type : {FrameType::Data, FrameType::Ack, FrameType::Heartbeat}) {
    const std::uint32_t length = type == FrameType::Data ? static_cast<std::uint32_t>(k64MiB) : 0;
    FrameReader reader(k64MiB, kLimitVariable, FrameReader::Phase::Handshake);
    std::vector<Frame> out;
    g_largest_allocation = 0;
    const Status st = reader.feed(header_bytes(header(type, 0, 1, 0, length)), out);
    ASSERT_TRUE(FailedWith(st, "oob", "bad-frame")) << "type " << int(type);
    EXPECT_TRUE(Contains(st.error().arg("why"), "before the handshake finished"));
    EXPECT_LT(g_largest_allocation.load(), std::size_t{4096});
    EXPECT_TRUE(out.empty());
  }
}

TEST(FrameReader, HandshakePhaseStopsAfterEachFrame) {
  // HELLO then a Data frame in one buffer: feed_some takes only the HELLO,
  // so the caller can finish the handshake before the data is decoded.
  Bytes stream = wire(header(FrameType::Hello, 0, 0, 0, 0), pattern(62, 1));
  const Bytes commit = wire(header(FrameType::Commit, 0, 0, 0, 0), {});
  const Bytes data = wire(header(FrameType::Data, 4, 1, 0, 0), pattern(10, 2));
  stream.insert(stream.end(), commit.begin(), commit.end());
  stream.insert(stream.end(), data.begin(), data.end());
  FrameReader reader(1024, kLimitVariable, FrameReader::Phase::Handshake);
  std::vector<Frame> out;
  auto first = reader.feed_some(stream, out);
  ASSERT_TRUE(Succeeded(first));
  EXPECT_EQ(first.value(), kHeaderSize + 62);
  ASSERT_EQ(out.size(), 1u);
  auto second = reader.feed_some(std::span(stream).subspan(first.value()), out);
  ASSERT_TRUE(Succeeded(second));
  EXPECT_EQ(second.value(), kHeaderSize);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].header.type, FrameType::Commit);
  reader.set_phase(FrameReader::Phase::Established);
  auto rest = reader.feed_some(std::span(stream).subspan(first.value() + second.value()), out);
  ASSERT_TRUE(Succeeded(rest));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[2].payload, pattern(10, 2));
}

TEST(FrameReader, OversizeHeaderFailsBeforeAnyPayloadAllocation) {
  const Bytes h = header_bytes(header(FrameType::Data, 0, 1, 0, 0xFFFFFFFFu));
  FrameReader reader(k64MiB, kLimitVariable);
  std::vector<Frame> out;
  g_largest_allocation = 0;
  const Status st = reader.feed(h, out);  // only the 28 header bytes
  const std::size_t largest = g_largest_allocation.load();
  ASSERT_TRUE(FailedWith(st, "oob", "bad-frame"));
  EXPECT_TRUE(Contains(st.error().arg("why"), "oob_tcp_max_msg_size"));
  EXPECT_LT(largest, std::size_t{1} << 20) << "the reader allocated for a payload it then refused";
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(reader.payload_space().size(), 0u);

  // Failed for good: a valid frame afterwards is refused too.
  const SampleStream s = three_frames();
  const Status again = reader.feed(s.bytes, out);
  EXPECT_TRUE(FailedWith(again, "oob", "bad-frame"));
  EXPECT_TRUE(Contains(again.error().arg("why"), "failed earlier"));
  EXPECT_TRUE(out.empty());
  EXPECT_TRUE(FailedWith(reader.feed({}, out), "oob", "bad-frame"));
}

TEST(FrameReader, OneByteOverTheLimitFailsToo) {
  const Bytes h = header_bytes(header(FrameType::Data, 0, 1, 0, static_cast<std::uint32_t>(k64MiB + 1)));
  FrameReader reader(k64MiB, kLimitVariable);
  std::vector<Frame> out;
  g_largest_allocation = 0;
  EXPECT_TRUE(FailedWith(reader.feed(h, out), "oob", "bad-frame"));
  EXPECT_LT(g_largest_allocation.load(), std::size_t{1} << 20);
}

TEST(FrameReader, FramesBeforeABadHeaderAreStillDelivered) {
  const SampleStream s = three_frames();
  Bytes stream = s.bytes;
  Bytes bad = header_bytes(header(FrameType::Ack, 0, 0, 0, 0));
  bad[2] = 1;
  stream.insert(stream.end(), bad.begin(), bad.end());
  FrameReader reader(1024, kLimitVariable);
  std::vector<Frame> out;
  EXPECT_TRUE(FailedWith(reader.feed(stream, out), "oob", "bad-frame"));
  expect_frames(out, s, "before the bad header");
}

TEST(FrameReader, BadHeaderSplitAcrossFeedsFailsWhenComplete) {
  Bytes bad = header_bytes(header(FrameType::Data, 0, 0, 0, 1));  // seq 0
  FrameReader reader(1024, kLimitVariable);
  std::vector<Frame> out;
  const std::span<const std::uint8_t> all(bad);
  ASSERT_TRUE(Succeeded(reader.feed(all.first(20), out)));
  const Status st = reader.feed(all.subspan(20), out);
  ASSERT_TRUE(FailedWith(st, "oob", "bad-frame"));
  EXPECT_TRUE(Contains(st.error().arg("why"), "sequence number"));
}

// Random input never crashes the reader; whatever it yields is valid, it
// does not depend on how the bytes are cut, and a failure is final.
TEST(FrameReader, RandomGarbageIsHandled) {
  std::mt19937 rng(0x0ECAu);
  constexpr std::uint64_t kMaxData = 512;
  size_t total_frames = 0, failures = 0;
  for (int round = 0; round < 4000; ++round) {
    Bytes buf;
    const int mode = round % 3;
    if (mode == 0) {
      // plain noise
      buf.resize(rng() % 300);
      for (auto& b : buf) b = static_cast<std::uint8_t>(rng());
    } else {
      // plausible frames with occasional corruption
      const int frames = 1 + static_cast<int>(rng() % 6);
      for (int f = 0; f < frames; ++f) {
        FrameHeader h;
        h.type = static_cast<FrameType>(rng() % 10);
        h.tag = static_cast<std::uint32_t>(rng());
        h.seq = rng() % 4;
        h.ack = rng();
        const size_t len = (rng() % 8 == 0) ? 600 : rng() % 100;
        const Bytes payload = pattern(len, static_cast<std::uint8_t>(rng()));
        Bytes w = wire(h, payload);
        if (mode == 2 && !w.empty()) w[rng() % w.size()] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
        if (rng() % 5 == 0) w.resize(rng() % (w.size() + 1));  // truncated
        buf.insert(buf.end(), w.begin(), w.end());
      }
    }

    FrameReader whole(kMaxData, kLimitVariable);
    std::vector<Frame> whole_out;
    const Status whole_status = whole.feed(buf, whole_out);

    FrameReader pieces(kMaxData, kLimitVariable);
    std::vector<Frame> pieces_out;
    Status pieces_status;
    size_t pos = 0;
    while (pos < buf.size() && pieces_status.ok()) {
      const size_t n = std::min(buf.size() - pos, static_cast<size_t>(rng() % 64));
      pieces_status = pieces.feed(std::span(buf).subspan(pos, n), pieces_out);
      pos += n;
    }

    ASSERT_EQ(whole_status.ok(), pieces_status.ok()) << "round " << round;
    ASSERT_EQ(whole_out.size(), pieces_out.size()) << "round " << round;
    for (size_t i = 0; i < whole_out.size(); ++i) {
      const Frame& f = whole_out[i];
      const auto type = static_cast<std::uint8_t>(f.header.type);
      ASSERT_GE(type, 1u);
      ASSERT_LE(type, 9u);
      ASSERT_EQ(f.payload.size(), f.header.length);
      if (f.header.type == FrameType::Data) {
        ASSERT_LE(f.header.length, kMaxData);
        ASSERT_NE(f.header.seq, 0u);
      } else if (f.header.type == FrameType::Ack || f.header.type == FrameType::Heartbeat) {
        ASSERT_EQ(f.header.length, 0u);
      } else {
        ASSERT_LE(f.header.length, kMaxControlPayload);
      }
      ASSERT_EQ(f.payload, pieces_out[i].payload) << "round " << round << " frame " << i;
      ASSERT_EQ(f.header.seq, pieces_out[i].header.seq);
    }
    total_frames += whole_out.size();
    if (!whole_status.ok()) {
      ++failures;
      ASSERT_EQ(whole_status.error().topic(), "bad-frame");
      std::vector<Frame> after;
      ASSERT_FALSE(whole.feed(three_frames().bytes, after).ok()) << "a failed reader recovered";
      ASSERT_TRUE(after.empty());
    }
  }
  // The generator exercised both outcomes.
  EXPECT_GT(total_frames, 500u);
  EXPECT_GT(failures, 500u);
}

// --- big-endian helpers ------------------------------------------------------

TEST(PayloadHelpers, PutWritesBigEndianAndAppends) {
  Bytes out{0xEE};
  put_u16(out, 0x1234);
  put_u32(out, 0x89ABCDEFu);
  put_u64(out, 0x0102030405060708ull);
  const Bytes expected = {0xEE, 0x12, 0x34, 0x89, 0xAB, 0xCD, 0xEF, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};
  EXPECT_EQ(out, expected);
  EXPECT_EQ(get_u16(out.data() + 1), 0x1234);
  EXPECT_EQ(get_u32(out.data() + 3), 0x89ABCDEFu);
  EXPECT_EQ(get_u64(out.data() + 7), 0x0102030405060708ull);
}

TEST(PayloadHelpers, HighBitsSurvive) {
  // A sign-extension slip in get_* shows with the top bit set.
  const std::uint8_t u16[] = {0xFF, 0xFE};
  const std::uint8_t u32[] = {0x80, 0x00, 0x00, 0x01};
  const std::uint8_t u64[] = {0x80, 0, 0, 0, 0xFF, 0, 0, 0x01};
  EXPECT_EQ(get_u16(u16), 0xFFFE);
  EXPECT_EQ(get_u32(u32), 0x80000001u);
  EXPECT_EQ(get_u64(u64), 0x80000000FF000001ull);
}

TEST(PayloadHelpers, RoundTripEdgeAndRandomValues) {
  std::mt19937_64 rng(77);
  std::vector<std::uint64_t> values = {0, 1, 0xFF, 0x100, 0xFFFF, 0x10000, 0xFFFFFFFFu, 0x100000000ull, kMaxU64};
  for (int i = 0; i < 1000; ++i) values.push_back(rng());
  for (std::uint64_t v : values) {
    Bytes b;
    put_u16(b, static_cast<std::uint16_t>(v));
    put_u32(b, static_cast<std::uint32_t>(v));
    put_u64(b, v);
    ASSERT_EQ(b.size(), 14u);
    ASSERT_EQ(get_u16(b.data()), static_cast<std::uint16_t>(v));
    ASSERT_EQ(get_u32(b.data() + 2), static_cast<std::uint32_t>(v));
    ASSERT_EQ(get_u64(b.data() + 6), v);
    ASSERT_EQ(b[6], static_cast<std::uint8_t>(v >> 56)) << "most significant byte first";
    ASSERT_EQ(b[13], static_cast<std::uint8_t>(v));
  }
}

}  // namespace
}  // namespace orca::oob
