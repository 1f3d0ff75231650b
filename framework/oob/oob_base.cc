// Oob: the framework facade a process uses; the host side of every module.
#include "oob/oob_host.h"

#include <orca/interface_selection.h>
#include <orca/interfaces.h>
#include <orca/oob_acceptor.h>

#include "oob/frame_codec.h"
#include "oob/module_interface_filter.h"
#include "oob/oob_tags.h"

#include <sys/socket.h>

#include <cstdio>
#include <cstring>

namespace orca::oob {

namespace {

using reach::address_of;

// On the wire, a routed message's module tag has this bit set and its
// bytes start with the envelope: origin (job, vpid), final (job, vpid).
constexpr std::uint32_t kRoutedBit = 0x80000000u;
constexpr size_t kEnvelopeSize = 16;

Status check_tag(std::uint32_t tag) {
  if (tag == 0 || tag > tags::kMaxTag) {
    return Message("oob", "bad-tag", {{"tag", std::to_string(tag)}, {"max", std::to_string(tags::kMaxTag)}});
  }
  return {};
}

// Both steps are harmless when done already (by orca_info, say).
Result<mca::Framework*> open_framework(Runtime& runtime, const mca::FrameworkDecl& decl) {
  auto fw = runtime.add_framework(decl);
  if (!fw) return fw.error();
  if (Status st = fw.value()->open(); !st) return st.error();
  return fw.value();
}


}  // namespace

Oob::Oob(Runtime& runtime, ProcessName self, std::vector<std::uint8_t> secret)
    : runtime_(runtime), self_(self), secret_(std::move(secret)) {}

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

