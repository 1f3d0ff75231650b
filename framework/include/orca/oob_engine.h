/*
 * The oob stream engine: everything a stream component (tcp, usock) shares
 * once it has a connected socket.
 *
 * A component owns addressing: listeners, contact URIs, which address to
 * try and when. It hands every accepted socket to accept() and every
 * socket it connected to dial(). The engine then runs the handshake
 * (names, version, job, HMAC challenge-response with the job secret),
 * frames messages, numbers them per peer, acknowledges, resends what was
 * not acknowledged after a reconnect, drops duplicates, sends heartbeats
 * and drops a connection that stays silent too long.
 *
 * When a peer needs a connection (a message is waiting and none is up),
 * the engine calls EngineCallbacks::want_connection; the component
 * connects (racing its candidates) and calls dial() for each attempt.
 * Everything runs on the EventLoop's thread.
 */
#ifndef ORCA_OOB_ENGINE_H
#define ORCA_OOB_ENGINE_H

#include <orca/event_loop.h>
#include <orca/export.h>
#include <orca/log_throttle.h>
#include <orca/mca_component.h>
#include <orca/process_name.h>
#include <orca/result.h>
#include <orca/unique_fd.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace orca::oob {

struct ORCA_EXPORT EngineConfig {
  ProcessName self;
  std::vector<std::uint8_t> secret;                    // the job secret; must not be empty
  /* The owning component's variable prefix ("oob_tcp_"), so that every
   * limit and message names the variable that sets it; must not be empty
   * (liborca names no component's variable of its own accord). */
  std::string variable_prefix;
  std::uint64_t max_message_size = 64ull << 20;        // <prefix>max_msg_size
  std::uint64_t send_queue_limit = 256ull << 20;       // bytes held per peer before back-pressure
  std::chrono::milliseconds heartbeat{500};            // 0: no heartbeat
  int heartbeat_misses = 4;                            // silent this long (period x misses): connection dead
  std::chrono::milliseconds handshake_timeout{5000};
  /* How long past handshake_timeout a connection waits while the peer
   * process, of this uid, is seen running (unix sockets, where the kernel
   * names it): overload is not death. 0: never past the timeout. */
  std::chrono::milliseconds handshake_patience{60000};
  /* Handshake slots: connections that have not proven the secret yet, in
   * all; of these, pending_reserve (< max_pending) only for sources that
   * completed a handshake in this engine (a daemon's reconnect); and from
   * any one source. A newcomer that finds no room takes the slot of the
   * oldest handshake of the source holding the most (see accept()). */
  std::uint32_t max_pending = 256;                     // <prefix>max_pending
  std::uint32_t pending_reserve = 64;                  // <prefix>pending_reserve
  std::uint32_t max_pending_per_source = 32;           // <prefix>max_pending_per_source
  /* Where connections read the time for heartbeats and silence (the
   * timer that wakes them still runs on the loop): for tests, which move
   * a fake clock; empty in production, meaning steady_clock::now. */
  std::function<std::chrono::steady_clock::time_point()> clock;

  /* "<prefix><name>", for messages. */
  std::string variable(std::string_view name) const { return variable_prefix + std::string(name); }
};

/* The engine's variables (max_msg_size, send_queue_limit, heartbeat,
 * heartbeat_misses, handshake_timeout, handshake_patience, max_pending, pending_reserve,
 * max_pending_per_source), as rows for a stream component's variable
 * table: each component declares them under its own prefix. */
ORCA_EXPORT std::span<const orca_mca_var_decl> engine_variable_decls();

/* Reads those variables through a component's context into an
 * EngineConfig whose variable_prefix is `prefix` ("oob_tcp_"). Errors: a
 * variable that cannot be read or does not fit (names it); a
 * pending_reserve not below max_pending (names both). */
ORCA_EXPORT Result<EngineConfig> read_engine_config(const orca_mca_context& context, std::string prefix);

