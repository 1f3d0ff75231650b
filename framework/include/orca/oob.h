/*
 * Framework "oob": out-of-band messages between Orca processes. This is
 * its component interface (C, it crosses the dlopen boundary):
 * orca_oob_module, and the host side that liborca gives every module,
 * orca_oob_host. The host itself, the Oob class that a process opens, is
 * liborca's (framework/oob/oob_host.h, not installed).
 *
 * Contact URI: "<job>.<vpid>;host=<host identity>;<component>=<part>;..."
 * where each component writes and reads only its own part (ContactUri,
 * below, parses a peer's).
 */
#ifndef ORCA_OOB_H
#define ORCA_OOB_H

#include <orca/mca_component.h>
#include <orca/process_name.h>
#include <orca/reachable.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version 2: select_local and rank take the calling component's variable
 * prefix, so each component's own if_include / if_exclude decide.
 * Version 3: the host hears what each connect attempt proved
 * (link_outcome), the data plane's evidence.
 * Version 4: a module that declined a send for a full queue tells the host
 * when it takes more (peer_ready): senders wait for that, not a timer.
 * Version 5: the host says which peers it told to end (forget_peer), so
 * that their connections closing is no cause to dial them again.
 * Version 6: a module tells the host when a connection to a peer is made
 * (peer_connected), so that what needs the connection (the route it took)
 * leaves with the handshake, not after a round trip of its own.
 * Version 7: a module hands the host its interface lists as it read them
 * (orca_oob_interface_filter: in its table, and with each select_local
 * and rank) instead of a variable prefix from which the host looked them
 * up again. */
#define ORCA_OOB_INTERFACE_VERSION 7u

struct event_base;

/* One ranked (local, remote) address pair for a peer. */
typedef struct orca_oob_pair {
    orca_reach_endpoint local;  /* if_name is NULL: use if_index */
    size_t remote;              /* index into the remotes given */
    int weight;                 /* > 0: worth trying, higher first; 0: never */
    char reason[120];
} orca_oob_pair;

/* One interface list of a module, as the user set it: the variable that
 * holds it ("oob_tcp_if_include") and its entries, interface names and
 * IPv4/IPv6 CIDRs, unparsed. */
typedef struct orca_oob_interface_list {
    const char *variable;
    const char *const *entries;
    size_t n_entries;
} orca_oob_interface_list;

/* The lists that choose a module's local addresses (interface_selection.h
 * has the policy). The host parses and checks them: both lists set, a
 * malformed entry and an entry that matches nothing on this host are the
 * user's errors, which the host reports in full before any module starts. */
typedef struct orca_oob_interface_filter {
    orca_oob_interface_list include;
    orca_oob_interface_list exclude;
} orca_oob_interface_filter;

