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

}  // namespace

Result<RoutingTree> RoutingTree::build(const orca_routed_module& module, std::uint32_t daemons,
                                       std::string_view component) {
  const std::pair<const char*, bool> functions[] = {{"parent", module.parent != nullptr},
                                                    {"child_count", module.child_count != nullptr},
                                                    {"children", module.children != nullptr}};
  for (const auto& [name, present] : functions) {
    if (!present) return Message("routed", "incomplete-module", about(component, daemons, {{"function", name}}));
  }
  if (daemons > kMaxDaemons) {
    return Message("routed", "too-many-daemons", about(component, daemons, {{"max", std::to_string(kMaxDaemons)}}));
  }
  const std::uint32_t n = daemons;
  RoutingTree t;

  // Parents: in range, the launcher its own, and no vpid its own.
  t.parent_.resize(std::size_t{n} + 1);
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
    t.parent_[v] = p;
  }
  if (auto looped = compute_depths(t.parent_, t.depth_)) {
    return Message(
        "routed", "parent-cycle",
        about(component, daemons, {{"vpid", std::to_string(*looped)}, {"cycle", describe_cycle(t.parent_, *looped)}}));
  }
  t.height_ = *std::max_element(t.depth_.begin(), t.depth_.end());

  // Children: counted first, so a count that cannot be true is refused
  // before anything is allocated for it.
  t.child_begin_.resize(std::size_t{n} + 2);
  std::uint64_t total = 0;
  for (std::uint32_t v = 0; v <= n; ++v) {
    t.child_begin_[v] = static_cast<std::uint32_t>(total);
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
  t.child_begin_[std::size_t{n} + 1] = static_cast<std::uint32_t>(total);
  t.child_list_.resize(total);
  std::vector<bool> listed(std::size_t{n} + 1, false);
  for (std::uint32_t v = 0; v <= n; ++v) {
    const std::uint32_t begin = t.child_begin_[v], count = t.child_begin_[v + 1] - begin;
    auto child_error = [&](std::string why) {
      return Message("routed", "bad-children",
                     about(component, daemons, {{"vpid", std::to_string(v)}, {"why", std::move(why)}}));
    };
    const std::uint32_t got = module.children(module.self, n, v, count ? &t.child_list_[begin] : nullptr, count);
    if (got != count) {
      return child_error("child_count says " + std::to_string(count) + " but children says " + std::to_string(got));
    }
    for (std::uint32_t i = begin; i < begin + count; ++i) {
      const std::uint32_t c = t.child_list_[i];
      if (c == 0 || c > n) return child_error("it lists " + std::to_string(c) + ", which is no daemon");
      if (t.parent_[c] != v) {
        return child_error("it lists " + std::to_string(c) + ", whose parent is " + std::to_string(t.parent_[c]));
      }
      if (listed[c]) return child_error("it lists " + std::to_string(c) + " twice");
      listed[c] = true;
    }
  }
  for (std::uint32_t v = 1; v <= n; ++v) {
    if (!listed[v]) {
      return Message("routed", "bad-children",
                     about(component, daemons,
                           {{"vpid", std::to_string(t.parent_[v])},
                            {"why", "its children leave out " + std::to_string(v) + ", whose parent it is"}}));
    }
  }

  // Preorder, children in the module's order: a subtree is then one run of
  // preorder_, and a vpid's children sit in it in ascending positions.
  t.preorder_.reserve(std::size_t{n} + 1);
  t.position_.resize(std::size_t{n} + 1);
  std::vector<std::uint32_t> stack{0};
  while (!stack.empty()) {
    const std::uint32_t v = stack.back();
    stack.pop_back();
    t.position_[v] = static_cast<std::uint32_t>(t.preorder_.size());
    t.preorder_.push_back(v);
    for (std::uint32_t i = t.child_begin_[v + 1]; i > t.child_begin_[v]; --i) stack.push_back(t.child_list_[i - 1]);
  }
  t.size_.assign(std::size_t{n} + 1, 1);
  for (auto it = t.preorder_.rbegin(); it != t.preorder_.rend(); ++it) {
    if (*it != 0) t.size_[t.parent_[*it]] += t.size_[*it];
  }
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
