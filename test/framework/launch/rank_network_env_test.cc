// network_variables: each family in its library's own form; a family the
// user set any variable of is left alone; MASTER_ADDR and MASTER_PORT
// yield one by one; UCX is left alone on a host with RDMA devices.
#include "launch/rank_network_env.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace orca::launch {
namespace {

const RankLink kLink{.interface = "eth1", .address = "10.0.1.2", .prefix_length = 24, .rdma = false};
const TorchMaster kMaster{.address = "10.0.1.5", .port = 29511};

std::string value_of(const NetworkVariables& v, const std::string& name) {
  for (const auto& [k, value] : v.set) {
    if (k == name) return value;
  }
  return "(unset)";
}

TEST(RankNetworkEnv, EveryFamilyInItsOwnForm) {
  const auto v = network_variables(kLink, kMaster, data_plane_families(), {"PATH=/bin"});
  EXPECT_EQ(value_of(v, "OMPI_MCA_btl_tcp_if_include"), "10.0.1.0/24");
  EXPECT_EQ(value_of(v, "UCX_NET_DEVICES"), "eth1");
  EXPECT_EQ(value_of(v, "NCCL_SOCKET_IFNAME"), "=eth1");
  EXPECT_EQ(value_of(v, "GLOO_SOCKET_IFNAME"), "eth1");
  EXPECT_EQ(value_of(v, "FI_TCP_IFACE"), "eth1");
  EXPECT_EQ(value_of(v, "MPIR_CVAR_CH3_INTERFACE_HOSTNAME"), "10.0.1.2");
  EXPECT_EQ(value_of(v, "MASTER_ADDR"), "10.0.1.5");
  EXPECT_EQ(value_of(v, "MASTER_PORT"), "29511");
  EXPECT_TRUE(v.left_to_user.empty());
}

TEST(RankNetworkEnv, OpenMpiGetsAnIpv6LinkByName) {
  const RankLink v6{.interface = "eth0", .address = "fd00:10:200::2", .prefix_length = 64, .rdma = false};
  EXPECT_EQ(value_of(network_variables(v6, kMaster, {"ompi"}, {}), "OMPI_MCA_btl_tcp_if_include"), "eth0");
}

TEST(RankNetworkEnv, TheUserWinsPerFamily) {
  const auto v = network_variables(kLink, kMaster, data_plane_families(),
                                   {"OMPI_MCA_btl_tcp_if_exclude=docker0", "GLOO_SOCKET_IFNAME=eth0", "MASTER_PORT=1234"});
  EXPECT_EQ(value_of(v, "OMPI_MCA_btl_tcp_if_include"), "(unset)") << "an exclude list stops our include list";
  EXPECT_EQ(value_of(v, "GLOO_SOCKET_IFNAME"), "(unset)");
  EXPECT_EQ(value_of(v, "MASTER_PORT"), "(unset)");
  EXPECT_EQ(value_of(v, "MASTER_ADDR"), "10.0.1.5") << "the address yields on its own";
  EXPECT_EQ(value_of(v, "NCCL_SOCKET_IFNAME"), "=eth1");
  ASSERT_EQ(v.left_to_user.size(), 3u);
  EXPECT_EQ(v.left_to_user[0], "ompi: OMPI_MCA_btl_tcp_if_exclude=docker0 is the user's");
}

TEST(RankNetworkEnv, OnlyTheChosenFamilies) {
  const auto v = network_variables(kLink, kMaster, {"gloo"}, {});
  ASSERT_EQ(v.set.size(), 1u);
  EXPECT_EQ(v.set[0].first, "GLOO_SOCKET_IFNAME");
  EXPECT_TRUE(network_variables(kLink, kMaster, {}, {}).set.empty());
}

TEST(RankNetworkEnv, NoUcxDeviceListWhereRdmaDevicesAre) {
  RankLink rdma = kLink;
  rdma.rdma = true;
  const auto v = network_variables(rdma, kMaster, {"ucx"}, {});
  EXPECT_TRUE(v.set.empty());
  ASSERT_EQ(v.left_to_user.size(), 1u);
  EXPECT_NE(v.left_to_user[0].find("RDMA"), std::string::npos);
}

TEST(RankNetworkEnv, NoChoiceSetsNoInterfaceButTheMasterStill) {
  const auto v = network_variables(RankLink{}, kMaster, data_plane_families(), {});
  ASSERT_EQ(v.set.size(), 2u);
  EXPECT_EQ(v.set[0].first, "MASTER_ADDR");
  EXPECT_TRUE(network_variables(RankLink{}, TorchMaster{}, data_plane_families(), {}).set.empty());
}

TEST(RankNetworkEnv, FamilyListsParse) {
  EXPECT_EQ(parse_family_list("all").value(), data_plane_families());
  EXPECT_TRUE(parse_family_list("none").value().empty());
  EXPECT_EQ(parse_family_list("gloo,ompi,gloo").value(), (std::vector<std::string>{"gloo", "ompi"}));
  auto bad = parse_family_list("ompi,openmpi");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().topic(), "bad-data-plane-family");
  EXPECT_EQ(bad.error().arg("name"), "openmpi");
  EXPECT_FALSE(parse_family_list("ompi,").ok());
}

