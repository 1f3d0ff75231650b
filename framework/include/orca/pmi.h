/*
 * Framework "pmi": what a rank's MPI library talks to in its daemon.
 *
 * An MPI program finds its rank, its peers and their addresses through a
 * process-management interface served by the daemon that started it:
 * MPICH-family libraries speak the "simple" PMI-1 / PMI-2 wire protocol on
 * the descriptor named in PMI_FD (pmi/simple), Open MPI speaks PMIx to a
 * server made with the PMIx library (pmi/pmix). orcad does not know which
 * one a program was built with, so every component that opens serves
 * every rank (SelectMode::All): each adds what it needs to the rank's
 * environment before the rank starts, and a program uses whichever its
 * library knows. A program that speaks neither (`hostname`) ignores both.
 *
 * The collective (barrier, fence, key exchange) is the daemon's, not the
 * component's: once every rank on this daemon has entered collective
 * `epoch` of a component, the component hands the daemon its local data
 * (contribute); the daemon merges it with its children's in the routing
 * tree and sends the result to its parent; orcarun, the root, merges the
 * last parts and sends the whole down the tree, and every daemon hands it
 * to the component (release). Its cost grows with the tree's depth, not
 * with the number of ranks at any one daemon. Data are key/value entries
 * (a value may hold any bytes); merging is the union, the first value of
 * a key kept.
 *
 * Point to point (a PMIx direct modex: one rank's data fetched from the
 * daemon that holds it): send() gives bytes to the same component on
 * another node, which gets them in deliver().
 *
 * Every daemon keeps (pmi/simple) or hands its PMIx library (pmi/pmix)
 * the data of every collective of the job, so that data has a job-wide
 * bound, per component: pmi_base_max_job_keys keys and
 * pmi_base_max_job_bytes bytes (keys and values), counted over every
 * collective of the job and, at each daemon, the bytes delivered to it
 * point to point. Each merge of a collective (at every daemon on the way
 * up and at orcarun) and each delivery checks it; a module that keeps the
 * data and knows whose it is checks it too (job.max_keys, max_bytes), so
 * as to name the rank (host over_bound). Past it, the job ends.
 *
 * The module interface is plain C (it crosses the dlopen boundary). Every
 * call happens on the daemon's event-loop thread, callbacks to the host
 * included; a component whose library runs threads of its own (libpmix)
 * hands their work to that thread. No call may fail by unwinding.
 */
#ifndef ORCA_PMI_H
#define ORCA_PMI_H

