// The oob handshake state machines (framework/oob/handshake.h), one side
// under test, the other played honestly by the real code with the same
// test secret, so that the fuzzer gets past the first message although
// nonces are random and every later message is authenticated.
//
// Input: a mode byte (bit 0: 0 = test the accepting side, ServerHandshake;
// 1 = test the connecting side, ClientHandshake), then steps. Each step
// delivers one frame to the side under test:
//   op % 4 == 0  the honest peer's next frame, as it is;
//   op % 4 == 1  that frame with one payload byte changed (position and
//                xor value follow);
//   op % 4 == 2  that frame's type replaced (the next byte);
//   op % 4 == 3  raw bytes (a length byte, then that many) through a
//                handshake-phase FrameReader, as a connection reads them.
// Checks: a side never finishes without the peer's genuine proof (the
// unmodified RESPONSE for the server, CHALLENGE for the client); after a
// failure it only fails; it finishes at most once, with the right peer;
// every frame it sends is a handshake frame within the control bound.
#include "oob/frame_codec.h"
#include "oob/handshake.h"

#include "fuzz_input.h"

#include <deque>
#include <optional>
#include <vector>

namespace orca::oob {
namespace {

using fuzz::FuzzInput;
using fuzz::fuzz_require;

const ProcessName kServerName{7, 0};
const ProcessName kClientName{7, 3};

HandshakeIdentity identity(ProcessName self) {
  const std::string_view secret = "fuzz test secret: not a real one";
  return HandshakeIdentity{self, std::vector<std::uint8_t>(secret.begin(), secret.end())};
}

void check_sent(const HandshakeStep& step) {
  for (const Frame& f : step.send) {
    fuzz_require(is_handshake_frame(f.header.type), "the handshake sent a non-handshake frame");
    fuzz_require(f.payload.size() == f.header.length && f.header.length <= kMaxControlPayload,
                 "the handshake sent a frame its peer would refuse");
  }
}

// What the side under test reports, step after step.
struct Progress {
  bool done = false;
  bool failed = false;

  void record(const HandshakeStep& step) {
    check_sent(step);
    fuzz_require(!(step.done && step.error), "a step both finished and failed");
    if (failed) fuzz_require(step.error.has_value() && !step.done, "a failed handshake went on");
    if (done) fuzz_require(!step.done, "a handshake finished twice");
    failed = failed || step.error.has_value();
    done = done || step.done;
  }
};

// One frame for the side under test, chosen by the input from what the
// honest peer would send next. Returns nothing when there is none.
std::optional<Frame> next_frame(FuzzInput& in, std::deque<Frame>& honest, bool& genuine, FrameReader& raw_reader) {
  const std::uint8_t op = in.byte() % 4;
  genuine = false;
  if (op == 3) {
    const auto bytes = in.take(in.byte());
    std::vector<Frame> frames;
    auto taken = raw_reader.feed_some(bytes, frames);
    if (!taken || frames.empty()) return std::nullopt;
    return frames.front();
  }
  if (honest.empty()) return std::nullopt;
  Frame f = std::move(honest.front());
  honest.pop_front();
  if (op == 0) {
    genuine = true;
  } else if (op == 1 && !f.payload.empty()) {
    const size_t at = in.byte() % f.payload.size();
    const std::uint8_t x = in.byte();
    f.payload[at] ^= x == 0 ? 1 : x;
  } else if (op == 2) {
    const std::uint8_t type = in.byte();
    genuine = type == static_cast<std::uint8_t>(f.header.type);
    f.header.type = static_cast<FrameType>(type);
  } else {
    genuine = true;  // nothing to change in an empty payload
  }
  return f;
}

void fuzz_server(FuzzInput& in) {
  const HandshakeIdentity server_id = identity(kServerName);
  const HandshakeIdentity client_id = identity(kClientName);
  ServerHandshake server(server_id, [](ProcessName) { return std::uint64_t{5}; });
  ClientHandshake client(client_id, kServerName, 9);
  if (client.setup_error()) return;  // no random bytes on this machine
  std::deque<Frame> to_server{client.hello()};
  FrameReader raw(1u << 20, "oob_tcp_max_msg_size", FrameReader::Phase::Handshake);
  Progress progress;
  bool genuine_response = false;
  while (!in.empty()) {
    bool genuine = false;
    auto frame = next_frame(in, to_server, genuine, raw);
    if (!frame) continue;
    const bool is_response = frame->header.type == FrameType::Response;
    HandshakeStep step = server.on_frame(*frame);
    progress.record(step);
    if (step.done) {
      fuzz_require(genuine_response, "the server accepted a client that never proved the secret");
      fuzz_require(server.peer() == kClientName && server.peer_delivered() == 9,
                   "the server finished with the wrong peer");
    }
    if (is_response && genuine && !step.error) genuine_response = true;
    // The honest client answers what the server sent.
    for (const Frame& sent : step.send) {
      HandshakeStep reply = client.on_frame(sent);
      for (Frame& r : reply.send) to_server.push_back(std::move(r));
    }
  }
}

void fuzz_client(FuzzInput& in) {
  const HandshakeIdentity server_id = identity(kServerName);
  const HandshakeIdentity client_id = identity(kClientName);
  ServerHandshake server(server_id, [](ProcessName) { return std::uint64_t{5}; });
  ClientHandshake client(client_id, kServerName, 9);
  if (client.setup_error()) return;
  std::deque<Frame> to_client;
  for (Frame& f : server.on_frame(client.hello()).send) to_client.push_back(std::move(f));
  FrameReader raw(1u << 20, "oob_tcp_max_msg_size", FrameReader::Phase::Handshake);
  Progress progress;
  bool genuine_challenge = false;
  while (!in.empty()) {
    bool genuine = false;
    auto frame = next_frame(in, to_client, genuine, raw);
    if (!frame) continue;
    const bool is_challenge = frame->header.type == FrameType::Challenge;
    HandshakeStep step = client.on_frame(*frame);
    progress.record(step);
    if (is_challenge && genuine && !step.error) genuine_challenge = true;
    if (step.done) {
      fuzz_require(genuine_challenge, "the client accepted a server that never proved the secret");
      fuzz_require(client.peer_delivered() == 5, "the client finished with what another server delivered");
    }
    for (const Frame& sent : step.send) {
      HandshakeStep reply = server.on_frame(sent);
      for (Frame& r : reply.send) to_client.push_back(std::move(r));
    }
  }
}

}  // namespace
}  // namespace orca::oob

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  orca::fuzz::FuzzInput in(data, size);
  if (in.byte() & 1) {
    orca::oob::fuzz_client(in);
  } else {
    orca::oob::fuzz_server(in);
  }
  return 0;
}
