// NodeKvs: pmi/simple's data on one daemon, as a state machine without
// I/O. It keeps the job's KVS every local rank reads (what every barrier
// released; the first value of a key stays) and gathers this node's part
// of each barrier: when every rank expected entered barrier `e`, their
// puts are the node's part, for the host's contribute.
//
// Every daemon keeps the whole job's KVS, so it is held to the job's bound
// (orca_pmi_job's max_keys / max_bytes) here, where it is known whose puts
// take it over: a rank whose puts would take the KVS and the open
// barriers' data past it is named (OverBound), and its puts dropped; the
// barrier then never completes, and the daemon ends the job. The same
// bound holds at every merge of the collective up the tree and at orcarun
// (FenceCollective), which also catch what several nodes add up to.
//
// A key the KVS already holds is left out of the node's part: its value
// could not change anyway. So every key a release brings is new, and what
// the KVS holds is what the collectives counted.
//
// The KVS is one object, shared with the sessions (kvs()), and a release
// adds to it in place: every live rank of the node is in the barrier it
// releases, and reads it only once released. No copy of the whole KVS is
// made per barrier.
//
// Threading: the event loop's; nothing throws on purpose (an allocation may).
#ifndef ORCA_COMPONENTS_PMI_SIMPLE_NODE_KVS_H
#define ORCA_COMPONENTS_PMI_SIMPLE_NODE_KVS_H

#include <orca/pmi.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <variant>
#include <vector>

namespace orca::pmi {

class NodeKvs {
 public:
  /* `ranks`: this node's ranks, each of which enters every barrier. */
  NodeKvs(std::uint32_t ranks, DataBound bound);

  /* Not every rank expected is in yet. */
  struct Waiting {};
  /* Every rank is in: the node's part of barrier `epoch`. */
  struct Part {
    std::uint64_t epoch = 0;
    Kvs puts;
  };
  /* The rank's puts would take the job's data to `total` keys or bytes
   * (`which`), past the bound. */
  struct OverBound {
    std::uint32_t rank = 0;
    orca_pmi_bound which = ORCA_PMI_BOUND_BYTES;
    std::uint64_t total = 0;
  };
  using Entered = std::variant<Waiting, Part, OverBound>;

  /* Rank `rank` entered barrier `epoch` with the puts it made since its
   * last one. */
  Entered enter(std::uint64_t epoch, std::uint32_t rank, Kvs puts);
  /* One rank fewer enters barriers (it could not be started): the parts
   * that are complete without it, in epoch order. */
  std::vector<Part> leave();
  /* The job's data of a completed barrier, from every node (its nodes
   * move into the KVS, not copied). */
  void release(Kvs entries);

  /* The job's KVS (grows with each release). */
  std::shared_ptr<const Kvs> kvs() const noexcept { return kvs_; }
  /* What the KVS holds. */
  DataSize size() const noexcept { return size_; }
  std::uint32_t ranks() const noexcept { return ranks_; }

 private:
  struct Barrier {
    std::uint32_t in = 0;
    Kvs puts;
    DataSize size;
  };
  std::optional<Part> complete(std::map<std::uint64_t, Barrier>::iterator it);

  std::uint32_t ranks_;
  DataBound bound_;
  std::shared_ptr<Kvs> kvs_ = std::make_shared<Kvs>();
  DataSize size_;
  DataSize open_;  // the open barriers' puts, together
  std::map<std::uint64_t, Barrier> barriers_;
};

}  // namespace orca::pmi

#endif
