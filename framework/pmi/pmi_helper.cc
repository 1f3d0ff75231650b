// PmiHelper: the daemon's side of a pmi module run in a helper process.
#include "pmi_helper.h"

#include <orca/child_process.h>

#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <type_traits>

namespace orca::pmi {
namespace {

// How long a job's start may take in the helper (libpmix's server start,
// when it was not warmed up, and the registration of the job's ranks).
constexpr std::chrono::milliseconds kStartLimit{30000};
// How long the helper may take to hand on what it had of a rank that ended.
constexpr std::chrono::milliseconds kEndedLimit{5000};
// How long a helper whose channel closed may take to exit by itself.
constexpr std::chrono::milliseconds kExitWait{2000};
// How long an ending helper may take to finalize before it is killed.
constexpr std::chrono::milliseconds kEndLimit{2000};

void copy_reason(orca_mca_reason* why, const std::string& text) {
  if (why == nullptr) return;
  std::snprintf(why->text, sizeof why->text, "%s", text.c_str());
}

// RssAnon of `pid` in bytes (its resident memory that is no file's: what
// its libraries' code pages, read in as it first runs them, leave out);
// nothing when it cannot be read.
std::optional<std::uint64_t> resident_bytes(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string key;
  while (status >> key) {
    if (key == "RssAnon:") {
      std::uint64_t kb = 0;
      if (status >> kb) return kb * 1024;
      return std::nullopt;
    }
    status.ignore(1 << 16, '\n');
  }
  return std::nullopt;
}

}  // namespace

struct PmiHelper::Job {
  PmiHelper* helper = nullptr;
  std::uint32_t id = 0;
  orca_pmi_host host{};
  std::map<std::uint32_t, HelperPrepared> prepared;  // this node's ranks
  bool lost = false;  // its helper is gone: nothing more is sent
};

PmiHelper::PmiHelper(EventLoop& loop, const orca_pmi_module& real, Settings settings)
    : loop_(loop), real_(real), settings_(std::move(settings)) {
  proxy_ = orca_pmi_module{.self = this,
                           .many_jobs = real.many_jobs,
                           .job_start = &call_job_start,
                           .rank_prepare = &call_rank_prepare,
                           .rank_started = &call_rank_started,
                           .rank_ended = &call_rank_ended,
                           .release = &call_release,
                           .deliver = &call_deliver,
                           .job_end = &call_job_end,
                           .warm_up = &call_warm_up,
                           .warm_end = &call_warm_end};
}

PmiHelper::~PmiHelper() {
  stop();
  // Each helper told to end finalizes its module and exits; one that does
  // not within kEndLimit is killed. Reaped here: the loop may not run again.
  // (One its watch reaped already is not waited for: its pid may be
  // another process's by now.)
  for (auto& [pid, watch] : watches_) {
    if (!watch->watching()) continue;
    if (!plm::exits_within(pid, kEndLimit)) ::kill(pid, SIGKILL);
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  watches_.clear();
}

bool PmiHelper::running(std::string& why) {
  if (pid_ > 0 && channel_ && channel_->open()) return true;
  if (pid_ > 0) lost("its channel closed (" + closed_why_.value_or("") + ")");  // not reaped yet: its jobs hear now
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
    why = "no socketpair for the PMI helper process: " + std::string(std::strerror(errno));
    return false;
  }
  UniqueFd ours(ends[0]), theirs(ends[1]);
  const pid_t pid = ::fork();
  if (pid < 0) {
    why = "the PMI helper process could not be started: fork: " + std::string(std::strerror(errno)) +
          plm::limit_hint("fork", errno);
    return false;
  }
  if (pid == 0) {
    ours.release();
    run_pmi_helper(theirs.get(), real_, settings_.component);
  }
  theirs.reset();
  pid_ = pid;
  ++starts_;
  base_rss_.reset();
  channel_ = std::make_unique<HelperChannel>(
      loop_, std::move(ours),
      HelperChannel::Hooks{.message = [this](HelperMessage m) { on_message(std::move(m)); },
                           .closed = [this](const std::string& why_closed) { on_closed(why_closed); }});
  watches_[pid] = std::make_unique<ChildWatch>(loop_, pid, [this, pid](int status) { reaped(pid, status); });
  if (warm_job_) send(HelperWarmUp{.job = *warm_job_});
  if (settings_.log) settings_.log(1, "pmi/" + settings_.component + " runs in helper process " + std::to_string(pid));
  return true;
}

void PmiHelper::stop() {
  if (pid_ == 0) return;
  pid_ = 0;
  closed_why_.reset();
  killed_ = false;
  if (exit_wait_) exit_wait_->cancel();
  // Its end of the channel closes: it ends its module and exits. (The
  // channel object goes from the loop: its own callback may be on the stack.)
  if (channel_) {
    channel_->shut();
    loop_.defer([gone = std::shared_ptr<HelperChannel>(std::move(channel_))] {});
  }
}

// Its end of the channel closes as it dies, usually before the daemon
// hears of its exit, which says more (a signal, a status): it is given
// kExitWait to exit by itself, then killed, and its jobs are told once it
// is reaped. (A job that comes meanwhile is told at once: lost().)
void PmiHelper::on_closed(const std::string& why) {
  if (pid_ == 0 || closed_why_) return;  // one that was told to end, or told already
  closed_why_ = why;
  exit_wait_ = std::make_unique<Timer>(loop_, [this] {
    if (pid_ > 0) ::kill(pid_, SIGKILL);  // a helper whose channel broke serves no one any more
    killed_ = true;
  });
  exit_wait_->start(kExitWait);
}

void PmiHelper::reaped(pid_t pid, int status) {
  if (pid == pid_) {
    lost("it " + plm::describe_wait_status(status) +
         (killed_ && closed_why_ ? " once its channel had closed (" + *closed_why_ + ")" : std::string()));
  }
  // Its watch is on the stack: dropped from the loop.
  const std::weak_ptr<bool> alive = alive_;
  loop_.defer([this, alive, pid] {
    if (!alive.expired()) watches_.erase(pid);
  });
}

void PmiHelper::lost(const std::string& what) {
  const pid_t pid = pid_;
  if (pid == 0) return;
  ::kill(pid, SIGKILL);  // if it still runs: its jobs are ended now
  stop();
  const std::string text = "its helper process " + std::to_string(pid) + " (orcad-pmi, pmi_base_helper) ended: " + what;
  if (settings_.log) settings_.log(1, text);
  const std::weak_ptr<bool> alive = alive_;
  for (auto& [id, job] : jobs_) {
    if (job->lost) continue;
    job->lost = true;
    // The job ends, with why (orca/pmi.h).
    if (!job->prepared.empty() && job->host.rank_event != nullptr) {
      job->host.rank_event(job->host.host, job->prepared.begin()->first, ORCA_PMI_RANK_SERVER_LOST, 0, text.c_str());
      if (alive.expired()) return;
    }
  }
}

void PmiHelper::send(const HelperMessage& message) {
  if (channel_) (void)channel_->send(message);
}

void PmiHelper::on_message(HelperMessage message) {
  std::visit(
      [this](auto& m) {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, HelperWarmedUp>) {
          if (!m.ok && settings_.log) settings_.log(1, "pmi/" + settings_.component + " not warmed up in its helper: " + m.why);
        } else if constexpr (std::is_same_v<T, HelperContribute> || std::is_same_v<T, HelperRankEvent> ||
                             std::is_same_v<T, HelperSend> || std::is_same_v<T, HelperLog> ||
                             std::is_same_v<T, HelperOverBound>) {
          auto it = jobs_.find(m.id);
          if (it == jobs_.end() || it->second->lost) {
            if constexpr (std::is_same_v<T, HelperLog>) {
              if (settings_.log) settings_.log(m.level, m.text);  // the warm-up's, or an ended job's
            }
            return;
          }
          const orca_pmi_host& h = it->second->host;
          if constexpr (std::is_same_v<T, HelperContribute>) {
            const auto entries = entries_view(m.data);
            h.contribute(h.host, m.epoch, entries.data(), entries.size());
          } else if constexpr (std::is_same_v<T, HelperRankEvent>) {
            h.rank_event(h.host, m.rank, static_cast<orca_pmi_rank_event>(m.event), m.status, m.text.c_str());
          } else if constexpr (std::is_same_v<T, HelperSend>) {
            h.send(h.host, m.node, reinterpret_cast<const std::uint8_t*>(m.bytes.data()), m.bytes.size());
          } else if constexpr (std::is_same_v<T, HelperLog>) {
            if (h.log != nullptr) h.log(h.host, m.level, m.text.c_str());
          } else {
            h.over_bound(h.host, m.rank, static_cast<orca_pmi_bound>(m.which), m.total);
          }
        }
        // Anything else is no answer the daemon waits for now: dropped.
      },
      message);
}

