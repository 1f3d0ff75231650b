// The oob stream handshake, as two pure state machines (no I/O), shared by
// every stream component.
//
//   client                                   server
//   HELLO  magic "ORCA", version, sender,  ->
//          expected receiver, nonce,
//          how far it delivered from the receiver
//                                          <- CHALLENGE server name, nonce,
//                                             HMAC(secret, "orca-server" | HELLO | ...),
//                                             how far it delivered from the client
//   RESPONSE HMAC(secret, "orca-client" | HELLO | CHALLENGE),
//   COMMIT, and what the client queued     ->  (one write)
// The CHALLENGE proves the server: the client then knows the key is the
// same on both ends and its RESPONSE will hold, so it commits at once
// rather than wait a round trip for the server to say so (protocol 2 did,
// with an ACCEPT frame: a round trip on every connection of a launch).
// The server checks the RESPONSE before it reads anything after it; a
// wrong one is refused and nothing behind it is read.
// COMMIT settles which connection both ends keep: a client racing several
// addresses completes the handshake on the first valid CHALLENGE and
// closes the others before it reads theirs, so exactly one connection per
// round is committed, and the server makes only a committed one current.
// Either side refuses with REFUSE (a code and a reason) and closes: a
// different version, a connection that reached some other process (wrong
// receiver name), another job, or a wrong key. Both sides prove the key,
// so neither trusts a process that merely answered on the address.
#ifndef ORCA_OOB_HANDSHAKE_H
#define ORCA_OOB_HANDSHAKE_H

#include "oob/frame_codec.h"

#include <orca/process_name.h>
#include <orca/result.h>

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace orca::oob {

inline constexpr std::uint16_t kProtocolVersion = 3;

enum class RefuseCode : std::uint8_t { Version = 1, WrongPeer = 2, WrongJob = 3, BadKey = 4, Protocol = 5 };

struct HandshakeStep {
  std::vector<Frame> send;        // frames to write, in order
  bool done = false;              // established (client: on the CHALLENGE; server: after COMMIT)
  std::optional<Message> error;   // refused or failed: close after writing `send`
};

/* The secret and who we are. The secret must not be empty. */
struct HandshakeIdentity {
  ProcessName self;
  std::vector<std::uint8_t> secret;
};

class ClientHandshake {
 public:
  /* `delivered` is the last sequence number this side delivered from the
   * peer (0 if none), so the peer can resend only what is missing. */
  ClientHandshake(const HandshakeIdentity& identity, ProcessName expected, std::uint64_t delivered);
  /* Why this handshake cannot start (no random bytes for its nonce); when
   * set, hello() must not be sent and on_frame() only fails. */
  const std::optional<Message>& setup_error() const noexcept { return setup_error_; }
  Frame hello() const;
  HandshakeStep on_frame(const Frame& frame);
  /* After done: the last sequence number the peer delivered from us. */
  std::uint64_t peer_delivered() const noexcept { return peer_delivered_; }

 private:
  const HandshakeIdentity& identity_;
  ProcessName expected_;
  std::vector<std::uint8_t> hello_payload_;
  std::vector<std::uint8_t> challenge_payload_;
  enum class State { AwaitChallenge, Done, Failed } state_ = State::AwaitChallenge;
  std::uint64_t peer_delivered_ = 0;
  std::optional<Message> setup_error_;
};

class ServerHandshake {
 public:
  /* `delivered_from` tells how far this side delivered from a peer; it is
   * asked about a name the peer has not proven yet, so it must not create
   * anything for that name. */
  ServerHandshake(const HandshakeIdentity& identity, std::function<std::uint64_t(ProcessName)> delivered_from);
  HandshakeStep on_frame(const Frame& frame);
  /* After HELLO: who the client says it is (proven once done). */
  ProcessName peer() const noexcept { return peer_; }
  std::uint64_t peer_delivered() const noexcept { return peer_delivered_; }

 private:
  HandshakeStep refuse(RefuseCode code, const std::string& why);
  const HandshakeIdentity& identity_;
  std::function<std::uint64_t(ProcessName)> delivered_from_;
  std::vector<std::uint8_t> hello_payload_;
  std::vector<std::uint8_t> challenge_payload_;
  enum class State { AwaitHello, AwaitResponse, AwaitCommit, Done, Failed } state_ = State::AwaitHello;
  ProcessName peer_;
  std::uint64_t peer_delivered_ = 0;
};

/* A REFUSE frame: the code and the reason in plain words. */
Frame refusal_frame(RefuseCode code, const std::string& why);

/* The text of a REFUSE frame's payload, for messages. */
std::string describe_refusal(const Frame& frame);

/* HMAC-SHA256 (RFC 2104, over Sha256) over the parts in order. Errors
 * (never exceptions: this runs inside event-loop callbacks): an empty key. */
Result<std::array<std::uint8_t, 32>> hmac_sha256(const std::vector<std::uint8_t>& key,
                                                 std::initializer_list<std::span<const std::uint8_t>> parts);

}  // namespace orca::oob

#endif