TEST(RankNetworkEnv, TorchIdentity) {
  const auto v = rank_identity_variables({.rank = 5, .size = 8, .local_rank = 1, .local_size = 2, .node = 2});
  const std::vector<EnvironmentSetting> want = {
      {"RANK", "5"}, {"WORLD_SIZE", "8"}, {"LOCAL_RANK", "1"}, {"LOCAL_WORLD_SIZE", "2"}, {"GROUP_RANK", "2"}};
  EXPECT_EQ(v, want);
}

TEST(RankNetworkEnv, UserSettingsAreListed) {
  EXPECT_EQ(user_network_settings({"A=1", "NCCL_SOCKET_IFNAME=^docker", "UCX_NET_DEVICES=mlx5_0:1"}),
            (std::vector<std::string>{"UCX_NET_DEVICES=mlx5_0:1", "NCCL_SOCKET_IFNAME=^docker"}));
  EXPECT_EQ(network_of("10.0.1.2", 24), "10.0.1.0/24");
  EXPECT_EQ(network_of("fd00::1:2", 64), "fd00::/64");
}

// A setting is found by its whole name: a longer name that starts with it,
// a name with no '=', or one that is only its start are not it; of two
// settings of one name the later is the one a process would see.
TEST(RankNetworkEnv, SettingsAreMatchedByWholeNameLastOneWinning) {
  EXPECT_TRUE(user_network_settings({"GLOO_SOCKET_IFNAME_X=eth0", "GLOO_SOCKET_IFNAME", "GLOO_SOCKET", "UCX_NET_DEVICES_=x"}).empty());
  EXPECT_EQ(user_network_settings({"GLOO_SOCKET_IFNAME=eth0", "GLOO_SOCKET_IFNAME=eth1"}),
            (std::vector<std::string>{"GLOO_SOCKET_IFNAME=eth1"}));
  EXPECT_EQ(user_network_settings({"GLOO_SOCKET_IFNAME="}), (std::vector<std::string>{"GLOO_SOCKET_IFNAME="}))
      << "an empty value is still the user's setting";
  const auto v = network_variables(kLink, kMaster, {"torch", "gloo"},
                                   {"MASTER_ADDR_X=1", "MASTER_ADDR=10.9.9.9", "MASTER_ADDR=10.8.8.8", "GLOO_SOCKET_IFNAMEX=a"});
  EXPECT_EQ(value_of(v, "MASTER_ADDR"), "(unset)");
  EXPECT_EQ(value_of(v, "GLOO_SOCKET_IFNAME"), "eth1") << "GLOO_SOCKET_IFNAMEX is another variable";
  ASSERT_EQ(v.left_to_user.size(), 1u);
  EXPECT_EQ(v.left_to_user[0], "torch: MASTER_ADDR=10.8.8.8 is the user's");
}

}  // namespace
}  // namespace orca::launch

namespace orca::launch {
namespace {

const std::vector<LocalInterface> kLocals = {{"lo", "127.0.0.1"}, {"eth0", "10.0.0.2"}, {"eth1", "10.0.1.2"}, {"docker0", "172.17.0.1"}};

std::vector<size_t> named(const std::string& setting) {
  auto v = interfaces_named_by(setting, kLocals);
  EXPECT_TRUE(v.has_value()) << setting;
  return v.value_or(std::vector<size_t>{});
}

TEST(UserInterfaceSetting, EachLibrarysSyntax) {
  EXPECT_EQ(named("GLOO_SOCKET_IFNAME=eth1"), (std::vector<size_t>{2}));
  EXPECT_EQ(named("NCCL_SOCKET_IFNAME=eth"), (std::vector<size_t>{1, 2})) << "a prefix";
  EXPECT_EQ(named("NCCL_SOCKET_IFNAME==eth"), (std::vector<size_t>{})) << "exact: no interface is called eth";
  EXPECT_EQ(named("UCX_NET_DEVICES=eth0,mlx5_0:1"), (std::vector<size_t>{1}));
  EXPECT_EQ(named("OMPI_MCA_btl_tcp_if_include=10.0.1.0/24,docker0"), (std::vector<size_t>{2, 3}));
  EXPECT_EQ(named("FI_TCP_IFACE=eth9"), (std::vector<size_t>{}));
  EXPECT_EQ(named("MPIR_CVAR_CH3_INTERFACE_HOSTNAME=10.0.0.2"), (std::vector<size_t>{1}));
}

TEST(UserInterfaceSetting, FormsNotJudgedHere) {
  for (const char* s : {"NCCL_SOCKET_IFNAME=^docker,lo", "UCX_NET_DEVICES=all", "OMPI_MCA_btl_tcp_if_exclude=docker0",
                        "MPIR_CVAR_CH3_INTERFACE_HOSTNAME=node7", "MASTER_ADDR=10.0.0.2", "no-equals"}) {
    EXPECT_FALSE(interfaces_named_by(s, kLocals).has_value()) << s;
  }
}

}  // namespace
}  // namespace orca::launch
