// HandshakeSlots: the admission policy for connections in their handshake.
#include "oob/handshake_slots.h"

#include <algorithm>
#include <stdexcept>

namespace orca::oob {

HandshakeSlots::HandshakeSlots(Limits limits) : limits_(limits) {
  if (limits_.per_source < 1) throw std::invalid_argument("handshake slots: per_source must be at least 1");
  if (limits_.reserve >= limits_.total) {
    throw std::invalid_argument("handshake slots: the reserve must be smaller than the total");
  }
}

HandshakeSlots::Admission HandshakeSlots::admit(std::string_view source) {
  auto [it, inserted] = sources_.try_emplace(std::string(source));
  if (inserted) it->second.proven = is_proven(source);
  Source& from = it->second;
  const Ticket t = next_++;
  from.pending.push_back(t);
  by_ticket_.emplace(t, it);
  if (!from.proven) ++pending_new_;

  Admission a;
  a.ticket = t;
  const auto stranger = [](const Source& s) { return !s.proven; };
  std::optional<Ticket> victim;
  if (from.pending.size() > limits_.per_source) {
    a.limit = Limit::PerSource;
    victim = from.pending.front();  // not t: t is last, and there are two at least
  } else if (!from.proven && pending_new_ > limits_.total - limits_.reserve) {
    a.limit = Limit::NewSources;
    victim = longest_queue_head(t, stranger);
  } else if (by_ticket_.size() > limits_.total) {
    a.limit = Limit::Total;
    victim = longest_queue_head(t, stranger);
    if (!victim) victim = longest_queue_head(t, [](const Source&) { return true; });
  }
  if (victim) {
    const auto& owner = by_ticket_.at(*victim);
    a.victim_source = owner->first;
    a.victim_held = static_cast<std::uint32_t>(owner->second.pending.size());
    a.evicted = victim;
    drop(*victim, false);
  }
  return a;
}

std::optional<HandshakeSlots::Ticket> HandshakeSlots::longest_queue_head(
    Ticket newcomer, const std::function<bool(const Source&)>& eligible) const {
  std::optional<Ticket> best;
  size_t best_held = 0;
  for (const auto& [key, s] : sources_) {
    if (!eligible(s) || s.pending.empty()) continue;
    const Ticket head = s.pending.front();
    if (head == newcomer) continue;  // its only handshake is the newcomer itself
    const size_t held = s.pending.size();
    if (!best || held > best_held || (held == best_held && head < *best)) {
      best = head;
      best_held = held;
    }
  }
  return best;
}

void HandshakeSlots::proven(Ticket ticket) { drop(ticket, true); }

void HandshakeSlots::release(Ticket ticket) { drop(ticket, false); }

void HandshakeSlots::drop(Ticket ticket, bool completed) {
  auto found = by_ticket_.find(ticket);
  if (found == by_ticket_.end()) return;
  const Sources::iterator it = found->second;
  by_ticket_.erase(found);
  Source& s = it->second;
  s.pending.erase(std::find(s.pending.begin(), s.pending.end(), ticket));
  if (!s.proven) --pending_new_;
  if (completed && !s.proven && proven_.size() < kMaxProven) {
    proven_.insert(it->first);
    // Its other handshakes in flight count as a proven source's from now on.
    s.proven = true;
    pending_new_ -= s.pending.size();
  }
  if (s.pending.empty()) sources_.erase(it);
}

size_t HandshakeSlots::pending_from(std::string_view source) const {
  auto it = sources_.find(source);
  return it == sources_.end() ? 0 : it->second.pending.size();
}

bool HandshakeSlots::is_proven(std::string_view source) const { return proven_.find(source) != proven_.end(); }

}  // namespace orca::oob
