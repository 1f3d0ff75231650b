// Handshake state machines and their payload codecs.
#include "oob/handshake.h"

#include "oob/sha256.h"

#include <orca/oob_random.h>

#include <cstring>
#include <memory>

namespace orca::oob {

namespace {

constexpr std::uint8_t kMagic[4] = {'O', 'R', 'C', 'A'};
constexpr size_t kNonce = 32;
constexpr size_t kMac = 32;
constexpr size_t kHelloSize = 4 + 2 + 8 + 8 + kNonce + 8;
constexpr size_t kChallengeSize = 8 + kNonce + kMac + 8;
constexpr std::string_view kServerLabel = "orca-server";
constexpr std::string_view kClientLabel = "orca-client";

std::span<const std::uint8_t> bytes_of(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

void put_name(std::vector<std::uint8_t>& out, ProcessName n) {
  put_u32(out, n.job);
  put_u32(out, n.vpid);
}

ProcessName get_name(const std::uint8_t* p) { return {get_u32(p), get_u32(p + 4)}; }

Frame control(FrameType type, std::vector<std::uint8_t> payload) {
  Frame f;
  f.header.type = type;
  f.header.length = static_cast<std::uint32_t>(payload.size());
  f.payload.assign(payload.begin(), payload.end());
  return f;
}

Message failure(std::string why) { return Message("oob", "handshake-failed", {{"why", std::move(why)}}); }

bool macs_equal(const std::uint8_t* a, const std::uint8_t* b) { return equal_in_constant_time(a, b, kMac); }

// A fresh nonce, or why there is none: no entropy means no
// authentication, so the handshake must not go on without one.
Result<std::vector<std::uint8_t>> nonce() {
  std::vector<std::uint8_t> n(kNonce);
  if (std::string why; !random_bytes(n, &why)) return failure("no random bytes for a nonce (" + why + ")");
  return n;
}

}  // namespace

Result<std::array<std::uint8_t, 32>> hmac_sha256(const std::vector<std::uint8_t>& key,
                                                 std::initializer_list<std::span<const std::uint8_t>> parts) {
  // RFC 2104: H((K ^ opad) || H((K ^ ipad) || text)), K the key
  // zero-padded to the block, or its digest if longer.
  if (key.empty()) return failure("HMAC-SHA256 needs a non-empty job secret");
  std::array<std::uint8_t, Sha256::kBlock> k{};
  if (key.size() > k.size()) {
    const Sha256::Digest d = Sha256::of(key);
    std::copy(d.begin(), d.end(), k.begin());
  } else {
    std::copy(key.begin(), key.end(), k.begin());
  }
  std::array<std::uint8_t, Sha256::kBlock> pad;
  for (size_t i = 0; i < pad.size(); ++i) pad[i] = k[i] ^ 0x36;
  Sha256 inner;
  inner.update(pad);
  for (const auto& p : parts) inner.update(p);
  Sha256::Digest inner_digest = inner.finish();
  for (size_t i = 0; i < pad.size(); ++i) pad[i] = k[i] ^ 0x5c;
  Sha256 outer;
  outer.update(pad);
  outer.update(inner_digest);
  // The key, padded or not, must not linger on the stack.
  wipe(k.data(), k.size());
  wipe(pad.data(), pad.size());
  wipe(inner_digest.data(), inner_digest.size());
  return outer.finish();
}

Frame refusal_frame(RefuseCode code, const std::string& why) {
  std::vector<std::uint8_t> payload{static_cast<std::uint8_t>(code)};
  payload.insert(payload.end(), why.begin(), why.end());
  if (payload.size() > kMaxControlPayload) payload.resize(kMaxControlPayload);
  return control(FrameType::Refuse, std::move(payload));
}

std::string describe_refusal(const Frame& frame) {
  if (frame.payload.empty()) return "refused without a reason";
  return std::string(frame.payload.begin() + 1, frame.payload.end());
}

ClientHandshake::ClientHandshake(const HandshakeIdentity& identity, ProcessName expected, std::uint64_t delivered)
    : identity_(identity), expected_(expected) {
  hello_payload_.insert(hello_payload_.end(), std::begin(kMagic), std::end(kMagic));
  put_u16(hello_payload_, kProtocolVersion);
  put_name(hello_payload_, identity.self);
  put_name(hello_payload_, expected);
  auto n = nonce();
  if (!n) {
    setup_error_ = n.error();
    state_ = State::Failed;
    return;
  }
  hello_payload_.insert(hello_payload_.end(), n->begin(), n->end());
  put_u64(hello_payload_, delivered);
}

Frame ClientHandshake::hello() const { return control(FrameType::Hello, hello_payload_); }

HandshakeStep ClientHandshake::on_frame(const Frame& frame) {
  HandshakeStep step;
  auto fail = [&](std::string why) {
    state_ = State::Failed;
    step.error = failure(std::move(why));
    return step;
  };
  // Tell the server why, so that its log says it too.
  auto refuse = [&](RefuseCode code, std::string why) {
    step.send.push_back(refusal_frame(code, why));
    return fail(std::move(why));
  };
  if (state_ == State::Failed) return fail(setup_error_ ? setup_error_->arg("why") : "the handshake failed already");
  if (frame.header.type == FrameType::Refuse) return fail("the peer refused: " + describe_refusal(frame));
  if (state_ == State::AwaitChallenge && frame.header.type == FrameType::Challenge) {
    if (frame.payload.size() != kChallengeSize) return refuse(RefuseCode::Protocol, "a malformed challenge");
    const ProcessName server = get_name(frame.payload.data());
    if (server != expected_) {
      return refuse(RefuseCode::WrongPeer, "reached " + server.to_string() + ", not " + expected_.to_string() +
                                               " (an address this peer advertises belongs to another process)");
    }
    const std::uint8_t* server_nonce = frame.payload.data() + 8;
    const std::uint8_t* server_mac = server_nonce + kNonce;
    const std::uint8_t* delivered = server_mac + kMac;
    const auto want = hmac_sha256(identity_.secret, {bytes_of(kServerLabel), hello_payload_,
                                                     std::span(frame.payload.data(), 8), std::span(server_nonce, kNonce),
                                                     std::span(delivered, 8)});
    if (!want) return fail(want.error().arg("why"));
    if (!macs_equal(want->data(), server_mac)) {
      return refuse(RefuseCode::BadKey, "the peer's proof does not match this process's job secret "
                                        "(one side has the wrong key, or the peer is not of this job)");
    }
    peer_delivered_ = get_u64(delivered);
    challenge_payload_.assign(frame.payload.begin(), frame.payload.end());
    const auto mac = hmac_sha256(identity_.secret, {bytes_of(kClientLabel), hello_payload_, challenge_payload_});
    if (!mac) return fail(mac.error().arg("why"));
    step.send.push_back(control(FrameType::Response, std::vector<std::uint8_t>(mac->begin(), mac->end())));
    // The server proved the key: the RESPONSE will hold, so commit now
    // (handshake.h).
    step.send.push_back(control(FrameType::Commit, {}));
    state_ = State::Done;
    step.done = true;
    return step;
  }
  return refuse(RefuseCode::Protocol, "an unexpected frame during the handshake");
}

ServerHandshake::ServerHandshake(const HandshakeIdentity& identity,
                                 std::function<std::uint64_t(ProcessName)> delivered_from)
    : identity_(identity), delivered_from_(std::move(delivered_from)) {}

HandshakeStep ServerHandshake::refuse(RefuseCode code, const std::string& why) {
  HandshakeStep step;
  state_ = State::Failed;
  step.send.push_back(refusal_frame(code, why));
  step.error = failure(why);
  return step;
}

HandshakeStep ServerHandshake::on_frame(const Frame& frame) {
  if (frame.header.type == FrameType::Refuse) {
    state_ = State::Failed;
    HandshakeStep step;
    step.error = failure("refused by " + (peer_ == ProcessName{} ? std::string("the client") : peer_.to_string()) + ": " +
                         describe_refusal(frame));
    return step;
  }
  if (state_ == State::AwaitHello && frame.header.type == FrameType::Hello) {
    const auto& p = frame.payload;
    // Magic, then version, then size: another version may have another
    // layout and must hear "version", not "not Orca".
    if (p.size() < 6 || std::memcmp(p.data(), kMagic, 4) != 0) {
      return refuse(RefuseCode::Protocol, "not an Orca hello");
    }
    const std::uint16_t version = get_u16(p.data() + 4);
    if (version != kProtocolVersion) {
      return refuse(RefuseCode::Version, "protocol version " + std::to_string(version) + " is not " +
                                             std::to_string(kProtocolVersion) + "; run the same Orca everywhere");
    }
    if (p.size() != kHelloSize) return refuse(RefuseCode::Protocol, "a malformed hello");
    peer_ = get_name(p.data() + 6);
    const ProcessName receiver = get_name(p.data() + 14);
    if (receiver != identity_.self) {
      return refuse(RefuseCode::WrongPeer, "this is " + identity_.self.to_string() + ", not " + receiver.to_string());
    }
    if (peer_.job != identity_.self.job) {
      return refuse(RefuseCode::WrongJob, "job " + std::to_string(peer_.job) + " is not this job (" +
                                              std::to_string(identity_.self.job) + ")");
    }
    peer_delivered_ = get_u64(p.data() + 22 + kNonce);
    hello_payload_.assign(p.begin(), p.end());
    std::vector<std::uint8_t> name;
    put_name(name, identity_.self);
    const auto n = nonce();
    if (!n) return refuse(RefuseCode::Protocol, "the server cannot authenticate: " + n.error().arg("why"));
    std::vector<std::uint8_t> delivered;
    put_u64(delivered, delivered_from_(peer_));
    const auto mac = hmac_sha256(identity_.secret, {bytes_of(kServerLabel), hello_payload_, name, n.value(), delivered});
    if (!mac) return refuse(RefuseCode::Protocol, "the server cannot authenticate: " + mac.error().arg("why"));
    challenge_payload_ = name;
    challenge_payload_.insert(challenge_payload_.end(), n->begin(), n->end());
    challenge_payload_.insert(challenge_payload_.end(), mac->begin(), mac->end());
    challenge_payload_.insert(challenge_payload_.end(), delivered.begin(), delivered.end());
    state_ = State::AwaitResponse;
    HandshakeStep step;
    step.send.push_back(control(FrameType::Challenge, challenge_payload_));
    return step;
  }
  if (state_ == State::AwaitResponse && frame.header.type == FrameType::Response) {
    const auto want = hmac_sha256(identity_.secret, {bytes_of(kClientLabel), hello_payload_, challenge_payload_});
    if (!want) return refuse(RefuseCode::Protocol, "the server cannot authenticate: " + want.error().arg("why"));
    if (frame.payload.size() != kMac || !macs_equal(want->data(), frame.payload.data())) {
      return refuse(RefuseCode::BadKey, peer_.to_string() + " does not know the job secret");
    }
    // Nothing to answer: the client committed with its RESPONSE.
    state_ = State::AwaitCommit;
    return HandshakeStep{};
  }
  if (state_ == State::AwaitCommit && frame.header.type == FrameType::Commit) {
    state_ = State::Done;
    HandshakeStep step;
    step.done = true;
    return step;
  }
  return refuse(RefuseCode::Protocol, "an unexpected frame during the handshake");
}

}  // namespace orca::oob
