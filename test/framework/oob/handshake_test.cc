// The oob handshake state machines (framework/oob/handshake.h), driven
// against each other in memory, and the HMAC they rely on.
#include "oob/handshake.h"

#include "oob/frame_codec.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "lib/expect_text.h"
#include "lib/hex_text.h"
#include "lib/result_assertions.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace orca::oob {
namespace {

// The variable these tests say sets the limit, as oob/tcp would.
constexpr const char* kLimitVariable = "oob_tcp_max_msg_size";

using test::Contains;
using test::Succeeded;

using Bytes = std::vector<std::uint8_t>;

// HELLO payload layout (handshake.h): magic, version, sender, expected
// receiver, nonce, delivered. CHALLENGE: name, nonce, MAC, delivered.
constexpr size_t kHelloVersion = 4;
constexpr size_t kHelloSender = 6;
constexpr size_t kHelloReceiver = 14;
constexpr size_t kHelloNonce = 22;
constexpr size_t kHelloDelivered = 54;
constexpr size_t kHelloSize = 62;
constexpr size_t kChallengeNonce = 8;
constexpr size_t kChallengeMac = 40;
constexpr size_t kChallengeDelivered = 72;
constexpr size_t kChallengeSize = 80;

Bytes bytes(std::string_view s) { return Bytes(s.begin(), s.end()); }
Bytes bytes(const PayloadBytes& p) { return Bytes(p.begin(), p.end()); }

HandshakeIdentity identity(ProcessName self, std::string_view secret = "the job secret") {
  return HandshakeIdentity{self, bytes(secret)};
}

Frame control(FrameType type, Bytes payload) {
  Frame f;
  f.header.type = type;
  f.header.length = static_cast<std::uint32_t>(payload.size());
  f.payload.assign(payload.begin(), payload.end());
  return f;
}

/* The frame after a trip through the wire codec: encoded, then reassembled
 * by a FrameReader fed one byte at a time. */
Frame through_wire(const Frame& f) {
  Bytes w(kHeaderSize);
  encode_header(f.header, w.data());
  w.insert(w.end(), f.payload.begin(), f.payload.end());
  FrameReader reader(1u << 20, kLimitVariable);
  std::vector<Frame> out;
  for (std::uint8_t b : w) {
    const Status st = reader.feed(std::span(&b, 1), out);
    EXPECT_TRUE(Succeeded(st));
    if (!st.ok()) break;
  }
  EXPECT_EQ(out.size(), 1u);
  if (out.size() != 1) return f;
  EXPECT_EQ(out[0].header.type, f.header.type);
  EXPECT_EQ(out[0].payload, f.payload);
  return out[0];
}

std::string why(const std::optional<Message>& m) {
  if (!m) return "<no error>";
  EXPECT_EQ(m->area(), "oob");
  EXPECT_EQ(m->topic(), "handshake-failed");
  return m->arg("why");
}

/* What happened when a client and a server talked until neither had
 * anything more to say. A side that reports an error writes its frames,
 * then closes: it reads nothing more. */
struct Conversation {
  std::vector<FrameType> client_sent, server_sent;
  std::vector<Frame> server_frames;  // as the server wrote them
  bool client_done = false, server_done = false;
  std::optional<Message> client_error, server_error;
};

Conversation converse(ClientHandshake& client, ServerHandshake& server, bool via_wire = false) {
  Conversation c;
  std::deque<Frame> to_server{client.hello()}, to_client;
  c.client_sent.push_back(to_server.front().header.type);
  bool client_closed = false, server_closed = false;
  for (int guard = 0; guard < 100 && (!to_server.empty() || !to_client.empty()); ++guard) {
    if (!to_server.empty()) {
      Frame f = via_wire ? through_wire(to_server.front()) : to_server.front();
      to_server.pop_front();
      if (!server_closed) {
        HandshakeStep step = server.on_frame(f);
        for (Frame& out : step.send) {
          c.server_sent.push_back(out.header.type);
          c.server_frames.push_back(out);
          to_client.push_back(std::move(out));
        }
        if (step.done) {
          EXPECT_FALSE(c.server_done) << "the server was done twice";
          c.server_done = true;
        }
        if (step.error) {
          c.server_error = step.error;
          server_closed = true;
        }
      }
    }
    if (!to_client.empty()) {
      Frame f = via_wire ? through_wire(to_client.front()) : to_client.front();
      to_client.pop_front();
      if (!client_closed) {
        HandshakeStep step = client.on_frame(f);
        for (Frame& out : step.send) {
          c.client_sent.push_back(out.header.type);
          to_server.push_back(std::move(out));
        }
        if (step.done) {
          EXPECT_FALSE(c.client_done) << "the client was done twice";
          c.client_done = true;
        }
        if (step.error) {
          c.client_error = step.error;
          client_closed = true;
        }
      }
    }
  }
  return c;
}

/* A delivered_from callback that records who it was asked about. */
struct DeliveredFrom {
  std::uint64_t answer = 0;
  std::vector<ProcessName> asked;
  std::function<std::uint64_t(ProcessName)> callback() {
    return [this](ProcessName n) {
      asked.push_back(n);
      return answer;
    };
  }
};

/* The REFUSE code the server wrote, or 0. */
int refuse_code(const Conversation& c) {
  for (const Frame& f : c.server_frames) {
    if (f.header.type == FrameType::Refuse) return f.payload.empty() ? -1 : f.payload[0];
  }
  return 0;
}

const ProcessName kClient{1, 2};
const ProcessName kServer{1, 5};

// --- the happy path --------------------------------------------------------------

class HandshakeHappyPath : public ::testing::TestWithParam<bool> {};

TEST_P(HandshakeHappyPath, BothSidesAreDoneAfterFourFramesAndOneRoundTrip) {
  const HandshakeIdentity client_id = identity(kClient);
  const HandshakeIdentity server_id = identity(kServer);
  DeliveredFrom delivered;
  ClientHandshake client(client_id, kServer, 0);
  ServerHandshake server(server_id, delivered.callback());
  const Conversation c = converse(client, server, GetParam());

  EXPECT_TRUE(c.client_done);
  EXPECT_TRUE(c.server_done);
  EXPECT_FALSE(c.client_error) << why(c.client_error);
  EXPECT_FALSE(c.server_error) << why(c.server_error);
  EXPECT_EQ(c.client_sent, (std::vector<FrameType>{FrameType::Hello, FrameType::Response, FrameType::Commit}));
  // Protocol 3: no ACCEPT; the client commits with its RESPONSE.
  EXPECT_EQ(c.server_sent, (std::vector<FrameType>{FrameType::Challenge}));
  EXPECT_EQ(server.peer(), kClient);
  EXPECT_EQ(server.peer_delivered(), 0u);
  EXPECT_EQ(client.peer_delivered(), 0u);
}

INSTANTIATE_TEST_SUITE_P(InMemoryAndOverTheWire, HandshakeHappyPath, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& param_info) {
                           return std::string(param_info.param ? "OverTheWire" : "InMemory");
                         });

