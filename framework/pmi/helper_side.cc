// run_pmi_helper: the helper process's side of PmiHelper: the real module,
// driven by the daemon's messages, its callbacks sent back.
#include "pmi_helper.h"
#include "settings_sink.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <map>
#include <type_traits>

namespace orca::pmi {
namespace {

class HelperSide {
 public:
  HelperSide(EventLoop& loop, UniqueFd fd, const orca_pmi_module& real, std::string component)
      : loop_(loop), real_(real), component_(std::move(component)) {
    channel_ = std::make_unique<HelperChannel>(
        loop_, std::move(fd),
        HelperChannel::Hooks{.message = [this](HelperMessage m) { on_message(std::move(m)); },
                             .closed = [this](const std::string&) { end(); }});
  }

 private:
  // One job (or the warm-up, id 0) as the module sees it: its host.
  struct Served {
    HelperSide* side = nullptr;
    std::uint32_t id = 0;
    HelperJob job;
    orca_pmi_host host{};
    void* handle = nullptr;
  };

  std::unique_ptr<Served> served(std::uint32_t id, HelperJob job) {
    auto s = std::make_unique<Served>();
    s->side = this;
    s->id = id;
    s->job = std::move(job);
    s->host = orca_pmi_host{.host = s.get(),
                            .base = loop_.base(),
                            .contribute = &contribute,
                            .rank_event = &rank_event,
                            .send = &send_bytes,
                            .log = &log,
                            .over_bound = &over_bound,
                            .job_directory = &job_directory};
    return s;
  }

  void on_message(HelperMessage message) {
    std::visit(
        [this](auto& m) {
          using T = std::decay_t<decltype(m)>;
          if constexpr (std::is_same_v<T, HelperWarmUp>) {
            warm_up(m);
          } else if constexpr (std::is_same_v<T, HelperJobStart>) {
            job_start(m);
          } else if constexpr (std::is_same_v<T, HelperRankState>) {
            Served* s = find(m.id);
            if (m.kind != HelperRankState::kEnded) {
              if (s != nullptr) real_.rank_started(s->handle, m.rank, m.kind == HelperRankState::kStarted ? 1 : 0);
            } else {
              if (s != nullptr) real_.rank_ended(s->handle, m.rank);
              channel_->send(HelperEndedSeen{.id = m.id, .rank = m.rank});  // the daemon waits for it, job or not
            }
          } else if constexpr (std::is_same_v<T, HelperRelease>) {
            if (Served* s = find(m.id)) {
              const auto entries = entries_view(m.data);
              real_.release(s->handle, m.epoch, entries.data(), entries.size());
            }
          } else if constexpr (std::is_same_v<T, HelperDeliver>) {
            if (Served* s = find(m.id)) {
              real_.deliver(s->handle, m.node, reinterpret_cast<const std::uint8_t*>(m.bytes.data()), m.bytes.size());
            }
          } else if constexpr (std::is_same_v<T, HelperJobEnd>) {
            auto it = jobs_.find(m.id);
            if (it != jobs_.end()) {
              real_.job_end(it->second->handle);
              jobs_.erase(it);
            }
          }
          // What only the helper sends: never from the daemon; dropped.
        },
        message);
  }

  Served* find(std::uint32_t id) {
    auto it = jobs_.find(id);
    return it != jobs_.end() ? it->second.get() : nullptr;
  }

  void warm_up(const HelperWarmUp& m) {
    HelperWarmedUp answer;
    if (warm_ || real_.warm_up == nullptr) {
      channel_->send(answer);
      return;
    }
    warm_ = served(0, m.job);
    HelperJobView view(warm_->job);
    orca_mca_reason why{};
    if (real_.warm_up(real_.self, &warm_->host, &view.job, &why) == ORCA_MCA_OK) {
      warmed_ = true;
    } else {
      answer.ok = false;
      answer.why = why.text;
    }
    channel_->send(answer);
  }

