/*
 * Framework "reachable": for one peer, a weight for every pair of (selected
 * local address, address the peer advertised). 0 means never try; among
 * the rest a higher weight is tried first.
 *
 * The base decides the pairs that principles 2 and 3 of DESIGN.md settle
 * for every component, and hands the rest to the selected module:
 *   - families differ                                   -> 0
 *   - loopback with loopback, peer on my host          -> kWeightSameHostLoopback
 *   - loopback with anything else, or peer elsewhere   -> 0
 *   - the peer's address is one of mine, peer elsewhere -> 0 (a virbr0 or
 *     docker0 address present on every host is no path to another host)
 *   - link-local with non-link-local                   -> 0
 * The module ranks what is left: `weighted` by rules alone, `netlink` by
 * asking the kernel which route it would take. Exactly one module is used
 * (SelectMode::One): the highest priority, netlink before weighted.
 *
 * The module interface is plain C (it crosses the dlopen boundary).
 */
#ifndef ORCA_REACHABLE_H
#define ORCA_REACHABLE_H

#include <orca/mca_component.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ORCA_REACHABLE_INTERFACE_VERSION 2u

/* A verdict the module still has to fill. */
#define ORCA_REACH_UNDECIDED (-1)

typedef struct orca_reach_endpoint {
    int family;             /* AF_INET or AF_INET6 */
    uint8_t address[16];    /* network order; 4 bytes used for AF_INET */
    uint32_t scope_id;      /* IPv6 link-local: interface index */
    int prefix_length;
    int kind;               /* orca::net::InterfaceKind */
    int if_index;           /* local endpoints only */
    const char *if_name;    /* local endpoints only, else NULL */
    uint64_t speed_mbps;    /* 0 when unknown */
    int running;            /* local endpoints: carrier present */
} orca_reach_endpoint;

typedef struct orca_reach_verdict {
    int weight;             /* ORCA_REACH_UNDECIDED, 0 (never) or > 0 */
    char reason[120];       /* short, plain words */
} orca_reach_verdict;

typedef struct orca_reach_query {
    const orca_reach_endpoint *locals;
    size_t n_locals;
    const orca_reach_endpoint *remotes;
    size_t n_remotes;
    int same_host;          /* the peer shares my boot id and network namespace */
    int omit_reasons;       /* nonzero: the caller reads weights only, so a
                               module may leave every reason as it found it
                               (a job's data-plane choice ranks toward every
                               host and shows no reason) */
} orca_reach_query;

typedef struct orca_reachable_module {
    void *self;
    /* Fills every verdicts[l * n_remotes + r] whose weight is
     * ORCA_REACH_UNDECIDED; leaves the others alone. Each pair is judged
     * alone: the remotes may be the addresses of many hosts. */
    orca_mca_rc (*compute)(void *self, const orca_reach_query *query, orca_reach_verdict *verdicts);
} orca_reachable_module;

#ifdef __cplusplus
}

#include <orca/export.h>
#include <orca/interface_selection.h>
#include <orca/interfaces.h>
#include <orca/mca_framework.h>
#include <orca/result.h>

#include <string>
#include <vector>

namespace orca::reach {

inline constexpr mca::FrameworkDecl kFramework{
    "reachable", "decides which local address can reach which address of a peer",
    ORCA_REACHABLE_INTERFACE_VERSION, mca::SelectMode::One};

/* Weight of the loopback pair for a peer on this host: above any other. */
inline constexpr int kWeightSameHostLoopback = 10000;

/* An address a peer advertised in its contact URI. */
struct ORCA_EXPORT RemoteAddress {
  net::IpAddress address;
  int prefix_length = 0;
  net::InterfaceKind kind = net::InterfaceKind::Unknown;
};

/* Whether a matrix carries each pair's reason (what orca_info --reach
 * and the oob's verbose output show) or weights only, which is all a
 * ranking needs and saves the strings of every pair. */
enum class Reasons { Kept, Omitted };

struct ORCA_EXPORT PairVerdict {
  size_t local = 0;    // index into the inventory's entries()
  size_t remote = 0;   // index into the remote addresses
  int weight = 0;
  std::string reason;  // empty with Reasons::Omitted
};

/* The base's own rules (see above) for one pair; false when the module
 * must decide. `own` tells whether an address is one of this host's. */
ORCA_EXPORT bool base_verdict(const orca_reach_endpoint& local, const orca_reach_endpoint& remote,
                              bool same_host, bool remote_is_mine, orca_reach_verdict* out);

/* For each remote address: whether it is a link-local address on one of
 * the peer's host-local bridges. That is, the peer (on another host)
 * advertises bridge addresses and every routable one of them is also mine
 * (`mine`, per remote): bridges such as virbr0 and docker0 that every host
 * has with the same address, whose link-local addresses reach no other
 * host. compute_matrix gives such pairs weight 0 for every component. */
ORCA_EXPORT std::vector<bool> on_host_local_bridge(const std::vector<RemoteAddress>& remotes,
                                                   const std::vector<bool>& mine, bool same_host);

/* A bonus of 0..100 for the path's link type and speed: the weaker end's
 * kind (physical best, bridges least) and the local link's speed. Both
 * components add it so that faster, physical links rank first. */
ORCA_EXPORT int link_bonus(const orca_reach_endpoint& local, const orca_reach_endpoint& remote,
                           std::string* why);

/* The address an endpoint carries (with its scope). */
ORCA_EXPORT net::IpAddress address_of(const orca_reach_endpoint& endpoint);

/* Converts an inventory entry / a remote address to the C form. The
 * endpoint points into `entry` (if_name): keep the entry alive. */
ORCA_EXPORT orca_reach_endpoint to_endpoint(const net::InterfaceAddress& entry);
ORCA_EXPORT orca_reach_endpoint to_endpoint(const RemoteAddress& remote);

/* The full matrix for one peer: every selected entry of `inventory` with
 * every remote address, highest weight first (ties: local order, then
 * remote order). Errors: the module failed. */
ORCA_EXPORT Result<std::vector<PairVerdict>> compute_matrix(const orca_reachable_module& module,
                                                            const net::InterfaceInventory& inventory,
                                                            const std::vector<net::InterfaceDecision>& selection,
                                                            const std::vector<RemoteAddress>& remotes,
                                                            bool same_host);

/* compute_matrix for several peers at once (each a host's addresses):
 * one matrix per peer, in order, from a single query to the module, so
 * that a component may answer all of them together (one batch of route
 * lookups rather than one per peer). */
ORCA_EXPORT Result<std::vector<std::vector<PairVerdict>>> compute_matrices(
    const orca_reachable_module& module, const net::InterfaceInventory& inventory,
    const std::vector<net::InterfaceDecision>& selection, const std::vector<std::vector<RemoteAddress>>& peers,
    bool same_host, Reasons reasons = Reasons::Kept);

/* The module of the selected component of an opened framework. */
ORCA_EXPORT Result<const orca_reachable_module*> selected_module(const mca::Framework& framework);

}  // namespace orca::reach

#endif  // __cplusplus

#endif  // ORCA_REACHABLE_H