void PmiHelper::replace_if_grown() {
  if (pid_ == 0 || !jobs_.empty()) return;
  const std::optional<std::uint64_t> rss = resident_bytes(pid_);
  if (!rss) return;
  if (!base_rss_) {
    base_rss_ = *rss;  // after its first job: what a job leaves is measured from here
    return;
  }
  if (*rss <= *base_rss_ + settings_.growth_bytes) return;
  if (settings_.log) {
    settings_.log(1, "pmi/" + settings_.component + "'s helper process " + std::to_string(pid_) + " grew by " +
                  std::to_string((*rss - *base_rss_) / 1024) + " kB (pmi_base_helper_growth): replaced by a new one");
  }
  stop();
  std::string why;
  if (!running(why) && settings_.log) settings_.log(1, why + " (the next job tries again)");
}

HelperJob PmiHelper::with_directory(const orca_pmi_host& host, const orca_pmi_job& job) {
  HelperJob j = helper_job_of(job);
  orca_mca_reason why{};
  const char* dir = host.job_directory != nullptr ? host.job_directory(host.host, &why) : nullptr;
  if (dir != nullptr) {
    j.directory = dir;
  } else {
    j.directory_error = why.text[0] != '\0' ? why.text : "no job directory";
  }
  return j;
}

// --- the module's calls --------------------------------------------------

