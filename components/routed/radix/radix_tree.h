// routed/radix: a k-ary tree over the vpids in order, the launcher at the
// root. vpid v's parent is (v-1)/k; its children are k*v+1 .. k*v+k, those
// that are <= n. Depth grows as log_k(n), and no process has more than k
// children to connect to and relay for.
#ifndef ORCA_COMPONENTS_ROUTED_RADIX_TREE_H
#define ORCA_COMPONENTS_ROUTED_RADIX_TREE_H

#include <orca/routed.h>

#include <cstdint>

namespace orca::routed::radix {

class RadixTree {
 public:
  /* `radix` is the fan-out k; 0 is taken as 1 (a chain). */
  explicit RadixTree(std::uint32_t radix) noexcept : radix_(radix == 0 ? 1 : radix) {}

  std::uint32_t radix() const noexcept { return radix_; }
  std::uint32_t parent(std::uint32_t n, std::uint32_t vpid) const noexcept;
  std::uint32_t child_count(std::uint32_t n, std::uint32_t vpid) const noexcept;
  /* Writes at most `cap` children, returns how many there are. */
  std::uint32_t children(std::uint32_t n, std::uint32_t vpid, std::uint32_t* out, std::uint32_t cap) const noexcept;

  /* This tree as a C module: self points here, so the tree must stay where
   * it is while the module is used. */
  orca_routed_module module() noexcept;

 private:
  std::uint32_t radix_;
};

}  // namespace orca::routed::radix

#endif
