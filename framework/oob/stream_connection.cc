// Connection: nonblocking frame I/O on the event loop.
#include "oob/stream_connection.h"

#include "oob/handshake_patience.h"

#include <sys/socket.h>
#include <sys/uio.h>

#include <cerrno>
#include <cstring>
#include <limits>

namespace orca::oob {

namespace {
// Until the peer has proven the secret it gets a buffer just large enough
// for handshake frames; an established stream's buffer doubles up to
// kReadChunk while reads keep filling it.
constexpr size_t kHandshakeRead = kHeaderSize + kMaxControlPayload;
constexpr size_t kReadChunk = 256 * 1024;
// Payloads at least this large are read straight into their buffer.
constexpr size_t kDirectRead = 64 * 1024;
constexpr int kMaxIov = 64;

// Both factors are bounded by their variables' ranges; saturate anyway, so
// that a clock value plus either never overflows.
constexpr std::int64_t kMaxSpanMs = std::chrono::duration_cast<std::chrono::milliseconds>(kMaxTimerDelay).count();

std::chrono::steady_clock::duration heartbeat_period(const EngineConfig& c) {
  return std::chrono::milliseconds(std::clamp<std::int64_t>(c.heartbeat.count(), 0, kMaxSpanMs));
}

std::chrono::steady_clock::duration silence_limit(const EngineConfig& c) {
  const std::int64_t misses = std::clamp(c.heartbeat_misses, 1, 1000000);
  const std::int64_t ms = std::clamp<std::int64_t>(c.heartbeat.count(), 0, kMaxSpanMs);
  return std::chrono::milliseconds(std::min(ms, kMaxSpanMs / misses) * misses);
}

std::int64_t ms_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(b - a).count();
}
}  // namespace

Connection::Connection(Engine& engine, UniqueFd fd, std::string label, Role role, ProcessName expected,
                       HandshakeIdentity identity, std::function<std::uint64_t(ProcessName)> delivered_from)
    : engine_(engine),
      fd_(std::move(fd)),
      label_(std::move(label)),
      role_(role),
      peer_(expected),
      identity_(std::move(identity)),
      reader_(engine.config().max_message_size, engine.config().variable("max_msg_size"), FrameReader::Phase::Handshake),
      inbuf_(kHandshakeRead),
      read_watch_(engine.loop(), fd_.get(), IoWatch::kRead, [this](short) { on_readable(); }),
      write_watch_(engine.loop(), fd_.get(), IoWatch::kWrite, [this](short) { flush(); }),
      handshake_timer_(engine.loop(), [this] { on_handshake_timeout(); }),
      heartbeat_timer_(engine.loop(), [this] { on_heartbeat(); }) {
  if (role_ == Role::Client) {
    client_ = std::make_unique<ClientHandshake>(identity_, expected, delivered_from(expected));
  } else {
    server_ = std::make_unique<ServerHandshake>(identity_, std::move(delivered_from));
  }
}

Connection::~Connection() = default;

std::chrono::steady_clock::time_point Connection::now() const {
  const auto& clock = engine_.config().clock;
  return clock ? clock() : std::chrono::steady_clock::now();
}

ProcessName Connection::initiator() const noexcept { return role_ == Role::Client ? identity_.self : peer_; }

void Connection::start() {
  last_received_ = last_sent_ = now();
  read_watch_.enable();
  handshake_timer_.start(engine_.config().handshake_timeout);
  if (client_ && client_->setup_error()) {
    close("handshake: " + client_->setup_error()->arg("why"));
    return;
  }
  if (client_) {
    Frame hello = client_->hello();
    send_frame(hello.header, Payload(std::vector<std::uint8_t>(hello.payload.begin(), hello.payload.end())));
  }
}

void Connection::send_frame(const FrameHeader& header, Payload payload) {
  if (closed_) return;
  Pending p;
  if (established_) {
    FrameHeader stamped = header;
    engine_.stamp_ack(peer_, stamped);  // every frame acknowledges what arrived
    encode_header(stamped, p.header);
  } else {
    encode_header(header, p.header);
  }
  p.payload = std::move(payload);
  out_.push_back(std::move(p));
  last_sent_ = now();
  if (!corked_) flush();
}

