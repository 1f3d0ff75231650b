/*
 * The variables that hand a host's data-plane choice (data_plane.h) to
 * each library a rank may use, each in the form its library documents,
 * and PyTorch's torch.distributed variables. Pure: the caller gives the
 * rank's environment as it will be (inherited, forwarded with -x) and
 * applies what comes back.
 *
 * Families and what Orca sets:
 *   ompi       OMPI_MCA_btl_tcp_if_include=<network/prefix> (IPv4; an IPv6
 *              link by its interface name: Open MPI takes IPv4 CIDRs only)
 *   ucx        UCX_NET_DEVICES=<interface>   (never on a host with RDMA
 *              devices: UCX would drop them from its lanes silently)
 *   nccl       NCCL_SOCKET_IFNAME==<interface>   (exact match)
 *   gloo       GLOO_SOCKET_IFNAME=<interface>
 *   libfabric  FI_TCP_IFACE=<interface>
 *   mpich      MPIR_CVAR_CH3_INTERFACE_HOSTNAME=<address>  (ch3 only)
 *   torch      MASTER_ADDR=<rank 0's host's address>, MASTER_PORT
 * The user wins per family: a family any of whose variables the rank's
 * environment already holds is left alone (OMPI_MCA_btl_tcp_if_exclude
 * stops Orca's if_include). MASTER_ADDR and MASTER_PORT yield one by one.
 * RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE and GROUP_RANK are always
 * Orca's (rank_identity_variables).
 */
#ifndef ORCA_LAUNCH_RANK_NETWORK_ENV_H
#define ORCA_LAUNCH_RANK_NETWORK_ENV_H

#include <orca/export.h>
#include <orca/result.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace orca::launch {

using EnvironmentSetting = std::pair<std::string, std::string>;

/* The families in the order above. */
ORCA_EXPORT const std::vector<std::string>& data_plane_families();
/* The variables of a family that, set by the user, leave it alone. */
ORCA_EXPORT const std::vector<std::string>& family_variables(std::string_view family);
/* "all", "none" or a comma list of family names. Errors: an unknown name. */
ORCA_EXPORT Result<std::vector<std::string>> parse_family_list(std::string_view text);

/* One host's choice as the ranks get it. */
struct ORCA_EXPORT RankLink {
  std::string interface;   // "eth1"
  std::string address;     // "10.0.1.2"
  int prefix_length = 0;   // 24
  bool rdma = false;       // the host has RDMA devices (/sys/class/infiniband)
};

/* Where rank 0's host listens for torch.distributed's store. */
struct ORCA_EXPORT TorchMaster {
  std::string address;     // empty: not known, set neither
  std::uint32_t port = 0;
};

struct ORCA_EXPORT NetworkVariables {
  std::vector<EnvironmentSetting> set;
  std::vector<std::string> left_to_user;   // "gloo: GLOO_SOCKET_IFNAME=eth0 is the user's", or why a family is not set
};

/* What to add to a rank whose environment is `environment` (NAME=VALUE). */
ORCA_EXPORT NetworkVariables network_variables(const RankLink& link, const TorchMaster& master,
                                               const std::vector<std::string>& families,
                                               const std::vector<std::string>& environment);

/* The user's settings of any family's variables found in `environment`,
 * as "NAME=VALUE", for the report. */
ORCA_EXPORT std::vector<std::string> user_network_settings(const std::vector<std::string>& environment);

/* What a user's interface setting ("GLOO_SOCKET_IFNAME=eth0") selects,
 * in its library's syntax, among `interfaces` (name and address text per
 * local address, as "eth0" / "10.0.0.1"): the indexes it names, or
 * nullopt when its form cannot be judged here (an exclude list, UCX's
 * "all", an address Orca does not own). */
struct ORCA_EXPORT LocalInterface {
  std::string name;
  std::string address;
};
ORCA_EXPORT std::optional<std::vector<size_t>> interfaces_named_by(const std::string& setting,
                                                                    const std::vector<LocalInterface>& interfaces);

/* RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK. */
struct ORCA_EXPORT RankIdentity {
  std::uint32_t rank = 0, size = 0, local_rank = 0, local_size = 0, node = 0;
  std::uint32_t app = 0;  // its program in an MPMD job (ORCA_APPNUM)
};
ORCA_EXPORT std::vector<EnvironmentSetting> rank_identity_variables(const RankIdentity& identity);

/* "10.0.1.0/24" for 10.0.1.2 and 24. */
ORCA_EXPORT std::string network_of(const std::string& address, int prefix_length);

}  // namespace orca::launch

#endif
