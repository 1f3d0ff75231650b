// choose_data_plane over made-up hosts: the link that reaches most hosts
// wins; a failed attempt rules a link out toward that host; a connection
// that succeeded breaks a tie, a lost race does not count against a link;
// one host gets loopback; nothing reachable chooses nothing.
#include "launch/data_plane.h"

#include <gtest/gtest.h>

namespace orca::launch {
namespace {

DataPlaneLocal local(const char* name, const char* address, int prefix, net::InterfaceKind kind = net::InterfaceKind::Physical) {
  return {.interface = name, .address = *net::IpAddress::parse(address), .prefix_length = prefix, .kind = kind};
}

// lo, eth0 (first, drops TCP in the firewalled cluster), eth1.
DataPlaneInput two_links(size_t hosts) {
  DataPlaneInput in;
  in.locals = {local("lo", "127.0.0.1", 8, net::InterfaceKind::Loopback), local("eth0", "10.0.0.1", 24),
               local("eth1", "10.0.1.1", 24)};
  for (size_t h = 0; h < hosts; ++h) {
    in.hosts.push_back("h" + std::to_string(h + 2));
    in.pairs.push_back({.host = h, .local = 1, .weight = 120});  // eth0 ranks first
    in.pairs.push_back({.host = h, .local = 2, .weight = 110});
  }
  return in;
}

TEST(DataPlaneChoice, OneHostGetsLoopback) {
  DataPlaneInput in;
  in.locals = {local("eth0", "10.0.0.1", 24), local("lo", "127.0.0.1", 8, net::InterfaceKind::Loopback)};
  const auto c = choose_data_plane(in);
  ASSERT_TRUE(c.local);
  EXPECT_EQ(*c.local, 1u);
  EXPECT_NE(c.reason.find("loopback"), std::string::npos) << c.reason;
}

TEST(DataPlaneChoice, WithoutEvidenceTheRankingDecides) {
  const auto c = choose_data_plane(two_links(3));
  ASSERT_TRUE(c.local);
  EXPECT_EQ(*c.local, 1u) << "eth0 has the higher weight";
  EXPECT_TRUE(c.unreached.empty());
  EXPECT_EQ(c.reason, "reaches 3 of 3 other hosts");
}

TEST(DataPlaneChoice, AProvenLinkBeatsOneThatMerelyLostTheRace) {
  // The firewalled cluster: eth0's attempt was cancelled when eth1 won,
  // which says nothing against eth0, but eth1 is proven.
  auto in = two_links(3);
  in.proof.resize(3);
  in.proof[2].connected = 1;
  const auto c = choose_data_plane(in);
  ASSERT_TRUE(c.local);
  EXPECT_EQ(*c.local, 2u);
  EXPECT_NE(c.reason.find("succeeded"), std::string::npos) << c.reason;
  ASSERT_EQ(c.others.size(), 2u);
  EXPECT_NE(c.others[1].find("eth0 10.0.0.1/24: reaches 3 of 3 other hosts too, but no oob connection from it succeeded"),
            std::string::npos)
      << c.others[1];
}

TEST(DataPlaneChoice, ALinkThatTimedOutIsNotChosenWhileAnotherReaches) {
  auto in = two_links(1);
  in.proof.resize(3);
  in.proof[1].failed = 1;
  in.proof[1].failed_toward = {0};
  const auto c = choose_data_plane(in);
  ASSERT_TRUE(c.local);
  EXPECT_EQ(*c.local, 2u);
  EXPECT_NE(c.others[1].find("timed out or was refused"), std::string::npos) << c.others[1];
}

TEST(DataPlaneChoice, AFailureTowardAnUnlistedPeerStillCountsAgainstTheLink) {
  // An attempt toward orcarun's host (not a job host) failed from eth0:
  // eth0 still reaches every job host, but eth1 has no failure.
  auto in = two_links(2);
  in.proof.resize(3);
  in.proof[1].failed = 1;
  const auto c = choose_data_plane(in);
  ASSERT_TRUE(c.local);
  EXPECT_EQ(*c.local, 2u);
}

TEST(DataPlaneChoice, MoreHostsReachedWinsOverProof) {
  auto in = two_links(0);
  in.hosts = {"h2", "h3"};
  in.pairs = {{.host = 0, .local = 1, .weight = 100}, {.host = 1, .local = 1, .weight = 100}, {.host = 0, .local = 2, .weight = 100}};
  in.proof.resize(3);
  in.proof[2].connected = 4;
  const auto c = choose_data_plane(in);
  ASSERT_TRUE(c.local);
  EXPECT_EQ(*c.local, 1u);
  EXPECT_NE(c.others[1].find("reaches 1 of 2 other hosts"), std::string::npos) << c.others[1];
}

TEST(DataPlaneChoice, ADemotedFallbackPairReachesNothing) {
  // virbr0's address toward another host: the kernel would send on eth0
  // (reachable/netlink gives such a pair 50 against eth0's 900).
  DataPlaneInput in;
  in.locals = {local("virbr0", "192.168.122.1", 24, net::InterfaceKind::Bridge), local("eth0", "10.0.0.1", 24)};
  in.hosts = {"h2"};
  in.pairs = {{.host = 0, .local = 0, .weight = 50}, {.host = 0, .local = 1, .weight = 900}};
  const auto c = choose_data_plane(in);
  ASSERT_TRUE(c.local);
  EXPECT_EQ(*c.local, 1u);
  ASSERT_EQ(c.others.size(), 1u);
  EXPECT_NE(c.others[0].find("virbr0 192.168.122.1/24: reaches none"), std::string::npos) << c.others[0];
}

TEST(DataPlaneChoice, TheHostsAUsersInterfacesMiss) {
  auto in = two_links(2);
  in.pairs.erase(in.pairs.begin() + 3);  // eth1 does not reach h3
  EXPECT_EQ(hosts_not_reached(in, {2}), (std::vector<size_t>{1}));
  EXPECT_TRUE(hosts_not_reached(in, {1}).empty());
  EXPECT_EQ(hosts_not_reached(in, {}), (std::vector<size_t>{0, 1}));
}

TEST(DataPlaneChoice, AHostNoLinkReachesIsNamed) {
  auto in = two_links(2);
  in.hosts.push_back("h9");  // no pair toward it
  const auto c = choose_data_plane(in);
  ASSERT_TRUE(c.local);
  EXPECT_EQ(c.unreached, (std::vector<size_t>{2}));
  EXPECT_EQ(c.reason, "reaches 2 of 3 other hosts");
}

TEST(DataPlaneChoice, NothingReachableChoosesNothing) {
  DataPlaneInput in;
  in.locals = {local("lo", "127.0.0.1", 8, net::InterfaceKind::Loopback), local("docker0", "172.17.0.1", 16, net::InterfaceKind::Bridge)};
  in.hosts = {"h2"};
  const auto c = choose_data_plane(in);
  EXPECT_FALSE(c.local);
  EXPECT_EQ(c.unreached, (std::vector<size_t>{0}));
  EXPECT_NE(c.reason.find("no local address reaches"), std::string::npos);
}

TEST(DataPlaneChoice, AddressEntriesRoundTripAndLiesAreRefused) {
  net::InterfaceAddress e;
  e.link.name = "eth1";
  e.link.kind = net::InterfaceKind::Physical;
  e.address = *net::IpAddress::parse("10.0.1.2");
  e.prefix_length = 24;
  const std::string text = address_entry_text(e);
  EXPECT_EQ(text, "10.0.1.2/24 physical");
  auto back = parse_address_entry(text);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->address, e.address);
  EXPECT_EQ(back->prefix_length, 24);
  EXPECT_EQ(back->kind, net::InterfaceKind::Physical);
  EXPECT_EQ(parse_address_entry("fd00::1/64 warp-drive")->kind, net::InterfaceKind::Unknown);
  for (const char* bad : {"", "10.0.1.2", "10.0.1.2/33 physical", "10.0.1.2/ physical", "x/24 physical",
                          "10.0.1.2/2a4 physical", "fd00::1/129 bridge", "10.0.1.2/0024 physical"}) {
    EXPECT_FALSE(parse_address_entry(bad)) << bad;
  }
}

}  // namespace
}  // namespace orca::launch
