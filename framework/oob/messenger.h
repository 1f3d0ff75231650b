/*
 * Messenger: what a program's adapter needs of the oob (liborca's, not
 * installed): learn peers, send, receive per tag, hear of peers lost,
 * connected or ready again. Oob (oob_host.h) is the one real Messenger;
 * the interface exists so that an adapter of a lifecycle machine (orcarun's
 * JobLaunch) can be tested over a fake, with no sockets and no components.
 *
 * The contract is Oob's, stated there in full: send() never blocks (it
 * queues, or refuses with ErrorKind::Busy under back-pressure, after which
 * a ready handler hears of the neighbour); handlers run from the event
 * loop, never from inside a send; a handler may cancel itself.
 */
#ifndef ORCA_FRAMEWORK_OOB_MESSENGER_H
#define ORCA_FRAMEWORK_OOB_MESSENGER_H

#include <orca/export.h>
#include <orca/process_name.h>
#include <orca/result.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace orca::oob {

class ORCA_EXPORT Messenger {
 public:
  using Receiver = std::function<void(ProcessName from, std::span<const std::uint8_t> bytes)>;
  using LostHandler = std::function<void(ProcessName peer, const std::string& why)>;
  using ReadyHandler = std::function<void(ProcessName peer)>;
  using ConnectedHandler = std::function<void(ProcessName peer)>;
  /* The neighbour to send a message for `final` to, or nullopt for none. */
  using Router = std::function<std::optional<ProcessName>(ProcessName final)>;

  virtual ~Messenger() = default;

  /* This process's contact URI, which peers add it by. */
  virtual const std::string& contact_uri() const noexcept = 0;
  /* Learns a neighbour. Errors: a malformed URI, or nothing can reach it. */
  virtual Status add_peer(ProcessName peer, const std::string& uri) = 0;
  /* Whether `peer` was added (is a neighbour). */
  virtual bool knows(ProcessName peer) const = 0;
  /* Queues a copy of `bytes` for `peer`: directly to a neighbour, else
   * through the router's next hop. */
  virtual Status send(ProcessName peer, std::uint32_t tag, std::span<const std::uint8_t> bytes) = 0;
  /* The same with a shared, unchanging buffer (one buffer, many peers). */
  virtual Status send(ProcessName peer, std::uint32_t tag, std::shared_ptr<const std::vector<std::uint8_t>> bytes) = 0;
  virtual void set_router(Router router) = 0;
  /* The receiver of `tag` (replacing an earlier one). */
  virtual void on_receive(std::uint32_t tag, Receiver receiver) = 0;
  /* Each returns a token for the matching cancel. */
  virtual size_t on_peer_lost(LostHandler handler) = 0;
  virtual void cancel_peer_lost(size_t token) = 0;
  virtual size_t on_peer_ready(ReadyHandler handler) = 0;
  virtual void cancel_peer_ready(size_t token) = 0;
  virtual size_t on_peer_connected(ConnectedHandler handler) = 0;
  virtual void cancel_peer_connected(size_t token) = 0;
  /* `peer` will be sent nothing more: its connection closing is no loss. */
  virtual void forget_peer(ProcessName peer) = 0;
  /* How the connection to `peer` runs ("tcp: a -> b"), or "" when none. */
  virtual std::string route(ProcessName peer) const = 0;

 protected:
  Messenger() = default;
  Messenger(const Messenger&) = default;
  Messenger& operator=(const Messenger&) = default;
};

}  // namespace orca::oob

#endif  // ORCA_FRAMEWORK_OOB_MESSENGER_H
