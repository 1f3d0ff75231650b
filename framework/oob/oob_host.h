/*
 * Oob: the host side of framework "oob", what a process opens (liborca's,
 * not installed; the component interface is orca/oob.h).
 *
 * A process opens the framework on its event loop, gets its contact URI
 * (every component that opened contributes), learns peers' URIs, sends
 * (peer, tag, bytes) and registers a receive callback per tag. send()
 * never blocks: it queues. Delivery to one peer is in order and exactly
 * once, across reconnects. All selected components stay open
 * (SelectMode::All); per peer the first component, by priority, that can
 * reach it carries its traffic (usock before tcp for a peer on this host).
 */
#ifndef ORCA_FRAMEWORK_OOB_OOB_HOST_H
#define ORCA_FRAMEWORK_OOB_OOB_HOST_H

#include <orca/oob.h>
#include "oob/messenger.h"

#include <orca/address_watch.h>
#include <orca/event_loop.h>
#include <orca/export.h>
#include <orca/interface_selection.h>
#include <orca/mca_framework.h>
#include <orca/result.h>
#include "runtime/runtime.h"

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace orca::oob {

inline constexpr mca::FrameworkDecl kFramework{"oob", "out-of-band messages between Orca processes",
                                               ORCA_OOB_INTERFACE_VERSION, mca::SelectMode::All};

/* The job secret: hex in ORCA_JOB_SECRET, or read from the file
 * descriptor named by ORCA_JOB_SECRET_FD (never a command line). */
ORCA_EXPORT Result<std::vector<std::uint8_t>> job_secret_from_environment();
/* A secret in hex (trailing blanks and newlines ignored), as
 * new_job_secret_hex makes it; `where` names its source in the error
 * (oob/bad-secret: not hex, odd, shorter than 16 bytes). */
ORCA_EXPORT Result<std::vector<std::uint8_t>> parse_job_secret(std::string_view hex, const std::string& where);
/* A fresh random secret, hex-encoded, for a launcher to hand down. */
ORCA_EXPORT std::string new_job_secret_hex();
/* `secret` as parse_job_secret reads it (lower-case hex). */
ORCA_EXPORT std::string job_secret_hex(std::span<const std::uint8_t> secret);


/*
 * Oob: one process's out-of-band messaging.
 *
 * Peers: add_peer() makes a peer known (a neighbour this process connects
 * to directly). A message for any other process goes through a neighbour:
 * the router (set_router) names the next hop, or the caller does
 * (send_via). Such a message carries its origin and final destination, so
 * a process it passes through forwards it to its own next hop without
 * unpacking it, and the receiver sees the origin as the sender.
 *
 * Tags: 1 .. 2^31 - 1, reserved per framework in Orca's
 * framework/oob/oob_tags.h (not installed); applications and out-of-tree
 * components use tags from 65536. A message whose tag has no receiver yet
 * waits until one registers (at most kMaxWaiting messages and
 * kMaxWaitingBytes in all); beyond that it is dropped and the drop is
 * logged at level 0 with sender and tag, never silently.
 *
 * Lost peers: every handler registered with on_peer_lost() hears of a
 * known peer that could not be reached or whose connection died and could
 * not be re-established (see framework/oob/README.md for the bound), from
 * the loop after the call that found it out (never from inside a send, so
 * a handler may send). Everything runs on the event loop's thread.
 */
class ORCA_EXPORT Oob final : public Messenger {
 public:
  static constexpr size_t kMaxWaiting = 4096;
  static constexpr size_t kMaxWaitingBytes = 64u << 20;

  /* Opens the oob and reachable frameworks of `runtime` (declaring their
   * variables if not yet done) and starts every selected oob module on
   * `loop`. Errors: no component can run, the reachable framework cannot
   * open, a module failed to start (a bad interface list, say). */
  static Result<std::unique_ptr<Oob>> open(Runtime& runtime, EventLoop& loop, ProcessName self,
                                           std::vector<std::uint8_t> secret);
  ~Oob() override;
  Oob(const Oob&) = delete;
  Oob& operator=(const Oob&) = delete;

  const std::string& contact_uri() const noexcept override { return uri_; }
  ProcessName self() const noexcept { return self_; }

  /* Learns a peer. Errors: a malformed URI, or no module can reach it
   * (the message says what each module answered). */
  Status add_peer(ProcessName peer, const std::string& uri) override;
  /* Whether `peer` was added (is a neighbour). */
  bool knows(ProcessName peer) const override { return routes_.count(peer) != 0; }
  /* Queues a message (the bytes are copied): directly to a known peer,
   * else through the router's next hop. Errors: a tag out of range, no
   * route, back-pressure (ErrorKind::Busy: retry later; the Outbox does), too large. */
  Status send(ProcessName peer, std::uint32_t tag, std::span<const std::uint8_t> bytes) override;
  /* The same without a copy for a known peer: the buffer is shared until
   * written and acknowledged, so one buffer can go to many peers. It must
   * not change. (Through a next hop it is copied once.) */
  Status send(ProcessName peer, std::uint32_t tag, std::shared_ptr<const std::vector<std::uint8_t>> bytes) override;
  /* Sends to `final` through the known peer `next_hop` (the router is not
   * asked); `next_hop == final` is a direct send. */
  Status send_via(ProcessName final, ProcessName next_hop, std::uint32_t tag, std::span<const std::uint8_t> bytes);
  void set_router(Router router) override { router_ = std::move(router); }
  /* Registers the receiver of `tag` (replacing an earlier one); messages
   * that waited for it are delivered next, from the event loop. */
  void on_receive(std::uint32_t tag, Receiver receiver) override;
  /* Adds a handler; returns a token for cancel_peer_lost(). */
  size_t on_peer_lost(LostHandler handler) override;
  void cancel_peer_lost(size_t token) override;
  /* Back-pressure eased: a send refused as ErrorKind::Busy may be retried.
   * `peer` is the neighbour whose queue has room (for a message routed
   * through a next hop, that hop). Every handler hears of every neighbour;
   * a refused send is always followed by one such call for its neighbour.
   * From the loop, never from inside a send. Returns a token for
   * cancel_peer_ready(). */
  size_t on_peer_ready(ReadyHandler handler) override;
  void cancel_peer_ready(size_t token) override;
  /* A connection to the neighbour `peer` was made (orca_oob_host's
   * peer_connected): route(peer) names it from now on. A handler may send;
   * what it sends to `peer` leaves with the handshake's last frames.
   * Returns a token for cancel_peer_connected(). */
  size_t on_peer_connected(ConnectedHandler handler) override;
  void cancel_peer_connected(size_t token) override;
  /* `peer` was told to end (a daemon's teardown) and will be sent nothing
   * more: its connection closing is no loss, and no module dials it again
   * (nor reports it lost). A later send to it undoes this. */
  void forget_peer(ProcessName peer) override;
  /* "tcp: 10.0.0.1:41200 -> 10.0.0.2:5000", or "" when not connected. */
  std::string route(ProcessName peer) const override;
  /* Messages waiting for a receiver of their tag. */
  size_t waiting() const noexcept { return waiting_.size(); }
  /* What connect attempts from this process proved, per local address
   * (the data plane's evidence; the last 256 outcomes). */
  struct LinkOutcome {
    net::IpAddress local;
    net::IpAddress remote;
    bool connected = false;
  };
  const std::deque<LinkOutcome>& link_outcomes() const noexcept { return link_outcomes_; }
  /* This host's addresses (the current scan) that the network's lists
   * keep: those of the first module, by priority, that selects interfaces
   * (oob/tcp's if_include / if_exclude); every usable one when none does. */
  struct RankedPair {
    size_t local = 0;
    size_t remote = 0;
    int weight = 0;
  };
  Result<std::vector<net::InterfaceAddress>> selected_addresses();
  /* For each of many hosts (every other host of a job): how the
   * reachable framework ranks this host's addresses toward that host's
   * addresses, pairs of weight > 0, best first, `local` indexing
   * selected_addresses(). One selection and one weights-only query to the
   * reachable component for all of them. Only the selected addresses that
   * `considered` accepts are ranked (all when it is empty): a caller that
   * will never use loopback or link-local addresses saves their pairs. */
  using AddressFilter = std::function<bool(const net::InterfaceAddress&)>;
  Result<std::vector<std::vector<RankedPair>>> rank_toward_hosts(const std::vector<std::vector<reach::RemoteAddress>>& hosts,
                                                                 bool same_host, const AddressFilter& considered = {});

 private:
  Oob(Runtime& runtime, ProcessName self, std::vector<std::uint8_t> secret);
  struct Module {
    std::string component;
    const orca_oob_module* module;
  };
  struct Waiting {
    ProcessName from;
    std::uint32_t tag;
    std::vector<std::uint8_t> bytes;
  };
  static void c_deliver(void* host, orca_process_name from, uint32_t tag, const uint8_t* data, size_t length);
  static void c_peer_lost(void* host, orca_process_name peer, const char* why);
  static void c_log(void* host, int level, const char* text);
  static orca_mca_rc c_rank(void* host, const orca_oob_interface_filter* filter, const orca_reach_endpoint* remotes,
                            size_t n_remotes, int same_host, orca_oob_pair* pairs, size_t* count);
  static orca_mca_rc c_select_local(void* host, const orca_oob_interface_filter* filter, orca_reach_endpoint* out,
                                    size_t* count, orca_mca_reason* why);
  static void c_link_outcome(void* host, const char* local, const char* remote, int connected);
  static void c_peer_ready(void* host, orca_process_name peer);
  static void c_peer_connected(void* host, orca_process_name peer);
  using Selection = std::pair<net::InterfaceInventory, std::vector<net::InterfaceDecision>>;
  /* The inventory (scanned afresh, or the cached scan) and the selection
   * a module's lists make of it (NULL: no lists). */
  Result<Selection> selection(const orca_oob_interface_filter* filter, bool rescan);
  /* Checks every selected module's lists against a fresh scan, before any
   * starts: the user's error, reported in full. */
  Status check_interface_lists();
  Status send_module(ProcessName peer, std::uint32_t module_tag, std::span<const std::uint8_t> bytes);
  Status send_enveloped(ProcessName origin, ProcessName final, ProcessName next_hop, std::uint32_t tag,
                        std::span<const std::uint8_t> bytes);
  void on_message(ProcessName from, std::uint32_t module_tag, std::span<const std::uint8_t> bytes);
  void dispatch(ProcessName from, std::uint32_t tag, std::span<const std::uint8_t> bytes);
  void deliver_waiting();
  struct Relayed;
  void relay(Relayed message);
  void flush_relays();
  static Message send_refusal(ProcessName peer, orca_mca_rc rc, const orca_mca_reason& why);
  void log(int level, const std::string& text) const;

  Runtime& runtime_;
  ProcessName self_;
  std::vector<std::uint8_t> secret_;
  std::string host_identity_;
  orca_oob_host host_{};
  mca::Framework* oob_framework_ = nullptr;
  mca::Framework* reach_framework_ = nullptr;
  std::vector<Module> modules_;
  std::map<ProcessName, const Module*> routes_;
  std::map<std::uint32_t, Receiver> receivers_;
  /* Handlers by token. A handler may cancel itself or add others while
   * they are called: call_each walks a copy of the tokens, each looked up
   * in the live map. */
  template <class Handler>
  class Subscribers {
   public:
    size_t add(Handler handler) {
      const size_t token = next_++;
      handlers_.emplace(token, std::move(handler));
      return token;
    }
    void cancel(size_t token) { handlers_.erase(token); }
    template <class... Args>
    void call_each(const Args&... args) {
      std::vector<size_t> tokens;
      tokens.reserve(handlers_.size());
      for (const auto& entry : handlers_) tokens.push_back(entry.first);
      for (size_t token : tokens) {
        auto it = handlers_.find(token);
        if (it == handlers_.end()) continue;
        Handler h = it->second;  // a copy: the handler may cancel itself
        h(args...);
      }
    }

   private:
    std::map<size_t, Handler> handlers_;
    size_t next_ = 1;
  };
  Subscribers<LostHandler> lost_handlers_;
  Subscribers<ReadyHandler> ready_handlers_;
  Subscribers<ConnectedHandler> connected_handlers_;
  Router router_;
  std::deque<Waiting> waiting_;
  std::deque<LinkOutcome> link_outcomes_;
  struct Relayed {
    ProcessName next;
    std::uint32_t module_tag;
    std::vector<std::uint8_t> bytes;
  };
  std::deque<Relayed> relay_backlog_;  // relays waiting out back-pressure, in order (flushed on peer_ready)
  size_t relay_backlog_bytes_ = 0;
  size_t waiting_bytes_ = 0;
  std::unique_ptr<Timer> waiting_timer_;
  std::unique_ptr<EventLoop> deferred_;  // a view of the loop for lost-peer reports (see open)
  std::optional<net::InterfaceInventory> inventory_cache_;
  bool starting_ = false;  // modules are starting in open(): select_local uses the scan open() just made
  const orca_oob_interface_filter* network_filter_ = nullptr;  // selected_addresses' lists (see there)
  std::string selection_error_;  // why the last ranking failed, for the peer-lost message
  std::unique_ptr<net::AddressWatch> address_watch_;
  std::string uri_;
};

}  // namespace orca::oob

#endif  // ORCA_FRAMEWORK_OOB_OOB_HOST_H
