// MeshProbe and MeshListener over loopback: every target connects; a
// closed port is named with the kernel's reason; and on a dual-stack
// host each dial leaves from the local address of its target's family
// (hosts of one job may choose different families), a target of a family
// the interface lacks being named as such, not as a failed bind.
#include "orcad/mesh_probe.h"

#include <orca/tcp_sockets.h>

#include <gtest/gtest.h>

#include <optional>

namespace orca::orcad {
namespace {

using namespace std::chrono_literals;

net::IpAddress ip(const char* text) { return *net::IpAddress::parse(text); }

bool ipv6_loopback_works() { return net::listen_on(ip("::1"), 0).ok(); }

struct ProbeRun {
  EventLoop loop;
  std::optional<std::vector<std::string>> failures;
  void probe(std::vector<net::IpAddress> locals, std::vector<MeshProbe::Target> targets) {
    MeshProbe p(loop, std::move(locals), std::move(targets), 2, 2000ms,
                [this](std::vector<std::string> f) { failures = std::move(f); });
    ASSERT_TRUE(loop.run_until([&] { return failures.has_value(); }, 10s)) << "the probe never reported";
  }
};

TEST(MeshProbe, EveryListeningTargetConnects) {
  ProbeRun run;
  std::vector<std::unique_ptr<MeshListener>> listeners;
  std::vector<MeshProbe::Target> targets;
  for (int i = 0; i < 5; ++i) {
    auto l = MeshListener::open(run.loop, ip("127.0.0.1"));
    ASSERT_TRUE(l.ok()) << l.error().summary();
    targets.push_back({.name = "h" + std::to_string(i), .address = ip("127.0.0.1"), .port = l.value()->port()});
    listeners.push_back(std::move(l.value()));
  }
  run.probe({ip("127.0.0.1")}, targets);
  EXPECT_TRUE(run.failures->empty()) << run.failures->front();
}

TEST(MeshProbe, AClosedPortIsNamedWithTheKernelsReason) {
  ProbeRun run;
  std::uint16_t port = 0;
  {
    auto l = MeshListener::open(run.loop, ip("127.0.0.1"));
    ASSERT_TRUE(l.ok());
    port = l.value()->port();
  }  // closed: nothing listens there now
  run.probe({ip("127.0.0.1")}, {{.name = "h9", .address = ip("127.0.0.1"), .port = port}});
  ASSERT_EQ(run.failures->size(), 1u);
  EXPECT_EQ(run.failures->front(), "h9 127.0.0.1:" + std::to_string(port) + ": Connection refused");
}

TEST(MeshProbe, EachDialLeavesFromTheAddressOfItsTargetsFamily) {
  if (!ipv6_loopback_works()) GTEST_SKIP() << "no IPv6 loopback here";
  ProbeRun run;
  auto v4 = MeshListener::open(run.loop, ip("127.0.0.1"));
  auto v6 = MeshListener::open(run.loop, ip("::1"));
  ASSERT_TRUE(v4.ok() && v6.ok());
  const std::vector<MeshProbe::Target> targets = {{.name = "h4", .address = ip("127.0.0.1"), .port = v4.value()->port()},
                                                  {.name = "h6", .address = ip("::1"), .port = v6.value()->port()}};
  // This host chose IPv4, another host IPv6: the IPv6 target is dialled
  // from this interface's IPv6 address (a bind of the IPv4 one to an IPv6
  // socket failed with EINVAL, and the check refused a healthy job).
  run.probe({ip("127.0.0.1"), ip("::1")}, targets);
  EXPECT_TRUE(run.failures->empty()) << run.failures->front();
  run.failures.reset();
  run.probe({ip("::1"), ip("127.0.0.1")}, targets);
  EXPECT_TRUE(run.failures->empty()) << run.failures->front();
  // An interface with no address of the target's family cannot reach it,
  // and says so.
  run.failures.reset();
  run.probe({ip("127.0.0.1")}, targets);
  ASSERT_EQ(run.failures->size(), 1u);
  EXPECT_NE(run.failures->front().find("h6 [::1]:"), std::string::npos) << run.failures->front();
  EXPECT_NE(run.failures->front().find("has no IPv6 address"), std::string::npos) << run.failures->front();
}

}  // namespace
}  // namespace orca::orcad