TEST(Handshake, ControlFramesHaveConsistentHeaders) {
  const HandshakeIdentity client_id = identity(kClient);
  const HandshakeIdentity server_id = identity(kServer);
  ClientHandshake client(client_id, kServer, 0);
  const Frame hello = client.hello();
  EXPECT_EQ(hello.header.type, FrameType::Hello);
  EXPECT_EQ(hello.header.length, hello.payload.size());
  EXPECT_EQ(hello.payload.size(), kHelloSize);
  EXPECT_EQ(hello.header.seq, 0u);  // control frames are not numbered

  ServerHandshake server(server_id, [](ProcessName) { return std::uint64_t{0}; });
  HandshakeStep challenge = server.on_frame(hello);
  ASSERT_EQ(challenge.send.size(), 1u);
  EXPECT_EQ(challenge.send[0].header.length, challenge.send[0].payload.size());
  EXPECT_EQ(challenge.send[0].payload.size(), kChallengeSize);
  EXPECT_FALSE(challenge.done);
  EXPECT_FALSE(challenge.error);

  // The CHALLENGE proved the server: the client answers and commits in
  // one step, and is done.
  HandshakeStep response = client.on_frame(challenge.send[0]);
  ASSERT_EQ(response.send.size(), 2u);
  EXPECT_EQ(response.send[0].header.type, FrameType::Response);
  EXPECT_EQ(response.send[0].payload.size(), 32u);
  EXPECT_EQ(response.send[0].header.length, 32u);
  EXPECT_EQ(response.send[1].header.type, FrameType::Commit);
  EXPECT_EQ(response.send[1].header.length, 0u);
  EXPECT_TRUE(response.done);
  EXPECT_FALSE(response.error);

  // The server answers nothing to a good RESPONSE, and is not done before
  // the COMMIT behind it.
  HandshakeStep checked = server.on_frame(response.send[0]);
  EXPECT_TRUE(checked.send.empty());
  EXPECT_FALSE(checked.done);
  EXPECT_FALSE(checked.error);

  HandshakeStep committed = server.on_frame(response.send[1]);
  EXPECT_TRUE(committed.send.empty());
  EXPECT_TRUE(committed.done);
  EXPECT_FALSE(committed.error);
}

TEST(Handshake, AnUncommittedConnectionIsNeverDone) {
  // A raced attempt the client closed once another had won: the server
  // got the RESPONSE but no COMMIT and must not take it as established; a
  // COMMIT before RESPONSE is refused.
  const HandshakeIdentity client_id = identity(kClient);
  const HandshakeIdentity server_id = identity(kServer);
  ClientHandshake client(client_id, kServer, 0);
  ServerHandshake server(server_id, [](ProcessName) { return std::uint64_t{0}; });
  HandshakeStep challenge = server.on_frame(client.hello());
  HandshakeStep response = client.on_frame(challenge.send.at(0));
  HandshakeStep checked = server.on_frame(response.send.at(0));  // the RESPONSE alone
  EXPECT_FALSE(checked.done);
  EXPECT_FALSE(checked.error);

  ClientHandshake early(client_id, kServer, 0);
  ServerHandshake other(server_id, [](ProcessName) { return std::uint64_t{0}; });
  ASSERT_FALSE(other.on_frame(early.hello()).error);
  Frame commit;
  commit.header.type = FrameType::Commit;
  HandshakeStep refused = other.on_frame(commit);
  EXPECT_FALSE(refused.done);
  ASSERT_TRUE(refused.error);
  EXPECT_TRUE(Contains(why(refused.error), "unexpected frame"));
}

TEST(Handshake, HelloLayout) {
  const HandshakeIdentity client_id = identity({0x01020304u, 0x05060708u});
  ClientHandshake client(client_id, {0x01020304u, 0x0A0B0C0Du}, 0x1122334455667788ull);
  const Bytes p = bytes(client.hello().payload);
  ASSERT_EQ(p.size(), kHelloSize);
  EXPECT_EQ(std::string(p.begin(), p.begin() + 4), "ORCA");
  EXPECT_EQ(get_u16(p.data() + kHelloVersion), kProtocolVersion);
  EXPECT_EQ(get_u32(p.data() + kHelloSender), 0x01020304u);
  EXPECT_EQ(get_u32(p.data() + kHelloSender + 4), 0x05060708u);
  EXPECT_EQ(get_u32(p.data() + kHelloReceiver), 0x01020304u);
  EXPECT_EQ(get_u32(p.data() + kHelloReceiver + 4), 0x0A0B0C0Du);
  EXPECT_EQ(get_u64(p.data() + kHelloDelivered), 0x1122334455667788ull);
}

// --- resume numbers ------------------------------------------------------------

TEST(Handshake, ResumeNumbersCrossInBothDirections) {
  const HandshakeIdentity client_id = identity(kClient);
  const HandshakeIdentity server_id = identity(kServer);
  DeliveredFrom delivered{11, {}};
  ClientHandshake client(client_id, kServer, 7);
  ServerHandshake server(server_id, delivered.callback());
  const Conversation c = converse(client, server);
  ASSERT_TRUE(c.client_done && c.server_done) << why(c.client_error) << " / " << why(c.server_error);
  EXPECT_EQ(server.peer_delivered(), 7u);
  EXPECT_EQ(client.peer_delivered(), 11u);
  ASSERT_EQ(delivered.asked.size(), 1u);
  EXPECT_EQ(delivered.asked[0], kClient);
}

