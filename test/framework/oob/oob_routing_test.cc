// The Oob facade with real components (oob/usock, reachable/weighted)
// loaded from the build tree, three processes' worth of Oob on one event
// loop, no root: messages relayed along a chain with origin and final
// destination kept, send_via, a tag nobody receives yet waiting for its
// receiver, the tag range, no route, and every peer-lost subscriber told.
#include <orca/event_loop.h>
#include "oob/oob_host.h"
#include "runtime/runtime.h"

#include "oob/oob_outbox.h"
#include "oob/oob_tags.h"
#include "runtime/process.h"

#include "lib/build_tree.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace orca::oob {
namespace {

using namespace std::chrono_literals;

using test::build_dir;
using test::bytes_of;

/* One process: its own Runtime (settings, components) and Oob. */
struct Process {
  Process(EventLoop& loop, ProcessName name, const std::vector<std::string>& settings = {}) {
    const std::string b = build_dir();
    env_ = {"ORCA_MCA_mca_base_component_path=" + b + "/components/oob/usock/.libs:" + b +
                "/components/reachable/weighted/.libs",
            "ORCA_MCA_mca_base_param_files=none", "ORCA_MCA_mca_base_override_param_file=none",
            std::string("ORCA_MCA_mca_base_help_path=") + ORCA_TEST_HELP_DIR, "ORCA_MCA_oob=usock",
            "ORCA_MCA_reachable=weighted"};
    env_.insert(env_.end(), settings.begin(), settings.end());
    for (auto& e : env_) envp_.push_back(e.c_str());
    envp_.push_back(nullptr);
    runtime = std::make_unique<Runtime>("oob_routing_test", envp_.data());
    Status st = runtime->load(mca::ToolOptions{});
    if (!st) throw std::runtime_error(st.error().summary());
    auto o = Oob::open(*runtime, loop, name, {9, 9, 9, 9, 9, 9, 9, 9});
    if (!o) throw std::runtime_error(o.error().summary());
    oob = std::move(o.value());
  }
  std::vector<std::string> env_;
  std::vector<const char*> envp_;
  std::unique_ptr<Runtime> runtime;
  std::unique_ptr<Oob> oob;
};

struct Received {
  ProcessName from;
  std::string text;
};

class OobRouting : public ::testing::Test {
 protected:
  void SetUp() override {
    for (std::uint32_t v = 0; v < 3; ++v) p_.push_back(std::make_unique<Process>(loop_, ProcessName{4, v}));
    // A chain: 4.0 <-> 4.1 <-> 4.2; 4.0 and 4.2 do not know each other.
    link(0, 1);
    link(1, 2);
  }
  void link(size_t a, size_t b) {
    ASSERT_TRUE(p_[a]->oob->add_peer(p_[b]->oob->self(), p_[b]->oob->contact_uri()).ok());
    ASSERT_TRUE(p_[b]->oob->add_peer(p_[a]->oob->self(), p_[a]->oob->contact_uri()).ok());
  }
  void receive_into(size_t i, std::uint32_t tag, std::vector<Received>& out) {
    p_[i]->oob->on_receive(tag, [&out](ProcessName from, std::span<const std::uint8_t> b) {
      out.push_back(Received{from, std::string(b.begin(), b.end())});
    });
  }
  EventLoop loop_;
  std::vector<std::unique_ptr<Process>> p_;
};

TEST_F(OobRouting, ARouterRelaysAlongTheChainAndTheReceiverSeesTheOrigin) {
  const ProcessName n0 = p_[0]->oob->self(), n1 = p_[1]->oob->self(), n2 = p_[2]->oob->self();
  p_[0]->oob->set_router([n1](ProcessName) { return std::optional<ProcessName>(n1); });
  p_[2]->oob->set_router([n1](ProcessName) { return std::optional<ProcessName>(n1); });
  std::vector<Received> at2, at0, at1;
  receive_into(2, 7, at2);
  receive_into(0, 7, at0);
  receive_into(1, 7, at1);
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(p_[0]->oob->send(n2, 7, bytes_of("m" + std::to_string(i))).ok());
  ASSERT_TRUE(p_[2]->oob->send(n0, 7, bytes_of("back")).ok());
  ASSERT_TRUE(loop_.run_until([&] { return at2.size() == 50 && at0.size() == 1; }, 10s));
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(at2[static_cast<size_t>(i)].from, n0);
    EXPECT_EQ(at2[static_cast<size_t>(i)].text, "m" + std::to_string(i));
  }
  EXPECT_EQ(at0[0].from, n2);
  EXPECT_EQ(at0[0].text, "back");
  EXPECT_TRUE(at1.empty()) << "the relay delivered a message meant for another process";
}

