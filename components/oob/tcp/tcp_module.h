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
#include <orca/oob_stream_module.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace orca::oob::tcp {

class TcpModule : public StreamModule {
 public:
  /* Below usock: for a peer on this host, usock goes first. */
  static constexpr int kPriority = 20;

  explicit TcpModule(TcpConfig config);
  ~TcpModule() override;

  Status start(const orca_oob_host& host) override;
  Status add_peer(ProcessName peer, const std::string& uri) override;
  void stop() override;
  std::string describe(ProcessName peer) const override;
  const orca_oob_interface_filter* interface_filter() const noexcept override { return config_.interfaces.c_filter(); }

 protected:
  bool knows(ProcessName peer) const override { return peers_.count(peer) != 0; }
  void want_connection(ProcessName peer) override;

 private:
  struct Listener;
  struct Dialing;
  struct Peer {
    std::vector<Endpoint> endpoints;
    bool same_host = false;
    int failed_rounds = 0;
    std::unique_ptr<Dialing> dialing;
    std::unique_ptr<Timer> retry;
    std::string route_note;  // why the current connection's pair was chosen, and what was refused
  };

  Status open_listeners();
  /* The host's selection of local addresses (select_local), however many. */
  orca_mca_rc select_local(std::vector<orca_reach_endpoint>& locals, orca_mca_reason* why);
  void on_addresses_changed();
  void on_accepted(UniqueFd socket);
  void start_round(ProcessName peer);
  void round_finished(ProcessName peer);

  TcpConfig config_;
  std::vector<std::unique_ptr<Listener>> listeners_;
  std::map<ProcessName, Peer> peers_;
  /* A view of loop_ of the module's own: a finished round is freed by a
   * call deferred on it, outside the round's own callbacks; stop() drops
   * it before the engine the rounds' attempts refer to. */
  std::unique_ptr<EventLoop> finished_;
  std::unique_ptr<net::AddressWatch> watch_;
  std::set<net::IpAddress> local_addresses_;  // selected at the last look
};

}  // namespace orca::oob::tcp

#endif
