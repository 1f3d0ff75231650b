/*
 * Framework "routed": the shape of the daemon job's routing tree.
 *
 * A daemon job has the launcher (orcarun, vpid 0) and n daemons (orcad,
 * vpids 1..n). The selected routed module says, for every vpid, which vpid
 * is its parent and which are its children; the launcher is the root. Each
 * process connects only to its parent and its children and relays, over
 * the oob, every message whose destination lies in its subtree. Exactly one
 * module is used (SelectMode::One): the highest priority, `radix` (a tree
 * of fan-out routed_radix_radix) before `direct` (every daemon a child of
 * the launcher); `--mca routed direct` swaps.
 *
 * The module interface is plain C (it crosses the dlopen boundary) and
 * describes the shape only. Callers never use it: RoutingTree::build asks
 * the module once for a job size, checks every answer (a broken module is
 * an error value, never a crash or a loop) and answers from then on, in
 * C++, parent, children, subtree and the next hop of any message.
 *
 * Why there is no next_hop in the C interface: the next hop follows from
 * the parents alone (down towards the child whose subtree holds the
 * destination, else up to the parent), so the base computes it once for
 * every component. A component that routed differently from its own tree
 * would be a bug the base could not check; leaving it out makes that bug
 * impossible and keeps each component a few lines of arithmetic.
 *
 * Threading: none. A RoutingTree is an immutable value once built.
 */
#ifndef ORCA_ROUTED_H
#define ORCA_ROUTED_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ORCA_ROUTED_INTERFACE_VERSION 1u

/*
 * The module a routed component's query returns. Every function is pure:
 * the same arguments give the same answer, for the module's lifetime. `n`
 * is the number of daemons (vpids 0..n exist); the base calls only with
 * vpid <= n and n <= orca::routed::kMaxDaemons. None may fail: whatever a
 * function returns is checked by the base, and an answer that makes no
 * tree fails RoutingTree::build with a message naming the component.
 */
typedef struct orca_routed_module {
    void *self;
    /* The parent of `vpid`: a vpid in 0..n other than `vpid` itself.
     * The launcher is its own parent: parent(self, n, 0) returns 0. Every
     * vpid's chain of parents must reach 0. */
    uint32_t (*parent)(void *self, uint32_t n, uint32_t vpid);
    /* How many children `vpid` has: the vpids whose parent it is. */
    uint32_t (*child_count)(void *self, uint32_t n, uint32_t vpid);
    /* Writes the children of `vpid` to out[0..cap) in the order messages
     * should fan out, and returns how many children there are (which may
     * be more than cap: then only the first cap are written). `out` may be
     * NULL when cap is 0. */
    uint32_t (*children)(void *self, uint32_t n, uint32_t vpid, uint32_t *out, uint32_t cap);
} orca_routed_module;

#ifdef __cplusplus
}

#include <orca/export.h>
#include <orca/mca_framework.h>
#include <orca/process_name.h>
#include <orca/result.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace orca::routed {

inline constexpr mca::FrameworkDecl kFramework{
    "routed", "decides each daemon's parent and children, and the next hop of every launcher and daemon message",
    ORCA_ROUTED_INTERFACE_VERSION, mca::SelectMode::One};

/* The largest job a RoutingTree is built for: 2^20 daemons, ten times the
 * largest machines' node counts, at about 24 bytes per vpid. Beyond it
 * build fails (routed/too-many-daemons) instead of exhausting memory. */
inline constexpr std::uint32_t kMaxDaemons = 1u << 20;

/*
 * RoutingTree: the checked tree of one daemon job, vpids 0..daemons().
 *
 * Every vpid's parent chain ends at 0, each vpid but 0 is the child of
 * exactly one vpid, its parent. Queries take a vpid in 0..daemons();
 * parent, children, depth and subtree abort on anything else (a
 * programming error, as Result::value() does); next_hop, meant for vpids
 * that come off the wire, answers nullopt instead.
 */
class ORCA_EXPORT RoutingTree {
 public:
  /* Asks `module` for the tree of a job of `daemons` daemons and checks
   * it. `component` names the module in messages. Errors (area "routed"):
   *   incomplete-module  a function pointer of the module is NULL
   *   too-many-daemons   daemons > kMaxDaemons
   *   bad-parent         a parent outside 0..daemons, or vpid 0's not 0
   *   parent-cycle       a chain of parents that never reaches 0
   *   bad-children       a child list that disagrees with the parents
   *                      (a vpid out of range, listed under a vpid that is
   *                      not its parent, listed twice, or in no list) */
  static Result<RoutingTree> build(const orca_routed_module& module, std::uint32_t daemons,
                                   std::string_view component);

  /* n: the daemons; vpids are 0..n. (0 for a moved-from tree.) */
  std::uint32_t daemons() const noexcept {
    return parent_.empty() ? 0 : static_cast<std::uint32_t>(parent_.size() - 1);
  }
  /* The parent of `vpid`; 0 for 0 itself. */
  std::uint32_t parent(std::uint32_t vpid) const;
  /* The children of `vpid`, in the module's order. */
  std::span<const std::uint32_t> children(std::uint32_t vpid) const;
  /* Hops from `vpid` up to the launcher (0 for the launcher). */
  std::uint32_t depth(std::uint32_t vpid) const;
  /* The largest depth of any vpid (0 when there is no daemon). */
  std::uint32_t depth() const noexcept { return height_; }
  /* `vpid` and everything below it, `vpid` first (preorder). */
  std::span<const std::uint32_t> subtree(std::uint32_t vpid) const;
  /* Whether `vpid` is `root` or below it. False for vpids out of range. */
  bool in_subtree(std::uint32_t root, std::uint32_t vpid) const noexcept;
  /* The neighbour of `from` that a message for `to` goes to: the child of
   * `from` whose subtree holds `to`, when `to` is below `from`; otherwise
   * `from`'s parent. `to` itself when from == to. nullopt when either vpid
   * is out of range. A message therefore takes depth(from) + depth(to)
   * hops at most. */
  std::optional<std::uint32_t> next_hop(std::uint32_t from, std::uint32_t to) const noexcept;

 private:
  RoutingTree() = default;
  void check(std::uint32_t vpid) const;

  std::vector<std::uint32_t> parent_;       // per vpid
  std::vector<std::uint32_t> depth_;        // per vpid
  std::vector<std::uint32_t> child_begin_;  // per vpid + 1: offsets into child_list_
  std::vector<std::uint32_t> child_list_;   // every vpid but 0, grouped by parent
  std::vector<std::uint32_t> preorder_;     // vpids, depth first, children in order
  std::vector<std::uint32_t> position_;     // per vpid: its index in preorder_
  std::vector<std::uint32_t> size_;         // per vpid: its subtree's size
  std::uint32_t height_ = 0;
};

/* The tree of the selected module of an opened routed framework for a job
 * of `daemons` daemons. Errors: no module is selected (mca-base/
 * no-component), and those of RoutingTree::build. */
ORCA_EXPORT Result<RoutingTree> routing_tree(const mca::Framework& framework, std::uint32_t daemons);

/* A router for the oob (Oob::set_router takes it) of process `self` over
 * `tree`: the next hop of a message for `final`, as a process name of
 * self's job. nullopt when `final` is self, in another job, or a vpid
 * outside the tree, and when `self` is not in the tree. The router owns
 * its copy of the tree. */
ORCA_EXPORT std::function<std::optional<ProcessName>(ProcessName final)> make_router(RoutingTree tree,
                                                                                      ProcessName self);

}  // namespace orca::routed

#endif  // __cplusplus

#endif  // ORCA_ROUTED_H
