// Early start: the ranks of a part of the job start while the rest of
// its daemons are still coming up, as Hydra's proxies start theirs.
//
// orcarun sends the launch command down the routing tree, one copy to
// each of its children, which relays it to its subtree. A job that needs
// nothing from the other daemons before its ranks start (no data-plane
// round, no report printed before the ranks) can send a child its copy as
// soon as that child's whole subtree is up, instead of when every daemon
// is: on a flat tree (radix 64: up to 64 daemons) each daemon's ranks then
// start with its report, overlapping the rest of the wire-up.
//
// Pure: no I/O, no clock. JobMachine feeds it each daemon's report.
#ifndef ORCA_LAUNCH_EARLY_START_H
#define ORCA_LAUNCH_EARLY_START_H

#include <orca/export.h>
#include <orca/routed.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace orca::launch {

/* What a job asks of its wire-up that holds its ranks until every daemon
 * is up. */
struct EarlyStartInputs {
  bool variable = true;           // orcarun_start_early
  bool data_plane_round = false;  // every host's link chosen from every other's addresses first
  bool report_routes = false;     // --report-routes prints the routes before the ranks' output
  bool report_topology = false;   // --report-topology the same
  bool working_directory = false; // --wdir: every host checks it before any rank starts
  bool places_cpus = false;       // --map-by RES, --bind-to, --report-bindings: every host's processors first
};

struct EarlyStartChoice {
  bool start = false;
  std::string why;  // why not ("" when it starts early), for --timing
};

ORCA_EXPORT EarlyStartChoice choose_early_start(const EarlyStartInputs& in);

/* Which child of orcarun has its whole subtree up once a daemon is. */
class ORCA_EXPORT SubtreeArrivals {
 public:
  explicit SubtreeArrivals(const routed::RoutingTree& tree);
  /* Daemon `vpid` (1..daemons) is up. Returns the child of orcarun whose
   * subtree this completed, if it did; a vpid out of range or already
   * up changes nothing and returns nothing. */
  std::optional<std::uint32_t> arrived(std::uint32_t vpid);

 private:
  const routed::RoutingTree& tree_;
  std::vector<std::uint32_t> top_;      // top_[v]: the child of orcarun whose subtree holds v
  std::vector<std::uint32_t> missing_;  // missing_[c]: daemons of c's subtree not up yet (c a child of 0)
  std::vector<bool> up_;
};

}  // namespace orca::launch

#endif
