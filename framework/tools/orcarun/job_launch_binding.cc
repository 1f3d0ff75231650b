// JobLaunch: each rank's CPUs, from every daemon's processors, once all
// are up and before any rank starts (launch/cpu_binding.h); and what
// --report-bindings prints of them.
#include "job_launch.h"
#include "job_footprint.h"
#include "map_policy.h"

#include "launch/cpu_binding.h"
#include "launch/object_map.h"

#include <cstdlib>

namespace orca::orcarun {

Status JobLaunch::place_rank_cpus() {
  if (!places_cpus(options_)) return {};
  std::vector<launch::CpuTopology> topologies(daemons());
  for (std::uint32_t v = 1; v <= daemons(); ++v) {
    const launch::DaemonReport& report = daemon_[v].report;
    auto unread = [&](const std::string& why) {
      return Message("orcarun", "cpus-unread", {{"host", describe(v)}, {"why", printable(why)}});
    };
    if (!report.cpus_error.empty()) return unread(report.cpus_error);
    auto t = launch::parse_cpu_topology(report.cpus);
    if (!t) return unread(t.error().summary());
    topologies[v - 1] = std::move(t.value());
  }
  if (options_.cpu.per_object != 0) {
    if (Status mapped = map_per_object(topologies); !mapped) return mapped;
  }
  launch::CpuPolicy policy = options_.cpu;
  policy.oversubscribe = options_.oversubscribe;
  auto placed = launch::place_cpus(plan_.nodes, topologies, plan_.ranks, policy);
  if (!placed) return placed.error();
  rank_cpus_ = std::move(placed.value());
  if (options_.report_bindings) {
    std::string text;
    for (const auto& p : plan_.ranks.placements) {
      text += "orcarun: rank " + std::to_string(p.rank) + " on " + describe(static_cast<std::uint32_t>(p.node + 1)) +
              ": " + launch::binding_text(topologies[p.node], rank_cpus_[p.rank], options_.cpu.binding()) + "\n";
    }
    say(text);
  }
  return {};
}

// --map-by ppr:N:RES: the map, now that each host's processors are known;
// --display-map prints it here, before any rank starts.
Status JobLaunch::map_per_object(const std::vector<launch::CpuTopology>& topologies) {
  auto map = launch::map_ranks_per_object(plan_.nodes, topologies, options_.cpu.per_object, *options_.cpu.map_by,
                                          options_.processes, options_.oversubscribe);
  if (!map) return map.error();
  plan_.ranks = options_.rank_by ? launch::rank_ranks(map.value(), *options_.rank_by) : std::move(map.value());
  std::vector<std::uint32_t> rank_daemon;
  rank_daemon.reserve(plan_.ranks.placements.size());
  for (const auto& p : plan_.ranks.placements) rank_daemon.push_back(static_cast<std::uint32_t>(p.node + 1));
  // The ranks were unknown when the job's size was checked against this
  // host's limits: a ppr far too large must not start thousands first.
  if (Status fits = check_fits_here(plan_); !fits) {
    // Said once the daemons are up: they were started, and end now.
    Message::Args args = fits.error().args();
    for (auto& [key, value] : args) {
      if (key == "started") value = "No rank was started; the daemons end.";
    }
    return Message(fits.error().area(), fits.error().topic(), std::move(args));
  }
  if (!machine_->set_rank_daemons(std::move(rank_daemon))) {
    return Message("orcarun", "map-after-start", {{"policy", map_policy(options_)}});
  }
  if (options_.display_map) say("orcarun: " + launch::map_text(plan_.nodes, plan_.ranks, map_policy(options_)));
  return {};
}

// pe=N: OpenMP runs N threads a rank, unless the user said otherwise.
void JobLaunch::add_thread_hint(std::vector<std::string>& environment) const {
  if (options_.cpu.pe <= 1 || std::getenv("OMP_NUM_THREADS") != nullptr) return;
  for (const auto& e : environment) {
    if (e.rfind("OMP_NUM_THREADS=", 0) == 0) return;
  }
  environment.push_back("OMP_NUM_THREADS=" + std::to_string(options_.cpu.pe));
}

}  // namespace orca::orcarun
