// JobLaunch: what orcarun prints about the job itself: the progress line
// while daemons start, --report-routes, the collectives and --timing.
#include "job_launch.h"

#include <algorithm>
#include <cstdio>

namespace orca::orcarun {
namespace {

using Clock = std::chrono::steady_clock;

// How often the progress line changes.
constexpr std::chrono::milliseconds kProgressEvery{250};

std::string milliseconds_since(Clock::time_point from, std::optional<Clock::time_point> to) {
  if (!to) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%10.1f", static_cast<double>(std::chrono::duration_cast<std::chrono::microseconds>(*to - from).count()) / 1000.0);
  return buf;
}


}  // namespace

void JobLaunch::show_progress() {
  std::string waiting;
  int listed = 0;
  for (std::uint32_t v = 1; v <= daemons() && listed < 8; ++v) {
    if (machine_->is_up(v)) continue;
    waiting += (listed++ ? ", " : "") + printable(daemon_[v].host);
  }
  if (listed == 8 && daemons() - machine_->up_count() > 8) waiting += " ...";
  say("\r\033[Kdaemons up " + std::to_string(machine_->up_count()) + "/" + std::to_string(daemons()) + "; waiting for " +
                   waiting);
  progress_shown_ = true;
  progress_timer_->start(kProgressEvery);
}

void JobLaunch::print_routes() {
  std::string text = "routes (" + std::to_string(daemons()) + (daemons() == 1 ? " daemon" : " daemons") + ", routed/" + plan_.routed_component + ", plm/" +
                     plan_.plm.component + (plan_.tree_spawn ? ", tree spawn" : "") + "):\n";
  for (std::uint32_t v = 1; v <= daemons(); ++v) {
    const auto& r = daemon_[v].report;
    const std::uint32_t parent = plan_.tree->parent(v);
    // The host as the job names it; the machine's own name when it differs.
    std::string where = printable(daemon_[v].host);
    if (!r.hostname.empty() && r.hostname != daemon_[v].host && daemon_[v].host.find('#') == std::string::npos) {
      where += " [" + printable(r.hostname) + "]";
    }
    text += "  daemon " + std::to_string(v) + " on " + where +
            " -> " + (parent == 0 ? std::string("orcarun") : "daemon " + std::to_string(parent)) + ": " +
            (r.route.empty() ? std::string("(no connection recorded)") : printable(r.route)) + "\n";
  }
  say(text);
}

void JobLaunch::print_collectives() {
  if (!fences_ || fences_->completed() == 0) return;
  const auto& records = fences_->records();
  std::string text = "collectives (" + std::to_string(fences_->completed()) + ", each up the routing tree and back down, " +
                     std::to_string(fences_->depth()) + (fences_->depth() == 1 ? " hop" : " hops") + " each way):\n";
  for (const auto& r : records) {
    char line[200];
    std::snprintf(line, sizeof line, "  pmi/%s collective %llu: %zu keys, %zu bytes, released to %u daemons\n",
                  r.component.c_str(), static_cast<unsigned long long>(r.epoch), r.keys, r.bytes, daemons());
    text += line;
  }
  if (fences_->completed() > records.size()) {
    text += "  (" + std::to_string(fences_->completed() - records.size()) + " more not shown)\n";
  }
  say(text);
}

void JobLaunch::print_timing() {
  std::string text = "timing (ms since orcarun started):\n";
  text += "  agents started    " + milliseconds_since(t_start_, t_agents_) + "\n";
  text += "  first daemon up   " + milliseconds_since(t_start_, t_first_up_) + "\n";
  text += "  all daemons up    " + milliseconds_since(t_start_, t_all_up_) + "\n";
  if (t_data_plane_) text += "  data plane chosen " + milliseconds_since(t_start_, t_data_plane_) + "\n";
  if (t_mesh_checked_) text += "  mesh checked      " + milliseconds_since(t_start_, t_mesh_checked_) + "\n";
  text += "  command started   " + milliseconds_since(t_start_, t_command_) + "\n";
  if (fences_) {
    for (const auto& r : fences_->records()) {
      const std::string label = "pmi/" + r.component + " fence " + std::to_string(r.epoch);
      char line[200];
      std::snprintf(line, sizeof line, "  %-17s %s (first part %s)\n", label.c_str(),
                    milliseconds_since(t_start_, r.complete).c_str(), milliseconds_since(t_start_, r.first_part).c_str());
      text += line;
    }
  }
  text += "  command ended     " + milliseconds_since(t_start_, t_ended_) + "\n";
  text += "  teardown done     " + milliseconds_since(t_start_, t_down_) + "\n";
  if (!plan_.no_data_plane_round.empty()) text += printable(plan_.no_data_plane_round) + "\n";
  text += plan_.start_early ? "ranks started as each part of the routing tree came up (orcarun_start_early)\n"
                            : "ranks held until every daemon was up: " + printable(plan_.no_early_start) + "\n";
  // Each daemon's own start-up, median and slowest over the daemons.
  const size_t phases = std::size(launch::kStartupPhases);
  std::vector<std::vector<std::uint32_t>> per_phase(phases);
  for (std::uint32_t v = 1; v <= daemons(); ++v) {
    const auto& s = daemon_[v].report.startup_us;
    if (!machine_->is_up(v) || s.size() != phases) continue;
    for (size_t i = 0; i < phases; ++i) per_phase[i].push_back(s[i]);
  }
  if (!per_phase[0].empty()) {
    const size_t n = per_phase[0].size();
    text += "orcad start-up (ms, median / slowest of " + std::to_string(n) + (n == 1 ? " daemon" : " daemons") + "):\n";
    for (size_t i = 0; i < phases; ++i) {
      auto& values = per_phase[i];
      std::sort(values.begin(), values.end());
      char line[160];
      std::snprintf(line, sizeof line, "  %-24s %8.1f / %8.1f\n", launch::kStartupPhases[i],
                    values[values.size() / 2] / 1000.0, values.back() / 1000.0);
      text += line;
    }
  }
  say(text);
}

}  // namespace orca::orcarun
