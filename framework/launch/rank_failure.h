// What a rank's end, abort or a daemon's reported failure means for its
// job, as a message and an exit status: pure decisions shared by orcarun's
// JobMachine and a DVM's DvmJobMachine, so that a job fails with the same
// words and status whichever runs it.
//
// Messages are orcarun's (help-orcarun.txt), except job_failure_message,
// which takes the area the daemon named. Every value from the network
// (hosts, commands, a rank's own words) is made printable here.
#ifndef ORCA_LAUNCH_RANK_FAILURE_H
#define ORCA_LAUNCH_RANK_FAILURE_H

#include "launch_wire.h"

#include <orca/export.h>
#include <orca/message.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace orca::launch {

/* Why a job fails, and the status its launcher exits with (never 0). */
struct ORCA_EXPORT RankFailure {
  Message message;
  int exit_status = 1;
};

/* What rank `record.rank`'s end means; `host` is its daemon's host and
 * `command` its program's argv[0], both as given (made printable here).
 * nullopt: it ended well (exited 0, and not between PMI init and
 * finalize). Otherwise, by the first that applies:
 *   - exited 0 after init but before finalize: rank-exited-unfinalized, 1;
 *   - never started (exec, working directory or binding failed):
 *     rank-directory-missing, rank-not-bound or rank-not-started, 127;
 *   - any other end: rank-failed, its exit status (128 + signal if killed). */
ORCA_EXPORT std::optional<RankFailure> rank_failure(const ExitRecord& record, const std::string& host,
                                                    const std::string& command);

/* A rank that aborted the job (rank-aborted, with its status; 0 counts as
 * 1), or broke the PMI protocol (rank-broke-pmi, 1). */
ORCA_EXPORT RankFailure rank_abort_failure(const RankAbort& abort, const std::string& host);

/* The message a daemon reported, with its area and topic reduced to
 * [a-z0-9-] (they name a help file: no path) and its values printable. */
ORCA_EXPORT Message job_failure_message(const JobFailure& failure);

/* Its inverse: `message` as daemon (or controller) `vpid` reports it for
 * job `job`, as given (job_failure_message makes it safe to show). */
ORCA_EXPORT JobFailure job_failure_of(const Message& message, std::uint32_t job, std::uint32_t vpid);

/* Rank `rank`'s program (argv[0]), for messages: with MPMD, that of the
 * last app whose first rank (`app_first_rank`, ascending, one per entry
 * of `app_commands`) is not above it; otherwise, or when the lists do not
 * cover it, `command`. */
ORCA_EXPORT const std::string& rank_command(const std::string& command, const std::vector<std::string>& app_commands,
                                            const std::vector<std::uint32_t>& app_first_rank, std::uint32_t rank);

}  // namespace orca::launch

#endif  // ORCA_LAUNCH_RANK_FAILURE_H