#include <orca/mca_component.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 2: orca_pmi_job's max_keys / max_bytes, orca_pmi_host's over_bound.
 * 3: orca_pmi_host's job_directory, made when a module asks, instead of
 *    orca_pmi_job's tmpdir, which every daemon made for every job; and
 *    orca_pmi_module's warm_up, before the job's command.
 * 4: orca_pmi_job's rank_app and app_count (MPMD: each rank's program).
 * 5: job handles: job_start gives the job's handle, which every call for
 *    that job takes, so that a module may serve several jobs of one
 *    daemon at once (a DVM's) when it says so (many_jobs); warm_end ends
 *    what outlives the jobs (job_end ended it with the one job). */
#define ORCA_PMI_INTERFACE_VERSION 5u

struct event_base;

/* One key and its value (bytes, not necessarily text). */
typedef struct orca_pmi_entry {
    const char *key;
    size_t key_length;
    const uint8_t *value;
    size_t value_length;
} orca_pmi_entry;

/* The job as one daemon serves it. Valid only during job_start: copy. */
typedef struct orca_pmi_job {
    uint32_t job;                  /* the job id */
    const char *name;              /* the job's PMI name: the KVS name (simple), the namespace (pmix) */
    uint32_t size;                 /* ranks in all */
    uint32_t node;                 /* this daemon's node, 0-based */
    uint32_t node_count;           /* nodes of the job */
    const uint32_t *rank_node;     /* [size]: the node of each rank */
    const uint32_t *local_rank;    /* [size]: each rank's index among its node's ranks */
    const char *const *node_host;  /* [node_count]: each node's host name */
    uint64_t max_keys;             /* the job's bound on a component's collective data: keys ... */
    uint64_t max_bytes;            /* ... and bytes (keys and values), over all its collectives; 0: none */
    const uint32_t *rank_app;      /* [size]: each rank's program (its appnum), 0-based; ranks of one
                                      program are consecutive, programs in order */
    uint32_t app_count;            /* programs of the job (1 unless MPMD) */
} orca_pmi_job;

/* Which bound of the job's collective data, for over_bound. */
typedef enum orca_pmi_bound {
    ORCA_PMI_BOUND_KEYS = 1,
    ORCA_PMI_BOUND_BYTES = 2
} orca_pmi_bound;

/* What happened to a rank, for rank_event. */
typedef enum orca_pmi_rank_event {
    ORCA_PMI_RANK_INITIALIZED = 1,  /* it connected and initialized */
    ORCA_PMI_RANK_FINALIZED = 2,    /* it finalized: its exit is expected */
    ORCA_PMI_RANK_ABORTED = 3,      /* it asked to end the job: status and text */
    ORCA_PMI_RANK_BROKE = 4,        /* it broke the protocol: text says how; its connection is closed */
    ORCA_PMI_RANK_SERVER_LOST = 5   /* its PMI server is gone (a DVM daemon's PMI helper process: the
                                       host's own proxy sends it): text says why; the job cannot go on */
} orca_pmi_rank_event;

typedef struct orca_pmi_host {
    void *host;
    struct event_base *base;  /* the daemon's event loop */
    /* Every rank of this daemon entered collective `epoch` (0, 1, ... in
     * order, per component): this daemon's data for it. Once per epoch. */
    void (*contribute)(void *host, uint64_t epoch, const orca_pmi_entry *entries, size_t count);
    /* Something happened to `rank` (status and text: ABORTED, BROKE). */
    void (*rank_event)(void *host, uint32_t rank, orca_pmi_rank_event event, int status, const char *text);
    /* Bytes for the same component on `node` (its deliver). */
    void (*send)(void *host, uint32_t node, const uint8_t *bytes, size_t length);
    /* Verbose output at pmi_base_verbose >= level. */
    void (*log)(void *host, int level, const char *text);
    /* What `rank` put would take the job's collective data of this
     * component to `total` keys or bytes (`which`), over the job's bound:
     * the daemon ends the job. The module contributes none of it. */
    void (*over_bound)(void *host, uint32_t rank, orca_pmi_bound which, uint64_t total);
    /* A directory of this daemon's for the job (rendezvous files), private
     * to its user: made on the first call, the same path on every later
     * one, removed with what is in it when the job ends here. NULL, with
     * why, when it cannot be made. A daemon whose modules never ask makes
     * none (a directory costs every daemon of every job). */
    const char *(*job_directory)(void *host, orca_mca_reason *why);
} orca_pmi_host;

/* Receives one rank's environment settings. */
typedef struct orca_pmi_environment {
    void *context;
    void (*set)(void *context, const char *name, const char *value);
} orca_pmi_environment;

typedef struct orca_pmi_module {
    void *self;
    /* Nonzero: job_start may come again before an earlier job's job_end
     * (a DVM's daemon runs several jobs at once), each job with its own
     * handle, host and data. 0: one job at a time; a daemon that runs
     * several leaves the module out of all but its own standalone job. */
    int many_jobs;
    /* Serves `job` on this daemon; before any of its ranks starts, once
     * per job. On OK, *served is the job's handle, which the calls below
     * take until job_end. The host outlives the job. FAILED with a
     * reason: the daemon reports it and the job does not start. */
    orca_mca_rc (*job_start)(void *self, const orca_pmi_host *host, const orca_pmi_job *job, void **served,
                             orca_mca_reason *why);
    /* Before `rank` (one of this node's) starts: its environment, and in
     * *inherit a descriptor the rank must get at the same number (-1:
     * none). The module owns it; the daemon only keeps it open in the
     * child. */
    orca_mca_rc (*rank_prepare)(void *served, uint32_t rank, const orca_pmi_environment *env, int *inherit,
                                orca_mca_reason *why);
    /* The rank's process was started (started nonzero) or could not be. */
    void (*rank_started)(void *served, uint32_t rank, int started);
    /* The rank's process ended; nothing more comes from it. */
    void (*rank_ended)(void *served, uint32_t rank);
    /* Collective `epoch` is complete: every daemon's data, merged. */
    void (*release)(void *served, uint64_t epoch, const orca_pmi_entry *entries, size_t count);
    /* Bytes the module on `node` sent for this job (host->send). */
    void (*deliver)(void *served, uint32_t node, const uint8_t *bytes, size_t length);
    /* The job ends here: drop its connections and data; the handle is
     * gone. */
    void (*job_end)(void *served);
    /* May be NULL. Once, before the first job_start, as soon as the daemon
     * is up and while it waits for the job's command: what the module can
     * set up without the ranks' layout (libpmix's server) it sets up here,
     * off the launch's critical path. The host is the one the first
     * job_start gets; `job` holds the job, name, node, node_count,
     * node_host and bounds only (size 0, rank_node and local_rank NULL).
     * FAILED with a reason: the daemon logs it, and job_start does
     * everything. */
    orca_mca_rc (*warm_up)(void *self, const orca_pmi_host *host, const orca_pmi_job *job, orca_mca_reason *why);
    /* NULL when warm_up is. The daemon's own job is over (a standalone
     * daemon's one job, with or without ranks here; a DVM's daemon at its
     * end): drop what warm_up, or a job_start, set up for every job, once
     * no job is left. */
    void (*warm_end)(void *self);
} orca_pmi_module;

#ifdef __cplusplus
}

