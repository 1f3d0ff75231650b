// orcadvm status and stop, as a client of the controller.
#include "dvm_client.h"

#include "tools/orcarun/dvm_connection.h"

#include "launch/dvm_contact.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <sstream>

namespace orca::orcadvm {
namespace {

using Clock = std::chrono::steady_clock;

// How long the controller may take to answer, and a stop to end.
constexpr std::chrono::seconds kAnswerLimit{10};
constexpr std::chrono::seconds kStopLimit{60};
std::string seconds(std::uint64_t ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", static_cast<double>(ms) / 1000.0);
  return text;
}

std::string state_text(const launch::DvmState& s, const std::string& contact_file, const std::string& uri) {
  std::uint32_t up = 0;
  for (const auto& h : s.hosts) up += h.up ? 1 : 0;
  std::ostringstream out;
  out << "dvm       " << s.pid << "\n"
      << "contact   " << contact_file << "\n"
      << "uri       " << uri << "\n"
      << "uptime    " << seconds(s.uptime_ms) << "\n"
      << "hosts     " << s.hosts.size() << " (" << up << " daemon(s) up)\n"
      << "jobs      " << s.running << " running, " << s.waiting << " waiting\n"
      << "clients   " << s.clients << "\n";
  // A detached DVM's (the file is there only then).
  if (const std::string log = launch::dvm_log_path(contact_file); ::access(log.c_str(), F_OK) == 0) {
    out << "log       " << log << "\n";
  }
  for (const auto& h : s.hosts) {
    out << "  " << printable(h.name) << "  " << h.slots << " slot(s)  " << (h.up ? "up" : "lost") << "\n";
  }
  return out.str();
}

// One request, its answer, and for a stop the controller's end.
class DvmAsking {
 public:
  DvmAsking(Process& process, launch::DvmAsk ask, std::string file)
      : process_(process), ask_(ask), file_(std::move(file)), limit_(process.loop(), [this] { timed_out(); }) {}

  int run() {
    auto connected = orcarun::connect_dvm(process_, file_);
    if (!connected) return process_.fail(connected.error());
    contact_ = connected->contact;
    controller_ = connected->controller;
    oob_ = connected->oob;
    oob_->on_receive(launch::kTagDvm, [this](ProcessName from, std::span<const std::uint8_t> bytes) { answered(from, bytes); });
    oob_->on_peer_lost([this](ProcessName peer, const std::string& why) { lost(peer, why); });
    if (Status st = oob_->add_peer(controller_, contact_.uri); !st) return process_.fail(unreachable(st.error().summary()));
    auto request = launch::encode(launch::DvmRequest{.ask = static_cast<std::uint32_t>(ask_), .client_uri = oob_->contact_uri()});
    if (!request) return process_.fail(request.error());
    if (Status st = oob_->send(controller_, launch::kTagDvm, request.value()); !st) {
      return process_.fail(unreachable(st.error().summary()));
    }
    limit_.start(kAnswerLimit);
    process_.loop().run();
    return status_;
  }

 private:
  Message unreachable(const std::string& why) const { return orcarun::dvm_unreachable(file_, contact_.pid, why); }

  void finish(int status) {
    status_ = status;
    limit_.cancel();
    process_.loop().stop();
  }

  void answered(ProcessName from, std::span<const std::uint8_t> bytes) {
    if (from != controller_ || answered_) return;
    auto m = launch::decode(bytes);
    if (!m || !std::holds_alternative<launch::DvmState>(m.value())) return;
    answered_ = true;
    const auto& state = std::get<launch::DvmState>(m.value());
    if (ask_ == launch::DvmAsk::Status) {
      std::cout << state_text(state, file_, contact_.uri) << std::flush;
      finish(0);
      return;
    }
    std::cout << "orcadvm: DVM " << state.pid << " stops (" << state.hosts.size() << " host(s))\n" << std::flush;
    limit_.cancel();
    limit_.start(kStopLimit);
  }

  void lost(ProcessName peer, const std::string& why) {
    if (peer != controller_) return;
    if (!answered_) {
      process_.runtime().help().show(unreachable(why), std::cerr, true);
      finish(1);
      return;
    }
    if (ask_ == launch::DvmAsk::Stop) wait_for_exit();
  }

  // The controller closed its oob: it exits once its daemons are gone.
  void wait_for_exit() {
    if (!orcarun::process_runs(contact_.pid)) {
      std::cout << "orcadvm: DVM " << contact_.pid << " stopped\n" << std::flush;
      finish(0);
      return;
    }
    poll_ = std::make_unique<Timer>(process_.loop(), [this] { wait_for_exit(); });
    poll_->start(std::chrono::milliseconds(10));
  }

  void timed_out() {
    const auto limit = answered_ ? kStopLimit : kAnswerLimit;
    process_.runtime().help().show(
        Message("orcadvm", answered_ ? "still-running" : "no-answer",
                {{"file", file_}, {"pid", std::to_string(contact_.pid)}, {"seconds", std::to_string(limit.count())}}),
        std::cerr, true);
    finish(1);
  }

  Process& process_;
  launch::DvmAsk ask_;
  std::string file_;
  launch::DvmContact contact_;
  oob::Oob* oob_ = nullptr;
  ProcessName controller_{};
  Timer limit_;
  std::unique_ptr<Timer> poll_;
  bool answered_ = false;
  int status_ = 1;
};

}  // namespace

int ask_dvm(Process& process, launch::DvmAsk ask, const std::string& contact_file) {
  DvmAsking asking(process, ask, contact_file);
  return asking.run();
}

}  // namespace orca::orcadvm