TEST(Handshake, ResumeNumbersAtTheirLimits) {
  const HandshakeIdentity client_id = identity(kClient);
  const HandshakeIdentity server_id = identity(kServer);
  const std::uint64_t big = 0xFEDCBA9876543210ull;
  DeliveredFrom delivered{~std::uint64_t{0}, {}};
  ClientHandshake client(client_id, kServer, big);
  ServerHandshake server(server_id, delivered.callback());
  const Conversation c = converse(client, server, true);
  ASSERT_TRUE(c.client_done && c.server_done);
  EXPECT_EQ(server.peer_delivered(), big);
  EXPECT_EQ(client.peer_delivered(), ~std::uint64_t{0});
}

TEST(Handshake, TheServersResumeNumberIsAuthenticated) {
  // A man in the middle who changes "how far I delivered" in the
  // CHALLENGE could make the client skip messages; the MAC covers it.
  const HandshakeIdentity client_id = identity(kClient);
  const HandshakeIdentity server_id = identity(kServer);
  ClientHandshake client(client_id, kServer, 0);
  ServerHandshake server(server_id, [](ProcessName) { return std::uint64_t{3}; });
  HandshakeStep challenge = server.on_frame(client.hello());
  ASSERT_EQ(challenge.send.size(), 1u);
  Frame forged = challenge.send[0];
  forged.payload[kChallengeDelivered + 7] = 200;  // 3 -> 200
  HandshakeStep step = client.on_frame(forged);
  ASSERT_EQ(step.send.size(), 1u) << "the client tells the server why it leaves";
  EXPECT_EQ(step.send[0].header.type, FrameType::Refuse);
  EXPECT_EQ(step.send[0].payload.at(0), static_cast<std::uint8_t>(RefuseCode::BadKey));
  EXPECT_FALSE(step.done);
  EXPECT_TRUE(Contains(why(step.error), "does not match this process's job secret"));
  EXPECT_EQ(client.peer_delivered(), 0u) << "a forged value was taken";
}

TEST(Handshake, TheClientsHelloIsAuthenticated) {
  // Changing the client's resume number in the HELLO on the way: the
  // server signs what it received, the client checks what it sent.
  const HandshakeIdentity client_id = identity(kClient);
  const HandshakeIdentity server_id = identity(kServer);
  ClientHandshake client(client_id, kServer, 5);
  ServerHandshake server(server_id, [](ProcessName) { return std::uint64_t{0}; });
  Frame hello = client.hello();
  hello.payload[kHelloDelivered + 7] = 99;
  HandshakeStep challenge = server.on_frame(hello);
  ASSERT_EQ(challenge.send.size(), 1u);
  EXPECT_EQ(server.peer_delivered(), 99u);
  HandshakeStep step = client.on_frame(challenge.send[0]);
  ASSERT_EQ(step.send.size(), 1u);
  EXPECT_EQ(step.send[0].header.type, FrameType::Refuse) << "the client answered a challenge over a forged hello";
  EXPECT_TRUE(Contains(why(step.error), "does not match this process's job secret"));
}

// --- refusals --------------------------------------------------------------------

TEST(HandshakeRefusal, WrongReceiverName) {
  const HandshakeIdentity client_id = identity({1, 2});
  const HandshakeIdentity server_id = identity({1, 6});
  DeliveredFrom delivered;
  ClientHandshake client(client_id, {1, 5}, 0);
  ServerHandshake server(server_id, delivered.callback());
  const Conversation c = converse(client, server);
  EXPECT_EQ(refuse_code(c), static_cast<int>(RefuseCode::WrongPeer));
  EXPECT_EQ(c.server_sent, std::vector<FrameType>{FrameType::Refuse});
  EXPECT_EQ(c.client_sent, std::vector<FrameType>{FrameType::Hello});
  EXPECT_FALSE(c.client_done);
  EXPECT_FALSE(c.server_done);
  EXPECT_TRUE(Contains(why(c.server_error), "this is 1.6, not 1.5"));
  const std::string client_why = why(c.client_error);
  EXPECT_TRUE(Contains(client_why, "refused"));
  EXPECT_TRUE(Contains(client_why, "this is 1.6, not 1.5"));
  EXPECT_TRUE(delivered.asked.empty()) << "the server told a stranger how far it delivered";
}

TEST(HandshakeRefusal, ChallengeFromAnotherProcessIsRejectedByTheClient) {
  // Y answers a HELLO addressed to Y; that CHALLENGE reaches a client that
  // dialled X (an address of X now belongs to Y).
  const ProcessName x{1, 5}, y{1, 6};
  const HandshakeIdentity server_id = identity(y);
  const HandshakeIdentity client_id = identity(kClient);
  ServerHandshake server(server_id, [](ProcessName) { return std::uint64_t{0}; });
  ClientHandshake to_y(client_id, y, 0);
  HandshakeStep challenge = server.on_frame(to_y.hello());
  ASSERT_EQ(challenge.send.size(), 1u);
  ASSERT_FALSE(challenge.error);

  ClientHandshake to_x(client_id, x, 0);
  HandshakeStep step = to_x.on_frame(challenge.send[0]);
  ASSERT_EQ(step.send.size(), 1u);
  EXPECT_EQ(step.send[0].payload.at(0), static_cast<std::uint8_t>(RefuseCode::WrongPeer));
  EXPECT_FALSE(step.done);
  EXPECT_TRUE(Contains(why(step.error), "reached 1.6, not 1.5"));
}

/* A CHALLENGE with a valid MAC for `hello`, as a server named `name` that
 * knows `secret` would build it. */
Frame forge_challenge(const Bytes& secret, const Bytes& hello, ProcessName name, std::uint64_t delivered) {
  Bytes n;
  put_u32(n, name.job);
  put_u32(n, name.vpid);
  const Bytes nonce(32, 0x5A);
  Bytes d;
  put_u64(d, delivered);
  const Bytes label = bytes("orca-server");
  const auto mac = hmac_sha256(secret, {label, hello, n, nonce, d}).value();
  Bytes payload = n;
  payload.insert(payload.end(), nonce.begin(), nonce.end());
  payload.insert(payload.end(), mac.begin(), mac.end());
  payload.insert(payload.end(), d.begin(), d.end());
  return control(FrameType::Challenge, payload);
}

