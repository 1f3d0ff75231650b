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
  /* Connections that have not proven the secret yet: beyond these, new
   * ones are closed at once (in all, and from any one source address). */
  std::uint32_t max_pending = 256;                     // <prefix>max_pending
  std::uint32_t max_pending_per_source = 32;           // <prefix>max_pending_per_source
  /* Where connections read the time for heartbeats and silence (the
   * timer that wakes them still runs on the loop): for tests, which move
   * a fake clock; empty in production, meaning steady_clock::now. */
  std::function<std::chrono::steady_clock::time_point()> clock;

  /* "<prefix><name>", for messages. */
  std::string variable(std::string_view name) const { return variable_prefix + std::string(name); }
};

/* The engine's variables (max_msg_size, send_queue_limit, heartbeat,
 * heartbeat_misses, handshake_timeout, max_pending,
 * max_pending_per_source), as rows for a stream component's variable
 * table: each component declares them under its own prefix. */
ORCA_EXPORT std::span<const orca_mca_var_decl> engine_variable_decls();

/* Reads those variables through a component's context into an
 * EngineConfig whose variable_prefix is `prefix` ("oob_tcp_"). Errors: a
 * variable that cannot be read or does not fit (names it). */
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
struct PeerState;
struct FrameHeader;

class ORCA_EXPORT Engine {
 public:
  Engine(EventLoop& loop, EngineConfig config, EngineCallbacks callbacks);
  /* Closes every connection. The `done` of every attempt still held is
   * called with "shutting down" from inside the destructor: it must not
   * touch the Engine. (Destroying the Attempts first calls none.) */
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  /* An accepted stream: run the server handshake, then carry traffic.
   * `label` names it in logs ("10.0.0.1:5000 <- 10.0.0.2:40112");
   * `source` is the key its share of pending connections is counted by
   * (the remote address). Until it proves the secret it costs a small,
   * fixed amount and creates nothing keyed by the name it claims. Returns
   * false, having closed it, when max_pending connections are pending in
   * all or max_pending_per_source from `source`. */
  bool accept(UniqueFd fd, std::string label, std::string source);
  /* Accepted connections still in their handshake. */
  size_t pending() const noexcept { return pending_total_; }
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
   * "send-queue-full" (back-pressure: retry later), too large. */
  Status send(ProcessName peer, std::uint32_t tag, Payload payload);
  /* Whether `size` more bytes would be accepted now: lets a caller skip
   * copying a message that would only be refused. */
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
  void on_closed(Connection* c, const std::string& why);
  void on_data(Connection* c, ProcessName from, std::uint32_t tag, std::uint64_t seq, std::vector<std::uint8_t>& bytes);
  void on_ack(ProcessName from, std::uint64_t ack);
  void stamp_ack(ProcessName peer, FrameHeader& header);
  void send_ack(PeerState& p);
  void release_attempt(Connection* c);
  void pump(PeerState& p);
  void log(int level, const std::string& text) const;
  void bury(Connection* c);
  void settle_pending(Connection* c);
  std::uint64_t delivered_from(ProcessName name) const;

  EventLoop& loop_;
  EngineConfig config_;
  EngineCallbacks callbacks_;
  std::map<ProcessName, std::unique_ptr<PeerState>> peers_;
  std::vector<std::unique_ptr<Connection>> connections_;
  size_t pending_total_ = 0;
  std::map<std::string, std::uint32_t, std::less<>> pending_by_source_;
  bool cap_reported_ = false;  // the first refusal is logged loudly, the rest at level 10
  bool shutting_down_ = false;
  /* A view of loop_ of the engine's own: a closed Connection is freed by a
   * call deferred on it, outside the Connection's own callbacks, and no
   * later than this Engine (destroying the view drops what it has not run
   * yet). Last, so that it goes first. */
  EventLoop graveyard_;
};

}  // namespace orca::oob

#endif  // ORCA_OOB_ENGINE_H
