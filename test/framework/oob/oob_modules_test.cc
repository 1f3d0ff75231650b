// The Oob facade (oob_base.cc) and the oob/tcp and oob/usock modules
// without root: real components loaded from the build tree, two
// processes' worth of Oob on one event loop, talking only over loopback
// (127.0.0.1, ::1) and abstract Unix sockets. tcp alone carries messages
// both ways; a peer that went away is reported lost within tcp's retry
// budget; an interface list naming no interface stops Oob::open; usock
// declines a peer on another host, and connects again while a peer's listen
// backlog is full (for up to its handshake timeout); messages for a tag
// nobody receives wait up to Oob::kMaxWaiting, and the rest are dropped
// and logged.
#include <orca/event_loop.h>
#include "oob/oob_host.h"
#include "runtime/runtime.h"
#include <orca/unique_fd.h>

#include "lib/build_tree.h"

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace orca::oob {
namespace {

using namespace std::chrono_literals;

using test::build_dir;
using test::bytes_of;

/* What every process here is given: the build tree's oob and reachable
 * components, no settings files, tcp on loopback only. */
std::vector<std::string> base_settings() {
  const std::string b = build_dir();
  return {"mca_base_component_path=" + b + "/components/oob/tcp/.libs:" + b + "/components/oob/usock/.libs:" + b +
              "/components/reachable/weighted/.libs",
          "mca_base_param_files=none",
          "mca_base_override_param_file=none",
          std::string("mca_base_help_path=") + ORCA_TEST_HELP_DIR,
          "reachable=weighted",
          "oob_tcp_if_include=lo"};
}

std::vector<std::string> tcp_only(std::vector<std::string> more = {}) {
  auto s = base_settings();
  s.push_back("oob=tcp");
  s.insert(s.end(), more.begin(), more.end());
  return s;
}

/* One process: its own Runtime (settings from its own environment, log
 * lines kept here) and, unless opening failed, its Oob. */
struct Process {
  Process(EventLoop& loop, ProcessName name, const std::vector<std::string>& settings) {
    for (const auto& s : settings) env_.push_back("ORCA_MCA_" + s);
    for (auto& e : env_) envp_.push_back(e.c_str());
    envp_.push_back(nullptr);
    runtime = std::make_unique<Runtime>("oob_modules_test", envp_.data());
    runtime->set_log_sink([this](std::string_view channel, const std::string& text) {
      log.push_back(std::string(channel) + ": " + text);
    });
    Status st = runtime->load(mca::ToolOptions{});
    if (!st) throw std::runtime_error(st.error().summary());
    auto o = Oob::open(*runtime, loop, name, {9, 9, 9, 9, 9, 9, 9, 9});
    if (o) {
      oob = std::move(o.value());
    } else {
      open_error = o.error();
    }
  }
  size_t log_count(const std::string& needle) const {
    size_t n = 0;
    for (const auto& l : log) n += l.find(needle) != std::string::npos;
    return n;
  }
  std::vector<std::string> env_;
  std::vector<const char*> envp_;
  std::unique_ptr<Runtime> runtime;
  std::unique_ptr<Oob> oob;
  std::optional<Message> open_error;
  std::vector<std::string> log;
};

class OobModules : public ::testing::Test {
 protected:
  /* Two processes that know each other. */
  void start_two(const std::vector<std::string>& settings) {
    for (std::uint32_t v = 0; v < 2; ++v) {
      p_.push_back(std::make_unique<Process>(loop_, ProcessName{5, v}, settings));
      ASSERT_TRUE(p_.back()->oob) << p_.back()->runtime->help().render(*p_.back()->open_error);
    }
    ASSERT_TRUE(p_[0]->oob->add_peer(p_[1]->oob->self(), p_[1]->oob->contact_uri()).ok());
    ASSERT_TRUE(p_[1]->oob->add_peer(p_[0]->oob->self(), p_[0]->oob->contact_uri()).ok());
  }
  void receive_into(size_t i, std::uint32_t tag, std::vector<std::string>& out) {
    p_[i]->oob->on_receive(tag, [&out](ProcessName, std::span<const std::uint8_t> b) { out.emplace_back(b.begin(), b.end()); });
  }
  EventLoop loop_;
  std::vector<std::unique_ptr<Process>> p_;
};

TEST_F(OobModules, TcpAloneCarriesAThousandMessagesEachWayOverLoopback) {
  ASSERT_NO_FATAL_FAILURE(start_two(tcp_only()));
  // Only tcp contributes, and only loopback addresses.
  for (const auto& p : p_) {
    auto uri = ContactUri::parse(p->oob->contact_uri());
    ASSERT_TRUE(uri.ok()) << p->oob->contact_uri();
    EXPECT_EQ(uri->parts.count("usock"), 0u) << p->oob->contact_uri();
    ASSERT_EQ(uri->parts.count("tcp"), 1u) << p->oob->contact_uri();
    const std::string& tcp = uri->parts.at("tcp");
    EXPECT_TRUE(std::regex_match(tcp, std::regex(R"(((127\.0\.0\.1|\[::1\])/\d+/loopback/\d+,?)+)"))) << tcp;
  }
  const ProcessName n0 = p_[0]->oob->self(), n1 = p_[1]->oob->self();
  std::vector<std::string> at0, at1;
  receive_into(0, 21, at0);
  receive_into(1, 21, at1);
  constexpr int kCount = 1000;
  for (int i = 0; i < kCount; ++i) {
    ASSERT_TRUE(p_[0]->oob->send(n1, 21, bytes_of("to 1 #" + std::to_string(i))).ok());
    ASSERT_TRUE(p_[1]->oob->send(n0, 21, bytes_of("to 0 #" + std::to_string(i))).ok());
  }
  ASSERT_TRUE(loop_.run_until([&] { return at0.size() == kCount && at1.size() == kCount; }, 20s))
      << at0.size() << " and " << at1.size() << " of " << kCount;
  for (int i = 0; i < kCount; ++i) {
    EXPECT_EQ(at1[static_cast<size_t>(i)], "to 1 #" + std::to_string(i));
    EXPECT_EQ(at0[static_cast<size_t>(i)], "to 0 #" + std::to_string(i));
  }
  // The pair, then (on the side that dialed) why it was chosen.
  const std::regex route(R"(tcp: (127\.0\.0\.1|\[::1\]):\d+ (->|<-) (127\.0\.0\.1|\[::1\]):\d+(; chosen: [^\n]*(\n.*)*)?)");
  EXPECT_TRUE(std::regex_match(p_[0]->oob->route(n1), route)) << p_[0]->oob->route(n1);
  EXPECT_TRUE(std::regex_match(p_[1]->oob->route(n0), route)) << p_[1]->oob->route(n0);
}

TEST_F(OobModules, EachSideHearsOfTheConnectionOnceAndTheRouteNamesItThen) {
  // Over tcp alone and over usock (both peers on this host): the dialing
  // side and the accepting side each hear of the connection once, and
  // route() names it when they do (a daemon's report carries it).
  for (bool usock : {false, true}) {
    SCOPED_TRACE(usock ? "usock" : "tcp");
    p_.clear();
    auto settings = base_settings();
    settings.push_back(usock ? "oob=usock" : "oob=tcp");
    ASSERT_NO_FATAL_FAILURE(start_two(settings));
    if (HasFatalFailure()) return;
    const ProcessName n0 = p_[0]->oob->self(), n1 = p_[1]->oob->self();
    std::vector<std::string> heard0, heard1, routes;
    p_[0]->oob->on_peer_connected([&](ProcessName peer) {
      heard0.push_back(peer.to_string());
      routes.push_back(p_[0]->oob->route(peer));
    });
    const size_t token = p_[1]->oob->on_peer_connected([&](ProcessName peer) { heard1.push_back(peer.to_string()); });
    std::vector<std::string> at1;
    receive_into(1, 21, at1);
    ASSERT_TRUE(p_[0]->oob->send(n1, 21, bytes_of("first")).ok());
    ASSERT_TRUE(loop_.run_until([&] { return at1.size() == 1; }, 10s));
    loop_.run_until([] { return false; }, 50ms);
    EXPECT_EQ(heard0, std::vector<std::string>{n1.to_string()});
    EXPECT_EQ(heard1, std::vector<std::string>{n0.to_string()});
    ASSERT_EQ(routes.size(), 1u);
    EXPECT_EQ(routes[0].rfind(usock ? "usock: " : "tcp: ", 0), 0u) << routes[0];
    // A cancelled handler hears nothing more; a later send on the same
    // connection is no new connection.
    p_[1]->oob->cancel_peer_connected(token);
    ASSERT_TRUE(p_[0]->oob->send(n1, 21, bytes_of("second")).ok());
    ASSERT_TRUE(loop_.run_until([&] { return at1.size() == 2; }, 10s));
    EXPECT_EQ(heard0.size(), 1u);
    EXPECT_EQ(heard1.size(), 1u);
  }
}

TEST_F(OobModules, TcpReportsAPeerThatWentAwayToEverySubscriberWithinItsRetryBudget) {
  constexpr auto kConnectTimeout = 500ms;
  ASSERT_NO_FATAL_FAILURE(start_two(tcp_only({"oob_tcp_retries=0", "oob_tcp_connect_timeout=500", "oob_tcp_retry_backoff=50"})));
  const ProcessName n1 = p_[1]->oob->self();
  std::vector<std::string> first, second, cancelled, why;
  p_[0]->oob->on_peer_lost([&](ProcessName peer, const std::string& w) {
    first.push_back(peer.to_string());
    why.push_back(w);
  });
  const size_t token = p_[0]->oob->on_peer_lost([&](ProcessName peer, const std::string&) { cancelled.push_back(peer.to_string()); });
  p_[0]->oob->on_peer_lost([&](ProcessName peer, const std::string&) { second.push_back(peer.to_string()); });
  p_[0]->oob->cancel_peer_lost(token);
  std::vector<std::string> at1;
  receive_into(1, 22, at1);
  ASSERT_TRUE(p_[0]->oob->send(n1, 22, bytes_of("hello")).ok());
  ASSERT_TRUE(loop_.run_until([&] { return at1.size() == 1; }, 10s));
  // 5.1 goes away while 5.0 is idle towards it: one round of connection
  // attempts (oob_tcp_retries=0), refused at once, bounded by
  // oob_tcp_connect_timeout anyway.
  p_[1].reset();
  const auto gone = std::chrono::steady_clock::now();
  ASSERT_TRUE(loop_.run_until([&] { return !first.empty() && !second.empty(); }, 10s)) << "the lost peer went unreported";
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - gone);
  // Generous: the point is that it is bounded, not how fast a loaded machine is.
  EXPECT_LT(took, kConnectTimeout + 5000ms) << "reported after " << took.count() << " ms";
  loop_.run_until([] { return false; }, 100ms);  // a second report would show now
  EXPECT_EQ(first, std::vector<std::string>{n1.to_string()});
  EXPECT_EQ(second, std::vector<std::string>{n1.to_string()});
  EXPECT_TRUE(cancelled.empty());
  ASSERT_EQ(why.size(), 1u);
  EXPECT_NE(why[0].find("cannot connect to " + n1.to_string() + " after 1 rounds"), std::string::npos) << why[0];
}

// A ranking that fails later (the one listed interface vanished) and the
// peer-lost report that says why: Oob.vanished_listed_interface_is_why_a_peer_is_lost
// in test/integration/oob_test.sh, which can delete an interface.

TEST_F(OobModules, AnInterfaceListNamingNoInterfaceStopsOpen) {
  Process p(loop_, ProcessName{5, 0}, tcp_only({"oob_tcp_if_include=orca-nonesuch0"}));
  ASSERT_FALSE(p.oob) << "opened with an interface list that names nothing";
  ASSERT_TRUE(p.open_error);
  const std::string text = p.runtime->help().render(*p.open_error);
  EXPECT_NE(text.find("oob_tcp_if_include"), std::string::npos) << text;
  EXPECT_NE(text.find("orca-nonesuch0"), std::string::npos) << text;
}

TEST_F(OobModules, UsockDeclinesAPeerOnAnotherHost) {
  auto settings = base_settings();
  settings.push_back("oob=usock,tcp");
  Process p(loop_, ProcessName{5, 0}, settings);
  ASSERT_TRUE(p.oob) << p.runtime->help().render(*p.open_error);
  auto own = ContactUri::parse(p.oob->contact_uri());
  ASSERT_TRUE(own.ok());
  const ProcessName far{5, 9};
  const std::string usock_part = ";usock=@orca/5.9/1/000000000000";
  Status st = p.oob->add_peer(far, "5.9;host=" + own->host_identity + "-elsewhere" + usock_part);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().topic(), "unreachable-peer");
  const std::string answers = st.error().arg("answers");
  EXPECT_NE(answers.find("usock: the peer is on another host (or network namespace)"), std::string::npos) << answers;
  EXPECT_NE(answers.find("tcp: the peer has no tcp address"), std::string::npos) << answers;
  EXPECT_FALSE(p.oob->knows(far));
  // The same URI from this host: usock takes it.
  EXPECT_TRUE(p.oob->add_peer(far, "5.9;host=" + own->host_identity + usock_part).ok());
  EXPECT_TRUE(p.oob->knows(far));
}

