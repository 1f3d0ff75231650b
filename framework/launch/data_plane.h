/*
 * The data plane: which local interface a host's ranks use for their own
 * traffic (MPI, UCX, NCCL, Gloo, libfabric), decided once per host from
 * the evidence the daemon has, and handed to each rank in the variables
 * its library reads.
 *
 * DataPlaneChoice is pure (no I/O): orcad feeds it the reachable
 * framework's ranking of its addresses toward every other host of the job
 * and what its oob connections did; orcarun and the tests read the choice
 * and the reasons.
 *
 * The rule, per local address L:
 *   reached(L)  the other hosts L has a pair of weight > 0 toward, minus
 *               those toward which an attempt from L timed out or was
 *               refused (a link that drops TCP), and minus those where
 *               L's best pair has less than half the best weight toward
 *               that host (a demoted fallback: the kernel would send
 *               from another interface);
 *   then, best first: more hosts reached; a connection from L that
 *   succeeded (proof); no failed attempt from L at all; the larger sum of
 *   the best weight per reached host; the earlier address (kernel order).
 * An attempt merely beaten by a faster one is no evidence either way.
 * With no other host (a job on one host), loopback is the choice.
 */
#ifndef ORCA_LAUNCH_DATA_PLANE_H
#define ORCA_LAUNCH_DATA_PLANE_H

#include <orca/export.h>
#include <orca/interfaces.h>
#include <orca/ip_address.h>
#include <orca/reachable.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace orca::launch {

/* One local address the data plane may use. */
struct ORCA_EXPORT DataPlaneLocal {
  std::string interface;
  net::IpAddress address;
  int prefix_length = 0;
  net::InterfaceKind kind = net::InterfaceKind::Unknown;
};

/* A ranked pair: local address `local` reaches some address of other
 * host `host` with this weight (> 0). */
struct ORCA_EXPORT DataPlanePair {
  size_t host = 0;
  size_t local = 0;
  int weight = 0;
};

/* What this daemon's oob connections proved about one local address. */
struct ORCA_EXPORT LinkProof {
  size_t connected = 0;                   // attempts that connected and handshook
  size_t failed = 0;                      // attempts that timed out or were refused
  std::vector<size_t> failed_toward;      // the other hosts (indexes) such attempts went to
};

struct ORCA_EXPORT DataPlaneInput {
  std::vector<DataPlaneLocal> locals;     // this host's selected addresses, loopback included
  std::vector<std::string> hosts;         // the job's other hosts, by name
  std::vector<DataPlanePair> pairs;
  std::vector<LinkProof> proof;           // per local (missing entries: no evidence)
};

struct ORCA_EXPORT DataPlaneChoice {
  std::optional<size_t> local;            // index into locals; empty: nothing reaches
  std::vector<size_t> unreached;          // other hosts the chosen address does not reach
  std::string reason;                     // one line: why this address
  std::vector<std::string> others;        // one line per address not chosen, and why
};

ORCA_EXPORT DataPlaneChoice choose_data_plane(const DataPlaneInput& input);

/* [local][host]: the best weight by which a local address reaches an
 * other host under the rule above (0: it does not). */
ORCA_EXPORT std::vector<std::vector<int>> reach_matrix(const DataPlaneInput& input);
/* The other hosts that none of `locals` reaches (for a user's own
 * interface setting). */
ORCA_EXPORT std::vector<size_t> hosts_not_reached(const DataPlaneInput& input, const std::vector<size_t>& locals);

/* A host's address as DaemonReport::addresses carries it,
 * "10.0.0.2/24 physical", and back. parse_address_entry: nullopt on
 * anything malformed (a peer's text is not trusted to be well formed). */
ORCA_EXPORT std::string address_entry_text(const net::InterfaceAddress& entry);
ORCA_EXPORT std::optional<reach::RemoteAddress> parse_address_entry(std::string_view text);

/* At most this many addresses per host travel (a host with hundreds of
 * container veths still costs the directory little). */
inline constexpr size_t kMaxHostAddresses = 64;

}  // namespace orca::launch

#endif
