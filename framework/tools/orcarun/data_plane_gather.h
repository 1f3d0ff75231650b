// DataPlaneGather: orcarun's side of the data-plane choice. From the
// daemons' reports it makes one HostDirectory (each distinct host once:
// simulated nodes share one), asks the first daemon of each host, collects
// their answers, and fills the launch command's links and torch master.
// No I/O: JobLaunch sends and receives.
#ifndef ORCA_TOOLS_ORCARUN_DATA_PLANE_GATHER_H
#define ORCA_TOOLS_ORCARUN_DATA_PLANE_GATHER_H

#include "launch/launch_wire.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace orca::orcarun {

class DataPlaneGather {
 public:
  struct DaemonAt {
    std::uint32_t vpid = 0;
    std::string host;                     // as the job names it
    const launch::DaemonReport* report = nullptr;
  };
  /* `rank0_vpid`: the daemon of rank 0, whose host gives MASTER_ADDR. */
  /* `forwarded`: the environment forwarded to every rank (-x), whose
   * data-plane variables each host judges too. */
  DataPlaneGather(std::vector<std::string> families, const std::vector<DaemonAt>& daemons, std::uint32_t rank0_vpid,
                  bool mesh_check = false, const std::vector<std::string>& forwarded = {});

  const launch::HostDirectory& directory() const noexcept { return directory_; }
  /* The daemon to ask for each host (the first of it). */
  const std::vector<std::uint32_t>& asked() const noexcept { return asked_; }
  /* Takes an answer; returns true once every host has answered. An answer
   * from a daemon not asked, or a second one, is ignored. */
  bool take(const launch::DataPlaneAnswer& answer);
  bool complete() const noexcept { return answered_ == asked_.size(); }
  /* Whether the daemon `vpid` was asked and has answered. */
  bool answered(std::uint32_t vpid) const;
  /* The address of the link chosen for daemon `vpid`'s host, when its
   * host answered with one and torch's family is set; "" otherwise. A DVM
   * job's MASTER_ADDR, from its rank 0's daemon. */
  std::string torch_master_address(std::uint32_t vpid) const;
  /* Links, families and torch master into the launch command. */
  void fill(launch::LaunchCommand& command) const;
  /* The full-mesh check: every host with a link and a listener, as
   * targets for every asked daemon. */
  launch::MeshCheck mesh_check(std::uint32_t concurrency, std::chrono::milliseconds timeout) const;
  /* Takes a MeshResult; true once every asked daemon has sent one. */
  bool take_mesh(const launch::MeshResult& result);
  /* "h2 -> h3 10.0.0.3:41000: timed out", one per pair that failed. */
  std::vector<std::string> mesh_failures() const;
  /* The --report-routes section; `forwarded` is the command's environment
   * (-x), whose data-plane variables override the choice. */
  std::string report(const std::vector<std::string>& forwarded) const;

 private:
  std::vector<std::string> families_;
  launch::HostDirectory directory_;
  std::vector<std::uint32_t> asked_;                 // per host
  std::vector<std::optional<launch::DataPlaneAnswer>> answers_;  // per host
  std::map<std::uint32_t, size_t> host_of_vpid_;     // every daemon's
  /* The host daemon `vpid` was asked for (none: not one asked). */
  std::optional<size_t> asked_host(std::uint32_t vpid) const;
  /* Host `host`'s answer when it chose a link, else null. */
  const launch::DataPlaneAnswer* linked(size_t host) const;
  std::vector<size_t> daemons_per_host_;
  size_t rank0_host_ = 0;
  size_t answered_ = 0;
  std::vector<std::optional<launch::MeshResult>> mesh_;  // per host
  size_t meshed_ = 0;
};

}  // namespace orca::orcarun

#endif