TEST(HandshakeRefusal, ChallengeNamingAnotherProcessFailsEvenWithAValidMac) {
  // The name check stands on its own: a correctly keyed CHALLENGE (another
  // process of the same job) that names Y is still not X.
  const ProcessName x{1, 5}, y{1, 6};
  const HandshakeIdentity client_id = identity(kClient);

  ClientHandshake control_client(client_id, x, 0);
  const HandshakeStep ok =
      control_client.on_frame(forge_challenge(client_id.secret, bytes(control_client.hello().payload), x, 4));
  ASSERT_FALSE(ok.error) << why(ok.error) << " (the forged challenge itself is wrong)";
  ASSERT_EQ(ok.send.size(), 2u);  // RESPONSE, COMMIT
  EXPECT_EQ(control_client.peer_delivered(), 4u);

  ClientHandshake client(client_id, x, 0);
  const HandshakeStep step = client.on_frame(forge_challenge(client_id.secret, bytes(client.hello().payload), y, 4));
  ASSERT_EQ(step.send.size(), 1u);
  EXPECT_EQ(step.send[0].payload.at(0), static_cast<std::uint8_t>(RefuseCode::WrongPeer));
  EXPECT_TRUE(Contains(why(step.error), "reached 1.6, not 1.5"));
}

TEST(HandshakeRefusal, AnotherJob) {
  const HandshakeIdentity client_id = identity({2, 3});
  const HandshakeIdentity server_id = identity({1, 0});
  DeliveredFrom delivered;
  ClientHandshake client(client_id, {1, 0}, 0);
  ServerHandshake server(server_id, delivered.callback());
  const Conversation c = converse(client, server);
  EXPECT_EQ(refuse_code(c), static_cast<int>(RefuseCode::WrongJob));
  EXPECT_FALSE(c.client_done);
  EXPECT_FALSE(c.server_done);
  EXPECT_TRUE(Contains(why(c.server_error), "job 2 is not this job (1)"));
  EXPECT_TRUE(Contains(why(c.client_error), "job 2 is not this job (1)"));
  EXPECT_TRUE(delivered.asked.empty());
}

TEST(HandshakeRefusal, DifferentProtocolVersion) {
  for (std::uint16_t version : {std::uint16_t{0}, std::uint16_t{1}, std::uint16_t{2}, std::uint16_t{4}, std::uint16_t{0x0100}, std::uint16_t{0xFFFF}}) {
    const HandshakeIdentity client_id = identity(kClient);
    const HandshakeIdentity server_id = identity(kServer);
    ClientHandshake client(client_id, kServer, 0);
    ServerHandshake server(server_id, [](ProcessName) { return std::uint64_t{0}; });
    Frame hello = client.hello();
    hello.payload[kHelloVersion] = static_cast<std::uint8_t>(version >> 8);
    hello.payload[kHelloVersion + 1] = static_cast<std::uint8_t>(version);
    HandshakeStep step = server.on_frame(hello);
    ASSERT_EQ(step.send.size(), 1u);
    ASSERT_EQ(step.send[0].header.type, FrameType::Refuse);
    EXPECT_EQ(step.send[0].payload.at(0), static_cast<std::uint8_t>(RefuseCode::Version)) << version;
    EXPECT_FALSE(step.done);
    const std::string text = why(step.error);
    EXPECT_TRUE(Contains(text, "protocol version " + std::to_string(version)));
    EXPECT_TRUE(Contains(text, "run the same Orca"));
    EXPECT_TRUE(Contains(describe_refusal(step.send[0]), "run the same Orca"));

    // The client passes the server's reason on.
    HandshakeStep client_step = client.on_frame(step.send[0]);
    EXPECT_TRUE(Contains(why(client_step.error), "run the same Orca"));
    EXPECT_TRUE(client_step.send.empty());
  }
}

TEST(HandshakeRefusal, OtherVersionWithAnotherHelloSizeIsAVersionRefusal) {
  // The version field exists so that mismatched Orcas say "run the same
  // Orca everywhere". A later version whose HELLO has a different size
  // (any new field) must get that answer too, not "not an Orca hello":
  // magic and version have to be read before the v1 size is enforced.
  for (size_t size : {size_t{6}, kHelloSize - 8, kHelloSize + 8, size_t{200}}) {
    const HandshakeIdentity server_id = identity(kServer);
    ServerHandshake server(server_id, [](ProcessName) { return std::uint64_t{0}; });
    Bytes hello = {'O', 'R', 'C', 'A', 0x00, 0x04};
    hello.resize(size, 0x11);
    HandshakeStep step = server.on_frame(control(FrameType::Hello, hello));
    ASSERT_EQ(step.send.size(), 1u);
    ASSERT_EQ(step.send[0].header.type, FrameType::Refuse);
    EXPECT_EQ(step.send[0].payload.at(0), static_cast<std::uint8_t>(RefuseCode::Version))
        << "a version-4 HELLO of " << size << " bytes was refused as: " << describe_refusal(step.send[0]);
    EXPECT_TRUE(Contains(why(step.error), "run the same Orca")) << "size " << size;
  }
}

TEST(HandshakeRefusal, BadMagic) {
  for (size_t index = 0; index < 4; ++index) {
    const HandshakeIdentity client_id = identity(kClient);
    const HandshakeIdentity server_id = identity(kServer);
    ClientHandshake client(client_id, kServer, 0);
    ServerHandshake server(server_id, [](ProcessName) { return std::uint64_t{0}; });
    Frame hello = client.hello();
    hello.payload[index] ^= 0x20;  // "ORCA" -> "oRCA", ...
    HandshakeStep step = server.on_frame(hello);
    ASSERT_EQ(step.send.size(), 1u);
    EXPECT_EQ(step.send[0].header.type, FrameType::Refuse);
    EXPECT_EQ(step.send[0].payload.at(0), static_cast<std::uint8_t>(RefuseCode::Protocol)) << "byte " << index;
    EXPECT_TRUE(Contains(why(step.error), "not an Orca hello"));
  }
}

TEST(HandshakeRefusal, HelloOfTheWrongSize) {
  for (size_t size : {size_t{0}, size_t{4}, kHelloSize - 1, kHelloSize + 1, size_t{kMaxControlPayload}}) {
    const HandshakeIdentity client_id = identity(kClient);
    const HandshakeIdentity server_id = identity(kServer);
    ClientHandshake client(client_id, kServer, 0);
    ServerHandshake server(server_id, [](ProcessName) { return std::uint64_t{0}; });
    Frame hello = client.hello();
    hello.payload.resize(size, 0);  // truncated, or padded after a valid hello
    hello.header.length = static_cast<std::uint32_t>(size);
    HandshakeStep step = server.on_frame(hello);
    ASSERT_EQ(step.send.size(), 1u) << "size " << size;
    EXPECT_EQ(step.send[0].header.type, FrameType::Refuse);
    EXPECT_EQ(step.send[0].payload.at(0), static_cast<std::uint8_t>(RefuseCode::Protocol)) << "size " << size;
    EXPECT_FALSE(step.done);
    EXPECT_TRUE(step.error);
  }
}

