// The fakes JobLaunch's adapter tests run it over (job_launch_fakes.h).
#include "job_launch_fakes.h"

#include <signal.h>

namespace orca::test {

Status FakeMessenger::add_peer(ProcessName peer, const std::string& uri) {
  log_.push_back("add_peer " + std::to_string(peer.vpid) + " " + uri);
  if (unreachable.count(peer.vpid) != 0) {
    return Message("oob", "unreachable", {{"peer", std::to_string(peer.vpid)}, {"why", "no module can reach it"}});
  }
  known_.insert(peer);
  return {};
}

Status FakeMessenger::send(ProcessName peer, std::uint32_t tag, std::span<const std::uint8_t> bytes) {
  auto message = launch::decode(bytes);
  if (!message) return message.error();
  Sent sent{peer, tag, std::move(message.value())};
  log_.push_back("send " + std::to_string(peer.vpid) + " " + launch::kind_name(sent.message));
  if (on_sent_) on_sent_(sent);
  return {};
}

size_t FakeMessenger::on_peer_lost(LostHandler handler) {
  lost_.emplace(next_token_, std::move(handler));
  return next_token_++;
}

size_t FakeMessenger::on_peer_ready(ReadyHandler handler) {
  ready_.emplace(next_token_, std::move(handler));
  return next_token_++;
}

size_t FakeMessenger::on_peer_connected(ConnectedHandler handler) {
  connected_.emplace(next_token_, std::move(handler));
  return next_token_++;
}

void FakeMessenger::forget_peer(ProcessName peer) { log_.push_back("forget_peer " + std::to_string(peer.vpid)); }

void FakeMessenger::deliver(ProcessName from, std::uint32_t tag, const launch::WireMessage& message) {
  auto bytes = launch::encode(message);
  auto receiver = receivers_.find(tag);
  if (!bytes || receiver == receivers_.end()) {
    log_.push_back("undeliverable " + std::string(launch::kind_name(message)));
    return;
  }
  receiver->second(from, bytes.value());
}

void FakeMessenger::lose(ProcessName peer, const std::string& why) {
  auto handlers = lost_;  // a handler may cancel itself
  for (auto& [token, handler] : handlers) handler(peer, why);
}

void FakeStarter::launch(Launch launch) {
  log_.push_back("launch " + std::to_string(launch.vpid) + " " + launch.host);
  running_.insert(launch.vpid);
  last_start_ = std::chrono::steady_clock::now();
  if (on_launch_) on_launch_(launch);
}

void FakeStarter::signal(std::uint32_t vpid, int signo) {
  log_.push_back("signal " + std::to_string(vpid) + " " + std::to_string(signo));
  if (signo != SIGCONT) end(vpid, signo);
}

void FakeStarter::end_lost(std::uint32_t vpid) {
  log_.push_back("end_lost " + std::to_string(vpid));
  end(vpid, SIGTERM);
}

void FakeStarter::signal_all(int signo) {
  log_.push_back("signal_all " + std::to_string(signo));
  if (signo == SIGCONT) return;
  for (std::uint32_t v : std::set<std::uint32_t>(running_)) end(v, signo);
}

void FakeStarter::end(std::uint32_t vpid, int wait_status, std::string tail) {
  if (running_.count(vpid) == 0 || !ending_.insert(vpid).second) return;
  loop_.defer([this, vpid, wait_status, tail] {
    running_.erase(vpid);
    ending_.erase(vpid);
    log_.push_back("exit " + std::to_string(vpid) + " " + std::to_string(wait_status));
    hooks_.on_exit(vpid, wait_status, tail);  // the last thing: the hook may end the job
  });
}

void FakeDaemons::launched(const plm::DaemonStarter::Launch& launch) {
  const std::uint32_t v = launch.vpid;
  if (agents_fail) {
    starter->end(v, 1 << 8, "cannot start the daemon\n");
    return;
  }
  if (!reports) return;
  loop->defer([this, v] {
    launch::DaemonReport report{.vpid = v, .hostname = "n" + std::to_string(v), .contact_uri = "fake://" + std::to_string(v)};
    messenger->deliver({messenger->job, v}, launch::kTagHello, report);
    messenger->deliver({messenger->job, v}, launch::kTagReport, report);
  });
}

void FakeDaemons::received(const FakeMessenger::Sent& sent) {
  if (sent.tag != launch::kTagControl) return;
  const std::uint32_t v = sent.to.vpid;
  if (const auto* command = std::get_if<launch::LaunchCommand>(&sent.message)) {
    for (const auto& p : command->placements) {
      if (p.daemon != v) continue;
      running_[p.rank] = v;
      rank_app[p.rank] = launch::app_of_rank(command->apps, p.rank);
      if (auto text = output.find(p.rank); text != output.end()) {
        launch::OutputChunk chunk{.rank = p.rank, .bytes = {text->second.begin(), text->second.end()}};
        loop->defer([this, v, chunk] { messenger->deliver({messenger->job, v}, launch::kTagOutput, chunk); });
      }
      if (auto status = exit_status.find(p.rank); status != exit_status.end()) rank_ends(v, p.rank, status->second);
    }
    if (commanded) loop->defer([this, v] { commanded(v); });
  } else if (const auto* signal = std::get_if<launch::SignalRanks>(&sent.message)) {
    for (auto [rank, daemon] : std::map<std::uint32_t, std::uint32_t>(running_)) {
      if (daemon == v && ignores[rank].count(signal->signal) == 0) rank_ends(v, rank, signal->signal);
    }
  } else if (std::holds_alternative<launch::Teardown>(sent.message)) {
    for (auto [rank, daemon] : std::map<std::uint32_t, std::uint32_t>(running_)) {
      if (daemon == v) running_.erase(rank);
    }
    starter->end(v, 0);
  }
}

void FakeDaemons::rank_ends(std::uint32_t daemon, std::uint32_t rank, int wait_status) {
  running_.erase(rank);
  loop->defer([this, daemon, rank, wait_status] {
    messenger->deliver({messenger->job, daemon}, launch::kTagStatus,
                       launch::ExitRecord{.rank = rank, .wait_status = wait_status});
  });
}

}  // namespace orca::test
