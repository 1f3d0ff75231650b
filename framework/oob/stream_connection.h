// Connection: one stream socket of the oob engine: handshake, frame I/O,
// heartbeat and handshake timers. Owned by the Engine (not public API).
#ifndef ORCA_OOB_STREAM_CONNECTION_H
#define ORCA_OOB_STREAM_CONNECTION_H

#include "oob/frame_codec.h"
#include "oob/handshake.h"

#include <orca/event_loop.h>
#include <orca/oob_engine.h>
#include <orca/unique_fd.h>

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <string>

namespace orca::oob {

class Connection {
 public:
  enum class Role { Server, Client };

  Connection(Engine& engine, UniqueFd fd, std::string label, Role role, ProcessName expected,
             HandshakeIdentity identity, std::function<std::uint64_t(ProcessName)> delivered_from);
  /* An accepted connection holds a handshake slot (HandshakeSlots) until
   * it is established or closed; `slot` is its ticket. */
  std::uint64_t slot = 0;
  bool pending = false;
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  /* Starts reading (and, for a client, sends HELLO). */
  void start();
  /* Queues one frame and writes what the socket takes now. */
  void send_frame(const FrameHeader& header, Payload payload);
  /* Idempotent; tells the engine once. */
  void close(const std::string& why);

  bool established() const noexcept { return established_; }
  bool closed() const noexcept { return closed_; }
  Role role() const noexcept { return role_; }
  ProcessName peer() const noexcept { return peer_; }
  /* Who opened it: decides which of two simultaneous connections stays. */
  ProcessName initiator() const noexcept;
  const std::string& label() const noexcept { return label_; }

  /* For client attempts: called once with the handshake's outcome. */
  std::function<void(Status)> on_dial_done;
  /* The Attempt handle of a client connection, until it is decided. */
  Engine::Attempt* attempt = nullptr;

 private:
  struct Pending {
    std::uint8_t header[kHeaderSize];
    Payload payload;
    size_t written = 0;  // of header + payload
  };

  void on_readable();
  void flush();
  void handle(Frame& frame);
  void handshake_step(HandshakeStep step);
  void arm_heartbeat();
  /* A handshake_timeout period ended without a handshake: close, or (a
   * peer process of this uid seen running, HandshakePatience) wait one more. */
  void on_handshake_timeout();
  /* EngineConfig::clock, or steady_clock::now when it is empty. */
  std::chrono::steady_clock::time_point now() const;
  void on_heartbeat();
  /* Decodes `bytes` frame by frame, handling each; false once closed. */
  bool consume(std::span<const std::uint8_t> bytes);

  Engine& engine_;
  UniqueFd fd_;
  std::string label_;
  Role role_;
  ProcessName peer_;
  HandshakeIdentity identity_;  // the handshakes below refer to this copy
  std::unique_ptr<ClientHandshake> client_;
  std::unique_ptr<ServerHandshake> server_;
  FrameReader reader_;
  std::vector<Frame> frames_;      // scratch for the reader
  std::vector<std::uint8_t> inbuf_;
  // The last payload was read straight into place: read the next header
  // alone, so that a stream of large messages is never copied out of inbuf_.
  bool reading_large_ = false;
  std::deque<Pending> out_;
  IoWatch read_watch_;
  IoWatch write_watch_;
  Timer handshake_timer_;
  Timer heartbeat_timer_;
  std::chrono::steady_clock::time_point last_received_;
  std::chrono::steady_clock::time_point last_sent_;
  int handshake_periods_ = 0;  // handshake_timeout periods ended so far
  bool established_ = false;
  bool closing_ = false;       // inside close(): no second close, no recursion
  bool corked_ = false;        // frames wait in out_ for one write (the handshake's end)
  bool write_failed_ = false;  // the socket refused a write: stop writing
  bool closed_ = false;
};

}  // namespace orca::oob

#endif