TEST(HandshakeRefusal, ChallengeOfTheWrongSize) {
  for (size_t size : {size_t{0}, size_t{8}, kChallengeSize - 1, kChallengeSize + 1, size_t{kMaxControlPayload}}) {
    const HandshakeIdentity client_id = identity(kClient);
    const HandshakeIdentity server_id = identity(kServer);
    ClientHandshake client(client_id, kServer, 0);
    ServerHandshake server(server_id, [](ProcessName) { return std::uint64_t{0}; });
    HandshakeStep challenge = server.on_frame(client.hello());
    ASSERT_EQ(challenge.send.size(), 1u);
    Frame f = challenge.send[0];
    f.payload.resize(size, 0);
    f.header.length = static_cast<std::uint32_t>(size);
    HandshakeStep step = client.on_frame(f);
    ASSERT_EQ(step.send.size(), 1u) << "size " << size;
    EXPECT_EQ(step.send[0].header.type, FrameType::Refuse) << "size " << size;
    EXPECT_FALSE(step.done);
    EXPECT_TRUE(Contains(why(step.error), "malformed challenge")) << "size " << size;
  }
}

TEST(HandshakeRefusal, ForgedResponseFromAClientWithAnotherSecret) {
  // A client with another secret notices the server's MAC first (next
  // test); a client that answers anyway, with a MAC from its own key, is
  // refused with BadKey and never accepted.
  const HandshakeIdentity client_id = identity(kClient, "a guess");
  const HandshakeIdentity server_id = identity(kServer, "the job secret");
  ClientHandshake client(client_id, kServer, 0);
  ServerHandshake server(server_id, [](ProcessName) { return std::uint64_t{0}; });
  const Frame hello = client.hello();
  HandshakeStep challenge = server.on_frame(hello);
  ASSERT_EQ(challenge.send.size(), 1u);
  const Bytes label = bytes("orca-client");
  const auto mac = hmac_sha256(client_id.secret, {label, hello.payload, challenge.send[0].payload}).value();
  HandshakeStep step = server.on_frame(control(FrameType::Response, Bytes(mac.begin(), mac.end())));
  ASSERT_EQ(step.send.size(), 1u);
  EXPECT_EQ(step.send[0].header.type, FrameType::Refuse);
  EXPECT_EQ(step.send[0].payload.at(0), static_cast<std::uint8_t>(RefuseCode::BadKey));
  EXPECT_FALSE(step.done);
  EXPECT_TRUE(Contains(why(step.error), "1.2 does not know the job secret"));

  // The same forgery with the right key is accepted: the refusal above is
  // about the key, not about how the test builds the MAC.
  ServerHandshake server2(server_id, [](ProcessName) { return std::uint64_t{0}; });
  ClientHandshake client2(server_id, kServer, 0);  // knows the secret (name irrelevant here)
  const Frame hello2 = client2.hello();
  HandshakeStep challenge2 = server2.on_frame(hello2);
  ASSERT_EQ(challenge2.send.size(), 1u);
  const auto good = hmac_sha256(server_id.secret, {label, hello2.payload, challenge2.send[0].payload}).value();
  HandshakeStep accepted = server2.on_frame(control(FrameType::Response, Bytes(good.begin(), good.end())));
  EXPECT_FALSE(accepted.error) << why(accepted.error);
  EXPECT_TRUE(server2.on_frame(control(FrameType::Commit, {})).done);
}

TEST(HandshakeRefusal, ClientWithAnotherSecretNeverCompletes) {
  const HandshakeIdentity client_id = identity(kClient, "a guess");
  const HandshakeIdentity server_id = identity(kServer, "the job secret");
  ClientHandshake client(client_id, kServer, 0);
  ServerHandshake server(server_id, [](ProcessName) { return std::uint64_t{0}; });
  const Conversation c = converse(client, server);
  EXPECT_FALSE(c.client_done);
  EXPECT_FALSE(c.server_done);
  EXPECT_EQ(c.client_sent, (std::vector<FrameType>{FrameType::Hello, FrameType::Refuse})) << "a RESPONSE, or no reason";
  EXPECT_TRUE(Contains(why(c.client_error), "does not match this process's job secret"));
}

TEST(HandshakeRefusal, ServerWithAnotherSecretIsDetectedByTheClient) {
  const HandshakeIdentity client_id = identity(kClient, "the job secret");
  const HandshakeIdentity server_id = identity(kServer, "the job secreT");
  ClientHandshake client(client_id, kServer, 0);
  ServerHandshake server(server_id, [](ProcessName) { return std::uint64_t{0}; });
  const Conversation c = converse(client, server);
  EXPECT_FALSE(c.client_done);
  EXPECT_FALSE(c.server_done);
  // The client refuses, and the server learns why from the REFUSE.
  EXPECT_TRUE(Contains(why(c.server_error), "refused by " + kClient.to_string()));
  EXPECT_TRUE(Contains(why(c.server_error), "does not match this process's job secret"));
  EXPECT_EQ(c.client_sent, (std::vector<FrameType>{FrameType::Hello, FrameType::Refuse}));
  EXPECT_EQ(c.server_sent, std::vector<FrameType>{FrameType::Challenge});
  EXPECT_TRUE(Contains(why(c.client_error), "does not match this process's job secret"));
}

TEST(HandshakeRefusal, CorruptedOrTruncatedResponse) {
  for (size_t variant = 0; variant < 5; ++variant) {
    const HandshakeIdentity client_id = identity(kClient);
    const HandshakeIdentity server_id = identity(kServer);
    ClientHandshake client(client_id, kServer, 0);
    ServerHandshake server(server_id, [](ProcessName) { return std::uint64_t{0}; });
    HandshakeStep challenge = server.on_frame(client.hello());
    HandshakeStep response = client.on_frame(challenge.send.at(0));
    Frame r = response.send.at(0);
    switch (variant) {
      case 0: r.payload[0] ^= 1; break;
      case 1: r.payload[31] ^= 0x80; break;
      case 2: r.payload.pop_back(); break;
      case 3: r.payload.push_back(0); break;
      case 4: r.payload.clear(); break;
    }
    r.header.length = static_cast<std::uint32_t>(r.payload.size());
    HandshakeStep step = server.on_frame(r);
    ASSERT_EQ(step.send.size(), 1u) << "variant " << variant;
    EXPECT_EQ(step.send[0].header.type, FrameType::Refuse);
    EXPECT_EQ(step.send[0].payload.at(0), static_cast<std::uint8_t>(RefuseCode::BadKey)) << "variant " << variant;
    EXPECT_FALSE(step.done);
  }
}

