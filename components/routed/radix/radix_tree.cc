// routed/radix: the k-ary tree's arithmetic, in 64 bits so that k*v+k
// cannot wrap for any k and vpid.
#include "radix_tree.h"

namespace orca::routed::radix {

std::uint32_t RadixTree::parent(std::uint32_t /*n*/, std::uint32_t vpid) const noexcept {
  return vpid == 0 ? 0 : (vpid - 1) / radix_;
}

std::uint32_t RadixTree::child_count(std::uint32_t n, std::uint32_t vpid) const noexcept {
  const std::uint64_t first = std::uint64_t{radix_} * vpid + 1;
  if (first > n) return 0;
  const std::uint64_t last = first + radix_ - 1;
  return static_cast<std::uint32_t>((last < n ? last : n) - first + 1);
}

std::uint32_t RadixTree::children(std::uint32_t n, std::uint32_t vpid, std::uint32_t* out,
                                  std::uint32_t cap) const noexcept {
  const std::uint32_t count = child_count(n, vpid);
  const std::uint32_t first = radix_ * vpid + 1;  // <= n, so it fits, whenever count > 0
  for (std::uint32_t i = 0; i < count && i < cap; ++i) out[i] = first + i;
  return count;
}

orca_routed_module RadixTree::module() noexcept {
  return orca_routed_module{
      .self = this,
      .parent = [](void* self, uint32_t n, uint32_t vpid) { return static_cast<RadixTree*>(self)->parent(n, vpid); },
      .child_count = [](void* self, uint32_t n,
                        uint32_t vpid) { return static_cast<RadixTree*>(self)->child_count(n, vpid); },
      .children = [](void* self, uint32_t n, uint32_t vpid, uint32_t* out, uint32_t cap) {
        return static_cast<RadixTree*>(self)->children(n, vpid, out, cap);
      }};
}

}  // namespace orca::routed::radix