#include <orca/export.h>
#include <orca/mca_framework.h>
#include <orca/result.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace orca::pmi {

/* pmi_base_max_job_keys and pmi_base_max_job_bytes (and pmi_base_verbose,
 * which every framework has). */
ORCA_EXPORT std::span<const orca_mca_var_decl> base_variable_decls();
inline const mca::FrameworkDecl kFramework{"pmi",
                                           "serves ranks the process-management interface their MPI library "
                                           "speaks (PMI-1/PMI-2, PMIx), with collectives over the routing tree",
                                           ORCA_PMI_INTERFACE_VERSION, mca::SelectMode::All, base_variable_decls()};

/* Key to value; a value may hold any bytes. */
using Kvs = std::map<std::string, std::string, std::less<>>;

/* How much collective data: keys, and bytes of keys and values. */
struct DataSize {
  std::uint64_t keys = 0;
  std::uint64_t bytes = 0;
  void add(std::string_view key, std::string_view value) noexcept {
    ++keys;
    bytes += key.size() + value.size();
  }
  ORCA_EXPORT static DataSize of(const Kvs& kvs) noexcept;
  friend DataSize operator+(DataSize a, DataSize b) noexcept { return {a.keys + b.keys, a.bytes + b.bytes}; }
  friend bool operator==(DataSize, DataSize) = default;
};

/* The most collective data of one component a job may have
 * (pmi_base_max_job_keys, pmi_base_max_job_bytes); by default none. */
struct DataBound {
  std::uint64_t keys = UINT64_MAX;
  std::uint64_t bytes = UINT64_MAX;
  /* orca_pmi_job's, where 0 is none. */
  static DataBound of(const orca_pmi_job& job) noexcept {
    return {.keys = job.max_keys != 0 ? job.max_keys : UINT64_MAX, .bytes = job.max_bytes != 0 ? job.max_bytes : UINT64_MAX};
  }
  /* The bound `size` is over (keys checked first), or nothing. */
  std::optional<orca_pmi_bound> exceeded_by(DataSize size) const noexcept {
    if (size.keys > keys) return ORCA_PMI_BOUND_KEYS;
    if (size.bytes > bytes) return ORCA_PMI_BOUND_BYTES;
    return std::nullopt;
  }
};

