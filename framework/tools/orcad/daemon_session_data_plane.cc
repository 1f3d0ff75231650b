// DaemonSession: the data plane before the command: this host's link for
// orcarun's directory, the full-mesh check (mesh_probe.h), and a DVM
// job's torch master port.
#include "daemon_session.h"

#include "data_plane_answer.h"
#include "mesh_probe.h"

namespace orca::orcad {

void DaemonSession::on_directory(std::span<const std::uint8_t> bytes) {
  auto m = launch::decode(bytes);
  if (!m) return;
  if (const auto* check = std::get_if<launch::MeshCheck>(&m.value())) {
    start_mesh_check(*check);
    return;
  }
  if (const auto* ask = std::get_if<launch::MasterPortAsk>(&m.value())) {
    up(launch::kTagStatus, answer_master_port(*ask, bootstrap_.vpid));  // a DVM job's, before its command
    return;
  }
  const auto* directory = std::get_if<launch::HostDirectory>(&m.value());
  if (directory == nullptr || machine_->command_came()) return;  // a directory after the command is no news
  DirectoryAnswer chosen =
      answer_directory(*oob_, *directory, who_we_are().host_identity, bootstrap_.vpid);
  launch::DataPlaneAnswer& answer = chosen.wire;
  data_plane_sources_ = std::move(chosen.sources);
  if (directory->mesh_check && !data_plane_sources_.empty()) {
    // The other hosts' side of the check, on the chosen address: held
    // until the command comes.
    if (auto listener = MeshListener::open(process_.loop(), data_plane_sources_.front())) {
      mesh_listener_ = std::move(listener.value());
      answer.check_port = mesh_listener_->port();
    } else {
      answer.others.push_back("no listener for the mesh check: " + listener.error().summary());
    }
  }
  up(launch::kTagStatus, answer);
}

void DaemonSession::start_mesh_check(const launch::MeshCheck& check) {
  if (mesh_probe_ || machine_->command_came()) return;  // a check after the command is no news
  const std::string mine = who_we_are().host_identity;
  std::vector<MeshProbe::Target> targets;
  for (const auto& t : check.targets) {
    auto address = net::IpAddress::parse(t.address);
    if (t.identity == mine || !address || t.port == 0 || t.port > 65535) continue;
    targets.push_back({.name = t.name, .address = *address, .port = static_cast<std::uint16_t>(t.port)});
  }
  if (data_plane_sources_.empty()) {
    // Nothing to dial from: every target fails, and says why.
    launch::MeshResult result{.vpid = bootstrap_.vpid, .failures = {}};
    for (const auto& t : targets) result.failures.push_back(t.name + ": this host has no data-plane address to connect from");
    up(launch::kTagStatus, result);
    return;
  }
  mesh_probe_ = std::make_unique<MeshProbe>(
      process_.loop(), data_plane_sources_, std::move(targets), check.concurrency,
      std::chrono::milliseconds(check.timeout_ms), [this](std::vector<std::string> failures) {
        up(launch::kTagStatus, launch::MeshResult{.vpid = bootstrap_.vpid, .failures = std::move(failures)});
      });
}

}  // namespace orca::orcad
