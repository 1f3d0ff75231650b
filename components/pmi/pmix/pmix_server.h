// PmixServer: pmi/pmix's side of one job on one daemon, through the PMIx
// reference library (libpmix): the server is initialised with the job's
// directory for its rendezvous (on a thread of its own, started before the
// job's command: pmi warm_up), the job's namespace registered with what
// Open MPI reads at MPI_Init (sizes, node and process maps, each rank's
// local and node rank) once the command gives the ranks (start_job), and
// each local rank registered and given its environment by
// PMIx_server_setup_fork before it starts.
//
// libpmix calls back from its own progress thread: fence, direct modex,
// abort, connect and finalize only post to the event loop (LoopHandoff)
// and everything else happens there.
//   fence       libpmix gathers this node's ranks and calls fence_nb once
//               with their blob: it goes to the host (contribute) under
//               the key of this node; release() hands libpmix every
//               node's blob, concatenated.
//   direct      libpmix asks for a remote rank's blob: the request goes to
//               the daemon of that rank (host send), which asks its own
//               libpmix (PMIx_server_dmodex_request) and sends the answer.
//   abort       a rank's PMIx_Abort: a rank event; the rank is released.
// libpmix allows one server per process and passes fence and direct modex
// calls no context, so the one live server is found through a file-local
// pointer (set in the constructor, cleared after PMIx_server_finalize).
#ifndef ORCA_COMPONENTS_PMI_PMIX_PMIX_SERVER_H
#define ORCA_COMPONENTS_PMI_PMIX_PMIX_SERVER_H

#include "job_layout.h"
#include "loop_handoff.h"
#include "pmix_library.h"

#include <orca/event_loop.h>
#include <orca/pmi.h>
#include <orca/result.h>

#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <string>

namespace orca::pmi {

class PmixServer {
 public:
  /* Starts libpmix's server for `job` on this node: what needs only the
   * job's name and this node (job.size may be 0: the ranks are not known
   * yet). Throws std::runtime_error (the reason, with libpmix's status)
   * when the server cannot start. */
  struct Options {
    /* Add to each rank's environment what Open MPI 4 needs to read PMIx
     * (pmi_pmix_open_mpi_4). */
    bool open_mpi_4 = true;
    /* Give the ranks this daemon's topology (pmi_pmix_share_topology). */
    bool share_topology = true;
  };
  PmixServer(const PmixLibrary& lib, const orca_pmi_host& host, const orca_pmi_job& job, Options options);
  /* Registers the job's namespace (its layout: every rank's node), once,
   * before any rank is prepared. Throws when libpmix refuses it, or when
   * `job` is not the job the server was started for. */
  void start_job(const orca_pmi_job& job);
  ~PmixServer();
  PmixServer(const PmixServer&) = delete;
  PmixServer& operator=(const PmixServer&) = delete;

  /* Registers the rank as a client and sets its PMIx environment (no
   * descriptor to inherit: *inherit stays -1). */
  Status prepare(std::uint32_t rank, const orca_pmi_environment& env, int* inherit);
  void started(std::uint32_t rank, bool ok);
  void ended(std::uint32_t rank);
  void release(std::uint64_t epoch, const Kvs& entries);
  void deliver(std::uint32_t node, std::span<const std::uint8_t> bytes);

  // Called on libpmix's thread by the module's C callbacks.
  pmix_status_t on_fence(const pmix_proc_t procs[], size_t nprocs, const char* data, size_t ndata,
                         pmix_modex_cbfunc_t cbfunc, void* cbdata);
  pmix_status_t on_direct_modex(const pmix_proc_t* proc, pmix_modex_cbfunc_t cbfunc, void* cbdata);
  pmix_status_t on_abort(const pmix_proc_t* proc, int status, const char* message, pmix_op_cbfunc_t cbfunc,
                         void* cbdata);
  void on_client(const pmix_proc_t* proc, orca_pmi_rank_event what);

 private:
  static std::string job_directory(const orca_pmi_host& host);
  struct Pending {
    pmix_modex_cbfunc_t cbfunc = nullptr;
    void* cbdata = nullptr;
  };
  void register_namespace(const orca_pmi_job& job);
  void answer_request(std::uint32_t from_node, std::uint64_t id, std::uint32_t rank);
  void log(int level, const std::string& text);

  /* This host's topology without I/O devices, which libpmix would
   * otherwise discover in full (PCI, GL, OpenCL: tens of ms) at every
   * job's start, only to share cores and caches with the ranks. */
  struct Topology {
    const PmixLibrary& lib_;
    hwloc_topology_t topology = nullptr;
    explicit Topology(const PmixLibrary& lib);
    ~Topology();
    Topology(const Topology&) = delete;
    Topology& operator=(const Topology&) = delete;
  };

  class PluginBlacklist;
  /* Waits for the thread that starts libpmix (see the constructor), and
   * rethrows why it failed. */
  void ready();
  void start_library();  // on the starting thread: the topology, PMIx_server_init

  const PmixLibrary& lib_;  // outlives the server (its component's state holds it)
  orca_pmi_host host_;
  std::unique_ptr<Topology> topology_;  // made on the starting thread
  EventLoop loop_;
  LoopHandoff handoff_;
  std::string nspace_;
  JobLayout layout_;
  std::vector<std::uint32_t> rank_node_;
  std::uint32_t node_ = 0;
  std::string tmpdir_;
  /* OMPI_MCA_orte_local_daemon_uri for Open MPI 4; empty: not set. */
  std::string placeholder_daemon_;
  bool share_topology_ = true;
  bool initialized_ = false;  // written by the starting thread: read after ready()
  bool registered_ = false;
  std::unique_ptr<PluginBlacklist> no_io_plugins_;
  std::future<void> library_;  // the starting thread; last, so that it ends before the rest goes
  std::uint64_t next_epoch_ = 0;
  std::map<std::uint64_t, Pending> fences_;
  std::uint64_t next_request_ = 0;
  std::map<std::uint64_t, Pending> requests_;
};

}  // namespace orca::pmi

#endif