TEST(HandshakeRefusal, ResponseReplayedIntoAnotherSessionIsRefused) {
  // The server's nonce binds a RESPONSE to its session.
  const HandshakeIdentity client_id = identity(kClient);
  const HandshakeIdentity server_id = identity(kServer);
  ClientHandshake client(client_id, kServer, 0);
  const Frame hello = client.hello();
  ServerHandshake first(server_id, [](ProcessName) { return std::uint64_t{0}; });
  ServerHandshake second(server_id, [](ProcessName) { return std::uint64_t{0}; });
  HandshakeStep c1 = first.on_frame(hello);
  HandshakeStep c2 = second.on_frame(hello);
  ASSERT_EQ(c1.send.size(), 1u);
  ASSERT_EQ(c2.send.size(), 1u);
  EXPECT_NE(c1.send[0].payload, c2.send[0].payload);
  HandshakeStep response = client.on_frame(c1.send[0]);
  ASSERT_EQ(response.send.size(), 2u);  // RESPONSE, COMMIT
  HandshakeStep replayed = second.on_frame(response.send[0]);
  EXPECT_FALSE(replayed.done);
  ASSERT_EQ(replayed.send.size(), 1u);
  EXPECT_EQ(replayed.send[0].payload.at(0), static_cast<std::uint8_t>(RefuseCode::BadKey));
  EXPECT_FALSE(first.on_frame(response.send[0]).error);
  EXPECT_TRUE(first.on_frame(control(FrameType::Commit, {})).done);
}

// --- unexpected frames ---------------------------------------------------------

Frame data_frame() {
  Frame f = control(FrameType::Data, Bytes{1, 2, 3});
  f.header.seq = 1;
  return f;
}

TEST(HandshakeUnexpected, ServerBeforeHello) {
  // (A REFUSE is the client's own refusal: see ServerLogsTheClientsRefusal.)
  const FrameType types[] = {FrameType::Data,     FrameType::Ack,    FrameType::Heartbeat, FrameType::Challenge,
                             FrameType::Response, FrameType::Accept};
  for (FrameType type : types) {
    const HandshakeIdentity server_id = identity(kServer);
    DeliveredFrom delivered;
    ServerHandshake server(server_id, delivered.callback());
    const Frame f = type == FrameType::Data       ? data_frame()
                    : type == FrameType::Response ? control(type, Bytes(32, 0))
                                                  : control(type, {});
    HandshakeStep step = server.on_frame(f);
    ASSERT_EQ(step.send.size(), 1u) << "type " << int(type);
    EXPECT_EQ(step.send[0].header.type, FrameType::Refuse);
    EXPECT_EQ(step.send[0].payload.at(0), static_cast<std::uint8_t>(RefuseCode::Protocol)) << "type " << int(type);
    EXPECT_FALSE(step.done) << "type " << int(type);
    EXPECT_TRUE(Contains(why(step.error), "unexpected frame"));
    EXPECT_TRUE(delivered.asked.empty());
  }
}

TEST(HandshakeUnexpected, ServerGetsDataOrASecondHelloInsteadOfAResponse) {
  for (int variant = 0; variant < 3; ++variant) {
    const HandshakeIdentity client_id = identity(kClient);
    const HandshakeIdentity server_id = identity(kServer);
    ClientHandshake client(client_id, kServer, 0);
    ServerHandshake server(server_id, [](ProcessName) { return std::uint64_t{0}; });
    const Frame hello = client.hello();
    ASSERT_EQ(server.on_frame(hello).send.at(0).header.type, FrameType::Challenge);
    const Frame f = variant == 0 ? hello : variant == 1 ? data_frame() : control(FrameType::Accept, {});
    HandshakeStep step = server.on_frame(f);
    ASSERT_EQ(step.send.size(), 1u);
    EXPECT_EQ(step.send[0].payload.at(0), static_cast<std::uint8_t>(RefuseCode::Protocol)) << variant;
    EXPECT_FALSE(step.done);
    EXPECT_TRUE(step.error);
  }
}

TEST(HandshakeUnexpected, ServerStaysFailedAfterARefusal) {
  const HandshakeIdentity client_id = identity(kClient);
  const HandshakeIdentity server_id = identity(kServer);
  ServerHandshake server(server_id, [](ProcessName) { return std::uint64_t{0}; });
  ASSERT_TRUE(server.on_frame(data_frame()).error);
  ClientHandshake client(client_id, kServer, 0);
  HandshakeStep step = server.on_frame(client.hello());
  ASSERT_EQ(step.send.size(), 1u);
  EXPECT_EQ(step.send[0].header.type, FrameType::Refuse) << "a refused connection went on";
}

TEST(HandshakeUnexpected, ServerAfterDoneTakesNoMoreHandshakeFrames) {
  const HandshakeIdentity client_id = identity(kClient);
  const HandshakeIdentity server_id = identity(kServer);
  ClientHandshake client(client_id, kServer, 0);
  ServerHandshake server(server_id, [](ProcessName) { return std::uint64_t{0}; });
  HandshakeStep challenge = server.on_frame(client.hello());
  HandshakeStep response = client.on_frame(challenge.send.at(0));
  const Frame r = response.send.at(0);
  ASSERT_FALSE(server.on_frame(r).error);
  ASSERT_TRUE(server.on_frame(control(FrameType::Commit, {})).done);
  HandshakeStep again = server.on_frame(r);
  EXPECT_FALSE(again.done) << "a second RESPONSE completed the handshake again";
  EXPECT_TRUE(again.error);
}

