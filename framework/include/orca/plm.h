/*
 * Framework "plm": process launch. How a launcher (orcarun, or an orcad
 * spawning its part of a tree) starts orcad on a host.
 *
 * A component decides only the command: the words that start the daemon
 * on a host (plm/local: the daemon itself; plm/rsh: the agent, the host,
 * then the daemon), whether it can reach a host at all, how many agents
 * may be starting at once and whether daemons spawn their own children.
 * Starting the processes, handing each its bootstrap on standard input,
 * keeping what the agent printed and noticing that it exited is the same
 * for every component, so the base does it (DaemonLauncher,
 * framework/plm/daemon_launcher.h, and the choice of module,
 * framework/plm/plm_base.h: liborca's, not installed), as the routed base
 * does the routing for its components. This header is the component
 * interface (C, it crosses the dlopen boundary): orca_plm_module.
 *
 * Selection: every component that opens stays available (SelectMode::All);
 * a job is launched by the highest-priority module that accepts every host
 * of the job (choose_module). plm/local (priority 20) accepts only this
 * host, plm/rsh (10) any host, so `orcarun hostname` runs here without an
 * agent and `orcarun --host n1,n2 hostname` goes through ssh.
 * `--mca plm rsh` forces the agent even for this host. plm/slurm (30)
 * accepts the nodes of the Slurm allocation orcarun runs in.
 *
 * Per host or all at once: plm/local and plm/rsh give one command per
 * host (command). plm/slurm gives one command that starts the daemons of
 * every host together (command_all: one srun job step); each daemon then
 * learns which one it is from what the launcher put in its environment
 * (daemon_vpid), and they all read the same bootstrap, with vpid 0.
 *
 * Threading: everything runs on the event loop's thread.
 */
#ifndef ORCA_PLM_H
#define ORCA_PLM_H

#include <orca/mca_component.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version 3: failure_hint, the module's own advice when a daemon it
 * started fails. */
#define ORCA_PLM_INTERFACE_VERSION 3u

/* Collects the words of a command, one call per word (copied). */
typedef struct orca_plm_words {
    void *context;
    void (*add)(void *context, const char *word);
} orca_plm_words;

/* Where one rank of the job runs, for rank_environment. */
typedef struct orca_plm_rank_place {
    uint32_t rank;
    uint32_t local_rank;
    uint32_t size;                  /* ranks of the job */
    const uint32_t *node_ranks;     /* the ranks on this daemon's node, ascending */
    size_t node_rank_count;
    const uint32_t *ranks_per_daemon;  /* [v - 1]: how many ranks daemon v runs */
    size_t daemons;
} orca_plm_rank_place;

typedef struct orca_plm_module {
    void *self;
    /* OK when this module can start a daemon on `host`; DECLINED with the
     * reason otherwise. */
    orca_mca_rc (*accepts)(void *self, const char *host, orca_mca_reason *why);
    /* Writes, through `out`, the words that run `daemon` (daemon_count
     * words: the orcad path and its arguments) on `host`. The command gets
     * the bootstrap on its standard input and must pass it, and the end of
     * it, to the daemon. FAILED with a reason when it cannot be built. */
    orca_mca_rc (*command)(void *self, const char *host, const char *const *daemon, size_t daemon_count,
                           const orca_plm_words *out, orca_mca_reason *why);
    /* How many agents may be starting (started, daemon not up yet) at
     * once; 0: no limit. */
    uint32_t (*max_concurrent)(void *self);
    /* Nonzero when, for a job of `daemons` daemons, each daemon should
     * start its own children in the routing tree. */
    int (*tree_spawn)(void *self, uint32_t daemons);
    /* How many nodes to make of this host when the job names no host: 1
     * for a real launcher; plm/local's plm_local_num_nodes simulates more. */
    uint32_t (*simulated_nodes)(void *self);
    /* NULL for a per-host launcher. Otherwise: writes, through `out`, the
     * one command that starts `daemon` once on each of `hosts` (in job
     * order: hosts[v - 1] is daemon v), all reading the same standard
     * input, which the command passes to every daemon, and its end too.
     * FAILED with a reason (the launcher program missing, say). */
    orca_mca_rc (*command_all)(void *self, const char *const *hosts, size_t host_count, const char *const *daemon,
                               size_t daemon_count, const orca_plm_words *out, orca_mca_reason *why);
    /* NULL with command_all. Called in a daemon that command_all started:
     * its vpid (hosts[*vpid - 1] is its host), from its environment.
     * DECLINED when the environment is not of this launcher, FAILED with
     * a reason when it is but names no host of `hosts`. */
    orca_mca_rc (*daemon_vpid)(void *self, const char *const *hosts, size_t host_count, uint32_t *vpid,
                               orca_mca_reason *why);
    /* NULL with command_all. Whether `line`, printed by the command_all
     * launcher, says that the daemon of one host ended ("srun: error: h3:
     * task 1: Killed"): then the host's name is written to `host` (at most
     * `capacity` bytes with the NUL) and its length returned; else 0. The
     * launcher's one process outlives a daemon that dies, so this is how
     * the job learns which one did, before the others are ended. */
    size_t (*ended_host)(void *self, const char *line, char *host, size_t capacity);
    /* NULL unless daemon_vpid is set. In a daemon it started, for each
     * rank: words through `out` that change the rank's environment, NAME=
     * VALUE to set, NAME alone to remove. A rank inherits the daemon's
     * environment, where the launcher's per-task variables describe the
     * daemon (srun's SLURM_PROCID is the daemon's task number); these make
     * them describe the rank, as if the launcher had started it. */
    void (*rank_environment)(void *self, const char *const *hosts, size_t host_count, const orca_plm_rank_place *place,
                             const orca_plm_words *out);
    /* May be NULL. What a user should check when a daemon this module
     * started on `host` never came up or failed: one sentence without its
     * full stop, written to `text` (at most `capacity` bytes with the NUL).
     * Only the module knows its launcher: its agent, its resource manager's
     * commands. Without it the user is told to read what the daemon printed. */
    void (*failure_hint)(void *self, const char *host, char *text, size_t capacity);
} orca_plm_module;

#ifdef __cplusplus
}
#endif

#endif  // ORCA_PLM_H
