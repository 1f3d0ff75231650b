// DvmController: orcadvm start's daemons, contact file and clients.
#include "dvm_controller.h"

#include "launch/dvm_contact.h"
#include "oob/oob_host.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <iostream>

namespace orca::orcadvm {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

DvmController::DvmController(Process& process, const orcarun::Options& options, orcarun::JobPlan plan,
                             Clock::time_point started, ControllerSettings settings)
    : process_(process), settings_(std::move(settings)) {
  for (const auto& n : plan.nodes) {
    hosts_.push_back(n.name);
    slots_.push_back(n.slots);
  }
  machine_ = std::make_unique<launch::DvmMachine>(
      launch::DvmFacts{.hosts = hosts_, .slots = slots_, .detached = settings_.detached, .idle_limit = settings_.idle_limit},
      machine_hooks());
  std::vector<launch::HostSlots> nodes = plan.nodes;
  const auto kill_grace = plan.kill_grace;
  launch_ = std::make_unique<orcarun::JobLaunch>(process, options, std::move(plan), started, orcarun::process_parts(process));
  jobs_ = std::make_unique<DvmJobs>(
      DvmJobs::Context{.process = process, .launch = *launch_, .nodes = std::move(nodes), .kill_grace = kill_grace});
  jobs_->set_machine(*machine_);
  launch_->hold({.ready = [this] { ready(); },
                 .signalled = [this](int signo) { stop(std::string(::strsignal(signo))); },
                 .dropped = [this](std::uint32_t vpid, const std::string& what) { daemon_lost(vpid, what); },
                 .job_message = [this](ProcessName from, launch::WireMessage m) { jobs_->from_daemon(from, std::move(m)); }});
}

DvmController::~DvmController() { remove_contact(); }

launch::DvmMachine::Hooks DvmController::machine_hooks() {
  return {.start_job = [this](launch::DvmJobId id) { jobs_->start(id); },
          .refuse_job = [this](launch::DvmJobId id, const Message& why) { jobs_->refuse(id, why); },
          .end_job = [this](launch::DvmJobId id, const Message& why) { jobs_->end(id, why); },
          .arm_idle = [this](std::chrono::milliseconds after) { idle_timer_->start(after); },
          .cancel_idle = [this] { idle_timer_->cancel(); },
          .show = [this](const Message& m) { process_.runtime().help().show(m, std::cerr, true); },
          .stop_daemons =
              [this] {
                remove_contact();
                launch_->end_hold();
              }};
}

int DvmController::run() {
  idle_timer_ = std::make_unique<Timer>(process_.loop(), [this] { machine_->idle_timer(); });
  // The terminal a foreground DVM was started from closing ends it too.
  sighup_ = std::make_unique<SignalWatch>(process_.loop(), SIGHUP, [this] { stop(::strsignal(SIGHUP)); },
                                          SignalWatch::Unwatched::kIgnore);
  const int status = launch_->run();
  machine_->daemons_gone();
  remove_contact();
  const int result = status != 0 ? status : exit_status_;
  if (result == 0 && !log_path_.empty()) ::unlink(log_path_.c_str());
  return result;
}

void DvmController::ready() {
  ready_at_ = Clock::now();
  oob::Messenger& oob = launch_->messenger();
  oob.on_receive(launch::kTagDvm, [this](ProcessName from, std::span<const std::uint8_t> bytes) { on_request(from, bytes); });
  oob.on_peer_lost([this](ProcessName peer, const std::string&) { client_lost(peer); });
  const launch::DvmContact contact{.pid = ::getpid(),
                                   .uri = oob.contact_uri(),
                                   .secret_hex = oob::job_secret_hex(launch_->secret()),
                                   .hosts = static_cast<std::uint32_t>(hosts_.size())};
  auto written = launch::write_dvm_contact(settings_.contact_directory, contact);
  if (!written) {
    // No client could ever find it: a start that failed, not a stop asked for.
    process_.runtime().help().show(written.error(), std::cerr, true);
    exit_status_ = 1;
    stop("its contact file could not be written");
    return;
  }
  contact_path_ = written.value();
  if (settings_.detached) {
    log_path_ = launch::dvm_log_path(contact_path_);
  } else {
    ::unlink(launch::dvm_log_path(contact_path_).c_str());  // an earlier DVM's of this pid: status would show it
  }
  machine_->ready();
  if (settings_.announce) {
    settings_.announce("orcadvm: DVM " + std::to_string(contact.pid) + " is up on " + std::to_string(hosts_.size()) +
                           " host(s); contact file " + contact_path_ + "\n",
                       log_path_);
  }
}

void DvmController::on_request(ProcessName from, std::span<const std::uint8_t> bytes) {
  // Only a peer that proved the secret gets here; still, a request that
  // is not one is dropped, never answered at length.
  if (from.job != launch_->job_id() || from.vpid <= hosts_.size()) return;
  auto decoded = launch::decode(bytes);
  if (!decoded) return;
  if (auto* submit = std::get_if<launch::DvmSubmit>(&decoded.value())) {
    if (!add_client(from, submit->client_uri)) return;
    jobs_->submit(from, *submit);
    return;
  }
  if (!std::holds_alternative<launch::DvmRequest>(decoded.value())) {
    if (clients_.count(from)) jobs_->from_client(from, decoded.value());
    return;
  }
  const auto& request = std::get<launch::DvmRequest>(decoded.value());
  if (!add_client(from, request.client_uri)) return;
  switch (static_cast<launch::DvmAsk>(request.ask)) {
    case launch::DvmAsk::Status:
      answer(from, stopping_);
      break;
    case launch::DvmAsk::Stop:
      answer(from, true);
      stop("orcadvm stop");
      break;
    default:
      break;
  }
}

// A client is answered at the contact it gave in its first request.
bool DvmController::add_client(ProcessName from, const std::string& uri) {
  if (clients_.count(from)) return true;
  if (Status st = launch_->messenger().add_peer(from, uri); !st) return false;
  clients_.insert(from);
  machine_->client_joined();
  return true;
}

void DvmController::answer(ProcessName to, bool stopping) {
  launch::DvmState state{.pid = static_cast<std::uint32_t>(::getpid()),
                         .uptime_ms = static_cast<std::uint64_t>(
                             std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - ready_at_).count()),
                         .running = static_cast<std::uint32_t>(machine_->running()),
                         .waiting = static_cast<std::uint32_t>(machine_->waiting()),
                         .clients = static_cast<std::uint32_t>(clients_.size()),
                         .stopping = stopping};
  for (std::size_t h = 0; h < hosts_.size(); ++h) {
    state.hosts.push_back({.name = hosts_[h], .slots = slots_[h], .up = launch_->daemon_up(static_cast<std::uint32_t>(h + 1))});
  }
  auto bytes = launch::encode(state);
  if (bytes) (void)launch_->messenger().send(to, launch::kTagDvm, bytes.value());
}

void DvmController::client_lost(ProcessName peer) {
  if (clients_.erase(peer) == 0) return;
  jobs_->client_lost(peer);
  launch_->messenger().forget_peer(peer);
  machine_->client_left();
}

void DvmController::daemon_lost(std::uint32_t vpid, const std::string& what) {
  jobs_->daemon_lost(vpid, what);  // each job with ranks there ends, naming it
  machine_->daemon_lost(vpid, what);
  // The DVM stopped for it (no host left): an end the user did not ask for.
  if (!stopping_ && machine_->phase() != launch::DvmPhase::Ready) {
    stopping_ = true;
    exit_status_ = 1;
    std::cerr << "orcadvm: DVM " << ::getpid() << " stops (no daemon is left)\n" << std::flush;
  }
}

void DvmController::stop(const std::string& why) {
  if (stopping_) return;
  stopping_ = true;
  std::cerr << "orcadvm: DVM " << ::getpid() << " stops (" << why << "); its daemons end\n" << std::flush;
  machine_->stop(why);
}

void DvmController::remove_contact() {
  if (contact_path_.empty()) return;
  ::unlink(contact_path_.c_str());
  contact_path_.clear();
}

}  // namespace orca::orcadvm
