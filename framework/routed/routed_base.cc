// The routed framework's base: builds and checks a RoutingTree from the
// selected module's parents and children, and computes next hops from it.
#include <orca/routed.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace orca::routed {

namespace {

constexpr std::uint32_t kUnknown = UINT32_MAX;

// The arguments every routed message has, then `args`. (Each message
// names its topic literally, so that the help-catalog test sees it.)
Message::Args about(std::string_view component, std::uint32_t daemons, Message::Args args) {
  args.insert(args.begin(), {{"component", std::string(component)}, {"daemons", std::to_string(daemons)}});
  return args;
}

// "5 -> 7 -> 5": the cycle that starts at `start`.
std::string describe_cycle(const std::vector<std::uint32_t>& parent, std::uint32_t start) {
  std::string out = std::to_string(start);
  std::uint32_t v = start;
  for (std::size_t steps = 0; steps < parent.size(); ++steps) {
    v = parent[v];
    out += " -> " + std::to_string(v);
    if (v == start) break;
  }
  return out;
}

// Fills depth[] from parent[] (already in range). Each vpid is walked once:
// a walk stops at a vpid whose depth is known, or at one it already passed
// (a cycle, reported from that vpid).
std::optional<std::uint32_t> compute_depths(const std::vector<std::uint32_t>& parent,
                                            std::vector<std::uint32_t>& depth) {
  const std::size_t count = parent.size();
  depth.assign(count, kUnknown);
  depth[0] = 0;
  std::vector<std::uint32_t> walked_by(count, kUnknown);  // which walk passed a vpid
  std::vector<std::uint32_t> path;
  for (std::uint32_t start = 1; start < count; ++start) {
    path.clear();
    std::uint32_t v = start;
    while (depth[v] == kUnknown) {
      if (walked_by[v] == start) return v;  // back at a vpid of this walk
      walked_by[v] = start;
      path.push_back(v);
      v = parent[v];
    }
    std::uint32_t d = depth[v];
    for (auto it = path.rbegin(); it != path.rend(); ++it) depth[*it] = ++d;
  }
  return std::nullopt;
}

// routed/incomplete-module when a function of `module` is NULL,
// routed/too-many-daemons beyond kMaxDaemons.
Status check_module(const orca_routed_module& module, std::uint32_t daemons, std::string_view component) {
  const std::pair<const char*, bool> functions[] = {{"parent", module.parent != nullptr},
                                                    {"child_count", module.child_count != nullptr},
                                                    {"children", module.children != nullptr}};
  for (const auto& [name, present] : functions) {
    if (!present) return Message("routed", "incomplete-module", about(component, daemons, {{"function", name}}));
  }
  if (daemons > kMaxDaemons) {
    return Message("routed", "too-many-daemons", about(component, daemons, {{"max", std::to_string(kMaxDaemons)}}));
  }
  return {};
}

// Parents: in range, the launcher its own, and no vpid its own.
Status ask_parents(const orca_routed_module& module, std::uint32_t daemons, std::string_view component,
                   std::vector<std::uint32_t>& parent) {
  const std::uint32_t n = daemons;
  parent.resize(std::size_t{n} + 1);
  for (std::uint32_t v = 0; v <= n; ++v) {
    const std::uint32_t p = module.parent(module.self, n, v);
    auto parent_error = [&](const char* why) {
      return Message(
          "routed", "bad-parent",
          about(component, daemons, {{"vpid", std::to_string(v)}, {"parent", std::to_string(p)}, {"why", why}}));
    };
    if (p > n) return parent_error("there is no such vpid");
    if (v == 0 && p != 0) return parent_error("the launcher, vpid 0, must be its own parent");
    if (v != 0 && p == v) return parent_error("a daemon cannot be its own parent");
    parent[v] = p;
  }
  return {};
}

// Children: counted first, so a count that cannot be true is refused
// before anything is allocated for it. Fills child_begin (per vpid + 1).
Status count_children(const orca_routed_module& module, std::uint32_t daemons, std::string_view component,
                      std::vector<std::uint32_t>& child_begin) {
  const std::uint32_t n = daemons;
  child_begin.resize(std::size_t{n} + 2);
  std::uint64_t total = 0;
  for (std::uint32_t v = 0; v <= n; ++v) {
    child_begin[v] = static_cast<std::uint32_t>(total);
    const std::uint32_t c = module.child_count(module.self, n, v);
    total += c;
    if (total > n) {
      return Message("routed", "bad-children",
                     about(component, daemons,
                           {{"vpid", std::to_string(v)},
                            {"why", "its " + std::to_string(c) + " children bring the total above the " +
                                        std::to_string(n) + " daemons there are"}}));
    }
  }
  child_begin[std::size_t{n} + 1] = static_cast<std::uint32_t>(total);
  return {};
}

// Fills child_list from the module, as child_begin counted them, and checks
// each list against the parents; `listed` marks every vpid listed.
Status ask_children(const orca_routed_module& module, std::uint32_t daemons, std::string_view component,
                    const std::vector<std::uint32_t>& parent, const std::vector<std::uint32_t>& child_begin,
                    std::vector<std::uint32_t>& child_list, std::vector<bool>& listed) {
  const std::uint32_t n = daemons;
  child_list.resize(child_begin[std::size_t{n} + 1]);
  listed.assign(std::size_t{n} + 1, false);
  for (std::uint32_t v = 0; v <= n; ++v) {
    const std::uint32_t begin = child_begin[v], count = child_begin[v + 1] - begin;
    auto child_error = [&](std::string why) {
      return Message("routed", "bad-children",
                     about(component, daemons, {{"vpid", std::to_string(v)}, {"why", std::move(why)}}));
    };
    const std::uint32_t got = module.children(module.self, n, v, count ? &child_list[begin] : nullptr, count);
    if (got != count) {
      return child_error("child_count says " + std::to_string(count) + " but children says " + std::to_string(got));
    }
    for (std::uint32_t i = begin; i < begin + count; ++i) {
      const std::uint32_t c = child_list[i];
      if (c == 0 || c > n) return child_error("it lists " + std::to_string(c) + ", which is no daemon");
      if (parent[c] != v) {
        return child_error("it lists " + std::to_string(c) + ", whose parent is " + std::to_string(parent[c]));
      }
      if (listed[c]) return child_error("it lists " + std::to_string(c) + " twice");
      listed[c] = true;
    }
  }
  return {};
}

// routed/bad-children for the first daemon its parent's list leaves out.
Status check_all_listed(std::uint32_t daemons, std::string_view component, const std::vector<std::uint32_t>& parent,
                        const std::vector<bool>& listed) {
  for (std::uint32_t v = 1; v <= daemons; ++v) {
    if (!listed[v]) {
      return Message("routed", "bad-children",
                     about(component, daemons,
                           {{"vpid", std::to_string(parent[v])},
                            {"why", "its children leave out " + std::to_string(v) + ", whose parent it is"}}));
    }
  }
  return {};
}

// Preorder, children in the module's order: a subtree is then one run of
// preorder, and a vpid's children sit in it in ascending positions.
void compute_preorder(const std::vector<std::uint32_t>& child_begin, const std::vector<std::uint32_t>& child_list,
                      std::vector<std::uint32_t>& preorder, std::vector<std::uint32_t>& position) {
  const std::size_t count = child_begin.size() - 1;  // vpids 0..n
  preorder.reserve(count);
  position.resize(count);
  std::vector<std::uint32_t> stack{0};
  while (!stack.empty()) {
    const std::uint32_t v = stack.back();
    stack.pop_back();
    position[v] = static_cast<std::uint32_t>(preorder.size());
    preorder.push_back(v);
    for (std::uint32_t i = child_begin[v + 1]; i > child_begin[v]; --i) stack.push_back(child_list[i - 1]);
  }
}

// Each vpid's subtree size, summed up from the leaves of the preorder.
void compute_subtree_sizes(const std::vector<std::uint32_t>& parent, const std::vector<std::uint32_t>& preorder,
                           std::vector<std::uint32_t>& size) {
  size.assign(parent.size(), 1);
  for (auto it = preorder.rbegin(); it != preorder.rend(); ++it) {
    if (*it != 0) size[parent[*it]] += size[*it];
  }
}

}  // namespace

