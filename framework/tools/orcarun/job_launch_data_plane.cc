// JobLaunch: once every daemon is up, the data-plane round (each host's
// link chosen from the others' addresses) and the full-mesh check, before
// the command starts (data_plane_gather.h).
#include "job_launch.h"

namespace orca::orcarun {
namespace {

using Clock = std::chrono::steady_clock;
using launch::JobPhase;
using launch::seconds_text;

}  // namespace

void JobLaunch::all_up() {
  t_all_up_ = Clock::now();
  t_agents_ = launcher_->last_start();  // the last agent orcarun itself started
  end_progress();
  // Before anything else: a map the hosts cannot hold starts no rank.
  if (Status placed = place_rank_cpus(); !placed) {
    machine_->fail_and_end(placed.error(), 1);
    return;
  }
  if (plan_.data_plane_families.empty()) {
    start_command();
    return;
  }
  // The data plane: each distinct host's first daemon chooses its host's
  // link from the other hosts' addresses; the command waits for them all.
  std::vector<DataPlaneGather::DaemonAt> at;
  for (std::uint32_t v = 1; v <= daemons(); ++v) at.push_back({.vpid = v, .host = printable(daemon_[v].host), .report = &daemon_[v].report});
  const std::uint32_t rank0 = plan_.ranks.placements.empty() ? 1 : static_cast<std::uint32_t>(plan_.ranks.placements[0].node + 1);
  gather_ = std::make_unique<DataPlaneGather>(plan_.data_plane_families, at, rank0, plan_.mesh_check, forwarded_environment());
  auto bytes = launch::encode(gather_->directory());
  if (!bytes) {
    machine_->fail_and_end(bytes.error(), 1);
    return;
  }
  auto shared = std::make_shared<const std::vector<std::uint8_t>>(std::move(bytes.value()));
  for (std::uint32_t v : gather_->asked()) {
    if (Status st = oob_->send(name(v), launch::kTagDirectory, shared); !st) {
      // Through the tree, a busy next hop may refuse for a moment: the
      // outbox retries (copying is fine here, once per host).
      outbox_->post(name(v), launch::kTagDirectory, *shared);
    }
  }
  data_plane_timer_ = std::make_unique<Timer>(process_.loop(), [this] {
    std::string missing;
    for (std::uint32_t v : gather_->asked()) {
      if (!gather_->answered(v)) missing += "\n  " + describe(v);
    }
    machine_->fail_and_end(Message("orcarun", "data-plane-timeout",
                                   {{"seconds", seconds_text(static_cast<double>(plan_.startup_timeout.count()) / 1000.0)},
                                    {"missing", missing}}),
                           1);
  });
  data_plane_timer_->start(plan_.startup_timeout);
}

void JobLaunch::data_plane_answered(const launch::DataPlaneAnswer& answer) {
  if (!gather_ || machine_->phase() != JobPhase::WireUp || machine_->failed() || gather_->complete()) return;
  if (!gather_->take(answer)) return;
  data_plane_timer_.reset();
  t_data_plane_ = Clock::now();
  if (!plan_.mesh_check || gather_->asked().size() < 2) {
    start_command();
    return;
  }
  // The full-mesh check: every host dials every other host's link, 16 at
  // a time, before any rank can hang on a pair that does not connect.
  constexpr std::uint32_t kMeshConcurrency = 16;
  const launch::MeshCheck check = gather_->mesh_check(kMeshConcurrency, plan_.mesh_check_timeout);
  auto bytes = launch::encode(check);
  if (!bytes) {
    machine_->fail_and_end(bytes.error(), 1);
    return;
  }
  for (std::uint32_t v : gather_->asked()) outbox_->post(name(v), launch::kTagDirectory, bytes.value());
  const auto rounds = static_cast<std::int64_t>((check.targets.size() + kMeshConcurrency - 1) / kMeshConcurrency);
  data_plane_timer_ = std::make_unique<Timer>(process_.loop(), [this] {
    machine_->fail_and_end(Message("orcarun", "mesh-check-failed", {{"pairs", "\n  (not every host reported its check in time)"}}), 1);
  });
  data_plane_timer_->start(plan_.mesh_check_timeout * (rounds + 1) + std::chrono::seconds(5));
}

void JobLaunch::mesh_checked(const launch::MeshResult& result) {
  if (!gather_ || machine_->phase() != JobPhase::WireUp || machine_->failed() || !gather_->complete()) return;
  if (!gather_->take_mesh(result)) return;
  data_plane_timer_.reset();
  t_mesh_checked_ = Clock::now();
  if (const auto failures = gather_->mesh_failures(); !failures.empty()) {
    std::string pairs;
    for (const auto& f : failures) pairs += "\n  " + printable(f);
    machine_->fail_and_end(Message("orcarun", "mesh-check-failed", {{"pairs", pairs}}), 1);
    return;
  }
  start_command();
}

}  // namespace orca::orcarun
