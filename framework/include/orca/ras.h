/*
 * Framework "ras": resource allocation. Which nodes a job runs on, and
 * how many processes each takes (its slots).
 *
 * Components: `hostfile` (the hosts the user named with --host and
 * --hostfile) and `slurm` (the allocation orcarun runs inside, from the
 * variables Slurm sets: SLURM_JOB_NODELIST, SLURM_TASKS_PER_NODE). Every
 * component that opens stays available (SelectMode::All); the job's nodes
 * come from the highest-priority module that offers an allocation
 * (allocate). slurm (priority 50) offers one only inside an allocation and
 * when no host is named, so `--host` still chooses a subset there;
 * hostfile (10) only when hosts are named. When every module declines,
 * orcarun runs on this host (or plm/local's simulated nodes).
 *
 * The module interface is plain C (it crosses the dlopen boundary); a
 * module reports an unusable allocation as a help message (area, topic,
 * arguments) through the sink, so the user reads the same text as from
 * the rest of Orca.
 *
 * Threading: called on orcarun's thread, before anything is started.
 */
#ifndef ORCA_RAS_H
#define ORCA_RAS_H

#include <orca/mca_component.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ORCA_RAS_INTERFACE_VERSION 2u  /* 2: add() takes max_slots */

/* What the user asked for on orcarun's command line. */
typedef struct orca_ras_request {
    const char *const *hosts;      /* each --host value, in order */
    size_t host_count;
    const char *const *hostfiles;  /* each --hostfile path, in order */
    size_t hostfile_count;
} orca_ras_request;

/* Where a module puts the nodes it found. */
typedef struct orca_ras_nodes {
    void *context;
    /* One node, in job order (the first is node 0). slots_given: the
     * allocation said how many; otherwise 1, a default. max_slots: the
     * most processes it may run even oversubscribed (a hostfile's
     * max_slots=M, at least slots); 0: no cap. */
    void (*add)(void *context, const char *name, uint32_t slots, int slots_given, uint32_t max_slots);
    /* Why the allocation is unusable, as a help message: area, topic, and
     * `count` (key, value) pairs in `pairs` (2 * count strings). Called
     * once, before allocate returns FAILED. */
    void (*fail)(void *context, const char *area, const char *topic, const char *const *pairs, size_t count);
} orca_ras_nodes;

typedef struct orca_ras_module {
    void *self;
    /* The job's nodes through `out`. DECLINED with a reason in *why when
     * this module has no allocation to offer here (not inside its batch
     * system, or hosts are named that another module reads); FAILED after
     * out->fail when its allocation is there but unusable (a malformed
     * variable, an unreadable hostfile). */
    orca_mca_rc (*allocate)(void *self, const orca_ras_request *request, const orca_ras_nodes *out,
                            orca_mca_reason *why);
} orca_ras_module;

#ifdef __cplusplus
}

#include <orca/export.h>
#include <orca/host_list.h>
#include <orca/mca_framework.h>
#include <orca/result.h>

#include <optional>
#include <string>
#include <vector>

namespace orca::ras {

inline const mca::FrameworkDecl kFramework{"ras",
                                           "finds a job's nodes and slots: the hosts named on the command line, "
                                           "or the batch-system allocation orcarun runs in",
                                           ORCA_RAS_INTERFACE_VERSION, mca::SelectMode::All, {}};

struct Request {
  std::vector<std::string> hosts;      // --host values
  std::vector<std::string> hostfiles;  // --hostfile paths
};

struct Allocation {
  std::string component;                // the module that offered it
  std::vector<launch::HostSlots> nodes;  // in job order, duplicates merged
};

/* The nodes of the highest-priority selected module of an opened ras
 * framework that offers an allocation; nullopt when every module declined
 * (no host named, not inside a batch system). Errors: the message a module
 * failed with; ras/no-nodes when a module offered an empty allocation. */
ORCA_EXPORT Result<std::optional<Allocation>> allocate(const mca::Framework& framework, const Request& request);

/* For components: reports `message` through `out` and returns FAILED. */
ORCA_EXPORT orca_mca_rc report_failure(const orca_ras_nodes& out, const Message& message);

}  // namespace orca::ras

#endif  // __cplusplus

#endif  // ORCA_RAS_H
