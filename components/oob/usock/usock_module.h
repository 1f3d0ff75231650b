// oob/usock's module: one abstract Unix-domain listening socket, for peers
// on this host (same boot id and network namespace, where abstract names
// are visible); everything after connect is the shared stream Engine.
#ifndef ORCA_COMPONENTS_OOB_USOCK_MODULE_H
#define ORCA_COMPONENTS_OOB_USOCK_MODULE_H

#include "uid_gate.h"

#include <orca/event_loop.h>
#include <orca/oob.h>
#include <orca/oob_acceptor.h>
#include <orca/oob_engine.h>
#include <orca/oob_stream_module.h>
#include <orca/unique_fd.h>

#include <unistd.h>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace orca::oob::usock {

class UsockModule : public StreamModule {
 public:
  /* Above tcp: a peer on this host goes over usock. */
  static constexpr int kPriority = 30;

  explicit UsockModule(EngineConfig config) : StreamModule("usock", kPriority, std::move(config)), gate_(::geteuid()) {}
  ~UsockModule() override;

  Status start(const orca_oob_host& host) override;
  Status add_peer(ProcessName peer, const std::string& uri) override;
  void stop() override;

 protected:
  bool knows(ProcessName peer) const override { return peers_.count(peer) != 0; }
  void want_connection(ProcessName peer) override;

 private:
  /* Connecting to a peer whose listen backlog is full (EAGAIN). */
  struct BacklogWait {
    std::unique_ptr<Timer> timer;  // calls want_connection again
    std::optional<std::chrono::steady_clock::time_point> since;  // first EAGAIN of this run
    std::chrono::milliseconds delay{1};
  };
  void on_accepted(UniqueFd socket);
  /* Arms wait's timer to connect to `peer` again; false once the backlog
   * has been full for handshake_timeout. */
  bool wait_for_backlog(ProcessName peer, BacklogWait& wait);

  UidGate gate_;  // only this uid's connections reach the engine
  std::unique_ptr<StreamAcceptor> acceptor_;
  std::string name_;  // abstract socket name, without the leading NUL
  std::map<ProcessName, std::string> peers_;  // abstract names
  std::map<ProcessName, std::unique_ptr<Engine::Attempt>> dialing_;
  std::map<ProcessName, BacklogWait> backlog_waits_;
};

}  // namespace orca::oob::usock

#endif
