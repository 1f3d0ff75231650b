// HandshakeSlots: which accepted connections may sit in their handshake
// (not yet proven the job secret), as a policy without I/O or clocks, so
// that what an attacker can hold is tested in milliseconds. The Engine
// asks it about every accepted connection and closes what it says.
//
// A *source* is what the kernel says a connection comes from (the remote
// address for tcp, the process for usock), never a name the peer claims.
// A source is *proven* once a connection from it completed a handshake in
// this engine (a daemon of the job: its reconnects come from there).
//
// Limits (Limits below): `total` handshakes at once; of these, `reserve`
// only proven sources may use, so that new sources share total - reserve;
// and `per_source` from any one source.
//
// Nothing is refused: a newcomer that finds no room takes the slot of
// another handshake, by "longest queue drop": over per_source, its own
// source's oldest handshake goes; over the new sources' share, the oldest
// handshake of the new source that holds the most (ties: the oldest of
// theirs); over total, the same among new sources, or among the proven
// when no new source has one (every other handshake is a proven one, so
// the proven are in the shared part too). A newcomer never displaces
// itself.
//
// What that guarantees: a source with one handshake in flight (a daemon's
// first connect: a never-seen address) is admitted at once, and cannot be
// displaced while another new source holds two or more, that is while
// strangers come from fewer than total - reserve - 1 addresses (191 with
// the defaults). A proven source (a reconnect) has `reserve` slots no
// stranger can take, and takes strangers' slots when those are used up.
// Beyond that (an attacker with hundreds of addresses, or sharing the
// daemon's address) a handshake survives total - reserve newcomers, oldest
// first: a delay, bounded by the attacker's connect rate, not a refusal.
//
// Cost: one small record per pending handshake, one per source that has
// some, and one per proven source (at most kMaxProven; a source proven
// beyond that is treated as new, which the share above still lets in).
#ifndef ORCA_OOB_HANDSHAKE_SLOTS_H
#define ORCA_OOB_HANDSHAKE_SLOTS_H

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

namespace orca::oob {

class HandshakeSlots {
 public:
  struct Limits {
    std::uint32_t total = 256;      // <prefix>max_pending
    std::uint32_t reserve = 64;     // <prefix>pending_reserve: proven sources only; < total
    std::uint32_t per_source = 32;  // <prefix>max_pending_per_source
  };
  /* A pending handshake; increasing, so a smaller one is older. */
  using Ticket = std::uint64_t;
  /* The limit a newcomer would have broken, and so the one an eviction restores. */
  enum class Limit { None, PerSource, NewSources, Total };
  struct Admission {
    Ticket ticket = 0;              // the newcomer's slot
    Limit limit = Limit::None;      // None: there was room
    std::optional<Ticket> evicted;  // the handshake to close for it (its slot is gone already)
    std::string victim_source;      // whose it was
    std::uint32_t victim_held = 0;  // how many that source held, the evicted one included
  };
  static constexpr size_t kMaxProven = 65536;

  /* Throws std::invalid_argument unless 1 <= per_source, reserve < total. */
  explicit HandshakeSlots(Limits limits);

  /* A connection from `source` begins its handshake. */
  Admission admit(std::string_view source);
  /* The handshake on `ticket` completed: its slot is free, and its source
   * proven from now on. */
  void proven(Ticket ticket);
  /* The connection on `ticket` closed before it completed: its slot is
   * free. A ticket already evicted or released is ignored. */
  void release(Ticket ticket);

  const Limits& limits() const noexcept { return limits_; }
  size_t pending() const noexcept { return by_ticket_.size(); }
  /* Pending handshakes of sources that are not proven. */
  size_t pending_new() const noexcept { return pending_new_; }
  size_t pending_from(std::string_view source) const;
  bool is_proven(std::string_view source) const;

 private:
  struct Source {
    std::deque<Ticket> pending;  // oldest first
    bool proven = false;
  };
  using Sources = std::map<std::string, Source, std::less<>>;

  /* The oldest handshake of the source holding the most among those
   * `eligible` allows (ties: the oldest), never `newcomer`. */
  std::optional<Ticket> longest_queue_head(Ticket newcomer, const std::function<bool(const Source&)>& eligible) const;
  void drop(Ticket ticket, bool completed);

  Limits limits_;
  Ticket next_ = 1;
  Sources sources_;                                    // sources with pending handshakes
  std::unordered_map<Ticket, Sources::iterator> by_ticket_;
  std::set<std::string, std::less<>> proven_;
  size_t pending_new_ = 0;
};

}  // namespace orca::oob

#endif  // ORCA_OOB_HANDSHAKE_SLOTS_H
