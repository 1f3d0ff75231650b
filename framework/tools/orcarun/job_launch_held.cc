// JobLaunch while held (a DVM): its jobs' commands, signals and
// teardowns to the daemons, a message to one daemon, and a job's torch
// master on its rank 0's host.
#include "job_launch.h"

namespace orca::orcarun {

Status JobLaunch::to_daemons(launch::WireMessage message) {
  if (auto* command = std::get_if<launch::LaunchCommand>(&message); command && gather_) {
    std::string master_address = std::move(command->master_address);
    const std::uint32_t master_port = command->master_port;
    gather_->fill(*command);
    command->master_address = std::move(master_address);
    command->master_port = master_port;
  }
  return broadcast(message);
}

Status JobLaunch::to_daemon(std::uint32_t vpid, std::uint32_t tag, const launch::WireMessage& message) {
  auto bytes = launch::encode(message);
  if (!bytes) return bytes.error();
  return oob_->send(name(vpid), tag, bytes.value());
}

std::string JobLaunch::torch_master_address(std::uint32_t vpid) const {
  return gather_ ? gather_->torch_master_address(vpid) : "";
}

}  // namespace orca::orcarun