// Back-pressure on both hops of a relay (the sender's queue 1 MiB, the
// relay's 64 KiB, so the relay's next hop refuses first): the sender's
// Outbox waits for the oob's peer_ready, the relay in the middle keeps
// what its next hop refused and sends it at that hop's peer_ready. No
// timer drives either: everything arrives, in order, or the loop starves.
TEST(OobRoutingBackPressure, ARelayAndAnOutboxWaitForRoomAndLoseNothing) {
  EventLoop loop;
  std::vector<std::unique_ptr<Process>> p;
  for (std::uint32_t v = 0; v < 3; ++v) {
    const std::string limit = v == 0 ? "1M" : "64k";
    p.push_back(std::make_unique<Process>(loop, ProcessName{5, v},
                                          std::vector<std::string>{"ORCA_MCA_oob_usock_send_queue_limit=" + limit}));
  }
  for (auto [a, b] : {std::pair{0, 1}, std::pair{1, 2}}) {
    ASSERT_TRUE(p[a]->oob->add_peer(p[b]->oob->self(), p[b]->oob->contact_uri()).ok());
    ASSERT_TRUE(p[b]->oob->add_peer(p[a]->oob->self(), p[a]->oob->contact_uri()).ok());
  }
  const ProcessName n1 = p[1]->oob->self(), n2 = p[2]->oob->self();
  p[0]->oob->set_router([n1](ProcessName) { return std::optional<ProcessName>(n1); });
  std::vector<std::string> at2;
  p[2]->oob->on_receive(7, [&](ProcessName, std::span<const std::uint8_t> b) { at2.emplace_back(b.begin(), b.end()); });
  size_t ready_heard = 0;
  p[0]->oob->on_peer_ready([&](ProcessName peer) { ready_heard += peer == n1; });
  Outbox outbox(*p[0]->oob);
  constexpr int kCount = 400;
  for (int i = 0; i < kCount; ++i) {
    std::string text = std::to_string(i) + ":" + std::string(8192, static_cast<char>('a' + i % 26));
    outbox.post(n2, 7, std::vector<std::uint8_t>(text.begin(), text.end()));
  }
  ASSERT_GT(outbox.waiting(), 0u) << "no back-pressure: the test would prove nothing";
  ASSERT_TRUE(loop.run_until([&] { return at2.size() == static_cast<size_t>(kCount); }, 30s))
      << at2.size() << " of " << kCount << " arrived; " << outbox.waiting() << " still in the outbox";
  for (int i = 0; i < kCount; ++i) {
    ASSERT_EQ(at2[static_cast<size_t>(i)].substr(0, at2[static_cast<size_t>(i)].find(':')), std::to_string(i));
  }
  EXPECT_GT(ready_heard, 0u);
  EXPECT_EQ(outbox.waiting(), 0u);
}

