// DataPlaneGather: one question per distinct host, answers into the
// launch command, MASTER_ADDR from rank 0's host, and the report.
#include "orcarun/data_plane_gather.h"

#include <gtest/gtest.h>

namespace orca::orcarun {
namespace {

launch::DaemonReport report(const char* identity, std::vector<std::string> addresses) {
  launch::DaemonReport r;
  r.host_identity = identity;
  r.addresses = std::move(addresses);
  return r;
}

launch::DataPlaneAnswer answer(std::uint32_t vpid, const char* interface, const char* address, std::uint32_t port) {
  return {.vpid = vpid, .interface = interface, .address = address, .prefix_length = 24, .port = port,
          .reason = "reaches 1 of 1 other host"};
}

TEST(DataPlaneGather, EachHostIsAskedOnceAndItsAnswerFillsTheCommand) {
  // Daemons 1 and 2 share host a; rank 0 runs on daemon 3 (host b).
  const auto a1 = report("a", {"10.0.0.1/24 physical"}), a2 = report("a", {"10.0.0.1/24 physical"}),
             b = report("b", {"10.0.0.2/24 physical", "10.0.1.2/24 physical"});
  DataPlaneGather g({"ompi", "torch"}, {{1, "ha", &a1}, {2, "ha", &a2}, {3, "hb", &b}}, 3);
  EXPECT_EQ(g.asked(), (std::vector<std::uint32_t>{1, 3}));
  ASSERT_EQ(g.directory().hosts.size(), 2u);
  EXPECT_EQ(g.directory().hosts[1].addresses.size(), 2u);
  EXPECT_FALSE(g.take(answer(2, "eth0", "10.0.0.1", 1)));  // not asked
  EXPECT_FALSE(g.take(answer(1, "eth0", "10.0.0.1", 4000)));
  EXPECT_FALSE(g.take(answer(1, "eth9", "10.9.9.9", 4001))) << "a second answer is ignored";
  EXPECT_TRUE(g.answered(1));
  EXPECT_FALSE(g.answered(3));
  EXPECT_TRUE(g.take(answer(3, "eth1", "10.0.1.2", 29500)));
  launch::LaunchCommand cmd;
  g.fill(cmd);
  ASSERT_EQ(cmd.links.size(), 2u);
  EXPECT_EQ(cmd.links[0].interface, "eth0");
  EXPECT_EQ(cmd.links[1].identity, "b");
  EXPECT_EQ(cmd.master_address, "10.0.1.2");
  EXPECT_EQ(cmd.master_port, 29500u);
  EXPECT_EQ(cmd.families, (std::vector<std::string>{"ompi", "torch"}));
  const std::string text = g.report({"GLOO_SOCKET_IFNAME=eth0", "X=1"});
  EXPECT_NE(text.find("ha (2 daemons): eth0 10.0.0.1/24"), std::string::npos) << text;
  EXPECT_NE(text.find("hb: eth1 10.0.1.2/24: reaches 1 of 1 other host; MASTER_ADDR"), std::string::npos) << text;
  EXPECT_NE(text.find("forwarded to every rank): GLOO_SOCKET_IFNAME=eth0"), std::string::npos) << text;
}

TEST(DataPlaneGather, AHostWithoutAChoiceGetsNoLinkAndIsSaid) {
  const auto a = report("a", {}), b = report("b", {});
  DataPlaneGather g({"gloo"}, {{1, "ha", &a}, {2, "hb", &b}}, 1);
  launch::DataPlaneAnswer none{.vpid = 1, .reason = "no local address reaches any of the 1 other host", .unreached = {"hb"}};
  g.take(none);
  g.take(answer(2, "eth0", "10.0.0.2", 5));
  launch::LaunchCommand cmd;
  g.fill(cmd);
  ASSERT_EQ(cmd.links.size(), 1u);
  EXPECT_EQ(cmd.links[0].identity, "b");
  EXPECT_TRUE(cmd.master_address.empty()) << "rank 0's host has no link";
  const std::string text = g.report({});
  EXPECT_NE(text.find("ha: nothing set: no local address reaches"), std::string::npos) << text;
  EXPECT_NE(text.find("warning: does not reach hb"), std::string::npos) << text;
}

// A DVM job's MASTER_ADDR: the link of its rank 0's daemon's host (a
// daemon that was not the one asked there counts too), none where that
// host chose no link or torch's family is not set.
TEST(DataPlaneGather, TorchMasterAddressOfAnyDaemonsHost) {
  const auto a1 = report("a", {}), a2 = report("a", {}), b = report("b", {});
  DataPlaneGather g({"gloo", "torch"}, {{1, "ha", &a1}, {2, "ha", &a2}, {3, "hb", &b}}, 1);
  EXPECT_EQ(g.torch_master_address(2), "") << "no answer yet";
  g.take(answer(1, "eth1", "10.0.1.1", 4000));
  g.take(launch::DataPlaneAnswer{.vpid = 3, .reason = "nothing reaches"});
  EXPECT_EQ(g.torch_master_address(1), "10.0.1.1");
  EXPECT_EQ(g.torch_master_address(2), "10.0.1.1");
  EXPECT_EQ(g.torch_master_address(3), "") << "hb chose no link";
  EXPECT_EQ(g.torch_master_address(9), "") << "no such daemon";
  DataPlaneGather no_torch({"gloo"}, {{1, "ha", &a1}}, 1);
  no_torch.take(answer(1, "eth1", "10.0.1.1", 4000));
  EXPECT_EQ(no_torch.torch_master_address(1), "");
}

}  // namespace
}  // namespace orca::orcarun
