// What a rank's end means for its job (rank_failure.h).
#include "rank_failure.h"

#include <orca/child_process.h>

#include <sys/wait.h>

#include <algorithm>

namespace orca::launch {
namespace {

int exit_code_of(int wait_status) {
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return WEXITSTATUS(wait_status);
}

// A help file or topic a daemon names, made safe: [a-z0-9-] only (no path).
std::string help_name(std::string text) {
  std::erase_if(text, [](char c) { return !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'); });
  return text;
}

}  // namespace

std::optional<RankFailure> rank_failure(const ExitRecord& record, const std::string& host, const std::string& command) {
  const bool ok = record.started && WIFEXITED(record.wait_status) && WEXITSTATUS(record.wait_status) == 0;
  // An MPI rank that exits, even with 0, between init and finalize leaves
  // its peers waiting for it in their next collective.
  const bool unfinished = ok && record.pmi == PmiProgress::Initialized;
  if (ok && !unfinished) return std::nullopt;
  const Message::Args where{{"rank", std::to_string(record.rank)}, {"host", printable(host)}, {"command", printable(command)}};
  auto with = [&where](Message::Args more) {
    Message::Args args = where;
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  if (unfinished) return RankFailure{Message("orcarun", "rank-exited-unfinalized", where), 1};
  if (!record.started) {
    // The step that failed, in spawn_child's words (orca/child_process.h):
    // the hint differs for a directory or a binding than for a program.
    const std::string& m = record.message;
    const char* topic = m.starts_with("cannot enter the working directory") ? "rank-directory-missing"
                        : m.starts_with("cannot bind to CPUs")              ? "rank-not-bound"
                                                                            : "rank-not-started";
    return RankFailure{Message("orcarun", topic, with({{"why", printable(m)}})), 127};
  }
  const int status = exit_code_of(record.wait_status);
  return RankFailure{Message("orcarun", "rank-failed", with({{"how", plm::describe_wait_status(record.wait_status)}})),
                     status != 0 ? status : 1};
}

RankFailure rank_abort_failure(const RankAbort& abort, const std::string& host) {
  const std::string rank = std::to_string(abort.rank), where = printable(host);
  if (abort.broke) {
    return {Message("orcarun", "rank-broke-pmi", {{"rank", rank}, {"host", where}, {"why", printable(abort.message)}}), 1};
  }
  return {Message("orcarun", "rank-aborted",
                  {{"rank", rank},
                   {"host", where},
                   {"status", std::to_string(abort.status)},
                   {"message", abort.message.empty() ? std::string() : ": " + printable(abort.message)}}),
          abort.status != 0 ? abort.status : 1};
}

Message job_failure_message(const JobFailure& failure) {
  Message::Args args;
  for (const auto& kv : failure.args) args.emplace_back(printable(kv.key), printable(kv.value));
  return Message(help_name(failure.area), help_name(failure.topic), std::move(args));
}

JobFailure job_failure_of(const Message& message, std::uint32_t job, std::uint32_t vpid) {
  JobFailure failure{.job = job, .vpid = vpid, .area = message.area(), .topic = message.topic(), .args = {}};
  for (const auto& [key, value] : message.args()) failure.args.push_back({key, value});
  return failure;
}

const std::string& rank_command(const std::string& command, const std::vector<std::string>& app_commands,
                                const std::vector<std::uint32_t>& app_first_rank, std::uint32_t rank) {
  const auto after = std::upper_bound(app_first_rank.begin(), app_first_rank.end(), rank);
  const auto app = static_cast<std::size_t>(after - app_first_rank.begin());
  return app == 0 || app > app_commands.size() ? command : app_commands[app - 1];
}

}  // namespace orca::launch