void Connection::flush() {
  while (!out_.empty() && !closed_ && !write_failed_) {
    iovec iov[kMaxIov];
    int n = 0;
    for (auto it = out_.begin(); it != out_.end() && n + 2 <= kMaxIov; ++it) {
      size_t skip = it->written;
      if (skip < kHeaderSize) {
        iov[n++] = {it->header + skip, kHeaderSize - skip};
        skip = 0;
      } else {
        skip -= kHeaderSize;
      }
      const size_t plen = it->payload.size();
      if (plen > skip) iov[n++] = {const_cast<std::uint8_t*>(it->payload.data()) + skip, plen - skip};
    }
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = static_cast<size_t>(n);
    ssize_t w = ::sendmsg(fd_.get(), &msg, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      write_failed_ = true;
      close(std::string("write failed: ") + std::strerror(errno));
      return;
    }
    auto left = static_cast<size_t>(w);
    while (left > 0 && !out_.empty()) {
      Pending& front = out_.front();
      const size_t total = kHeaderSize + front.payload.size();
      const size_t take = std::min(left, total - front.written);
      front.written += take;
      left -= take;
      if (front.written == total) out_.pop_front();
    }
  }
  if (closed_) return;
  if (out_.empty()) {
    write_watch_.disable();
  } else {
    write_watch_.enable();
  }
}

void Connection::on_readable() {
  // A bounded number of reads per wakeup keeps one busy peer from starving
  // the others on the loop.
  for (int round = 0; round < 16 && !closed_; ++round) {
    std::span<std::uint8_t> direct = reader_.payload_space();
    // The rest of a large payload goes into place too, however little
    // is left of it after a partial read.
    const bool into_place = direct.size() >= kDirectRead || (reading_large_ && !direct.empty());
    // After a large payload, one recv for the header alone costs less than
    // copying the next 64 KiB payload out of inbuf_ (2 recvs a message, as
    // a blocking reader does; 64 KiB stream: the copy was ~20% of the CPU).
    const size_t header_only = reading_large_ ? reader_.header_missing() : 0;
    std::uint8_t* dst = into_place ? direct.data() : inbuf_.data();
    const size_t cap = into_place ? direct.size() : header_only > 0 ? header_only : inbuf_.size();
    ssize_t r = ::recv(fd_.get(), dst, cap, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      close(std::string("read failed: ") + std::strerror(errno));
      return;
    }
    if (r == 0) {
      close("closed by the peer");
      return;
    }
    last_received_ = now();
    const auto got = static_cast<size_t>(r);
    if (into_place) {
      reading_large_ = true;
      frames_.clear();
      reader_.commit_payload(got, frames_);
      for (auto& f : frames_) {
        handle(f);
        if (closed_) return;
      }
    } else {
      if (!consume(std::span<const std::uint8_t>(inbuf_.data(), got))) return;
      // Ending inside a large payload: its rest and the frames behind it
      // go into place; a small frame (an ack) sends us back to bulk reads.
      reading_large_ = reader_.payload_length() >= kDirectRead;
      if (established_ && header_only == 0 && got == cap && inbuf_.size() < kReadChunk) inbuf_.resize(std::min(kReadChunk, 2 * inbuf_.size()));
    }
    if (got < cap) return;  // drained for now
  }
}

bool Connection::consume(std::span<const std::uint8_t> bytes) {
  // Frame by frame: the handshake frame that finishes the handshake
  // switches the reader's phase before the bytes behind it are decoded.
  while (!bytes.empty()) {
    frames_.clear();
    auto taken = reader_.feed_some(bytes, frames_);
    if (!taken) {
      close(taken.error().arg("why"));
      return false;
    }
    bytes = bytes.subspan(taken.value());
    for (auto& f : frames_) {
      handle(f);
      if (closed_) return false;
    }
  }
  return true;
}

void Connection::handle(Frame& frame) {
  if (!established_) {
    // The reader takes only handshake frames in this phase.
    handshake_step(client_ ? client_->on_frame(frame) : server_->on_frame(frame));
    return;
  }
  engine_.on_ack(peer_, frame.header.ack);
  switch (frame.header.type) {
    case FrameType::Data:
      engine_.on_data(this, peer_, frame.header.tag, frame.header.seq, frame.payload);
      break;
    case FrameType::Ack:
    case FrameType::Heartbeat:
      break;
    case FrameType::Refuse:
      // A client commits with its RESPONSE (handshake.h): a server that
      // refuses it answers after the client counts the connection as made.
      close("refused by the peer: " + describe_refusal(frame));
      break;
    default:
      close("a handshake frame after the handshake");
  }
}