TEST(HandshakeUnexpected, ClientBeforeChallenge) {
  const FrameType types[] = {FrameType::Data,     FrameType::Ack,    FrameType::Heartbeat,
                             FrameType::Hello,    FrameType::Response, FrameType::Accept};
  for (FrameType type : types) {
    const HandshakeIdentity client_id = identity(kClient);
    ClientHandshake client(client_id, kServer, 0);
    HandshakeStep step = client.on_frame(type == FrameType::Data ? data_frame() : control(type, {}));
    ASSERT_EQ(step.send.size(), 1u) << "type " << int(type);
    EXPECT_EQ(step.send[0].header.type, FrameType::Refuse) << "type " << int(type);
    EXPECT_FALSE(step.done) << "type " << int(type);
    EXPECT_TRUE(Contains(why(step.error), "unexpected frame")) << "type " << int(type);
  }
}

TEST(HandshakeUnexpected, ClientAfterDoneTakesNoMoreHandshakeFrames) {
  // Done on the CHALLENGE: a second one (or data, or a protocol 2 ACCEPT)
  // must not complete it again; the connection reads such frames as
  // established ones and closes on them.
  for (int variant = 0; variant < 3; ++variant) {
    const HandshakeIdentity client_id = identity(kClient);
    const HandshakeIdentity server_id = identity(kServer);
    ClientHandshake client(client_id, kServer, 0);
    ServerHandshake server(server_id, [](ProcessName) { return std::uint64_t{0}; });
    const Frame challenge = server.on_frame(client.hello()).send.at(0);
    ASSERT_TRUE(client.on_frame(challenge).done);
    HandshakeStep step = client.on_frame(variant == 0 ? data_frame() : variant == 1 ? challenge : control(FrameType::Accept, {}));
    EXPECT_FALSE(step.done) << variant;
    EXPECT_TRUE(step.error) << variant;
  }
}

TEST(HandshakeUnexpected, ServerLogsTheClientsRefusal) {
  const HandshakeIdentity server_id = identity(kServer);
  ServerHandshake server(server_id, [](ProcessName) { return std::uint64_t{0}; });
  HandshakeStep step = server.on_frame(refusal_frame(RefuseCode::BadKey, "no trust"));
  EXPECT_TRUE(step.send.empty()) << "a refusal is not answered";
  EXPECT_FALSE(step.done);
  EXPECT_TRUE(Contains(why(step.error), "refused by the client: no trust"));
}

TEST(HandshakeUnexpected, ClientStaysFailed) {
  const HandshakeIdentity client_id = identity(kClient);
  const HandshakeIdentity server_id = identity(kServer);
  ClientHandshake client(client_id, kServer, 0);
  ServerHandshake server(server_id, [](ProcessName) { return std::uint64_t{0}; });
  const Frame challenge = server.on_frame(client.hello()).send.at(0);
  ASSERT_TRUE(client.on_frame(data_frame()).error);
  HandshakeStep step = client.on_frame(challenge);
  EXPECT_TRUE(step.send.empty()) << "a failed client answered a challenge";
  EXPECT_TRUE(step.error);
  EXPECT_FALSE(client.on_frame(control(FrameType::Accept, {})).done);
}

TEST(HandshakeUnexpected, AcceptWithoutAResponseDoesNotComplete) {
  // An ACCEPT injected before the CHALLENGE must not skip authentication.
  const HandshakeIdentity client_id = identity(kClient);
  ClientHandshake client(client_id, kServer, 0);
  HandshakeStep step = client.on_frame(control(FrameType::Accept, {}));
  EXPECT_FALSE(step.done);
  EXPECT_TRUE(step.error);
}

// --- REFUSE at the client ------------------------------------------------------

TEST(HandshakeRefuse, ClientReportsTheReason) {
  for (int answered = 0; answered < 2; ++answered) {
    const HandshakeIdentity client_id = identity(kClient);
    const HandshakeIdentity server_id = identity(kServer);
    ClientHandshake client(client_id, kServer, 0);
    if (answered) {
      // A REFUSE of the RESPONSE reaches a client that committed already:
      // its reason is still what the client reports.
      ServerHandshake server(server_id, [](ProcessName) { return std::uint64_t{0}; });
      ASSERT_EQ(client.on_frame(server.on_frame(client.hello()).send.at(0)).send.size(), 2u);
    }
    Bytes payload{static_cast<std::uint8_t>(RefuseCode::WrongJob)};
    const Bytes reason = bytes("go away, you are from job 9");
    payload.insert(payload.end(), reason.begin(), reason.end());
    const Frame refuse = control(FrameType::Refuse, payload);
    EXPECT_EQ(describe_refusal(refuse), "go away, you are from job 9");
    HandshakeStep step = client.on_frame(refuse);
    EXPECT_FALSE(step.done);
    EXPECT_TRUE(step.send.empty());
    const std::string text = why(step.error);
    EXPECT_TRUE(Contains(text, describe_refusal(refuse)));
    EXPECT_TRUE(Contains(text, "refused"));
  }
}

TEST(HandshakeRefuse, DescribeRefusalEdgeCases) {
  EXPECT_EQ(describe_refusal(control(FrameType::Refuse, {})), "refused without a reason");
  EXPECT_EQ(describe_refusal(control(FrameType::Refuse, {5})), "");
  const Bytes payload = {4, 'k', 'e', 'y'};
  EXPECT_EQ(describe_refusal(control(FrameType::Refuse, payload)), "key");

  const HandshakeIdentity client_id = identity(kClient);
  ClientHandshake client(client_id, kServer, 0);
  HandshakeStep step = client.on_frame(control(FrameType::Refuse, {}));
  EXPECT_TRUE(Contains(why(step.error), "refused without a reason"));
}

TEST(HandshakeRefuse, RefuseFramesFitTheControlLimit) {
  // Every refusal the server writes passes the frame codec's checks.
  const HandshakeIdentity server_id = identity(kServer);
  ServerHandshake server(server_id, [](ProcessName) { return std::uint64_t{0}; });
  HandshakeStep step = server.on_frame(data_frame());
  ASSERT_EQ(step.send.size(), 1u);
  EXPECT_LE(step.send[0].payload.size(), kMaxControlPayload);
  const Frame back = through_wire(step.send[0]);
  EXPECT_EQ(describe_refusal(back), describe_refusal(step.send[0]));
  EXPECT_EQ(describe_refusal(back), "an unexpected frame during the handshake");  // without the code byte
}

// --- nonces ----------------------------------------------------------------------