typedef struct orca_oob_host {
    void *host;
    struct event_base *base;     /* the process's event loop */
    orca_process_name self;
    const uint8_t *secret;       /* the job secret */
    size_t secret_length;
    const char *host_identity;   /* this process's boot id + network namespace */
    /* A message arrived: in order, once. */
    void (*deliver)(void *host, orca_process_name from, uint32_t tag, const uint8_t *data, size_t length);
    /* A peer could not be reached within the module's deadline. */
    void (*peer_lost)(void *host, orca_process_name peer, const char *why);
    /* Verbose output at oob_base_verbose >= level. */
    void (*log)(void *host, int level, const char *text);
    /* Ranks every (selected local address, remote) pair with the selected
     * reachable component, best first. `filter` is the caller's interface
     * lists (its table's), which select the local addresses; NULL: every
     * usable address. Writes at most *count pairs and sets *count to the
     * number written. */
    orca_mca_rc (*rank)(void *host, const orca_oob_interface_filter *filter, const orca_reach_endpoint *remotes,
                        size_t n_remotes, int same_host, orca_oob_pair *pairs, size_t *count);
    /* The local addresses `filter` keeps, as endpoints (if_name NULL),
     * from a fresh scan of the interfaces. Writes at most *count and sets
     * *count. FAILED with the rendered reason when the selection is
     * invalid (an entry that matches nothing now). */
    orca_mca_rc (*select_local)(void *host, const orca_oob_interface_filter *filter, orca_reach_endpoint *out,
                                size_t *count, orca_mca_reason *why);
    /* A connect attempt from local address `local` to the peer's `remote`
     * (numeric text) ended: connected != 0 when it connected and
     * handshook, 0 when it timed out or was refused. An attempt cancelled
     * because another won proves nothing and is not told. */
    void (*link_outcome)(void *host, const char *local, const char *remote, int connected);
    /* A send to `peer` this module DECLINED for back-pressure can now be
     * retried: its queue has room. A module that declines sends must call
     * this after each such refusal (once is enough for several), from the
     * loop, never from inside send. */
    void (*peer_ready)(void *host, orca_process_name peer);
    /* A connection to `peer` was made: both sides proved the secret, and
     * describe_peer now names it. Once per connection (a reconnect calls
     * it again), from the loop, never from inside a send; the host may
     * send from it, and what it sends goes out with the handshake's last
     * frames. A module without connections never calls it. */
    void (*peer_connected)(void *host, orca_process_name peer);
} orca_oob_host;

typedef struct orca_oob_module {
    void *self;
    /* The lists that choose this module's local addresses, which it also
     * passes to select_local and rank; NULL for a module that uses no
     * network interface. Read after query and before start, and valid
     * until close: the host checks them before any module starts. */
    const orca_oob_interface_filter *interface_filter;
    /* Starts (listens); the host outlives the module. */
    orca_mca_rc (*start)(void *self, const orca_oob_host *host, orca_mca_reason *why);
    /* This module's part of the contact URI, "<component>=..."; valid
     * until the next call of any function of this module. */
    const char *(*contact)(void *self);
    /* Learns a peer from its full contact URI. DECLINED: this module
     * cannot reach it (no part of its own, or not on this host). */
    orca_mca_rc (*add_peer)(void *self, orca_process_name peer, const char *uri, orca_mca_reason *why);
    /* Queues a message (the bytes are copied). DECLINED with a reason on a
     * full queue (back-pressure: the host's peer_ready says when to retry); FAILED with a
     * reason on anything that a retry would not cure (an oversize message).
     * The same for send_shared. */
    orca_mca_rc (*send)(void *self, orca_process_name peer, uint32_t tag, const uint8_t *data, size_t length,
                        orca_mca_reason *why);
    /* Like send, without a copy; may be NULL (send is used then). The
     * module keeps `data` valid by holding `owner` and calls
     * release(owner) exactly once when it no longer needs the bytes, also
     * when it fails. */
    orca_mca_rc (*send_shared)(void *self, orca_process_name peer, uint32_t tag, const uint8_t *data, size_t length,
                               void *owner, void (*release)(void *owner), orca_mca_reason *why);
    /* Writes which connection carries `peer` ("" when none) into buffer. */
    void (*describe_peer)(void *self, orca_process_name peer, char *buffer, size_t length);
    /* Closes listeners and connections. */
    void (*stop)(void *self);
    /* The host told `peer` to end and will send it nothing more: once its
     * connection closes, drop what is still queued for it, and neither
     * connect to it again nor report it lost. A later send to it undoes
     * this. May be NULL: the module then treats it as any other peer. */
    void (*forget_peer)(void *self, orca_process_name peer);
} orca_oob_module;

#ifdef __cplusplus
}

#include <orca/export.h>
#include <orca/result.h>

#include <map>
#include <string>
#include <string_view>

namespace orca::oob {

/* A parsed contact URI. */
struct ORCA_EXPORT ContactUri {
  ProcessName name;
  std::string host_identity;
  std::map<std::string, std::string> parts;  // component -> its part
  static Result<ContactUri> parse(std::string_view text);
};

}  // namespace orca::oob

#endif  // __cplusplus

#endif  // ORCA_OOB_H