/* The bound the variables set. Errors: the framework is not registered. */
ORCA_EXPORT Result<DataBound> job_data_bound(const mca::Registry& registry);

/* The job ends: pmi/`component`'s data would reach `total` with
 * `source` ("the puts of rank 3 on n1"), over `bound` (pmi/job-data-bound,
 * naming the variable). */
ORCA_EXPORT Message over_bound(std::string_view component, std::string_view source, orca_pmi_bound which,
                               const DataBound& bound, DataSize total);

/* How over_bound names a collective part from the daemon on `host`
 * (`relayed`: merged with the parts of daemons below it). */
ORCA_EXPORT std::string part_source(std::string_view host, bool relayed);

/* Entries as the C interface passes them (pointing into `kvs`). */
ORCA_EXPORT std::vector<orca_pmi_entry> entries_of(const Kvs& kvs);
/* The entries copied into a Kvs (the first of a repeated key kept). */
ORCA_EXPORT Kvs kvs_of(const orca_pmi_entry* entries, size_t count);

/*
 * FenceCollective: one process's part of a component's collectives.
 * It expects `contributors` parts for every epoch (this daemon's ranks,
 * if it has any, and each child in the routing tree whose subtree has
 * ranks; named by any distinct number) and merges them; add() returns the
 * merged data when the last part arrives. Epochs may overlap (a child
 * fast enough to enter the next one before this one is released).
 *
 * It also holds the process to the job's bound on the component's data:
 * what the process keeps (hold(): the releases it got, bytes delivered to
 * it point to point) and the epochs it is merging may not exceed it
 * together. A part that would take them over is refused, its data
 * dropped, and so is a hold past it (counted all the same).
 *
 * Errors: a contributor that sends an epoch twice, or an epoch already
 * complete (a bug or a lie), or data past the bound (pmi/job-data-bound,
 * naming the part's source): the caller ends the job.
 */
class ORCA_EXPORT FenceCollective {
 public:
  struct Budget {
    std::string component;  // whose data, for messages
    DataBound bound;        // none by default
    /* Names contributor `c`'s data in messages ("the fence data from n2"). */
    std::function<std::string(std::uint32_t c)> source;
  };
  explicit FenceCollective(std::uint32_t contributors, Budget budget = {});
  struct Complete {
    std::uint64_t epoch = 0;
    Kvs merged;
  };
  Result<std::optional<Complete>> add(std::uint64_t epoch, std::uint32_t contributor, Kvs entries);
  /* Data the process keeps from now on, from `source` (for the message). */
  Status hold(DataSize size, std::string_view source);
  std::uint32_t contributors() const noexcept { return contributors_; }
  /* Epochs started and not complete. */
  std::size_t pending() const noexcept { return open_.size(); }
  /* What hold() counted so far. */
  DataSize held() const noexcept { return held_; }

 private:
  struct Open {
    std::vector<std::uint32_t> from;
    Kvs merged;
    DataSize size;
  };
  std::uint32_t contributors_;
  Budget budget_;
  DataSize held_;
  DataSize merging_;  // the open epochs' merged data, together
  std::uint64_t completed_ = 0;  // epochs below this are done
  std::map<std::uint64_t, Open> open_;
};

/* MPICH's PMI_process_mapping of ranks placed on nodes (rank_node[r] is
 * rank r's node): "(vector,(start,nodes,ranks),...)", consecutive blocks
 * of the same size on consecutive nodes folded into one triple, and a
 * placement that repeats from node 0 (cyclic) written once, as MPICH
 * starts the vector over. Empty when there are no ranks, or when the text
 * would exceed kMaxProcessMappingBytes (MPICH's longest value). */
inline constexpr std::size_t kMaxProcessMappingBytes = 1024;
ORCA_EXPORT std::string process_mapping(std::span<const std::uint32_t> rank_node);

}  // namespace orca::pmi

#endif  // __cplusplus

#endif  // ORCA_PMI_H
