// oob/tcp's module: listeners on the selected addresses, a contact URI
// with every address, raced connects over the reachable framework's
// ranking, and the shared stream Engine for everything after connect.
#ifndef ORCA_COMPONENTS_OOB_TCP_MODULE_H
#define ORCA_COMPONENTS_OOB_TCP_MODULE_H

#include "connect_race.h"
#include "tcp_config.h"
#include "tcp_contact.h"

#include <orca/address_watch.h>
#include <orca/event_loop.h>
#include <orca/oob.h>
#include <orca/oob_engine.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace orca::oob::tcp {

class TcpModule {
 public:
  explicit TcpModule(TcpConfig config);
  ~TcpModule();
  TcpModule(const TcpModule&) = delete;
  TcpModule& operator=(const TcpModule&) = delete;

  /* Below usock: for a peer on this host, usock goes first. */
  static constexpr int kPriority = 20;

  /* The C module table pointing at this object. */
  orca_oob_module* c_module() noexcept { return &module_; }
  /* For ComponentGlue: what query() hands out, and at what priority. */
  void* handle() noexcept { return &module_; }
  int priority() const noexcept { return kPriority; }

  Status start(const orca_oob_host& host);
  const std::string& contact() const noexcept { return contact_; }
  /* DECLINED-worthy failures come back as errors with topic "declined". */
  Status add_peer(ProcessName peer, const std::string& uri);
  Status send(ProcessName peer, std::uint32_t tag, Payload payload);
  Status would_accept(ProcessName peer, size_t bytes);
  std::string describe(ProcessName peer) const;
  void stop();

 private:
  struct Listener;
  struct Dialing;
  struct Peer {
    std::vector<Endpoint> endpoints;
    bool same_host = false;
    int failed_rounds = 0;
    std::unique_ptr<Dialing> dialing;
    std::unique_ptr<Timer> retry;
  };

  Status open_listeners();
  void on_addresses_changed();
  void on_accepted(UniqueFd socket);
  void want_connection(ProcessName peer);
  void start_round(ProcessName peer);
  void round_finished(ProcessName peer);
  void log(int level, const std::string& text) const;

  TcpConfig config_;
  orca_oob_module module_{};
  const orca_oob_host* host_ = nullptr;
  std::unique_ptr<EventLoop> loop_;  // a view of the host's loop
  std::unique_ptr<Engine> engine_;
  std::vector<std::unique_ptr<Listener>> listeners_;
  std::map<ProcessName, Peer> peers_;
  /* A view of loop_ of the module's own: a finished round is freed by a
   * call deferred on it, outside the round's own callbacks; stop() drops
   * it before the engine the rounds' attempts refer to. */
  std::unique_ptr<EventLoop> finished_;
  std::unique_ptr<net::AddressWatch> watch_;
  std::set<net::IpAddress> local_addresses_;  // selected at the last look
  std::string contact_;
};

}  // namespace orca::oob::tcp

#endif