orca_mca_rc PmiHelper::call_warm_up(void* self, const orca_pmi_host* host, const orca_pmi_job* job, orca_mca_reason* why) {
  auto* h = static_cast<PmiHelper*>(self);
  h->warm_job_ = with_directory(*host, *job);
  std::string text;
  if (!h->running(text)) {
    copy_reason(why, text);
    return ORCA_MCA_FAILED;
  }
  return ORCA_MCA_OK;
}

void PmiHelper::call_warm_end(void* self) {
  auto* h = static_cast<PmiHelper*>(self);
  h->warm_job_.reset();
  h->stop();
}

orca_mca_rc PmiHelper::call_job_start(void* self, const orca_pmi_host* host, const orca_pmi_job* job, void** served,
                                      orca_mca_reason* why) {
  auto* h = static_cast<PmiHelper*>(self);
  std::string text;
  if (!h->running(text)) {
    copy_reason(why, text);
    return ORCA_MCA_FAILED;
  }
  const std::uint32_t id = h->next_id_++;
  h->send(HelperJobStart{.id = id, .job = with_directory(*host, *job)});
  auto answer = h->channel_->await(
      [id](const HelperMessage& m) {
        const auto* s = std::get_if<HelperJobStarted>(&m);
        return s != nullptr && s->id == id;
      },
      kStartLimit);
  if (!answer) {
    copy_reason(why, h->channel_->open() ? "its PMI helper process did not answer within " +
                                               std::to_string(kStartLimit.count() / 1000) + " s"
                                         : "its PMI helper process ended");
    return ORCA_MCA_FAILED;
  }
  auto& started = std::get<HelperJobStarted>(answer.value());
  if (!started.ok) {
    copy_reason(why, started.why);
    return ORCA_MCA_FAILED;
  }
  auto j = std::make_unique<Job>();
  j->helper = h;
  j->id = id;
  j->host = *host;
  for (auto& p : started.ranks) j->prepared.emplace(p.rank, std::move(p));
  *served = j.get();
  h->jobs_.emplace(id, std::move(j));
  return ORCA_MCA_OK;
}