  void job_start(const HelperJobStart& m) {
    HelperJobStarted answer{.id = m.id};
    auto s = served(m.id, m.job);
    HelperJobView view(s->job);
    orca_mca_reason why{};
    if (jobs_.contains(m.id) || real_.job_start(real_.self, &s->host, &view.job, &s->handle, &why) != ORCA_MCA_OK) {
      answer.ok = false;
      answer.why = jobs_.contains(m.id) ? "a job of that number runs already" : why.text;
      channel_->send(answer);
      return;
    }
    // Every rank of this node, now: the daemon's rank_prepare is then
    // answered at once, from what this answer holds.
    for (std::uint32_t r = 0; r < s->job.rank_node.size(); ++r) {
      if (s->job.rank_node[r] != s->job.node) continue;
      HelperPrepared p{.rank = r};
      const SettingsSink sink(p.environment);
      int inherit = -1;
      orca_mca_reason rank_why{};
      if (real_.rank_prepare(s->handle, r, sink.environment(), &inherit, &rank_why) != ORCA_MCA_OK) {
        p.ok = false;
        p.why = rank_why.text;
      } else if (inherit >= 0) {
        p.ok = false;
        p.why = "pmi/" + component_ + " gives its ranks a descriptor, which its helper process cannot: leave it out "
                "of pmi_base_helper";
      }
      answer.ranks.push_back(std::move(p));
    }
    jobs_.emplace(m.id, std::move(s));
    channel_->send(answer);
  }

  // The daemon closed the channel (or is gone): every job ends, then the
  // module, then this process.
  void end() {
    for (auto& [id, s] : jobs_) real_.job_end(s->handle);
    jobs_.clear();
    if (warmed_ && real_.warm_end != nullptr) real_.warm_end(real_.self);
    warmed_ = false;
    loop_.stop();
  }

  static Served& of(void* host) { return *static_cast<Served*>(host); }
  static void contribute(void* host, uint64_t epoch, const orca_pmi_entry* entries, size_t count) {
    Served& s = of(host);
    s.side->channel_->send(HelperContribute{.id = s.id, .epoch = epoch, .data = helper_entries_of(entries, count)});
  }
  static void rank_event(void* host, uint32_t rank, orca_pmi_rank_event event, int status, const char* text) {
    Served& s = of(host);
    s.side->channel_->send(HelperRankEvent{.id = s.id,
                                           .rank = rank,
                                           .event = static_cast<std::uint32_t>(event),
                                           .status = status,
                                           .text = text != nullptr ? text : ""});
  }
  static void send_bytes(void* host, uint32_t node, const uint8_t* bytes, size_t length) {
    Served& s = of(host);
    s.side->channel_->send(
        HelperSend{.id = s.id, .node = node, .bytes = std::string(reinterpret_cast<const char*>(bytes), length)});
  }
  static void log(void* host, int level, const char* text) {
    Served& s = of(host);
    s.side->channel_->send(HelperLog{.id = s.id, .level = level, .text = text != nullptr ? text : ""});
  }
  static void over_bound(void* host, uint32_t rank, orca_pmi_bound which, uint64_t total) {
    Served& s = of(host);
    s.side->channel_->send(
        HelperOverBound{.id = s.id, .rank = rank, .which = static_cast<std::uint32_t>(which), .total = total});
  }
  static const char* job_directory(void* host, orca_mca_reason* why) {
    Served& s = of(host);
    if (!s.job.directory.empty()) return s.job.directory.c_str();
    if (why != nullptr) std::snprintf(why->text, sizeof why->text, "%s", s.job.directory_error.c_str());
    return nullptr;
  }

  EventLoop& loop_;
  const orca_pmi_module& real_;
  std::string component_;
  std::unique_ptr<HelperChannel> channel_;
  std::map<std::uint32_t, std::unique_ptr<Served>> jobs_;
  std::unique_ptr<Served> warm_;
  bool warmed_ = false;
};

}  // namespace

void run_pmi_helper(int fd, const orca_pmi_module& real, const std::string& component) {
  const pid_t daemon = ::getppid();
  // It ends with the daemon, however the daemon ends.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != daemon) ::_exit(1);
  ::prctl(PR_SET_NAME, "orcad-pmi");
  // The daemon's signal handling is not this process's: every signal at
  // its default, none blocked (SIGPIPE is ignored by the loop below).
  for (int s = 1; s < NSIG; ++s) {
    if (s != SIGKILL && s != SIGSTOP) ::signal(s, SIG_DFL);
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  // Only the channel (at 3) and the standard streams: the daemon's
  // sockets, pipes and listeners are not this process's to hold open.
  if (fd != 3 && ::dup2(fd, 3) != 3) ::_exit(1);
  ::close_range(4, ~0U, 0);
  {
    EventLoop loop;
    HelperSide side(loop, UniqueFd(3), real, component);
    loop.run();
  }
  ::_exit(0);
}

}  // namespace orca::pmi
