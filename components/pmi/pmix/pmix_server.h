// PmixServer: pmi/pmix's PMIx server in one daemon, through the PMIx
// reference library (libpmix): initialised once, with the directory of
// the daemon's first job for its rendezvous (on a thread of its own,
// started before the job's command: pmi warm_up), and kept while the
// daemon serves jobs; each job is a PmixJob (its namespace), registered
// here by name.
//
// libpmix calls back from its own progress thread, with no context but
// the namespace: client connected and finalized, abort, fence and direct
// modex only post to the event loop (LoopHandoff), where the job of that
// namespace handles them (pmix_job.h); a call for a namespace no longer
// served is answered "not found" (or just released, for an abort).
// libpmix allows one server per process, so the one live server is found
// through a file-local pointer (set in the constructor, cleared after
// PMIx_server_finalize).
#ifndef ORCA_COMPONENTS_PMI_PMIX_PMIX_SERVER_H
#define ORCA_COMPONENTS_PMI_PMIX_PMIX_SERVER_H

#include "closing_connections.h"
#include "loop_handoff.h"
#include "pmix_library.h"

#include <orca/event_loop.h>
#include <orca/pmi.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orca::pmi {

class PmixJob;

/* `host`'s directory for its job (orca_pmi_host's job_directory). Throws
 * std::runtime_error (the host's reason) when it has none. */
std::string host_job_directory(const orca_pmi_host& host);

class PmixServer {
 public:
  struct Options {
    /* Add to each rank's environment what Open MPI 4 needs to read PMIx
     * (pmi_pmix_open_mpi_4). */
    bool open_mpi_4 = true;
    /* Give the ranks this daemon's topology (pmi_pmix_share_topology). */
    bool share_topology = true;
    /* libpmix's gds modules for the job data (pmi_pmix_gds); empty:
     * libpmix's own choice. */
    std::string gds = "hash";
  };
  /* Starts libpmix's server on this node, for the jobs to come: what
   * needs only the first job's name (the server's own namespace is it,
   * with "-daemons"), this node and its directory (`host`'s
   * job_directory), on a thread of its own. Throws std::runtime_error
   * (the reason) when the server cannot start; a failure on the thread is
   * thrown by ready(). */
  PmixServer(const PmixLibrary& lib, const orca_pmi_host& host, const orca_pmi_job& job, Options options);
  ~PmixServer();
  PmixServer(const PmixServer&) = delete;
  PmixServer& operator=(const PmixServer&) = delete;

  /* Waits for the thread that starts libpmix; throws why it failed, at
   * every call once it has. */
  void ready();
  const PmixLibrary& library() const noexcept { return lib_; }
  const Options& options() const noexcept { return options_; }
  /* This host's topology without I/O devices (after ready()). */
  hwloc_topology_t topology() const noexcept;
  /* Runs what libpmix's thread posted so far, now. */
  void drain() { handoff_.drain(); }
  void post(std::function<void()> work) { handoff_.post(std::move(work)); }

  /* A job serves namespace `nspace` from now until it goes away. Throws
   * when another job serves it already. */
  void attach(const std::string& nspace, PmixJob& job);
  void detach(const std::string& nspace);
  /* How long retire() waits for half-closed connections at most: libpmix's
   * thread closes them within a few ms; a rank's child that holds its
   * connection half open would keep it so until killed. */
  static constexpr std::chrono::milliseconds kRetireWait{200};
  /* What retire() waited for. */
  struct Retired {
    int polls = 0;             // reads of the kernel's TCP table
    std::size_t left = 0;      // half-closed connections still there when it gave up
  };
  /* Deregisters `clients` (ranks of `nspace`, whose job has ended), then
   * `nspace` (the loop's thread only). libpmix 4.2.2, told to drop a
   * client whose connection it has not yet seen close, closes that socket
   * but leaves its read event registered, and a later connection given
   * the descriptor number is never read (its rank hangs in PMIx_Init).
   * So, when a rank of the job connected (`connected`), it first waits
   * (kRetireWait at most, polling the kernel's TCP table) until no
   * connection to libpmix's port is half closed (closing_connections.h):
   * a rank's exit can be seen before its FIN is; then one round trip
   * through libpmix's thread, so that what the closes queued there is
   * handled before the deregistration. */
  Retired retire(const std::string& nspace, const std::vector<std::uint32_t>& clients, bool connected);
  /* A rank's PMIX_SERVER_URI* value: libpmix's port, for retire(). */
  void saw_uri(std::string_view uri);
  /* The job of `nspace`, if one serves it now (the loop's thread only). */
  PmixJob* job(const std::string& nspace) const;

  // Called on libpmix's thread by the module's C callbacks.
  void on_client(const pmix_proc_t* proc, orca_pmi_rank_event what);
  pmix_status_t on_abort(const pmix_proc_t* proc, int status, const char* message, pmix_op_cbfunc_t cbfunc,
                         void* cbdata);
  pmix_status_t on_fence(const pmix_proc_t procs[], size_t nprocs, const char* data, size_t ndata,
                         pmix_modex_cbfunc_t cbfunc, void* cbdata);
  pmix_status_t on_direct_modex(const pmix_proc_t* proc, pmix_modex_cbfunc_t cbfunc, void* cbdata);
  /* libpmix's answer (on its thread) to another node's request for a
   * rank of `nspace`: to that job, on the loop. */
  void answered(const std::string& nspace, std::uint32_t to_node, std::uint64_t id, pmix_status_t status, std::string blob);
  /* The live server, for libpmix's callbacks (nullptr: none). */
  static PmixServer* live() noexcept;

 private:
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
  class StartEnvironment;
  void start_library();  // on the starting thread: the topology, PMIx_server_init

  const PmixLibrary& lib_;  // outlives the server (its component's state holds it)
  Options options_;
  EventLoop loop_;
  LoopHandoff handoff_;
  std::string nspace_;  // the first job's: the server's own is it with "-daemons"
  std::uint32_t node_ = 0;
  std::string tmpdir_;  // the rendezvous
  std::unique_ptr<Topology> topology_;  // made on the starting thread
  bool initialized_ = false;            // written by the starting thread: read after ready()
  std::optional<std::string> failed_;   // why the start failed, once ready() saw it
  std::map<std::string, PmixJob*, std::less<>> jobs_;
  std::optional<ServerPort> port_;  // libpmix's, once a rank's URI named it
  std::unique_ptr<StartEnvironment> start_environment_;
  std::future<void> library_;  // the starting thread; last, so that it ends before the rest goes
};

}  // namespace orca::pmi

#endif