  std::unique_ptr<Oob> oob(new Oob(runtime, self, std::move(secret)));
  // Lost-peer reports reach the handlers from the loop, never from inside
  // the send that found the peer gone: a handler that sends (to report the
  // loss, say) must not re-enter itself. A view of the loop: its deferred
  // calls die with this Oob.
  oob->deferred_ = std::make_unique<EventLoop>(loop.base());
  if (fw.value()->verbosity() >= 10) runtime.log("oob", "open-files limit: " + std::to_string(descriptors));
  oob->host_identity_ = identity->to_string();
  oob->reach_framework_ = reach.value();
  oob->oob_framework_ = fw.value();
  oob->host_ = orca_oob_host{.host = oob.get(),
                             .base = loop.base(),
                             .self = self.to_c(),
                             .secret = oob->secret_.data(),
                             .secret_length = oob->secret_.size(),
                             .host_identity = oob->host_identity_.c_str(),
                             .deliver = &Oob::c_deliver,
                             .peer_lost = &Oob::c_peer_lost,
                             .log = &Oob::c_log,
                             .rank = &Oob::c_rank,
                             .select_local = &Oob::c_select_local,
                             .link_outcome = &Oob::c_link_outcome,
                             .peer_ready = &Oob::c_peer_ready,
                             .peer_connected = &Oob::c_peer_connected};
  if (Status st = oob->check_interface_lists(); !st) return st.error();
  oob->starting_ = true;
  // Every module must start: one that cannot is the user's error to fix,
  // not one to run without.
  std::string failures;
  for (const auto* entry : fw.value()->selected()) {
    const auto* module = mca::Framework::module_as<orca_oob_module>(*entry);
    const std::string name(entry->component->name());
    orca_mca_reason why{};
    if (module->start(module->self, &oob->host_, &why) != ORCA_MCA_OK) {
      failures += "\n  " + name + ": " + why.text;
      continue;
    }
    oob->modules_.push_back(Module{name, module});
  }
  oob->starting_ = false;
  if (!failures.empty() || oob->modules_.empty()) {
    return Message("oob", "no-module-started", {{"failures", failures.empty() ? "\n  (none selected)" : failures}});
  }
  // The interface scan is cached for ranking; a change of links or
  // addresses makes the next ranking scan again.
  Oob* raw = oob.get();
  auto watch = net::AddressWatch::start(loop, std::chrono::milliseconds(50), [raw] { raw->inventory_cache_.reset(); });
  if (watch) oob->address_watch_ = std::move(watch.value());
  oob->waiting_timer_ = std::make_unique<Timer>(loop, [raw] { raw->deliver_waiting(); });
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

Message Oob::send_refusal(ProcessName peer, orca_mca_rc rc, const orca_mca_reason& why) {
  if (rc == ORCA_MCA_DECLINED) return Message("oob", "peer-busy", {{"peer", peer.to_string()}, {"why", why.text}}, ErrorKind::Busy);
  return Message("oob", "send-failed", {{"peer", peer.to_string()}, {"why", why.text}});
}

Status Oob::send_module(ProcessName peer, std::uint32_t module_tag, std::span<const std::uint8_t> bytes) {
  auto it = routes_.find(peer);
  if (it == routes_.end()) return Message("oob", "unknown-peer", {{"peer", peer.to_string()}});
  orca_mca_reason why{};
  const orca_oob_module* m = it->second->module;
  if (const orca_mca_rc rc = m->send(m->self, peer.to_c(), module_tag, bytes.data(), bytes.size(), &why);
      rc != ORCA_MCA_OK) {
    return send_refusal(peer, rc, why);
  }
  return {};
}

Status Oob::send_enveloped(ProcessName origin, ProcessName final, ProcessName next_hop, std::uint32_t tag,
                           std::span<const std::uint8_t> bytes) {
  std::vector<std::uint8_t> enveloped;
  enveloped.reserve(kEnvelopeSize + bytes.size());
  put_u32(enveloped, origin.job);
  put_u32(enveloped, origin.vpid);
  put_u32(enveloped, final.job);
  put_u32(enveloped, final.vpid);
  enveloped.insert(enveloped.end(), bytes.begin(), bytes.end());
  return send_module(next_hop, tag | kRoutedBit, enveloped);
}

Status Oob::send(ProcessName peer, std::uint32_t tag, std::span<const std::uint8_t> bytes) {
  if (Status st = check_tag(tag); !st) return st;
  if (knows(peer)) return send_module(peer, tag, bytes);
  const std::optional<ProcessName> next = router_ ? router_(peer) : std::nullopt;
  if (!next || !knows(*next)) {
    return Message("oob", "no-route", {{"peer", peer.to_string()},
                                       {"why", !next ? std::string("it is not a known peer and no router names a next hop")
                                                     : "the router's next hop " + next->to_string() + " is not a known peer"}});
  }
  return send_enveloped(self_, peer, *next, tag, bytes);
}

Status Oob::send(ProcessName peer, std::uint32_t tag, std::shared_ptr<const std::vector<std::uint8_t>> bytes) {
  if (Status st = check_tag(tag); !st) return st;
  auto it = routes_.find(peer);
  if (it == routes_.end() || it->second->module->send_shared == nullptr) {
    return send(peer, tag, std::span<const std::uint8_t>(*bytes));
  }
  const orca_oob_module* m = it->second->module;
  const std::uint8_t* data = bytes->data();
  const size_t length = bytes->size();
  // One reference for the module, handed over as a C owner/release pair.
  auto owner = std::make_unique<std::shared_ptr<const std::vector<std::uint8_t>>>(std::move(bytes));
  orca_mca_reason why{};
  const orca_mca_rc rc = m->send_shared(m->self, peer.to_c(), tag, data, length, owner.release(),
                                        [](void* o) { delete static_cast<std::shared_ptr<const std::vector<std::uint8_t>>*>(o); },
                                        &why);
  if (rc != ORCA_MCA_OK) return send_refusal(peer, rc, why);
  return {};
}

Status Oob::send_via(ProcessName final, ProcessName next_hop, std::uint32_t tag, std::span<const std::uint8_t> bytes) {
  if (Status st = check_tag(tag); !st) return st;
  if (next_hop == final) return send_module(final, tag, bytes);
  return send_enveloped(self_, final, next_hop, tag, bytes);
}

void Oob::on_receive(std::uint32_t tag, Receiver receiver) {
  receivers_[tag] = std::move(receiver);
  const bool any = std::any_of(waiting_.begin(), waiting_.end(), [tag](const Waiting& w) { return w.tag == tag; });
  if (any && waiting_timer_) waiting_timer_->start(std::chrono::microseconds(0));
}

size_t Oob::on_peer_lost(LostHandler handler) { return lost_handlers_.add(std::move(handler)); }

void Oob::cancel_peer_lost(size_t token) { lost_handlers_.cancel(token); }

size_t Oob::on_peer_ready(ReadyHandler handler) { return ready_handlers_.add(std::move(handler)); }

void Oob::cancel_peer_ready(size_t token) { ready_handlers_.cancel(token); }

size_t Oob::on_peer_connected(ConnectedHandler handler) { return connected_handlers_.add(std::move(handler)); }

void Oob::cancel_peer_connected(size_t token) { connected_handlers_.cancel(token); }

void Oob::log(int level, const std::string& text) const {
  if (oob_framework_ != nullptr && oob_framework_->verbosity() >= level) runtime_.log("oob", text);
}

void Oob::on_message(ProcessName from, std::uint32_t module_tag, std::span<const std::uint8_t> bytes) {
  if ((module_tag & kRoutedBit) == 0) {
    dispatch(from, module_tag, bytes);
    return;
  }
  const std::uint32_t tag = module_tag & ~kRoutedBit;
  if (bytes.size() < kEnvelopeSize) {
    log(0, "dropped a routed message from " + from.to_string() + " (tag " + std::to_string(tag) +
               "): shorter than its envelope");
    return;
  }
  const ProcessName origin{get_u32(bytes.data()), get_u32(bytes.data() + 4)};
  const ProcessName final{get_u32(bytes.data() + 8), get_u32(bytes.data() + 12)};
  if (final == self_) {
    dispatch(origin, tag, bytes.subspan(kEnvelopeSize));
    return;
  }
  // Relay for our subtree: the envelope goes on as it came.
  std::optional<ProcessName> next;
  if (knows(final)) next = final;
  else if (router_) next = router_(final);
  if (!next || !knows(*next)) {
    log(0, "cannot relay a message from " + origin.to_string() + " to " + final.to_string() + " (tag " +
               std::to_string(tag) + "): no next hop");
    return;
  }
  relay(Relayed{*next, module_tag, std::vector<std::uint8_t>(bytes.begin(), bytes.end())});
}

// A relay never drops a message for back-pressure: it waits, in order,
// behind the ones that already wait (a relay that dropped would lose a
// rank's output, or the exit record a launcher waits for).
void Oob::relay(Relayed message) {
  if (relay_backlog_.empty()) {
    Status st = send_module(message.next, message.module_tag, message.bytes);
    if (st) return;
    if (!st.failed_with(ErrorKind::Busy)) {
      log(0, "cannot relay a message to " + message.next.to_string() + ": " + st.error().summary());
      return;
    }
  }
  if (relay_backlog_bytes_ + message.bytes.size() > kMaxWaitingBytes) {
    log(0, "dropped a relayed message to " + message.next.to_string() + ": " + std::to_string(relay_backlog_bytes_) +
               " bytes already wait for back-pressure to ease");
    return;
  }
  relay_backlog_bytes_ += message.bytes.size();
  relay_backlog_.push_back(std::move(message));  // the refusal's peer_ready flushes it
}

void Oob::flush_relays() {
  while (!relay_backlog_.empty()) {
    Relayed& m = relay_backlog_.front();
    Status st = send_module(m.next, m.module_tag, m.bytes);
    if (st.failed_with(ErrorKind::Busy)) return;  // again at that refusal's peer_ready
    if (!st) log(0, "cannot relay a message to " + m.next.to_string() + ": " + st.error().summary());
    relay_backlog_bytes_ -= m.bytes.size();
    relay_backlog_.pop_front();
  }
}

void Oob::dispatch(ProcessName from, std::uint32_t tag, std::span<const std::uint8_t> bytes) {
  auto it = receivers_.find(tag);
  if (it != receivers_.end() && waiting_.empty()) {
    it->second(from, bytes);
    return;
  }
  if (it != receivers_.end()) {
    // Older messages for this tag may still wait: keep the order.
    const bool older = std::any_of(waiting_.begin(), waiting_.end(), [tag](const Waiting& w) { return w.tag == tag; });
    if (!older) {
      it->second(from, bytes);
      return;
    }
  }
  if (waiting_.size() >= kMaxWaiting || waiting_bytes_ + bytes.size() > kMaxWaitingBytes) {
    log(0, "dropped a message from " + from.to_string() + " for tag " + std::to_string(tag) + ": no receiver for it, and " +
               std::to_string(waiting_.size()) + " messages (" + std::to_string(waiting_bytes_) +
               " bytes) already wait for receivers");
    return;
  }
  log(10, "no receiver for tag " + std::to_string(tag) + " yet: the message from " + from.to_string() + " waits");
  waiting_bytes_ += bytes.size();
  waiting_.push_back(Waiting{from, tag, std::vector<std::uint8_t>(bytes.begin(), bytes.end())});
}

void Oob::deliver_waiting() {
  // In arrival order; a receiver may register others or send meanwhile.
  std::deque<Waiting> still;
  std::deque<Waiting> batch;
  batch.swap(waiting_);
  waiting_bytes_ = 0;
  for (auto& w : batch) {
    auto it = receivers_.find(w.tag);
    const bool blocked = std::any_of(still.begin(), still.end(), [&](const Waiting& s) { return s.tag == w.tag; });
    if (it == receivers_.end() || blocked) {
      waiting_bytes_ += w.bytes.size();
      still.push_back(std::move(w));
      continue;
    }
    Receiver r = it->second;  // the receiver may replace itself
    r(w.from, w.bytes);
  }
  // Anything that arrived while delivering queued behind the rest.
  for (auto& w : waiting_) still.push_back(std::move(w));
  waiting_.swap(still);
}

void Oob::forget_peer(ProcessName peer) {
  for (auto& m : modules_) {
    if (m.module->forget_peer != nullptr) m.module->forget_peer(m.module->self, peer.to_c());
  }
}

std::string Oob::route(ProcessName peer) const {
  auto it = routes_.find(peer);
  if (it == routes_.end()) return {};
  char buf[4096] = {};
  it->second->module->describe_peer(it->second->module->self, peer.to_c(), buf, sizeof buf);
  return buf[0] ? it->second->component + ": " + buf : std::string();
}

void Oob::c_deliver(void* host, orca_process_name from, uint32_t tag, const uint8_t* data, size_t length) {
  static_cast<Oob*>(host)->on_message(ProcessName::from_c(from), tag, std::span<const std::uint8_t>(data, length));
}

void Oob::c_peer_lost(void* host, orca_process_name peer, const char* why) {
  auto* self = static_cast<Oob*>(host);
  std::string reason = why;
  if (!self->selection_error_.empty()) reason += " (ranking failed: " + self->selection_error_ + ")";
  const ProcessName name = ProcessName::from_c(peer);
  self->deferred_->defer([self, name, reason] { self->lost_handlers_.call_each(name, reason); });
}

void Oob::c_peer_connected(void* host, orca_process_name peer) {
  // Called at once, not deferred: what a handler sends joins the
  // handshake's last write (orca_oob_host::peer_connected).
  static_cast<Oob*>(host)->connected_handlers_.call_each(ProcessName::from_c(peer));
}

void Oob::c_peer_ready(void* host, orca_process_name peer) {
  auto* self = static_cast<Oob*>(host);
  const ProcessName name = ProcessName::from_c(peer);
  // Relays first: they waited longest, and a handler may send more.
  self->flush_relays();
  self->ready_handlers_.call_each(name);
}

void Oob::c_log(void* host, int level, const char* text) { static_cast<Oob*>(host)->log(level, text); }

Result<Oob::Selection> Oob::selection(const orca_oob_interface_filter* filter, bool rescan) {
  auto parsed = module_interface_filter(filter, runtime_.registry());
  if (!parsed) return parsed.error();
  if (rescan || !inventory_cache_) {
    auto inventory = net::InterfaceInventory::scan();
    if (!inventory) return inventory.error();
    inventory_cache_ = std::move(inventory.value());
  }
  auto decisions = net::select_interfaces(*inventory_cache_, parsed.value());
  if (!decisions) return decisions.error();
  return Selection{*inventory_cache_, std::move(decisions.value())};
}

Status Oob::check_interface_lists() {
  // An invalid interface list (both set, a malformed entry, one matching
  // nothing) is the user's error: report it here, in full, before any
  // module starts. One scan serves every check and every module starting
  // now: it is moments old (a daemon's start-up otherwise scanned once
  // per use).
  bool first = true;
  for (const auto* entry : oob_framework_->selected()) {
    const auto* module = mca::Framework::module_as<orca_oob_module>(*entry);
    if (module->interface_filter == nullptr) continue;
    if (auto sel = selection(module->interface_filter, first); !sel) return sel.error();
    if (network_filter_ == nullptr) network_filter_ = module->interface_filter;
    first = false;
  }
  return {};
}

orca_mca_rc Oob::c_select_local(void* host, const orca_oob_interface_filter* filter, orca_reach_endpoint* out,
                                 size_t* count, orca_mca_reason* why) {
  auto* self = static_cast<Oob*>(host);
  try {
    auto sel = self->selection(filter, !self->starting_);
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

void Oob::c_link_outcome(void* host, const char* local, const char* remote, int connected) {
  auto* self = static_cast<Oob*>(host);
  try {
    auto l = net::IpAddress::parse(local != nullptr ? local : "");
    auto r = net::IpAddress::parse(remote != nullptr ? remote : "");
    if (!l || !r) return;
    // Bounded: a peer that reconnects for ever must not grow this.
    if (self->link_outcomes_.size() == 256) self->link_outcomes_.pop_front();
    self->link_outcomes_.push_back(LinkOutcome{*l, *r, connected != 0});
  } catch (...) {
    // Evidence is optional; losing one outcome costs a worse guess only.
  }
}

Result<std::vector<net::InterfaceAddress>> Oob::selected_addresses() {
  // The cached scan: the address watch drops it on any change.
  auto sel = selection(network_filter_, false);
  if (!sel) return sel.error();
  std::vector<net::InterfaceAddress> out;
  for (const auto& d : sel->second) {
    if (d.selected) out.push_back(sel->first.entries()[d.entry]);
  }
  return out;
}

Result<std::vector<std::vector<Oob::RankedPair>>> Oob::rank_toward_hosts(
    const std::vector<std::vector<reach::RemoteAddress>>& hosts, bool same_host, const AddressFilter& considered) {
  auto sel = selection(network_filter_, false);
  if (!sel) return sel.error();
  auto module = reach::selected_module(*reach_framework_);
  if (!module) return module.error();
  // `local` of a verdict indexes the inventory; callers index the
  // selected addresses, in the same order. Addresses the caller does not
  // consider are left out of the query, not out of the numbering.
  std::vector<size_t> position(sel->first.entries().size(), SIZE_MAX);
  std::vector<net::InterfaceDecision> ranked = sel->second;
  size_t n = 0;
  for (auto& d : ranked) {
    if (!d.selected) continue;
    position[d.entry] = n++;
    if (considered && !considered(sel->first.entries()[d.entry])) d.selected = false;
  }
  // RankedPair has no reason: the module may skip every string.
  auto matrices = reach::compute_matrices(*module.value(), sel->first, ranked, hosts, same_host, reach::Reasons::Omitted);
  if (!matrices) return matrices.error();
  std::vector<std::vector<RankedPair>> out(hosts.size());
  for (size_t h = 0; h < hosts.size(); ++h) {
    for (const auto& v : matrices.value()[h]) {
      if (v.weight <= 0 || position[v.local] == SIZE_MAX) continue;
      out[h].push_back(RankedPair{position[v.local], v.remote, v.weight});
    }
  }
  return out;
}

orca_mca_rc Oob::c_rank(void* host, const orca_oob_interface_filter* filter, const orca_reach_endpoint* remotes,
                        size_t n_remotes, int same_host, orca_oob_pair* pairs, size_t* count) {
  auto* self = static_cast<Oob*>(host);
  try {
    auto sel = self->selection(filter, false);
    if (!sel) {
      self->selection_error_ = self->runtime_.help().render(sel.error());
      return ORCA_MCA_FAILED;
    }
    self->selection_error_.clear();
    std::vector<reach::RemoteAddress> remote_addresses;
    for (size_t i = 0; i < n_remotes; ++i) {
      remote_addresses.push_back(reach::RemoteAddress{address_of(remotes[i]), remotes[i].prefix_length,
                                                      static_cast<net::InterfaceKind>(remotes[i].kind)});
    }
    auto module = reach::selected_module(*self->reach_framework_);
    if (!module) {
      self->selection_error_ = module.error().summary();
      return ORCA_MCA_FAILED;
    }
    auto matrix = reach::compute_matrix(*module.value(), sel->first, sel->second, remote_addresses, same_host != 0);
    if (!matrix) {
      self->selection_error_ = matrix.error().summary();
      return ORCA_MCA_FAILED;
    }
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
