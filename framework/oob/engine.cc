// Engine: peers, connections and the reliability protocol around them.
#include <orca/oob_engine.h>

#include "oob/frame_codec.h"
#include "oob/handshake_slots.h"
#include "oob/peer_channel.h"
#include "oob/stream_connection.h"

#include <algorithm>

namespace orca::oob {

namespace {
// A delivered message is acknowledged by the next frame going the other
// way, or after this long by a frame of its own.
constexpr std::chrono::milliseconds kAckDelay{5};

// Why a newcomer from `source` took the handshake slot HandshakeSlots
// gave it, naming the variable of the limit.
std::string eviction_reason(const HandshakeSlots::Admission& a, const HandshakeSlots::Limits& limits,
                            const EngineConfig& config, const std::string& source) {
  const std::string oldest = "the oldest handshake of " + a.victim_source + ", which held " +
                             std::to_string(a.victim_held) + ", the most, gave way";
  switch (a.limit) {
    case HandshakeSlots::Limit::PerSource:
      return source + " has " + std::to_string(limits.per_source) + " connections in their handshake (" +
             config.variable("max_pending_per_source") + "): its oldest gave way";
    case HandshakeSlots::Limit::NewSources:
      return "sources that have not completed a handshake in this job hold all " +
             std::to_string(limits.total - limits.reserve) + " handshake slots they may use (" +
             config.variable("max_pending") + " minus " + config.variable("pending_reserve") + "): " + oldest;
    case HandshakeSlots::Limit::Total:
    case HandshakeSlots::Limit::None:
      break;
  }
  return "all " + std::to_string(limits.total) + " handshake slots are taken (" + config.variable("max_pending") +
         "): " + oldest;
}
}  // namespace

struct PeerState {
  PeerState(EventLoop& loop, std::uint64_t limit, std::function<void()> on_ack_timer)
      : channel(limit), ack_timer(loop, std::move(on_ack_timer)) {}
  PeerChannel channel;
  Connection* current = nullptr;
  Timer ack_timer;
  bool refused = false;  // a send was refused for a full queue: tell `ready` once there is room
  bool forgotten = false;  // told to end (forget): its connection closing wants no other
};

Engine::Engine(EventLoop& loop, EngineConfig config, EngineCallbacks callbacks)
    : loop_(loop), config_(std::move(config)), callbacks_(std::move(callbacks)), graveyard_(loop.base()) {
  if (config_.secret.empty()) throw std::invalid_argument("the oob engine needs a job secret");
  if (config_.variable_prefix.empty()) throw std::invalid_argument("the oob engine needs its component's variable prefix");
  slots_ = std::make_unique<HandshakeSlots>(HandshakeSlots::Limits{.total = config_.max_pending,
                                                                   .reserve = config_.pending_reserve,
                                                                   .per_source = config_.max_pending_per_source});
}

Engine::~Engine() {
  shutting_down_ = true;
  for (auto& c : connections_) c->close("shutting down");
  connections_.clear();
  // Closed connections not freed yet go with graveyard_, the first member
  // destroyed: before the state they were part of.
}

Engine::Attempt::~Attempt() { cancel("the connection attempt was abandoned"); }

void Engine::Attempt::cancel(const std::string& why) {
  if (connection_ == nullptr) return;
  Connection* c = connection_;
  c->attempt = nullptr;
  c->on_dial_done = nullptr;
  connection_ = nullptr;
  c->close(why);
}

void Engine::release_attempt(Connection* c) {
  if (c->attempt != nullptr) {
    c->attempt->connection_ = nullptr;
    c->attempt = nullptr;
  }
}

void Engine::log(int level, const std::string& text) const {
  if (callbacks_.log) callbacks_.log(level, text);
}

PeerState& Engine::peer(ProcessName name) {
  auto it = peers_.find(name);
  if (it == peers_.end()) {
    auto state = std::make_unique<PeerState>(loop_, config_.send_queue_limit, [this, name] {
      auto found = peers_.find(name);
      if (found != peers_.end()) send_ack(*found->second);
    });
    it = peers_.emplace(name, std::move(state)).first;
  }
  return *it->second;
}

std::uint64_t Engine::delivered_from(ProcessName name) const {
  // A lookup, never an insertion: the server asks this about a name the
  // peer has only claimed so far.
  auto it = peers_.find(name);
  return it == peers_.end() ? 0 : it->second->channel.delivered();
}

void Engine::accept(UniqueFd fd, std::string label, const std::string& source) {
  const HandshakeSlots::Admission admission = slots_->admit(source);
  if (admission.evicted) evict(*admission.evicted, label, eviction_reason(admission, slots_->limits(), config_, source));
  // A server side does not know its peer before HELLO; delivered_from
  // answers for whoever it turns out to be.
  auto c = std::make_unique<Connection>(*this, std::move(fd), std::move(label), Connection::Role::Server,
                                        ProcessName{}, HandshakeIdentity{config_.self, config_.secret},
                                        [this](ProcessName p) { return delivered_from(p); });
  c->pending = true;
  c->slot = admission.ticket;
  Connection* raw = c.get();
  pending_by_slot_.emplace(admission.ticket, raw);
  connections_.push_back(std::move(c));
  log(20, "handshake with a new connection " + raw->label());
  raw->start();
}

size_t Engine::pending() const noexcept { return slots_->pending(); }

std::chrono::steady_clock::time_point Engine::now() const {
  return config_.clock ? config_.clock() : std::chrono::steady_clock::now();
}

void Engine::evict(std::uint64_t ticket, const std::string& label, const std::string& why) {
  auto it = pending_by_slot_.find(ticket);
  if (it == pending_by_slot_.end()) return;  // every slot is a pending connection's; never here
  Connection* victim = it->second;
  pending_by_slot_.erase(it);
  victim->pending = false;  // its slot is the newcomer's already
  if (auto unlogged = eviction_log_.occurred(now())) {
    log(0, "closed " + victim->label() + " for " + label + ": " + why + LogThrottle::since(*unlogged) +
               "; every such close is logged at verbose level 10");
  }
  victim->close("its handshake slot went to " + label + ": " + why);
}

void Engine::settle_pending(Connection* c, bool completed) {
  if (!c->pending) return;
  c->pending = false;
  pending_by_slot_.erase(c->slot);
  if (completed) {
    slots_->proven(c->slot);
  } else {
    slots_->release(c->slot);
  }
}

std::unique_ptr<Engine::Attempt> Engine::dial(UniqueFd fd, ProcessName expected, std::string label,
                                              std::function<void(Status)> done) {
  auto c = std::make_unique<Connection>(*this, std::move(fd), std::move(label), Connection::Role::Client, expected,
                                        HandshakeIdentity{config_.self, config_.secret},
                                        [this](ProcessName p) { return delivered_from(p); });
  Connection* raw = c.get();
  raw->on_dial_done = std::move(done);
  connections_.push_back(std::move(c));
  std::unique_ptr<Attempt> attempt(new Attempt(raw));
  raw->attempt = attempt.get();
  log(20, "handshake with " + expected.to_string() + " over " + raw->label());
  raw->start();
  return attempt;
}

void Engine::on_established(Connection* c, ProcessName name, std::uint64_t peer_delivered) {
  release_attempt(c);
  settle_pending(c, true);
  PeerState& p = peer(name);
  if (p.current != nullptr && p.current != c) {
    // The same side connecting again has given up on the old connection:
    // the new one stays. Both sides connecting at once: both keep the one
    // opened by the lower process name, agreeing without a word.
    Connection* keep = c->initiator() == p.current->initiator() || c->initiator() < p.current->initiator()
                           ? c
                           : p.current;
    if (keep != c) {
      log(10, "already connected to " + name.to_string() + " over " + p.current->label() + "; closing " + c->label());
      c->close("a duplicate of " + p.current->label());
      return;
    }
    Connection* old = p.current;
    p.current = nullptr;
    old->close("replaced by " + c->label());
  }
  p.current = c;
  p.channel.restart_from(peer_delivered);
  log(10, "connected to " + name.to_string() + " over " + c->label() + " (resending " +
              std::to_string(p.channel.unacknowledged()) + " unacknowledged)");
  pump(p);
}

void Engine::announce_connected(Connection* c) {
  auto it = peers_.find(c->peer());
  if (it == peers_.end() || it->second->current != c) return;  // closed as a duplicate
  if (callbacks_.connected) callbacks_.connected(c->peer());
}

void Engine::on_closed(Connection* c, const std::string& why) {
  release_attempt(c);
  settle_pending(c, false);
  if (shutting_down_) return;
  log(10, "connection " + c->label() + " closed: " + why);
  bury(c);
  if (c->established()) {
    auto it = peers_.find(c->peer());
    if (it != peers_.end() && it->second->current == c) {
      PeerState& p = *it->second;
      p.current = nullptr;
      if (p.forgotten) {
        // It was told to end, and did: nothing left for it is worth a dial.
        p.channel.acknowledge(UINT64_MAX);
        p.ack_timer.cancel();
        log(10, c->peer().to_string() + " ended as told: not connecting again");
        return;
      }
      // Whether or not messages wait: a peer whose connection closed is
      // reconnected or reported lost by the component, so an idle peer's
      // death is noticed too.
      if (callbacks_.want_connection) callbacks_.want_connection(c->peer());
    }
  }
}

void Engine::bury(Connection* c) {
  auto it = std::find_if(connections_.begin(), connections_.end(), [c](const auto& p) { return p.get() == c; });
  if (it == connections_.end()) return;
  // Its close() is still on the stack: freed once that callback returns.
  // (Held in a shared_ptr: a deferred call must be copyable.)
  graveyard_.defer([dead = std::shared_ptr<Connection>(std::move(*it))] {});
  connections_.erase(it);
}

Payload::Payload(std::vector<std::uint8_t> bytes) {
  auto owned = std::make_shared<const std::vector<std::uint8_t>>(std::move(bytes));
  data_ = owned->data();
  size_ = owned->size();
  owner_ = std::move(owned);
}

Status Engine::would_accept(ProcessName to, size_t size) {
  if (size > config_.max_message_size) {
    return Message("oob", "message-too-large",
                   {{"size", std::to_string(size)}, {"limit", std::to_string(config_.max_message_size)},
                    {"variable", config_.variable("max_msg_size")},
                    {"why", "a message of " + std::to_string(size) + " bytes is larger than " +
                                config_.variable("max_msg_size") + " (" + std::to_string(config_.max_message_size) + ")"}});
  }
  PeerState& p = peer(to);
  Status st = p.channel.would_accept(size);
  if (st) return st;
  p.refused = true;
  // The channel knows its limit, not whose variable set it.
  Message::Args args = st.error().args();
  args.emplace_back("variable", config_.variable("send_queue_limit"));
  return Message(st.error().area(), st.error().topic(), std::move(args), st.error().kind());
}

Status Engine::send(ProcessName to, std::uint32_t tag, Payload payload) {
  if (Status st = would_accept(to, payload.size()); !st) return st;
  PeerState& p = peer(to);
  auto seq = p.channel.enqueue(tag, std::move(payload));
  if (!seq) return seq.error();
  p.forgotten = false;  // wanted again
  if (p.current != nullptr) {
    pump(p);
  } else if (callbacks_.want_connection) {
    callbacks_.want_connection(to);
  }
  return {};
}

void Engine::pump(PeerState& p) {
  while (p.current != nullptr && !p.current->closed()) {
    const OutgoingMessage* m = p.channel.next_to_send();
    if (m == nullptr) break;
    FrameHeader h;
    h.type = FrameType::Data;
    h.tag = m->tag;
    h.seq = m->seq;
    h.length = static_cast<std::uint32_t>(m->payload.size());
    auto payload = m->payload;
    p.channel.mark_sent();
    p.current->send_frame(h, std::move(payload));
  }
}

void Engine::on_data(Connection* c, ProcessName from, std::uint32_t tag, std::uint64_t seq,
                     std::span<const std::uint8_t> bytes) {
  PeerState& p = peer(from);
  switch (p.channel.on_data(seq, bytes.size())) {
    case PeerChannel::Arrival::Duplicate:
      log(30, "dropped duplicate message " + std::to_string(seq) + " from " + from.to_string());
      // The peer resends only what it believes undelivered: our ack was
      // lost with an old connection. Owe it again (one, after kAckDelay,
      // for a run of duplicates), or the peer holds them forever.
      p.channel.peer_missed_ack(seq);
      if (!p.ack_timer.pending()) p.ack_timer.start(kAckDelay);
      return;
    case PeerChannel::Arrival::Gap:
      c->close("message " + std::to_string(seq) + " arrived after " + std::to_string(p.channel.delivered()));
      return;
    case PeerChannel::Arrival::Deliver:
      break;
  }
  if (callbacks_.deliver) callbacks_.deliver(from, tag, bytes);
  // The callback may have sent (and so acknowledged) already.
  if (p.channel.ack_due()) {
    send_ack(p);
  } else if (p.channel.ack_pending() && !p.ack_timer.pending()) {
    p.ack_timer.start(kAckDelay);
  }
}

void Engine::on_ack(ProcessName from, std::uint64_t ack) {
  auto it = peers_.find(from);
  if (it == peers_.end()) return;
  PeerState& p = *it->second;
  p.channel.acknowledge(ack);
  // Half the limit, not the first free byte: a refused sender retries
  // once with room for a burst, not once per acknowledgement.
  if (p.refused && p.channel.queued_bytes() <= config_.send_queue_limit / 2) {
    p.refused = false;
    if (callbacks_.ready) callbacks_.ready(from);
  }
}

void Engine::stamp_ack(ProcessName name, FrameHeader& header) {
  PeerState& p = peer(name);
  header.ack = p.channel.delivered();
  p.channel.ack_sent();
}

void Engine::send_ack(PeerState& p) {
  p.ack_timer.cancel();
  if (p.current == nullptr || !p.channel.ack_pending()) return;
  FrameHeader h;
  h.type = FrameType::Ack;
  p.current->send_frame(h, Payload());
}

bool Engine::connected(ProcessName name) const {
  auto it = peers_.find(name);
  return it != peers_.end() && it->second->current != nullptr;
}

std::string Engine::connection_label(ProcessName name) const {
  auto it = peers_.find(name);
  return it != peers_.end() && it->second->current != nullptr ? it->second->current->label() : std::string();
}

size_t Engine::unacknowledged(ProcessName name) const {
  auto it = peers_.find(name);
  return it == peers_.end() ? 0 : it->second->channel.unacknowledged();
}

void Engine::forget(ProcessName name) {
  auto it = peers_.find(name);
  if (it != peers_.end()) it->second->forgotten = true;
}

void Engine::drop_connection(ProcessName name, const std::string& why) {
  auto it = peers_.find(name);
  if (it != peers_.end() && it->second->current != nullptr) it->second->current->close(why);
}

size_t Engine::drop_connections_with_prefix(const std::string& prefix, const std::string& why) {
  std::vector<Connection*> victims;
  for (auto& c : connections_) {
    if (c->label().rfind(prefix, 0) == 0) victims.push_back(c.get());
  }
  for (Connection* c : victims) c->close(why);
  return victims.size();
}

}  // namespace orca::oob