orca_mca_rc PmiHelper::call_rank_prepare(void* served, uint32_t rank, const orca_pmi_environment* env, int* inherit,
                                         orca_mca_reason* why) {
  auto* j = static_cast<Job*>(served);
  *inherit = -1;
  auto it = j->prepared.find(rank);
  if (it == j->prepared.end()) {
    copy_reason(why, "rank " + std::to_string(rank) + " is not one of this node's");
    return ORCA_MCA_FAILED;
  }
  if (!it->second.ok) {
    copy_reason(why, it->second.why);
    return ORCA_MCA_FAILED;
  }
  for (const auto& [name, value] : it->second.environment) env->set(env->context, name.c_str(), value.c_str());
  return ORCA_MCA_OK;
}

void PmiHelper::call_rank_started(void* served, uint32_t rank, int started) {
  auto* j = static_cast<Job*>(served);
  if (!j->lost) {
    j->helper->send(HelperRankState{
        .id = j->id, .rank = rank, .kind = started != 0 ? HelperRankState::kStarted : HelperRankState::kFailedToStart});
  }
}

void PmiHelper::call_rank_ended(void* served, uint32_t rank) {
  auto* j = static_cast<Job*>(served);
  if (j->lost) return;
  PmiHelper* h = j->helper;
  const std::uint32_t id = j->id;
  h->send(HelperRankState{.id = id, .rank = rank, .kind = HelperRankState::kEnded});
  // What the module had of the rank (its finalize) must count before its
  // exit does, as in the daemon (orca/pmi.h's rank_ended): the helper
  // answers once it sent that, and it is handed on before this returns.
  // (`j` may be gone after: a hook may end the job.)
  if (h->channel_ &&
      !h->channel_->await(
          [id, rank](const HelperMessage& m) {
            const auto* s = std::get_if<HelperEndedSeen>(&m);
            return s != nullptr && s->id == id && s->rank == rank;
          },
          kEndedLimit, HelperChannel::Meanwhile::kHandOn) &&
      h->settings_.log) {
    h->settings_.log(1, "pmi/" + h->settings_.component + "'s helper did not answer rank " + std::to_string(rank) +
                     "'s end within " + std::to_string(kEndedLimit.count()) + " ms");
  }
}

void PmiHelper::call_release(void* served, uint64_t epoch, const orca_pmi_entry* entries, size_t count) {
  auto* j = static_cast<Job*>(served);
  if (!j->lost) j->helper->send(HelperRelease{.id = j->id, .epoch = epoch, .data = helper_entries_of(entries, count)});
}

void PmiHelper::call_deliver(void* served, uint32_t node, const uint8_t* bytes, size_t length) {
  auto* j = static_cast<Job*>(served);
  if (!j->lost) {
    j->helper->send(HelperDeliver{.id = j->id, .node = node, .bytes = std::string(reinterpret_cast<const char*>(bytes), length)});
  }
}

void PmiHelper::call_job_end(void* served) {
  auto* j = static_cast<Job*>(served);
  PmiHelper* h = j->helper;
  if (!j->lost) h->send(HelperJobEnd{.id = j->id});
  h->jobs_.erase(j->id);
  h->replace_if_grown();
}

}  // namespace orca::pmi