TEST(HandshakeNonce, TwoHellosDifferOnlyInTheirNonces) {
  const HandshakeIdentity client_id = identity(kClient);
  ClientHandshake a(client_id, kServer, 3);
  ClientHandshake b(client_id, kServer, 3);
  const Bytes pa = bytes(a.hello().payload), pb = bytes(b.hello().payload);
  ASSERT_EQ(pa.size(), kHelloSize);
  ASSERT_EQ(pb.size(), kHelloSize);
  EXPECT_NE(pa, pb);
  EXPECT_TRUE(std::equal(pa.begin(), pa.begin() + kHelloNonce, pb.begin()));
  EXPECT_TRUE(std::equal(pa.begin() + kHelloDelivered, pa.end(), pb.begin() + kHelloDelivered));
  EXPECT_FALSE(std::equal(pa.begin() + kHelloNonce, pa.begin() + kHelloDelivered, pb.begin() + kHelloNonce));
  // The same client repeats its hello unchanged.
  EXPECT_EQ(a.hello().payload, pa);
}

TEST(HandshakeNonce, TwoChallengesHaveDifferentNonces) {
  const HandshakeIdentity client_id = identity(kClient);
  const HandshakeIdentity server_id = identity(kServer);
  ClientHandshake client(client_id, kServer, 0);
  ServerHandshake s1(server_id, [](ProcessName) { return std::uint64_t{0}; });
  ServerHandshake s2(server_id, [](ProcessName) { return std::uint64_t{0}; });
  const Bytes c1 = bytes(s1.on_frame(client.hello()).send.at(0).payload);
  const Bytes c2 = bytes(s2.on_frame(client.hello()).send.at(0).payload);
  ASSERT_EQ(c1.size(), kChallengeSize);
  EXPECT_FALSE(std::equal(c1.begin() + kChallengeNonce, c1.begin() + kChallengeMac, c2.begin() + kChallengeNonce));
  EXPECT_FALSE(std::equal(c1.begin() + kChallengeMac, c1.begin() + kChallengeDelivered, c2.begin() + kChallengeMac));
}

// --- HMAC-SHA256 -----------------------------------------------------------------

std::string hex(const std::array<std::uint8_t, 32>& mac) { return test::hex_of(mac); }

TEST(HmacSha256, Rfc4231TestCase2) {
  const Bytes key = bytes("Jefe");
  const Bytes data = bytes("what do ya want for nothing?");
  EXPECT_EQ(hex(hmac_sha256(key, {data}).value()), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(HmacSha256, Rfc4231TestCase1) {
  const Bytes key(20, 0x0b);
  const Bytes data = bytes("Hi There");
  EXPECT_EQ(hex(hmac_sha256(key, {data}).value()), "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
}

TEST(HmacSha256, Rfc4231TestCase6KeyLongerThanABlock) {
  const Bytes key(131, 0xaa);
  const Bytes data = bytes("Test Using Larger Than Block-Size Key - Hash Key First");
  EXPECT_EQ(hex(hmac_sha256(key, {data}).value()), "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST(HmacSha256, SplittingTheDataGivesTheSameMac) {
  const Bytes key = bytes("Jefe");
  const Bytes d1 = bytes("what do ya"), d2 = bytes(" want "), d3 = bytes("for nothing?"), empty;
  const std::string want = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
  EXPECT_EQ(hex(hmac_sha256(key, {d1, d2, d3}).value()), want);
  EXPECT_EQ(hex(hmac_sha256(key, {empty, d1, empty, d2, d3, empty}).value()), want);
  const Bytes whole = bytes("what do ya want for nothing?");
  for (size_t cut = 0; cut <= whole.size(); ++cut) {
    const std::span<const std::uint8_t> all(whole);
    EXPECT_EQ(hex(hmac_sha256(key, {all.first(cut), all.subspan(cut)}).value()), want) << "cut at " << cut;
  }
}

TEST(HmacSha256, AgreesWithLibcryptosEvpMac) {
  // Keys around and beyond the block size, data of every length up to two
  // blocks, cut in two anywhere: the same MAC as EVP's HMAC.
  std::unique_ptr<EVP_MAC, decltype(&EVP_MAC_free)> mac(EVP_MAC_fetch(nullptr, "HMAC", nullptr), EVP_MAC_free);
  ASSERT_TRUE(mac);
  std::uint32_t seed = 12345;
  auto next = [&seed] { return static_cast<std::uint8_t>((seed = seed * 1103515245u + 12345u) >> 16); };
  for (size_t key_size : {1u, 31u, 32u, 63u, 64u, 65u, 128u, 200u}) {
    Bytes key(key_size);
    for (auto& b : key) b = next();
    for (size_t n = 0; n <= 130; n += 13) {
      Bytes data(n);
      for (auto& b : data) b = next();
      std::unique_ptr<EVP_MAC_CTX, decltype(&EVP_MAC_CTX_free)> ctx(EVP_MAC_CTX_new(mac.get()), EVP_MAC_CTX_free);
      char digest[] = "SHA256";
      OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string("digest", digest, 0), OSSL_PARAM_construct_end()};
      ASSERT_EQ(EVP_MAC_init(ctx.get(), key.data(), key.size(), params), 1);
      ASSERT_EQ(EVP_MAC_update(ctx.get(), data.data(), data.size()), 1);
      std::array<std::uint8_t, 32> want{};
      size_t len = 0;
      ASSERT_EQ(EVP_MAC_final(ctx.get(), want.data(), &len, want.size()), 1);
      const std::span<const std::uint8_t> all(data);
      EXPECT_EQ(hmac_sha256(key, {all.first(n / 3), all.subspan(n / 3)}).value(), want)
          << "key of " << key_size << " bytes, data of " << n;
    }
  }
}

TEST(HmacSha256, KeyAndDataMatter) {
  const Bytes data = bytes("what do ya want for nothing?");
  const auto base = hmac_sha256(bytes("Jefe"), {data}).value();
  EXPECT_NE(hmac_sha256(bytes("Jeff"), {data}).value(), base);
  EXPECT_NE(hmac_sha256(bytes("Jefe"), {bytes("what do ya want for nothing!")}).value(), base);
}

}  // namespace
}  // namespace orca::oob

namespace orca::oob {
namespace {

TEST(HandshakeCrypto, AnEmptyKeyIsAnErrorValueNotAnException) {
  // hmac_sha256 runs inside event-loop callbacks: it must never throw.
  const std::vector<std::uint8_t> data = {1, 2, 3};
  auto r = hmac_sha256({}, {data});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().topic(), "handshake-failed");
  EXPECT_NE(r.error().arg("why").find("non-empty job secret"), std::string::npos);
}

}  // namespace
}  // namespace orca::oob
