// oob/usock's module: one abstract Unix-domain listening socket, for peers
// on this host (same boot id and network namespace, where abstract names
// are visible); everything after connect is the shared stream Engine.
#ifndef ORCA_COMPONENTS_OOB_USOCK_MODULE_H
#define ORCA_COMPONENTS_OOB_USOCK_MODULE_H

#include <orca/event_loop.h>
#include <orca/oob.h>
#include <orca/oob_acceptor.h>
#include <orca/oob_engine.h>
#include <orca/unique_fd.h>

#include <map>
#include <memory>
#include <string>

namespace orca::oob::usock {

class UsockModule {
 public:
  explicit UsockModule(EngineConfig config) : config_(std::move(config)) {}
  ~UsockModule();
  UsockModule(const UsockModule&) = delete;
  UsockModule& operator=(const UsockModule&) = delete;

  /* Above tcp: a peer on this host goes over usock. */
  static constexpr int kPriority = 30;

  orca_oob_module* c_module() noexcept { return &module_; }
  /* For ComponentGlue: what query() hands out, and at what priority. */
  void* handle() noexcept { return &module_; }
  int priority() const noexcept { return kPriority; }
  Status start(const orca_oob_host& host);
  const std::string& contact() const noexcept { return contact_; }
  Status add_peer(ProcessName peer, const std::string& uri);
  Status send(ProcessName peer, std::uint32_t tag, Payload payload);
  Status would_accept(ProcessName peer, size_t bytes);
  std::string describe(ProcessName peer) const;
  void stop();

 private:
  void want_connection(ProcessName peer);
  void on_accepted(UniqueFd socket);

  EngineConfig config_;
  orca_oob_module module_{};
  const orca_oob_host* host_ = nullptr;
  std::unique_ptr<EventLoop> loop_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<StreamAcceptor> acceptor_;
  std::string name_;  // abstract socket name, without the leading NUL
  std::string contact_;
  std::map<ProcessName, std::string> peers_;  // abstract names
  std::map<ProcessName, std::unique_ptr<Engine::Attempt>> dialing_;
};

}  // namespace orca::oob::usock

#endif