struct ORCA_EXPORT EngineCallbacks {
  /* A message from `from`, in order and exactly once. */
  std::function<void(ProcessName from, std::uint32_t tag, std::span<const std::uint8_t> bytes)> deliver;
  /* `peer` has no connection and needs one: messages wait for it, or the
   * one it had closed (an idle peer's death must be noticed too). Connect,
   * then dial(); or report it lost. */
  std::function<void(ProcessName peer)> want_connection;
  /* Verbose output: level 10 connections, 20 handshakes, 30 frames. */
  std::function<void(int level, const std::string& text)> log;
  /* A send to `peer` was refused for a full queue, and acknowledgements
   * have since brought the queue to half its limit or less: there is room
   * again. Once per refusal, from the loop (while reading the peer's
   * frames, as deliver is). */
  std::function<void(ProcessName peer)> ready;
  /* A connection to `peer` became its current one (handshake done), after
   * what waited for it was queued on it and the dialer's done callback ran
   * (a component knows by then which of its attempts won), and before any
   * of it is written: what this sends to `peer` goes out in the same write.
   * From the loop. */
  std::function<void(ProcessName peer)> connected;
};

/* Bytes to send, kept alive by an owner until they are written and
 * acknowledged. Built from a vector (taking it) or from bytes someone else
 * keeps alive (shared, no copy: the same buffer may go to many peers). */
class ORCA_EXPORT Payload {
 public:
  Payload() = default;
  explicit Payload(std::vector<std::uint8_t> bytes);
  Payload(std::shared_ptr<const void> owner, const std::uint8_t* data, size_t size)
      : owner_(std::move(owner)), data_(data), size_(size) {}
  const std::uint8_t* data() const noexcept { return data_; }
  size_t size() const noexcept { return size_; }

 private:
  std::shared_ptr<const void> owner_;
  const std::uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

class Connection;
class HandshakeSlots;
struct PeerState;
struct FrameHeader;

class ORCA_EXPORT Engine {
 public:
  /* Throws std::invalid_argument for an empty secret or variable prefix,
   * or a pending_reserve not below max_pending. */
  Engine(EventLoop& loop, EngineConfig config, EngineCallbacks callbacks);
  /* Closes every connection. The `done` of every attempt still held is
   * called with "shutting down" from inside the destructor: it must not
   * touch the Engine. (Destroying the Attempts first calls none.) */
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  /* An accepted stream: run the server handshake, then carry traffic.
   * `label` names it in logs ("10.0.0.1:5000 <- 10.0.0.2:40112");
   * `source` is what the kernel says it comes from (the remote address,
   * the process), the key its handshake slot is counted by; once a
   * connection from a source completes the handshake, that source is
   * proven. Until it proves the secret a connection costs a small, fixed
   * amount and creates nothing keyed by the name it claims. It is never
   * refused: when it finds no free slot, the oldest handshake of the
   * source holding the most slots it may take is closed for it (its own
   * source's, beyond max_pending_per_source; a never proven source's,
   * beyond the max_pending - pending_reserve they share; any, beyond
   * max_pending, never proven ones first), logged at level 0 at most once
   * a second and every time at level 10. So a daemon's first connection,
   * from a new address, gets in while strangers hold every slot they can,
   * and is not displaced while any of them holds two. */
  void accept(UniqueFd fd, std::string label, const std::string& source);
  /* Accepted connections still in their handshake. */
  size_t pending() const noexcept;
  /* Peers this engine keeps state for (sequence numbers, queues): only
   * ones it dialed, sent to, or that proved the secret. */
  size_t peer_count() const noexcept { return peers_.size(); }

  /* One client attempt; destroying it cancels the attempt and closes the
   * socket unless the handshake already completed. */
  class ORCA_EXPORT Attempt {
   public:
    ~Attempt();
    /* Gives up on the attempt, saying why in the log; the same as
     * destroying it, with a reason. */
    void cancel(const std::string& why);
    Attempt(const Attempt&) = delete;
    Attempt& operator=(const Attempt&) = delete;

   private:
    friend class Engine;
    explicit Attempt(Connection* connection) : connection_(connection) {}
    Connection* connection_;  // null once done
  };