/* An abstract listener of the test's with a listen backlog of one,
 * filled: a nonblocking connect() to it fails with EAGAIN, as to a
 * daemon's listener that a local stranger floods faster than it accepts. */
struct FullBacklog {
  explicit FullBacklog(const std::string& name) : name_(name) {
    listener_ = UniqueFd(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    const sockaddr_un sa = address(&len_);
    if (::bind(listener_.get(), reinterpret_cast<const sockaddr*>(&sa), len_) != 0 || ::listen(listener_.get(), 0) != 0) {
      throw std::runtime_error("cannot listen on @" + name);
    }
    for (int i = 0; i < 8; ++i) {
      UniqueFd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
      if (::connect(s.get(), reinterpret_cast<const sockaddr*>(&sa), len_) != 0) {
        if (errno == EAGAIN) return;
        throw std::runtime_error("connect to @" + name + ": " + std::strerror(errno));
      }
      fillers_.push_back(std::move(s));
    }
    throw std::runtime_error("the backlog of @" + name + " never filled");
  }
  sockaddr_un address(socklen_t* length) const {
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    std::memcpy(sa.sun_path + 1, name_.data(), name_.size());
    *length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name_.size());
    return sa;
  }
  /* Takes the fillers' connections off the backlog. */
  void drain() {
    while (UniqueFd(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC)).valid()) {
    }
    drained_ = true;
  }
  /* Whether a connection came after the drain (the module's; kept open). */
  bool connected() {
    if (drained_ && !accepted_.valid()) accepted_ = UniqueFd(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
    return accepted_.valid();
  }
  std::string name_;
  socklen_t len_ = 0;
  UniqueFd listener_;
  std::vector<UniqueFd> fillers_;
  UniqueFd accepted_;
  bool drained_ = false;
};