TEST_F(OobRouting, RankingTowardHostsLeavesOutTheAddressesNotConsidered) {
  Oob& oob = *p_[0]->oob;
  auto selected = oob.selected_addresses();
  ASSERT_TRUE(selected.ok()) << selected.error().summary();
  const auto lo = net::IpAddress::parse("127.0.0.1");
  bool has_lo = false;
  for (const auto& e : selected.value()) has_lo = has_lo || e.address == *lo;
  if (!has_lo) GTEST_SKIP() << "no 127.0.0.1 among this machine's selected addresses";
  // Two "hosts" on this host (same_host): loopback pairs weigh the most.
  const std::vector<std::vector<reach::RemoteAddress>> hosts = {
      {reach::RemoteAddress{*lo, 8, net::InterfaceKind::Loopback}},
      {reach::RemoteAddress{*net::IpAddress::parse("::1"), 128, net::InterfaceKind::Loopback},
       reach::RemoteAddress{*lo, 8, net::InterfaceKind::Loopback}}};
  auto all = oob.rank_toward_hosts(hosts, true);
  ASSERT_TRUE(all.ok()) << all.error().summary();
  ASSERT_EQ(all.value().size(), 2u);
  ASSERT_FALSE(all.value()[1].empty());
  // `local` indexes selected_addresses(), `remote` the host's addresses.
  const Oob::RankedPair& best = all.value()[1].front();
  EXPECT_EQ(best.weight, reach::kWeightSameHostLoopback);
  EXPECT_TRUE(selected.value()[best.local].address.is_loopback());
  EXPECT_EQ(selected.value()[best.local].address.family(), hosts[1][best.remote].address.family());
  auto without = oob.rank_toward_hosts(hosts, true, [](const net::InterfaceAddress& e) { return !e.address.is_loopback(); });
  ASSERT_TRUE(without.ok()) << without.error().summary();
  ASSERT_EQ(without.value().size(), 2u);
  for (const auto& host : without.value()) {
    for (const auto& p : host) {
      EXPECT_FALSE(selected.value()[p.local].address.is_loopback()) << selected.value()[p.local].address.to_string();
    }
  }
}

TEST_F(OobRouting, SendViaNamesTheNextHop) {
  const ProcessName n0 = p_[0]->oob->self(), n1 = p_[1]->oob->self(), n2 = p_[2]->oob->self();
  // 4.1 relays with its own knowledge (4.2 is its peer); 4.0 has no router.
  std::vector<Received> at2;
  receive_into(2, 9, at2);
  ASSERT_TRUE(p_[0]->oob->send_via(n2, n1, 9, bytes_of("via")).ok());
  ASSERT_TRUE(loop_.run_until([&] { return at2.size() == 1; }, 10s));
  EXPECT_EQ(at2[0].from, n0);
  EXPECT_EQ(at2[0].text, "via");
  // Without a router, an unknown destination is an error the sender sees.
  Status st = p_[0]->oob->send(n2, 9, bytes_of("lost"));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().topic(), "no-route");
}

TEST_F(OobRouting, AMessageWaitsForItsReceiverAndKeepsItsOrder) {
  const ProcessName n0 = p_[0]->oob->self(), n1 = p_[1]->oob->self();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(p_[0]->oob->send(n1, 11, bytes_of("w" + std::to_string(i))).ok());
  ASSERT_TRUE(loop_.run_until([&] { return p_[1]->oob->waiting() == 5; }, 10s));
  std::vector<Received> at1;
  receive_into(1, 11, at1);
  EXPECT_TRUE(at1.empty()) << "delivered from inside on_receive";
  ASSERT_TRUE(p_[0]->oob->send(n1, 11, bytes_of("w5")).ok());
  ASSERT_TRUE(loop_.run_until([&] { return at1.size() == 6; }, 10s));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(at1[static_cast<size_t>(i)].text, "w" + std::to_string(i));
  EXPECT_EQ(at1[0].from, n0);
  EXPECT_EQ(p_[1]->oob->waiting(), 0u);
}

TEST_F(OobRouting, TagsOutsideTheRangeAreRefused) {
  const ProcessName n1 = p_[1]->oob->self();
  for (std::uint32_t tag : {0u, tags::kMaxTag + 1, 0xffffffffu}) {
    Status st = p_[0]->oob->send(n1, tag, bytes_of("x"));
    ASSERT_FALSE(st.ok()) << tag;
    EXPECT_EQ(st.error().topic(), "bad-tag");
  }
  EXPECT_TRUE(p_[0]->oob->send(n1, tags::kMaxTag, bytes_of("x")).ok());
}

