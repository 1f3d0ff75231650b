/*
 * StreamModule: the part of an oob module every stream component shares
 * (oob/tcp, oob/usock): the host it was started with, its view of the
 * process's event loop, the stream Engine, the C module table, and the
 * engine-backed send / would_accept / describe that OobModuleGlue calls.
 *
 * A component's module derives from it, adds what is its own (listeners,
 * contact URI part, how it connects) and implements two hooks:
 *   knows(peer)            whether add_peer learned the peer
 *   want_connection(peer)  the engine needs a connection to it: dial, or
 *                          report it lost through the host
 * start() of the derived class calls start_engine() first; its stop()
 * calls stop_engine() once nothing it owns refers to the engine any more.
 * Everything runs on the event loop's thread.
 */
#ifndef ORCA_OOB_STREAM_MODULE_H
#define ORCA_OOB_STREAM_MODULE_H

#include <orca/event_loop.h>
#include <orca/export.h>
#include <orca/oob.h>
#include <orca/oob_engine.h>

#include <memory>
#include <string>

namespace orca::oob {

class ORCA_EXPORT StreamModule {
 public:
  /* `component` names it in logs ("tcp"); `priority` orders the
   * components per peer (higher first); `config` is the engine's. */
  StreamModule(std::string component, int priority, EngineConfig config);
  virtual ~StreamModule();
  StreamModule(const StreamModule&) = delete;
  StreamModule& operator=(const StreamModule&) = delete;

  /* The C module table pointing at this object (filled by the component
   * with OobModuleGlue::table). */
  orca_oob_module* c_module() noexcept { return &module_; }
  /* For ComponentGlue: what query() hands out, and its priority. */
  void* handle() noexcept { return &module_; }
  int priority() const noexcept { return priority_; }

  /* What OobModuleGlue calls; the component implements them. start()
   * calls start_engine() first; stop() calls stop_engine() once nothing
   * it owns refers to the engine. add_peer: an error of kind
   * ErrorKind::Declined when the peer is not for this component. */
  virtual Status start(const orca_oob_host& host) = 0;
  virtual Status add_peer(ProcessName peer, const std::string& uri) = 0;
  virtual void stop() = 0;
  /* The lists that choose its local addresses (orca_oob_module's
   * interface_filter); none for a module that uses no network interface. */
  virtual const orca_oob_interface_filter* interface_filter() const noexcept { return nullptr; }

  const std::string& contact() const noexcept { return contact_; }
  /* Errors: an unknown peer, back-pressure, too large. */
  Status send(ProcessName peer, std::uint32_t tag, Payload payload);
  Status would_accept(ProcessName peer, size_t bytes);
  /* The host told `peer` to end (orca_oob_module.forget_peer). */
  void forget_peer(ProcessName peer);
  /* The connection carrying `peer`, "" when none. */
  /* "local -> remote" of the connection carrying `peer`; a component may
   * add why that connection was chosen. */
  virtual std::string describe(ProcessName peer) const;

 protected:
  virtual bool knows(ProcessName peer) const = 0;
  virtual void want_connection(ProcessName peer) = 0;

  /* Makes the loop view and the Engine for `host`. */
  void start_engine(const orca_oob_host& host);
  /* Destroys the Engine, then the loop view. */
  void stop_engine();
  /* "<component>: text" to the host's log at `level`. */
  void log(int level, const std::string& text) const;

  const orca_oob_host* host_ = nullptr;
  std::unique_ptr<EventLoop> loop_;  // a view of the host's loop
  std::unique_ptr<Engine> engine_;
  std::string contact_;

 private:
  std::string component_;
  int priority_;
  EngineConfig engine_config_;
  orca_oob_module module_{};
};

}  // namespace orca::oob

#endif  // ORCA_OOB_STREAM_MODULE_H