Result<RoutingTree> RoutingTree::build(const orca_routed_module& module, std::uint32_t daemons,
                                       std::string_view component) {
  if (Status st = check_module(module, daemons, component); !st) return st.error();
  RoutingTree t;
  if (Status st = ask_parents(module, daemons, component, t.parent_); !st) return st.error();
  if (auto looped = compute_depths(t.parent_, t.depth_)) {
    return Message(
        "routed", "parent-cycle",
        about(component, daemons, {{"vpid", std::to_string(*looped)}, {"cycle", describe_cycle(t.parent_, *looped)}}));
  }
  t.height_ = *std::max_element(t.depth_.begin(), t.depth_.end());

  if (Status st = count_children(module, daemons, component, t.child_begin_); !st) return st.error();
  std::vector<bool> listed;
  if (Status st = ask_children(module, daemons, component, t.parent_, t.child_begin_, t.child_list_, listed); !st) {
    return st.error();
  }
  if (Status st = check_all_listed(daemons, component, t.parent_, listed); !st) return st.error();

  compute_preorder(t.child_begin_, t.child_list_, t.preorder_, t.position_);
  compute_subtree_sizes(t.parent_, t.preorder_, t.size_);
  return t;
}

void RoutingTree::check(std::uint32_t vpid) const {
  if (vpid < parent_.size()) return;
  std::fprintf(stderr, "orca: internal error: vpid %u is outside the routing tree of %u daemons\n",
               static_cast<unsigned>(vpid), static_cast<unsigned>(daemons()));
  std::abort();
}