void Connection::handshake_step(HandshakeStep step) {
  // The handshake's last frame and what the engine has queued for the
  // peer go out in one write: the client's COMMIT and its first messages
  // cost the peer one wake-up, not two.
  corked_ = step.done && !step.error;
  for (auto& f : step.send) {
    send_frame(f.header, Payload(std::vector<std::uint8_t>(f.payload.begin(), f.payload.end())));
  }
  // A write of those frames can fail (the peer closed right after its
  // CHALLENGE): the connection is closed and buried then, and must not go on
  // to be established, or the engine keeps it as the peer's current
  // connection after it is freed.
  if (closed_) return;
  if (step.error) {
    // Write the refusal if the socket takes it now, then close.
    const std::string why = step.error->arg("why");
    close("handshake: " + why);
    return;
  }
  if (!step.done) return;
  handshake_timer_.cancel();
  established_ = true;
  reader_.set_phase(FrameReader::Phase::Established);
  std::uint64_t peer_delivered = 0;
  if (client_) {
    peer_delivered = client_->peer_delivered();
  } else {
    peer_ = server_->peer();
    peer_delivered = server_->peer_delivered();
  }
  client_.reset();
  server_.reset();
  arm_heartbeat();
  auto done = std::move(on_dial_done);
  on_dial_done = nullptr;
  engine_.on_established(this, peer_, peer_delivered);
  // The dialer settles its round first (oob/tcp: which address won, which
  // route() then tells), then whoever waits for the connection hears of
  // it; both before the cork comes off, so that what they send leaves in
  // the same write. Should that write fail (the peer closed right after
  // its CHALLENGE), the connection closes as any other that dies: the
  // engine wants a new one for what it carried.
  if (done) done(Status{});
  if (!closed_) engine_.announce_connected(this);
  corked_ = false;
  if (!closed_ && !out_.empty()) flush();
}

void Connection::on_handshake_timeout() {
  const EngineConfig& config = engine_.config();
  ++handshake_periods_;
  // Either end waits on for a peer process the kernel names, of this uid,
  // that runs (usock): a parent busy with a thousand daemons starting, or
  // a child starved of CPU, is slow, not dead. Over TCP nothing names the
  // peer, and a stranger's handshake costs its slot only this long.
  const HandshakePatience patience(config.handshake_timeout, config.handshake_patience,
                                   config.variable("handshake_patience"));
  const std::optional<std::string> give_up = patience.period_ended(handshake_periods_, peer_process_of(fd_.get()));
  if (!give_up) {
    handshake_timer_.start(config.handshake_timeout);
    return;
  }
  close("no handshake within " + config.variable("handshake_timeout") + " (" +
        std::to_string(config.handshake_timeout.count()) + " ms)" + *give_up);
}

void Connection::arm_heartbeat() {
  const auto period = engine_.config().heartbeat;
  if (period.count() <= 0) return;
  // Wake when a heartbeat is due or when the silence limit is reached,
  // whichever is first, so that death is noticed at period x misses and
  // not up to a period later.
  const auto now = this->now();
  const auto next = std::min(last_sent_ + heartbeat_period(engine_.config()), last_received_ + silence_limit(engine_.config()));
  heartbeat_timer_.start(next - now);
}

void Connection::on_heartbeat() {
  const auto now = this->now();
  const EngineConfig& config = engine_.config();
  if (now - last_received_ >= silence_limit(config)) {
    close("silent for " + std::to_string(ms_between(last_received_, now)) + " ms (" + config.variable("heartbeat") +
          " x " + std::to_string(config.heartbeat_misses) + ")");
    return;
  }
  if (now - last_sent_ >= heartbeat_period(config)) {
    FrameHeader h;
    h.type = FrameType::Heartbeat;
    send_frame(h, Payload());
  }
  arm_heartbeat();
}

void Connection::close(const std::string& why) {
  if (closed_ || closing_) return;
  // Best effort: push out what is queued (a REFUSE, say) without blocking.
  // A write error inside that flush comes back here and must stop.
  closing_ = true;
  if (!out_.empty()) flush();
  closed_ = true;
  read_watch_.disable();
  write_watch_.disable();
  handshake_timer_.cancel();
  heartbeat_timer_.cancel();
  ::shutdown(fd_.get(), SHUT_RDWR);
  out_.clear();
  auto done = std::move(on_dial_done);
  on_dial_done = nullptr;
  engine_.on_closed(this, why);
  if (done) done(Message("oob", "connection-failed", {{"label", label_}, {"why", why}}));
}

}  // namespace orca::oob
