// DataPlaneAnswer: this host's answer to orcarun's HostDirectory. A thin
// adapter over choose_data_plane (launch/data_plane.h): it reads this
// host's addresses, the reachable framework's ranking toward every other
// host and the oob's evidence, and adds what only this host can tell (RDMA
// devices, a free port for MASTER_PORT, the data-plane variables the
// ranks will inherit from orcad's own environment).
#ifndef ORCA_TOOLS_ORCAD_DATA_PLANE_ANSWER_H
#define ORCA_TOOLS_ORCAD_DATA_PLANE_ANSWER_H

#include "launch/launch_wire.h"

#include "oob/oob_host.h"
#include "runtime/runtime.h"

#include <string>
#include <vector>

namespace orca::orcad {

/* The addresses this host advertises in its report (loopback left out,
 * at most kMaxHostAddresses). Errors: the interface scan failed. */
Result<std::vector<std::string>> data_plane_addresses(oob::Oob& oob);

/* The answer for `directory` (`own_identity` finds this host in it), and
 * the addresses a mesh check leaves from: the chosen one first, then the
 * chosen interface's others (none when nothing was chosen). */
struct DirectoryAnswer {
  launch::DataPlaneAnswer wire;
  std::vector<net::IpAddress> sources;
};
DirectoryAnswer answer_directory(oob::Oob& oob, const launch::HostDirectory& directory,
                                 const std::string& own_identity, std::uint32_t vpid);

/* A DVM job's MasterPortAsk: a TCP port free on this host now, of the
 * family of the address `ask.near` (0 when that is no address). */
launch::MasterPort answer_master_port(const launch::MasterPortAsk& ask, std::uint32_t vpid);

}  // namespace orca::orcad

#endif
