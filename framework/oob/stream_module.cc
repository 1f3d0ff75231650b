// StreamModule: the engine-backed half of a stream component's module.
#include <orca/oob_stream_module.h>

namespace orca::oob {

StreamModule::StreamModule(std::string component, int priority, EngineConfig config)
    : component_(std::move(component)), priority_(priority), engine_config_(std::move(config)) {}

StreamModule::~StreamModule() { stop_engine(); }

void StreamModule::start_engine(const orca_oob_host& host) {
  host_ = &host;
  loop_ = std::make_unique<EventLoop>(host.base);
  engine_config_.self = ProcessName::from_c(host.self);
  engine_config_.secret.assign(host.secret, host.secret + host.secret_length);
  EngineCallbacks callbacks;
  callbacks.deliver = [this](ProcessName from, std::uint32_t tag, std::span<const std::uint8_t> bytes) {
    host_->deliver(host_->host, from.to_c(), tag, bytes.data(), bytes.size());
  };
  callbacks.want_connection = [this](ProcessName peer) { want_connection(peer); };
  callbacks.log = [this](int level, const std::string& text) { log(level, text); };
  callbacks.ready = [this](ProcessName peer) { host_->peer_ready(host_->host, peer.to_c()); };
  callbacks.connected = [this](ProcessName peer) { host_->peer_connected(host_->host, peer.to_c()); };
  engine_ = std::make_unique<Engine>(*loop_, engine_config_, std::move(callbacks));
}

void StreamModule::stop_engine() {
  engine_.reset();
  loop_.reset();
}

void StreamModule::log(int level, const std::string& text) const {
  if (host_ != nullptr) host_->log(host_->host, level, (component_ + ": " + text).c_str());
}

Status StreamModule::would_accept(ProcessName peer, size_t bytes) {
  if (!knows(peer) || !engine_) return Message("oob", "unknown-peer", {{"peer", peer.to_string()}});
  return engine_->would_accept(peer, bytes);
}

void StreamModule::forget_peer(ProcessName peer) {
  if (engine_) engine_->forget(peer);
}

Status StreamModule::send(ProcessName peer, std::uint32_t tag, Payload payload) {
  if (!knows(peer) || !engine_) return Message("oob", "unknown-peer", {{"peer", peer.to_string()}});
  return engine_->send(peer, tag, std::move(payload));
}

std::string StreamModule::describe(ProcessName peer) const { return engine_ ? engine_->connection_label(peer) : ""; }

}  // namespace orca::oob