TEST_F(OobModules, UsockConnectsAgainWhileAPeersListenBacklogIsFullForUpToTheHandshakeTimeout) {
  auto settings = base_settings();
  settings.push_back("oob=usock");
  settings.push_back("oob_usock_handshake_timeout=300");
  Process p(loop_, ProcessName{5, 0}, settings);
  ASSERT_TRUE(p.oob) << p.runtime->help().render(*p.open_error);
  auto own = ContactUri::parse(p.oob->contact_uri());
  ASSERT_TRUE(own.ok());
  const std::string tag = std::to_string(::getpid());
  FullBacklog slow("orca/5.8/" + tag + "/backlogtest"), stuck("orca/5.9/" + tag + "/backlogtest");
  const ProcessName drained{5, 8}, never{5, 9};
  ASSERT_TRUE(p.oob->add_peer(drained, "5.8;host=" + own->host_identity + ";usock=@" + slow.name_).ok());
  ASSERT_TRUE(p.oob->add_peer(never, "5.9;host=" + own->host_identity + ";usock=@" + stuck.name_).ok());
  std::map<std::string, std::string> lost;
  p.oob->on_peer_lost([&](ProcessName peer, const std::string& why) { lost[peer.to_string()] = why; });
  ASSERT_TRUE(p.oob->send(drained, 40, bytes_of("m")).ok());
  ASSERT_TRUE(p.oob->send(never, 40, bytes_of("m")).ok());
  loop_.run_until([] { return false; }, 100ms);
  EXPECT_TRUE(lost.empty()) << "a full backlog is not a lost peer: " << lost.begin()->second;
  slow.drain();
  ASSERT_TRUE(loop_.run_until([&] { return slow.connected(); }, 5s)) << "no connection once the backlog had room";
  // The other stays full: lost once the handshake timeout has passed,
  // saying why.
  ASSERT_TRUE(loop_.run_until([&] { return lost.count("5.9") != 0; }, 10s));
  EXPECT_NE(lost["5.9"].find("its listen backlog stayed full for 300 ms (oob_usock_handshake_timeout"),
            std::string::npos)
      << lost["5.9"];
  // (5.8 never answers the HELLO: its handshake may time out by now, but
  // not for its backlog.)
  EXPECT_EQ(lost["5.8"].find("backlog"), std::string::npos) << lost["5.8"];
}

