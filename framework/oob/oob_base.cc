// Oob: the framework facade a process uses; the host side of every module.
#include <orca/interface_selection.h>
#include <orca/interfaces.h>
#include <orca/oob.h>
#include <orca/oob_acceptor.h>

#include <sys/socket.h>

#include <cstdio>
#include <cstring>

namespace orca::oob {

namespace {

using reach::address_of;

Result<mca::Framework*> open_framework(Runtime& runtime, const mca::FrameworkDecl& decl) {
  for (const auto& fw : runtime.frameworks()) {
    if (fw->decl().name == decl.name) return fw.get();
  }
  auto fw = runtime.add_framework(decl);
  if (!fw) return fw.error();
  if (Status st = fw.value()->open(); !st) return st.error();
  return fw.value();
}


}  // namespace

Oob::Oob(Runtime& runtime, EventLoop& loop, ProcessName self, std::vector<std::uint8_t> secret)
    : runtime_(runtime), loop_(loop), self_(self), secret_(std::move(secret)) {}

Oob::~Oob() {
  for (auto it = modules_.rbegin(); it != modules_.rend(); ++it) it->module->stop(it->module->self);
}

Result<std::unique_ptr<Oob>> Oob::open(Runtime& runtime, EventLoop& loop, ProcessName self,
                                       std::vector<std::uint8_t> secret) {
  if (secret.empty()) return Message("oob", "no-secret", {});
  // Every peer and every listener is a descriptor; the soft limit is
  // usually far below what the system allows this process.
  const unsigned long descriptors = raise_descriptor_limit();
  auto identity = net::HostIdentity::current();
  if (!identity) return identity.error();
  if (runtime.registry().find(net::kIfIncludeVar) == nullptr) {
    if (Status st = net::declare_interface_selection_vars(runtime.registry()); !st) return st.error();
  }
  auto reach = open_framework(runtime, reach::kFramework);
  if (!reach) return reach.error();
  auto fw = open_framework(runtime, kFramework);
  if (!fw) return fw.error();
  // A component that failed (a bad setting of its own, say) is an error to
  // fix, not a reason to go on quietly with the others.
  std::string broken;
  for (const auto& e : fw.value()->entries()) {
    if (e.state == mca::Framework::State::Failed) broken += "\n  " + std::string(e.component->name()) + ": " + e.reason;
  }
  if (!broken.empty()) return Message("oob", "component-failed", {{"failures", broken}});

  std::unique_ptr<Oob> oob(new Oob(runtime, loop, self, std::move(secret)));
  if (fw.value()->verbosity() >= 10) runtime.log("oob", "open-files limit: " + std::to_string(descriptors));
  oob->host_identity_ = identity->to_string();
  oob->reach_framework_ = reach.value();
  oob->oob_framework_ = fw.value();
  oob->host_ = orca_oob_host{oob.get(),
                             loop.base(),
                             self.to_c(),
                             oob->secret_.data(),
                             oob->secret_.size(),
                             oob->host_identity_.c_str(),
                             &Oob::c_deliver,
                             &Oob::c_peer_lost,
                             &Oob::c_log,
                             &Oob::c_rank,
                             &Oob::c_select_local};
  // An invalid selection (both lists, an entry matching nothing) is the
  // user's error: report it here, in full, before any module starts.
  if (auto sel = oob->selection(); !sel) return sel.error();
  std::string failures;
  for (const auto* entry : fw.value()->selected()) {
    const auto* module = static_cast<const orca_oob_module*>(entry->module);
    const std::string name(entry->component->name());
    orca_mca_reason why{};
    if (module->start(module->self, &oob->host_, &why) != ORCA_MCA_OK) {
      failures += "\n  " + name + ": " + why.text;
      runtime.log("oob", "component " + name + " could not start: " + why.text);
      continue;
    }
    oob->modules_.push_back(Module{name, module});
  }
  if (oob->modules_.empty()) {
    return Message("oob", "no-module-started", {{"failures", failures.empty() ? "\n  (none selected)" : failures}});
  }
  oob->uri_ = self.to_string() + ";host=" + oob->host_identity_;
  for (const auto& m : oob->modules_) oob->uri_ += std::string(";") + m.module->contact(m.module->self);
  return oob;
}

Status Oob::add_peer(ProcessName peer, const std::string& uri) {
  auto parsed = ContactUri::parse(uri);
  if (!parsed) return parsed.error();
  if (parsed->name != peer) {
    return Message("oob", "bad-uri", {{"uri", uri.substr(0, 200)}, {"why", "it names " + parsed->name.to_string() + ", not " + peer.to_string()}});
  }
  std::string answers;
  for (const auto& m : modules_) {
    orca_mca_reason why{};
    if (m.module->add_peer(m.module->self, peer.to_c(), uri.c_str(), &why) == ORCA_MCA_OK) {
      routes_[peer] = &m;
      return {};
    }
    answers += "\n  " + m.component + ": " + why.text;
  }
  return Message("oob", "unreachable-peer", {{"peer", peer.to_string()}, {"answers", answers}});
}

Status Oob::send(ProcessName peer, std::uint32_t tag, std::span<const std::uint8_t> bytes) {
  auto it = routes_.find(peer);
  if (it == routes_.end()) return Message("oob", "unknown-peer", {{"peer", peer.to_string()}});
  orca_mca_reason why{};
  const orca_oob_module* m = it->second->module;
  if (m->send(m->self, peer.to_c(), tag, bytes.data(), bytes.size(), &why) != ORCA_MCA_OK) {
    return Message("oob", "send-failed", {{"peer", peer.to_string()}, {"why", why.text}});
  }
  return {};
}

Status Oob::send(ProcessName peer, std::uint32_t tag, std::shared_ptr<const std::vector<std::uint8_t>> bytes) {
  auto it = routes_.find(peer);
  if (it == routes_.end()) return Message("oob", "unknown-peer", {{"peer", peer.to_string()}});
  const orca_oob_module* m = it->second->module;
  if (m->send_shared == nullptr) return send(peer, tag, std::span<const std::uint8_t>(*bytes));
  const std::uint8_t* data = bytes->data();
  const size_t length = bytes->size();
  // One reference for the module, handed over as a C owner/release pair.
  auto owner = std::make_unique<std::shared_ptr<const std::vector<std::uint8_t>>>(std::move(bytes));
  orca_mca_reason why{};
  const orca_mca_rc rc = m->send_shared(m->self, peer.to_c(), tag, data, length, owner.release(),
                                        [](void* o) { delete static_cast<std::shared_ptr<const std::vector<std::uint8_t>>*>(o); },
                                        &why);
  if (rc != ORCA_MCA_OK) return Message("oob", "send-failed", {{"peer", peer.to_string()}, {"why", why.text}});
  return {};
}

void Oob::on_receive(std::uint32_t tag, Receiver receiver) { receivers_[tag] = std::move(receiver); }

void Oob::on_peer_lost(LostHandler handler) { lost_ = std::move(handler); }

std::string Oob::route(ProcessName peer) const {
  auto it = routes_.find(peer);
  if (it == routes_.end()) return {};
  char buf[256] = {};
  it->second->module->describe_peer(it->second->module->self, peer.to_c(), buf, sizeof buf);
  return buf[0] ? it->second->component + ": " + buf : std::string();
}

void Oob::c_deliver(void* host, orca_process_name from, uint32_t tag, const uint8_t* data, size_t length) {
  auto* self = static_cast<Oob*>(host);
  auto it = self->receivers_.find(tag);
  if (it == self->receivers_.end()) {
    c_log(host, 10, ("no receiver for tag " + std::to_string(tag) + "; message dropped").c_str());
    return;
  }
  it->second(ProcessName::from_c(from), std::span<const std::uint8_t>(data, length));
}

void Oob::c_peer_lost(void* host, orca_process_name peer, const char* why) {
  auto* self = static_cast<Oob*>(host);
  if (self->lost_) self->lost_(ProcessName::from_c(peer), why);
}

void Oob::c_log(void* host, int level, const char* text) {
  auto* self = static_cast<Oob*>(host);
  if (self->oob_framework_ != nullptr && self->oob_framework_->verbosity() >= level) self->runtime_.log("oob", text);
}

Result<std::pair<net::InterfaceInventory, std::vector<net::InterfaceDecision>>> Oob::selection() const {
  auto inventory = net::InterfaceInventory::scan();
  if (!inventory) return inventory.error();
  auto filter = net::interface_filter_from(runtime_.registry());
  if (!filter) return filter.error();
  auto decisions = net::select_interfaces(inventory.value(), filter.value());
  if (!decisions) return decisions.error();
  return std::pair{std::move(inventory.value()), std::move(decisions.value())};
}

orca_mca_rc Oob::c_select_local(void* host, orca_reach_endpoint* out, size_t* count, orca_mca_reason* why) {
  auto* self = static_cast<Oob*>(host);
  try {
    auto sel = self->selection();
    if (!sel) {
      std::snprintf(why->text, sizeof why->text, "%s", self->runtime_.help().render(sel.error()).c_str());
      return ORCA_MCA_FAILED;
    }
    size_t n = 0;
    for (const auto& d : sel->second) {
      if (!d.selected || n == *count) continue;
      out[n] = reach::to_endpoint(sel->first.entries()[d.entry]);
      out[n].if_name = nullptr;  // the inventory dies with this call
      ++n;
    }
    *count = n;
    return ORCA_MCA_OK;
  } catch (...) {
    return ORCA_MCA_FAILED;
  }
}

orca_mca_rc Oob::c_rank(void* host, const orca_reach_endpoint* remotes, size_t n_remotes, int same_host,
                        orca_oob_pair* pairs, size_t* count) {
  auto* self = static_cast<Oob*>(host);
  try {
    auto sel = self->selection();
    if (!sel) return ORCA_MCA_FAILED;
    std::vector<reach::RemoteAddress> remote_addresses;
    for (size_t i = 0; i < n_remotes; ++i) {
      remote_addresses.push_back(reach::RemoteAddress{address_of(remotes[i]), remotes[i].prefix_length,
                                                      static_cast<net::InterfaceKind>(remotes[i].kind)});
    }
    auto module = reach::selected_module(*self->reach_framework_);
    if (!module) return ORCA_MCA_FAILED;
    auto matrix = reach::compute_matrix(*module.value(), sel->first, sel->second, remote_addresses, same_host != 0);
    if (!matrix) return ORCA_MCA_FAILED;
    size_t n = 0;
    for (const auto& v : matrix.value()) {
      if (n == *count) break;
      orca_oob_pair& out = pairs[n++];
      out.local = reach::to_endpoint(sel->first.entries()[v.local]);
      out.local.if_name = nullptr;  // the inventory dies with this call
      out.remote = v.remote;
      out.weight = v.weight;
      std::snprintf(out.reason, sizeof out.reason, "%s", v.reason.c_str());
    }
    *count = n;
    return ORCA_MCA_OK;
  } catch (...) {
    return ORCA_MCA_FAILED;
  }
}

}  // namespace orca::oob
