// The messages between a DVM daemon and its PMI helper process (a fork of
// the daemon that runs pmi modules out of the daemon: helper_process.h),
// on a socketpair, as values with a strict codec.
//
//   daemon -> helper
//     HelperWarmUp     warm the module up (orca_pmi_module.warm_up)
//     HelperJobStart   serve a job; also prepare each of this node's ranks
//                      (rank_prepare), so that the daemon gets every
//                      rank's environment in the one answer
//     HelperRankState  a rank started (ok or not) or ended
//     HelperRelease    a collective is complete: every daemon's data
//     HelperDeliver    bytes from the module on another node
//     HelperJobEnd     the job ends here
//   helper -> daemon
//     HelperWarmedUp   the answer to HelperWarmUp
//     HelperJobStarted the answer to HelperJobStart
//     HelperEndedSeen  the answer to a rank's end (HelperRankState kEnded),
//                      after what the module had of that rank was sent
//     HelperContribute this node's part of a collective
//     HelperRankEvent  what happened to a rank
//     HelperSend       bytes for the module on another node
//     HelperLog        a verbose line
//     HelperOverBound  a rank would take the job's data past its bound
//
// A job is named by the daemon's own number for it (`id`), never reused
// by one helper. Frames: a 4-byte big-endian length, then the kind byte
// and the fields. The channel is the daemon's own (a socketpair with its
// own fork): decode is strict anyway, and a frame has a bound.
#ifndef ORCA_PMI_HELPER_WIRE_H
#define ORCA_PMI_HELPER_WIRE_H

#include <orca/export.h>
#include <orca/pmi.h>
#include <orca/result.h>

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace orca::pmi {

/* The largest frame: the job's collective data is bounded by
 * pmi_base_max_job_bytes (64M by default), and a release carries it all. */
inline constexpr std::uint32_t kMaxHelperFrame = 1u << 30;

/* An orca_pmi_job with what it points into (copied). */
struct HelperJob {
  std::uint32_t job = 0;
  std::string name;
  std::uint32_t size = 0;
  std::uint32_t node = 0;
  std::uint32_t node_count = 0;
  std::vector<std::uint32_t> rank_node;   // [size], or empty (warm-up)
  std::vector<std::uint32_t> local_rank;  // [size], or empty
  std::vector<std::string> node_host;     // [node_count]
  std::uint64_t max_keys = 0;
  std::uint64_t max_bytes = 0;
  std::vector<std::uint32_t> rank_app;    // [size], or empty
  std::uint32_t app_count = 1;
  std::string directory;  // the daemon's job_directory for it ("" with `directory_error`)
  std::string directory_error;
  bool operator==(const HelperJob&) const = default;
};

/* `job` copied (directory and its error empty: the caller asks the host). */
ORCA_EXPORT HelperJob helper_job_of(const orca_pmi_job& job);

/* The orca_pmi_job view of a HelperJob (points into it: keep it alive). */
struct HelperJobView {
  explicit HelperJobView(const HelperJob& job);
  orca_pmi_job job{};
  std::vector<const char*> hosts;
};

struct HelperWarmUp {
  HelperJob job;
  bool operator==(const HelperWarmUp&) const = default;
};
struct HelperJobStart {
  std::uint32_t id = 0;
  HelperJob job;
  bool operator==(const HelperJobStart&) const = default;
};
struct HelperRankState {
  enum Kind : std::uint8_t { kStarted = 1, kFailedToStart = 2, kEnded = 3 };
  std::uint32_t id = 0;
  std::uint32_t rank = 0;
  std::uint8_t kind = kStarted;
  bool operator==(const HelperRankState&) const = default;
};
struct HelperEntries {
  std::vector<std::pair<std::string, std::string>> entries;
  bool operator==(const HelperEntries&) const = default;
};
struct HelperRelease {
  std::uint32_t id = 0;
  std::uint64_t epoch = 0;
  HelperEntries data;
  bool operator==(const HelperRelease&) const = default;
};
struct HelperDeliver {
  std::uint32_t id = 0;
  std::uint32_t node = 0;
  std::string bytes;
  bool operator==(const HelperDeliver&) const = default;
};
struct HelperJobEnd {
  std::uint32_t id = 0;
  bool operator==(const HelperJobEnd&) const = default;
};
/* One rank's rank_prepare in the helper. */
struct HelperPrepared {
  std::uint32_t rank = 0;
  bool ok = true;
  std::string why;
  std::vector<std::pair<std::string, std::string>> environment;
  bool operator==(const HelperPrepared&) const = default;
};
struct HelperWarmedUp {
  bool ok = true;
  std::string why;
  bool operator==(const HelperWarmedUp&) const = default;
};
struct HelperJobStarted {
  std::uint32_t id = 0;
  bool ok = true;
  std::string why;
  std::vector<HelperPrepared> ranks;  // this node's
  bool operator==(const HelperJobStarted&) const = default;
};
struct HelperEndedSeen {
  std::uint32_t id = 0;
  std::uint32_t rank = 0;
  bool operator==(const HelperEndedSeen&) const = default;
};
struct HelperContribute {
  std::uint32_t id = 0;
  std::uint64_t epoch = 0;
  HelperEntries data;
  bool operator==(const HelperContribute&) const = default;
};
struct HelperRankEvent {
  std::uint32_t id = 0;
  std::uint32_t rank = 0;
  std::uint32_t event = 0;  // orca_pmi_rank_event
  std::int32_t status = 0;
  std::string text;
  bool operator==(const HelperRankEvent&) const = default;
};
struct HelperSend {
  std::uint32_t id = 0;
  std::uint32_t node = 0;
  std::string bytes;
  bool operator==(const HelperSend&) const = default;
};
struct HelperLog {
  std::uint32_t id = 0;
  std::int32_t level = 0;
  std::string text;
  bool operator==(const HelperLog&) const = default;
};
struct HelperOverBound {
  std::uint32_t id = 0;
  std::uint32_t rank = 0;
  std::uint32_t which = 0;  // orca_pmi_bound
  std::uint64_t total = 0;
  bool operator==(const HelperOverBound&) const = default;
};

using HelperMessage = std::variant<HelperWarmUp, HelperJobStart, HelperRankState, HelperRelease, HelperDeliver,
                                   HelperJobEnd, HelperWarmedUp, HelperJobStarted, HelperContribute, HelperRankEvent, HelperSend,
                                   HelperLog, HelperOverBound, HelperEndedSeen>;

/* One frame: length, kind, fields. */
ORCA_EXPORT std::vector<std::uint8_t> encode_helper(const HelperMessage& message);
/* One frame's payload (after the length). Error: pmi/helper-malformed
 * (why) for an unknown kind, a field cut short, bytes left over, a count
 * past what the payload could hold. */
ORCA_EXPORT Result<HelperMessage> decode_helper(std::span<const std::uint8_t> payload);

ORCA_EXPORT HelperEntries helper_entries_of(const orca_pmi_entry* entries, size_t count);
/* The orca_pmi_entry view of `data` (points into it). */
ORCA_EXPORT std::vector<orca_pmi_entry> entries_view(const HelperEntries& data);

}  // namespace orca::pmi

#endif