TEST_F(OobModules, MessagesForATagNobodyReceivesWaitUpToTheBoundThenAreDroppedAndLogged) {
  auto settings = base_settings();
  settings.push_back("oob=usock");
  ASSERT_NO_FATAL_FAILURE(start_two(settings));
  const ProcessName n1 = p_[1]->oob->self();
  constexpr size_t kExtra = 10;
  const size_t total = Oob::kMaxWaiting + kExtra;
  for (size_t i = 0; i < total; ++i) ASSERT_TRUE(p_[0]->oob->send(n1, 31, bytes_of("w" + std::to_string(i))).ok());
  // In order behind them, on a tag with a receiver: once it is there, all
  // the others were dispatched.
  std::vector<std::string> marker;
  receive_into(1, 32, marker);
  ASSERT_TRUE(p_[0]->oob->send(n1, 32, bytes_of("after")).ok());
  ASSERT_TRUE(loop_.run_until([&] { return marker.size() == 1; }, 20s));
  EXPECT_EQ(p_[1]->oob->waiting(), Oob::kMaxWaiting);
  EXPECT_EQ(p_[1]->log_count("dropped a message from " + p_[0]->oob->self().to_string() +
                             " for tag 31: no receiver for it, and 4096 messages"),
            kExtra);
  // The receiver comes: the first kMaxWaiting, in order; the last ones are gone.
  std::vector<std::string> at1;
  receive_into(1, 31, at1);
  ASSERT_TRUE(loop_.run_until([&] { return at1.size() == Oob::kMaxWaiting; }, 10s));
  loop_.run_until([] { return false; }, 50ms);
  ASSERT_EQ(at1.size(), Oob::kMaxWaiting);
  for (size_t i = 0; i < at1.size(); ++i) EXPECT_EQ(at1[i], "w" + std::to_string(i));
  EXPECT_EQ(p_[1]->oob->waiting(), 0u);
}

}  // namespace
}  // namespace orca::oob
