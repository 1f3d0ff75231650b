// Each rank's CPUs within its node: --map-by RES, pe=N, --bind-to.
#include "launch/cpu_binding.h"

#include "launch/launch_text.h"
#include "mca/var/text.h"

#include <algorithm>
#include <map>
#include <set>

namespace orca::launch {

namespace {

using Unit = std::vector<std::size_t>;  // PU indices of one CPU: a core's threads, or one thread

// Indices 0..count-1 grouped by key_of(index), groups in first-seen order.
template <typename KeyOf>
std::vector<std::vector<std::size_t>> group_in_order(std::size_t count, KeyOf key_of) {
  std::vector<std::vector<std::size_t>> groups;
  std::map<std::size_t, std::size_t> group_of_key;
  for (std::size_t i = 0; i < count; ++i) {
    auto [it, added] = group_of_key.try_emplace(key_of(i), groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  return groups;
}

// The node's CPUs in order: cores (their PUs together), or single PUs.
std::vector<Unit> cpu_units(const CpuTopology& t, bool hwthreads) {
  return group_in_order(t.pus.size(), [&](std::size_t i) -> std::size_t { return hwthreads ? i : t.pus[i].core; });
}

// The units of each object of `r`, in order. Mapping by the unit itself
// (core, hwthread) or by nothing makes one object of them all: a rank of
// pe=N takes the next N free ones. ppr:N:core keeps each core apart.
std::vector<std::vector<std::size_t>> objects_of(const CpuTopology& t, const std::vector<Unit>& units,
                                                 std::optional<Resource> r, bool per_object) {
  const bool one_object = !r || (!per_object && (*r == Resource::Core || *r == Resource::Hwthread));
  return group_in_order(units.size(), [&](std::size_t u) -> std::size_t {
    return one_object ? 0 : resource_index(t, units[u].front(), *r);
  });
}

// The resource a binding widens to; none for none and hwthread.
std::optional<Resource> bound_resource(BindTo bind) {
  switch (bind) {
    case BindTo::Core: return Resource::Core;
    case BindTo::Numa: return Resource::Numa;
    case BindTo::Package: return Resource::Package;
    case BindTo::None:
    case BindTo::Hwthread: break;
  }
  return std::nullopt;
}

// The OS CPUs of each object of the bound resource, by its index: computed
// once a node, so that binding a rank costs its own objects, not the node.
std::map<unsigned, std::vector<unsigned>> cpus_by_object(const CpuTopology& t, BindTo bind) {
  std::map<unsigned, std::vector<unsigned>> cpus;
  const auto r = bound_resource(bind);
  if (!r) return cpus;
  for (std::size_t i = 0; i < t.pus.size(); ++i) cpus[resource_index(t, i, *r)].push_back(t.pus[i].os);
  return cpus;
}

// The OS CPUs a rank given `given` (PU indices) is bound to.
std::vector<unsigned> bound_cpus(const CpuTopology& t, const std::vector<std::size_t>& given, BindTo bind,
                                 bool hwthread_units, const std::map<unsigned, std::vector<unsigned>>& by_object) {
  std::vector<unsigned> cpus;
  if (bind == BindTo::None) return cpus;
  if (bind == BindTo::Hwthread) {
    std::set<unsigned> cores_seen;
    for (std::size_t i : given) {
      if (hwthread_units || cores_seen.insert(t.pus[i].core).second) cpus.push_back(t.pus[i].os);
    }
    return cpus;
  }
  const Resource r = *bound_resource(bind);
  std::set<unsigned> objects;
  for (std::size_t i : given) objects.insert(resource_index(t, i, r));
  for (unsigned object : objects) {
    const auto& its = by_object.at(object);
    cpus.insert(cpus.end(), its.begin(), its.end());
  }
  std::sort(cpus.begin(), cpus.end());
  return cpus;
}

struct NodePlacer {
  const CpuTopology& topology;
  const CpuPolicy& policy;
  bool hwthreads;
  std::vector<Unit> units;
  std::vector<std::vector<std::size_t>> objects;
  std::vector<bool> used;

  NodePlacer(const CpuTopology& t, const CpuPolicy& p)
      : topology(t), policy(p),
        hwthreads(p.map_by == Resource::Hwthread || (p.per_object != 0 && p.map_by == Resource::Core)),
        units(cpu_units(t, hwthreads)), objects(objects_of(t, units, p.map_by, p.per_object != 0)),
        used(units.size(), false) {}

  // The PUs of pe free units of one object, trying from object `first`
  // (and, unless ppr, the next ones); empty: none has room.
  std::vector<std::size_t> take(std::size_t first) {
    const std::size_t tries = policy.per_object != 0 ? 1 : objects.size();
    for (std::size_t k = 0; k < tries; ++k) {
      const auto& object = objects[(first + k) % objects.size()];
      std::vector<std::size_t> free;
      for (std::size_t u : object) {
        if (!used[u]) free.push_back(u);
        if (free.size() == policy.pe) break;
      }
      if (free.size() < policy.pe) continue;
      std::vector<std::size_t> pus;
      for (std::size_t u : free) {
        used[u] = true;
        pus.insert(pus.end(), units[u].begin(), units[u].end());
      }
      return pus;
    }
    return {};
  }
};

Message cpus_short(const HostSlots& node, const NodePlacer& p, std::size_t ranks) {
  const char* unit = p.hwthreads ? "hardware threads" : "cores";
  const std::string resource = p.policy.map_by ? resource_name(*p.policy.map_by) : "node";
  return Message("launch", "map-cpus-short",
                 {{"host", printable(node.name)},
                  {"ranks", std::to_string(ranks)},
                  {"pe", std::to_string(p.policy.pe)},
                  {"unit", unit},
                  {"cpus", std::to_string(p.units.size())},
                  {"resource", resource},
                  {"objects", std::to_string(p.objects.size())}});
}

}  // namespace

Result<BindTo> parse_bind_to(std::string_view text) {
  const std::string value = mca::lower(mca::trim(text));
  if (value == "none") return BindTo::None;
  if (value == "hwthread") return BindTo::Hwthread;
  if (value == "core") return BindTo::Core;
  if (value == "numa") return BindTo::Numa;
  if (value == "package" || value == "socket") return BindTo::Package;
  return Message("launch", "bind-to-unknown", {{"value", excerpt(text)}});
}

const char* bind_to_name(BindTo b) {
  switch (b) {
    case BindTo::None: return "none";
    case BindTo::Hwthread: return "hwthread";
    case BindTo::Core: return "core";
    case BindTo::Numa: return "numa";
    case BindTo::Package: return "package";
  }
  return "?";
}

BindTo CpuPolicy::binding() const {
  if (bind) return *bind;
  if (map_by == Resource::Hwthread) return BindTo::Hwthread;
  if (!map_by) return pe > 1 ? BindTo::Core : BindTo::None;
  if (pe > 1 || *map_by == Resource::Core) return BindTo::Core;
  return *map_by == Resource::Numa ? BindTo::Numa : BindTo::Package;
}

Result<std::vector<RankCpus>> place_cpus(const std::vector<HostSlots>& nodes, const std::vector<CpuTopology>& topologies,
                                         const RankMap& map, const CpuPolicy& policy) {
  if (policy.pe == 0 || policy.pe > kMaxPe) {
    return Message("launch", "cpus-per-rank-range", {{"pe", std::to_string(policy.pe)}, {"max", std::to_string(kMaxPe)}});
  }
  // Each node's ranks in local-rank order.
  std::vector<std::vector<unsigned>> ranks_of(nodes.size());
  for (const auto& p : map.placements) {
    if (p.node < nodes.size()) ranks_of[p.node].push_back(p.rank);
  }
  std::vector<RankCpus> out(map.placements.size());
  const BindTo bind = policy.binding();
  for (std::size_t n = 0; n < nodes.size() && n < topologies.size(); ++n) {
    auto& ranks = ranks_of[n];
    std::sort(ranks.begin(), ranks.end(), [&](unsigned a, unsigned b) {
      return map.placements[a].local_rank < map.placements[b].local_rank;
    });
    NodePlacer placer(topologies[n], policy);
    const auto by_object = cpus_by_object(topologies[n], bind);
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      const std::size_t first = policy.per_object != 0 ? (i / policy.per_object) % placer.objects.size()
                                : policy.map_by                ? i % placer.objects.size()
                                                               : 0;
      auto pus = placer.take(first);
      if (pus.empty() && policy.oversubscribe) {
        std::fill(placer.used.begin(), placer.used.end(), false);  // a second pass over the same CPUs
        pus = placer.take(first);
      }
      if (pus.empty()) return cpus_short(nodes[n], placer, ranks.size());
      RankCpus& r = out[ranks[i]];
      r.cpus = bound_cpus(topologies[n], pus, bind, placer.hwthreads, by_object);
      r.given = std::move(pus);
    }
  }
  return out;
}

std::string binding_text(const CpuTopology& t, const RankCpus& rank, BindTo bind) {
  if (rank.cpus.empty() || bind == BindTo::None) {
    std::vector<unsigned> all;
    for (const auto& p : t.pus) all.push_back(p.os);
    return "not bound (CPUs " + cpu_list_text(all) + ")";
  }
  const std::set<unsigned> bound(rank.cpus.begin(), rank.cpus.end());
  std::vector<unsigned> objects;
  std::string picture;
  for (std::size_t i = 0; i < t.pus.size(); ++i) {
    const bool new_package = i == 0 || t.pus[i].package != t.pus[i - 1].package;
    const bool new_core = new_package || t.pus[i].core != t.pus[i - 1].core;
    if (new_package) picture += (i == 0 ? "[" : "][");
    else if (new_core) picture += '/';
    const bool b = bound.count(t.pus[i].os) != 0;
    picture += b ? 'B' : '.';
    if (!b) continue;
    switch (bind) {
      case BindTo::Hwthread: objects.push_back(static_cast<unsigned>(i)); break;
      case BindTo::Core: objects.push_back(t.pus[i].core); break;
      case BindTo::Numa: objects.push_back(t.pus[i].numa); break;
      default: objects.push_back(t.pus[i].package); break;
    }
  }
  if (!picture.empty()) picture += ']';
  return std::string("bound to ") + bind_to_name(bind) + " " + cpu_list_text(objects) + " (CPUs " +
         cpu_list_text(rank.cpus) + "): " + picture;
}

}  // namespace orca::launch
