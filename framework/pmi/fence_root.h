// FenceRoot: orcarun's part of the job's pmi collectives. orcarun is the
// root of the routing tree: each child of it whose subtree has ranks sends
// one part per collective (its subtree's data, merged on the way up);
// when the last part arrives the collective is complete and its release
// (every rank's data) goes down the tree. It holds the job to its bound
// on each component's data (pmi_base_max_job_keys / _bytes) over every
// collective: orcarun is the one process that sees the whole job's data,
// so a part that would take it past the bound ends the job here, naming
// the host it came from. It also records what each collective cost, for
// --timing and --report-routes.
#ifndef ORCA_PMI_FENCE_ROOT_H
#define ORCA_PMI_FENCE_ROOT_H

#include "launch/launch_wire.h"

#include <orca/pmi.h>
#include <orca/routed.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace orca::pmi {

class ORCA_EXPORT FenceRoot {
 public:
  using Clock = std::chrono::steady_clock;
  /* Collectives recorded for the reports; later ones are only counted. */
  static constexpr std::size_t kMaxRecords = 64;
  struct Record {
    std::string component;
    std::uint64_t epoch = 0;
    Clock::time_point first_part, complete;
    std::size_t keys = 0, bytes = 0;
  };

  /* `ranks_at[v]`: how many ranks daemon v runs (index 0 unused);
   * `hosts[v]`: daemon v's host, for messages (index 0 unused). */
  FenceRoot(const routed::RoutingTree& tree, const std::vector<std::uint32_t>& ranks_at, DataBound bound = {},
            std::vector<std::string> hosts = {});
  FenceRoot(const FenceRoot&) = delete;  // its collectives name hosts through it
  FenceRoot& operator=(const FenceRoot&) = delete;

  /* A part from daemon `from` (the oob's sender). Returns the release
   * when it completes its collective. Errors: the sender is not a child
   * of orcarun with ranks below it, or it sent that part already, or its
   * data would take the component's past the bound (pmi/job-data-bound). */
  Result<std::optional<launch::FenceRelease>> add(std::uint32_t from, const launch::FenceData& part, Clock::time_point now);

  const std::vector<Record>& records() const noexcept { return records_; }
  std::uint64_t completed() const noexcept { return completed_; }
  /* The routing tree's depth below orcarun over the daemons with ranks:
   * the hops a part travels up (and the release down). */
  std::uint32_t depth() const noexcept { return depth_; }

 private:
  std::vector<std::uint32_t> contributors_;  // children of orcarun with ranks below
  std::vector<std::uint32_t> relays_;        // those of them with ranks below them, not only their own
  DataBound bound_;
  std::vector<std::string> hosts_;
  std::map<std::string, FenceCollective, std::less<>> collectives_;
  std::map<std::pair<std::string, std::uint64_t>, Clock::time_point> first_part_;
  std::vector<Record> records_;
  std::uint64_t completed_ = 0;
  std::uint32_t depth_ = 0;
};

}  // namespace orca::pmi

#endif