  /* A connected stream to a process that should be `expected`: runs the
   * client handshake. `done` is called once: ok when established (the
   * engine then owns the stream), or why it failed (wrong peer, refused,
   * closed, timed out). Not called if the Attempt is destroyed first. */
  std::unique_ptr<Attempt> dial(UniqueFd fd, ProcessName expected, std::string label,
                                std::function<void(Status)> done);

  /* Queues a message; it goes out when a connection is up. Errors:
   * ErrorKind::Busy (back-pressure, "send-queue-full": EngineCallbacks::ready
   * says when to retry), too large. */
  Status send(ProcessName peer, std::uint32_t tag, Payload payload);
  /* Whether `size` more bytes would be accepted now: lets a caller skip
   * copying a message that would only be refused. A refusal here counts
   * as one of send's (ready follows). */
  Status would_accept(ProcessName peer, size_t size);

  /* Whether an established connection carries `peer`. */
  bool connected(ProcessName peer) const;
  /* The label of that connection, "" when none. */
  std::string connection_label(ProcessName peer) const;
  /* Messages to `peer` sent but not acknowledged yet. */
  size_t unacknowledged(ProcessName peer) const;
  /* Closes the connection carrying `peer` (its local address vanished,
   * say); unacknowledged messages go again over the next one. */
  void drop_connection(ProcessName peer, const std::string& why);
  /* `peer` was told to end: once its connection closes, what is still
   * queued for it is dropped and no connection is wanted (no dial, no lost
   * report). A later send() to it undoes this. */
  void forget(ProcessName peer);
  /* Closes every connection whose label starts with `prefix` (labels
   * start with the local address, so a vanished local address closes its
   * connections); returns how many. */
  size_t drop_connections_with_prefix(const std::string& prefix, const std::string& why);

  const EngineConfig& config() const noexcept { return config_; }
  EventLoop& loop() noexcept { return loop_; }

 private:
  friend class Connection;
  PeerState& peer(ProcessName name);
  void on_established(Connection* c, ProcessName peer, std::uint64_t peer_delivered);
  /* After the dialer heard: EngineCallbacks::connected, if `c` is still
   * its peer's current connection. */
  void announce_connected(Connection* c);
  void on_closed(Connection* c, const std::string& why);
  void on_data(Connection* c, ProcessName from, std::uint32_t tag, std::uint64_t seq, std::span<const std::uint8_t> bytes);
  void on_ack(ProcessName from, std::uint64_t ack);
  void stamp_ack(ProcessName peer, FrameHeader& header);
  void send_ack(PeerState& p);
  void release_attempt(Connection* c);
  void pump(PeerState& p);
  void log(int level, const std::string& text) const;
  void bury(Connection* c);
  /* Frees c's handshake slot, if it holds one; `completed`: its source is proven. */
  void settle_pending(Connection* c, bool completed);
  /* Closes the pending connection whose slot (`ticket`) went to `label`, saying why. */
  void evict(std::uint64_t ticket, const std::string& label, const std::string& why);
  /* EngineConfig::clock, or steady_clock::now when it is empty. */
  std::chrono::steady_clock::time_point now() const;
  std::uint64_t delivered_from(ProcessName name) const;

  EventLoop& loop_;
  EngineConfig config_;
  EngineCallbacks callbacks_;
  std::map<ProcessName, std::unique_ptr<PeerState>> peers_;
  std::vector<std::unique_ptr<Connection>> connections_;
  std::unique_ptr<HandshakeSlots> slots_;  // who holds the slots for handshakes
  std::unordered_map<std::uint64_t, Connection*> pending_by_slot_;  // the connections holding them
  LogThrottle eviction_log_;               // a level-0 line about evictions at most once a second
  bool shutting_down_ = false;
  /* A view of loop_ of the engine's own: a closed Connection is freed by a
   * call deferred on it, outside the Connection's own callbacks, and no
   * later than this Engine (destroying the view drops what it has not run
   * yet). Last, so that it goes first. */
  EventLoop graveyard_;
};

}  // namespace orca::oob

#endif  // ORCA_OOB_ENGINE_H
