// PmixJob: pmi/pmix's side of one job on one daemon: its namespace,
// registered with the daemon's PmixServer with what Open MPI reads at
// MPI_Init (sizes, node and process maps, each local rank's local and
// node rank), each local rank registered and given its environment by
// PMIx_server_setup_fork before it starts, and the namespace (with every
// rank, a client until then) deregistered when the job ends
// (PmixServer::retire). A DVM's daemon has several at once, each under
// its own name.
//
// On the loop's thread, from what libpmix's thread posted (pmix_server.h):
//   fence       libpmix gathers this node's ranks and calls fence_nb once
//               with their blob: it goes to the host (contribute) under
//               the key of this node; release() hands libpmix every
//               node's blob, concatenated.
//   direct      libpmix asks for a remote rank's blob: the request goes to
//               the daemon of that rank (host send), which asks its own
//               libpmix (PMIx_server_dmodex_request) and sends the answer.
//   abort       a rank's PMIx_Abort: a rank event; the rank is released.
#ifndef ORCA_COMPONENTS_PMI_PMIX_PMIX_JOB_H
#define ORCA_COMPONENTS_PMI_PMIX_PMIX_JOB_H

#include "job_layout.h"
#include "pmix_server.h"

#include <orca/pmi.h>
#include <orca/result.h>

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace orca::pmi {

class PmixJob {
 public:
  /* Registers `job`'s namespace with `server` (which outlives it), once
   * the server is ready. Throws std::runtime_error (the reason) when the
   * server failed to start, libpmix refuses the namespace, or another job
   * of the daemon has its name. */
  PmixJob(PmixServer& server, const orca_pmi_host& host, const orca_pmi_job& job);
  ~PmixJob();
  PmixJob(const PmixJob&) = delete;
  PmixJob& operator=(const PmixJob&) = delete;

  /* Registers the rank as a client and sets its PMIx environment (no
   * descriptor to inherit: *inherit stays -1). */
  Status prepare(std::uint32_t rank, const orca_pmi_environment& env, int* inherit);
  void started(std::uint32_t rank, bool ok);
  /* The rank's process has exited: its PMIx events come first. It stays
   * a client of the namespace until the job ends (pmix_job.cc says why). */
  void ended(std::uint32_t rank);
  void release(std::uint64_t epoch, const Kvs& entries);
  void deliver(std::uint32_t node, std::span<const std::uint8_t> bytes);

  // What libpmix said of this job's ranks, on the loop's thread.
  void on_client(std::uint32_t rank, orca_pmi_rank_event what);
  void on_abort(std::uint32_t rank, int status, const std::string& text);
  void on_fence(std::string blob, pmix_modex_cbfunc_t cbfunc, void* cbdata);
  void on_direct_modex(std::uint32_t rank, pmix_modex_cbfunc_t cbfunc, void* cbdata);
  /* libpmix's answer to another node's request for a rank's data. */
  void answered(std::uint32_t to_node, std::uint64_t id, pmix_status_t status, const std::string& blob);

 private:
  struct Pending {
    pmix_modex_cbfunc_t cbfunc = nullptr;
    void* cbdata = nullptr;
  };
  void register_namespace(const orca_pmi_job& job);
  void answer_request(std::uint32_t from_node, std::uint64_t id, std::uint32_t rank);
  void log(int level, const std::string& text);

  PmixServer& server_;
  const PmixLibrary& lib_;
  orca_pmi_host host_;
  std::string nspace_;
  JobLayout layout_;
  std::vector<std::uint32_t> rank_node_;
  std::uint32_t node_ = 0;
  std::string tmpdir_;
  /* OMPI_MCA_orte_local_daemon_uri for Open MPI 4; empty: not set. */
  std::string placeholder_daemon_;
  bool registered_ = false;
  std::vector<std::uint32_t> clients_;  // the ranks registered as clients, deregistered with the namespace
  bool connected_ = false;              // a rank connected (initialized): retire waits for its close
  std::uint64_t next_epoch_ = 0;
  std::map<std::uint64_t, Pending> fences_;
  std::uint64_t next_request_ = 0;
  std::map<std::uint64_t, Pending> requests_;
};

}  // namespace orca::pmi

#endif
