// routed/direct: the launcher is every daemon's parent.
#include "direct_tree.h"

namespace orca::routed::direct {

namespace {

uint32_t parent(void* /*self*/, uint32_t /*n*/, uint32_t /*vpid*/) { return 0; }

uint32_t child_count(void* /*self*/, uint32_t n, uint32_t vpid) { return vpid == 0 ? n : 0; }

uint32_t children(void* self, uint32_t n, uint32_t vpid, uint32_t* out, uint32_t cap) {
  const uint32_t count = child_count(self, n, vpid);
  for (uint32_t i = 0; i < count && i < cap; ++i) out[i] = i + 1;
  return count;
}

}  // namespace

orca_routed_module module() noexcept {
  return orca_routed_module{.self = nullptr, .parent = &parent, .child_count = &child_count, .children = &children};
}

}  // namespace orca::routed::direct