TEST_F(OobRouting, EveryLostSubscriberHearsOfADeadPeer) {
  const ProcessName n1 = p_[1]->oob->self();
  std::vector<std::string> first, second, cancelled;
  p_[0]->oob->on_peer_lost([&](ProcessName peer, const std::string&) { first.push_back(peer.to_string()); });
  const size_t token = p_[0]->oob->on_peer_lost([&](ProcessName peer, const std::string&) { cancelled.push_back(peer.to_string()); });
  p_[0]->oob->on_peer_lost([&](ProcessName peer, const std::string&) { second.push_back(peer.to_string()); });
  p_[0]->oob->cancel_peer_lost(token);
  std::vector<Received> at1;
  receive_into(1, 5, at1);
  ASSERT_TRUE(p_[0]->oob->send(n1, 5, bytes_of("hello")).ok());
  ASSERT_TRUE(loop_.run_until([&] { return at1.size() == 1; }, 10s));
  // 4.1 goes away while 4.0 is idle towards it.
  p_[1].reset();
  ASSERT_TRUE(loop_.run_until([&] { return !first.empty() && !second.empty(); }, 20s));
  EXPECT_EQ(first, std::vector<std::string>{n1.to_string()});
  EXPECT_EQ(second, std::vector<std::string>{n1.to_string()});
  EXPECT_TRUE(cancelled.empty());
}

TEST(OrcaProcess, OwnsItsRoleLoopRuntimeAndOneOob) {
  // What orcarun and orcad's mains stand on: common options parsed, the
  // rest left for the program, the role told to components, one Oob.
  const std::string b = build_dir();
  const std::string path = "ORCA_MCA_mca_base_component_path=" + b + "/components/oob/usock/.libs:" + b +
                           "/components/reachable/weighted/.libs";
  const std::string help = std::string("ORCA_MCA_mca_base_help_path=") + ORCA_TEST_HELP_DIR;
  const char* envp[] = {path.c_str(), help.c_str(), "ORCA_MCA_mca_base_param_files=none",
                        "ORCA_MCA_mca_base_override_param_file=none", "ORCA_MCA_reachable=weighted", nullptr};
  const char* argv[] = {"orcad", "--mca", "oob", "usock", "hostname", "-f", nullptr};
  auto p = orca::Process::create("orcad", ORCA_PROCESS_DAEMON, 6, argv, envp);
  ASSERT_TRUE(p.ok()) << p.error().summary();
  orca::Process& process = *p.value();
  EXPECT_EQ(process.role(), ORCA_PROCESS_DAEMON);
  EXPECT_EQ(process.arguments(), (std::vector<std::string>{"hostname", "-f"}));
  EXPECT_EQ(process.oob(), nullptr);
  auto first = process.open_oob({5, 1}, {1, 2, 3, 4, 5, 6, 7, 8});
  ASSERT_TRUE(first.ok()) << first.error().summary();
  auto again = process.open_oob({5, 9}, {9});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.value(), first.value()) << "a second open_oob made another Oob";
  EXPECT_EQ(process.oob()->self(), (ProcessName{5, 1}));
  // The --mca option reached the registry: oob/usock alone was selected.
  const mca::Variable* oob_var = process.runtime().registry().find("oob");
  ASSERT_NE(oob_var, nullptr);
  EXPECT_EQ(oob_var->as_string(), "usock");
  // A bad option is an error, shown (on stderr) and returned.
  const char* bad[] = {"orcad", "--mca", "oob", nullptr};
  testing::internal::CaptureStderr();
  auto broken = orca::Process::create("orcad", ORCA_PROCESS_DAEMON, 3, bad, envp);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_FALSE(broken.ok());
  EXPECT_FALSE(err.empty());
}

}  // namespace
}  // namespace orca::oob
