// oob_peer: a real Orca process for tests and benchmarks. It opens the oob
// framework, prints its contact URI, learns peers, streams numbered
// messages, echoes, and reports what arrived, so that tests run real
// processes in real network namespaces.
//
//   oob_peer --name J.V [--uri-file F] [--peer J.V=URI | --peer-file J.V=F]...
//            [--send J.V:COUNT:SIZE [--batch N --interval-ms MS]] [--expect N]
//            [--echo] [--timeout-ms MS] [--progress-every N] [--linger-ms MS]
//            [--mca NAME VALUE]...
// The job secret comes from ORCA_JOB_SECRET or ORCA_JOB_SECRET_FD.
// Output lines: "URI <uri>", "ROUTE <peer> <route>", "PROGRESS <n>",
// "RECEIVED <n> from <peer> in order", "IDLE", "ERROR <text>", "DONE".
//   --progress-every N  "PROGRESS <n> <ms>" every N messages received, <ms>
//                       the wall clock in milliseconds since the epoch (as
//                       `date +%s%3N`), so a script can measure gaps; without
//                       it, "PROGRESS <n>" every 10000 messages.
//   --linger-ms MS      once everything is sent, confirmed and received,
//                       print "IDLE" and stay on the event loop, doing
//                       nothing, for MS more; a peer lost meanwhile ends it
//                       at once with "ERROR lost <peer>: <why>" (exit 1).
//                       Without it (or 0) the process ends when done.
#include <orca/event_loop.h>
#include "oob/oob_host.h"
#include "runtime/runtime.h"

#include "runtime/process.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <functional>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

extern char** environ;

namespace {

constexpr std::uint32_t kTagData = 1;   // numbered payloads
constexpr std::uint32_t kTagEcho = 2;   // echoes of kTagData
constexpr std::uint32_t kTagDone = 3;   // "I received everything you sent"

struct Options {
  orca::ProcessName name;
  std::string uri_file;
  std::vector<std::pair<orca::ProcessName, std::string>> peers;       // name, URI
  std::vector<std::pair<orca::ProcessName, std::string>> peer_files;  // name, file holding the URI
  bool sending = false;
  orca::ProcessName send_to;
  std::uint64_t send_count = 0;
  size_t send_size = 64;
  std::uint64_t batch = 0;  // 0: all at once (subject to back-pressure)
  int interval_ms = 10;
  std::uint64_t expect = 0;
  bool echo = false;
  int timeout_ms = 60000;
  std::uint64_t progress_every = 0;  // 0: "PROGRESS <n>" every 10000, no time
  int linger_ms = 0;
};

[[noreturn]] void usage_error(const std::string& what) {
  std::cerr << "oob_peer: " << what << "\n";
  std::exit(2);
}

orca::ProcessName name_of(const std::string& text) {
  auto n = orca::ProcessName::parse(text);
  if (!n) usage_error("not a process name <job>.<vpid>: " + text);
  return *n;
}

Options parse(const std::vector<std::string>& args) {
  Options o;
  bool named = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) usage_error(a + " needs a value");
      return args[++i];
    };
    auto split = [&](const std::string& v, char sep) {
      const size_t at = v.find(sep);
      if (at == std::string::npos) usage_error("expected NAME" + std::string(1, sep) + "VALUE: " + v);
      return std::pair{name_of(v.substr(0, at)), v.substr(at + 1)};
    };
    if (a == "--name") {
      o.name = name_of(value());
      named = true;
    } else if (a == "--uri-file") {
      o.uri_file = value();
    } else if (a == "--peer") {
      o.peers.push_back(split(value(), '='));
    } else if (a == "--peer-file") {
      o.peer_files.push_back(split(value(), '='));
    } else if (a == "--send") {
      std::string v = value();
      std::replace(v.begin(), v.end(), ':', ' ');
      std::istringstream in(v);
      std::string who;
      if (!(in >> who >> o.send_count >> o.send_size) || o.send_size < 8) usage_error("--send J.V:COUNT:SIZE (SIZE >= 8)");
      o.send_to = name_of(who);
      o.sending = true;
    } else if (a == "--batch") {
      o.batch = std::stoull(value());
    } else if (a == "--interval-ms") {
      o.interval_ms = std::stoi(value());
    } else if (a == "--expect") {
      o.expect = std::stoull(value());
    } else if (a == "--echo") {
      o.echo = true;
    } else if (a == "--timeout-ms") {
      o.timeout_ms = std::stoi(value());
    } else if (a == "--progress-every") {
      o.progress_every = std::stoull(value());
      if (o.progress_every == 0) usage_error("--progress-every needs N >= 1");
    } else if (a == "--linger-ms") {
      o.linger_ms = std::stoi(value());
      if (o.linger_ms < 0) usage_error("--linger-ms needs MS >= 0");
    } else {
      usage_error("unknown option " + a);
    }
  }
  if (!named) usage_error("--name is required");
  return o;
}

