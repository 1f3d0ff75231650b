// JobLaunch: each rank's CPUs, from every daemon's processors, once all
// are up and before any rank starts (launch/cpu_binding.h); and what
// --report-bindings prints of them.
#include "job_launch.h"

#include "launch/cpu_binding.h"

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

// pe=N: OpenMP runs N threads a rank, unless the user said otherwise.
void JobLaunch::add_thread_hint(std::vector<std::string>& environment) const {
  if (options_.cpu.pe <= 1 || std::getenv("OMP_NUM_THREADS") != nullptr) return;
  for (const auto& e : environment) {
    if (e.rfind("OMP_NUM_THREADS=", 0) == 0) return;
  }
  environment.push_back("OMP_NUM_THREADS=" + std::to_string(options_.cpu.pe));
}

}  // namespace orca::orcarun