std::uint32_t RoutingTree::parent(std::uint32_t vpid) const {
  check(vpid);
  return parent_[vpid];
}

std::span<const std::uint32_t> RoutingTree::children(std::uint32_t vpid) const {
  check(vpid);
  return std::span<const std::uint32_t>(child_list_)
      .subspan(child_begin_[vpid], child_begin_[vpid + 1] - child_begin_[vpid]);
}

std::uint32_t RoutingTree::depth(std::uint32_t vpid) const {
  check(vpid);
  return depth_[vpid];
}

std::span<const std::uint32_t> RoutingTree::subtree(std::uint32_t vpid) const {
  check(vpid);
  return std::span<const std::uint32_t>(preorder_).subspan(position_[vpid], size_[vpid]);
}

bool RoutingTree::in_subtree(std::uint32_t root, std::uint32_t vpid) const noexcept {
  if (root >= parent_.size() || vpid >= parent_.size()) return false;
  return position_[vpid] >= position_[root] && position_[vpid] - position_[root] < size_[root];
}

std::optional<std::uint32_t> RoutingTree::next_hop(std::uint32_t from, std::uint32_t to) const noexcept {
  if (from >= parent_.size() || to >= parent_.size()) return std::nullopt;
  if (from == to) return to;
  if (!in_subtree(from, to)) return parent_[from];
  // The last child of `from` that comes before `to` in preorder holds it.
  const std::span<const std::uint32_t> kids = children(from);
  const auto after =
      std::upper_bound(kids.begin(), kids.end(), position_[to],
                       [this](std::uint32_t pos, std::uint32_t child) { return pos < position_[child]; });
  return *(after - 1);
}

Result<RoutingTree> routing_tree(const mca::Framework& framework, std::uint32_t daemons) {
  const std::vector<const mca::Framework::Entry*> selected = framework.selected();
  if (selected.empty()) return Message("mca-base", "no-component", {{"framework", "routed"}, {"tried", ""}});
  const auto* module = mca::Framework::module_as<orca_routed_module>(*selected.front());
  return RoutingTree::build(*module, daemons, selected.front()->component->name());
}

std::function<std::optional<ProcessName>(ProcessName final)> make_router(RoutingTree tree, ProcessName self) {
  auto shared = std::make_shared<const RoutingTree>(std::move(tree));
  return [shared, self](ProcessName final) -> std::optional<ProcessName> {
    if (final.job != self.job || final == self) return std::nullopt;
    const std::optional<std::uint32_t> hop = shared->next_hop(self.vpid, final.vpid);
    if (!hop) return std::nullopt;
    return ProcessName{self.job, *hop};
  };
}

}  // namespace orca::routed