std::string read_when_ready(const std::string& path, std::chrono::steady_clock::time_point deadline) {
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream in(path);
    std::string line;
    if (in && std::getline(in, line) && !line.empty()) return line;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  usage_error("no URI appeared in " + path);
}

void put_u64(std::vector<std::uint8_t>& b, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) b[static_cast<size_t>(i)] = static_cast<std::uint8_t>(v >> (56 - 8 * i));
}
// Wall-clock milliseconds, comparable with `date +%s%3N` in a script.
long long wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::uint64_t get_u64(std::span<const std::uint8_t> b) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | b[static_cast<size_t>(i)];
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  auto process = orca::Process::create("oob_peer", ORCA_PROCESS_APPLICATION, argc, argv, environ);
  if (!process) {
    std::cout << "ERROR " << process.error().summary() << std::endl;
    return 1;
  }
  orca::Process& p = *process.value();
  const Options opt = parse(p.arguments());
  orca::Runtime& runtime = p.runtime();
  orca::EventLoop& loop = p.loop();
  auto fail = [&](const orca::Message& m) {
    std::cout << "ERROR " << m.summary() << std::endl;
    p.fail(m);
    return 1;
  };
  auto secret = orca::oob::job_secret_from_environment();
  if (!secret) return fail(secret.error());

  auto oob = p.open_oob(opt.name, std::move(secret.value()));
  if (!oob) return fail(oob.error());
  runtime.report_settings(std::cerr);
  orca::oob::Oob& o = *oob.value();

  std::cout << "URI " << o.contact_uri() << std::endl;
  if (!opt.uri_file.empty()) {
    // Write then rename, so a reader never sees half a URI.
    const std::string tmp = opt.uri_file + ".tmp";
    std::ofstream(tmp) << o.contact_uri() << "\n";
    if (std::rename(tmp.c_str(), opt.uri_file.c_str()) != 0) {
      std::cerr << "oob_peer: cannot rename " << tmp << " to " << opt.uri_file << ": " << std::strerror(errno) << "\n";
      return 1;
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(opt.timeout_ms);
  auto peers = opt.peers;
  for (const auto& [name, file] : opt.peer_files) peers.emplace_back(name, read_when_ready(file, deadline));
  for (const auto& [name, uri] : peers) {
    if (orca::Status st = o.add_peer(name, uri); !st) return fail(st.error());
  }

  std::map<orca::ProcessName, std::uint64_t> next_expected;  // per sender, for in-order checks
  std::uint64_t received = 0, echoes = 0, disorder = 0;
  bool peer_confirmed = !opt.sending;
  std::string lost;
  std::map<orca::ProcessName, bool> route_printed;
  // The pair only: why it was chosen follows "; " and is the route
  // report's business, not that of the tests that check the pair.
  auto route_pair = [&o](orca::ProcessName peer) {
    const std::string route = o.route(peer);
    return route.substr(0, route.find("; "));
  };

  o.on_peer_lost([&](orca::ProcessName peer, const std::string& why) { lost = peer.to_string() + ": " + why; });
  o.on_receive(kTagData, [&](orca::ProcessName from, std::span<const std::uint8_t> bytes) {
    const std::uint64_t seq = get_u64(bytes);
    std::uint64_t& want = next_expected[from];
    if (want == 0) want = 1;
    if (seq != want) ++disorder;
    want = seq + 1;
    ++received;
    if (!route_printed[from]) {
      route_printed[from] = true;
      std::cout << "ROUTE " << from.to_string() << " " << route_pair(from) << std::endl;
    }
    if (opt.progress_every != 0) {
      if (received % opt.progress_every == 0) std::cout << "PROGRESS " << received << " " << wall_ms() << std::endl;
    } else if (received % 10000 == 0) {
      std::cout << "PROGRESS " << received << std::endl;
    }
    if (opt.echo) (void)o.send(from, kTagEcho, bytes);
    if (opt.expect != 0 && received == opt.expect) {
      std::vector<std::uint8_t> done(8);
      put_u64(done, received);
      (void)o.send(from, kTagDone, done);
    }
  });
  o.on_receive(kTagEcho, [&](orca::ProcessName, std::span<const std::uint8_t>) { ++echoes; });
  o.on_receive(kTagDone, [&](orca::ProcessName from, std::span<const std::uint8_t> bytes) {
    if (from == opt.send_to && get_u64(bytes) == opt.send_count) peer_confirmed = true;
  });

  // The sender: numbered messages, in batches, retrying on back-pressure.
  std::uint64_t sent = 0;
  std::vector<std::uint8_t> payload(opt.send_size, 0x5a);
  std::function<void()> send_some;
  orca::Timer pacer(loop, [&] { send_some(); });
  send_some = [&] {
    const std::uint64_t goal = opt.batch == 0 ? opt.send_count : std::min(opt.send_count, sent + opt.batch);
    while (sent < goal) {
      put_u64(payload, sent + 1);
      orca::Status st = o.send(opt.send_to, kTagData, payload);
      if (!st) break;  // back-pressure: try again after the pause
      ++sent;
      if (sent == 1) std::cout << "ROUTE " << opt.send_to.to_string() << " " << route_pair(opt.send_to) << std::endl;
    }
    if (sent < opt.send_count) pacer.start(std::chrono::milliseconds(opt.batch == 0 ? 1 : opt.interval_ms));
  };
  if (opt.sending) send_some();

  const bool finished = loop.run_until(
      [&] { return !lost.empty() || (peer_confirmed && sent == opt.send_count && (opt.expect == 0 || received >= opt.expect)); },
      std::chrono::milliseconds(opt.timeout_ms));
  if (opt.sending) std::cout << "ROUTE " << opt.send_to.to_string() << " " << route_pair(opt.send_to) << std::endl;
  for (const auto& [from, want] : next_expected) {
    std::cout << "RECEIVED " << want - 1 << " from " << from.to_string() << (disorder == 0 ? " in order" : " OUT OF ORDER")
              << std::endl;
  }
  if (opt.echo || echoes) std::cout << "ECHOES " << echoes << std::endl;
  if (!lost.empty()) {
    std::cout << "ERROR lost " << lost << std::endl;
    return 1;
  }
  if (!finished) {
    std::cout << "ERROR timed out: sent " << sent << "/" << opt.send_count << ", received " << received << "/"
              << opt.expect << (peer_confirmed ? "" : ", no confirmation") << std::endl;
    return 1;
  }
  // Let the last acknowledgements and confirmations leave before exiting.
  loop.run_until([] { return false; }, std::chrono::milliseconds(200));
  if (opt.linger_ms > 0) {
    // Idle on purpose: nothing queued, nothing unacknowledged; a peer that
    // dies now must still be noticed.
    std::cout << "IDLE" << std::endl;
    loop.run_until([&] { return !lost.empty(); }, std::chrono::milliseconds(opt.linger_ms));
    if (!lost.empty()) {
      std::cout << "ERROR lost " << lost << std::endl;
      return 1;
    }
  }
  std::cout << "DONE" << std::endl;
  return disorder == 0 ? 0 : 1;
}
