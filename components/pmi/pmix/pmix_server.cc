// PmixServer: libpmix's server in one daemon, its callbacks, and the
// jobs it serves by namespace.
#include "pmix_server.h"

#include "pmix_info.h"
#include "pmix_job.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <utility>

namespace orca::pmi {

namespace {

// libpmix allows one server per process and calls fence and direct modex
// without a context: the live server, for the callbacks below.
std::atomic<PmixServer*> g_live{nullptr};

pmix_status_t cb_client_connected(const pmix_proc_t* proc, void*, pmix_op_cbfunc_t, void*) {
  if (PmixServer* s = g_live.load()) s->on_client(proc, ORCA_PMI_RANK_INITIALIZED);
  return PMIX_OPERATION_SUCCEEDED;
}

pmix_status_t cb_client_finalized(const pmix_proc_t* proc, void*, pmix_op_cbfunc_t, void*) {
  if (PmixServer* s = g_live.load()) s->on_client(proc, ORCA_PMI_RANK_FINALIZED);
  return PMIX_OPERATION_SUCCEEDED;
}

pmix_status_t cb_abort(const pmix_proc_t* proc, void*, int status, const char msg[], pmix_proc_t[], size_t,
                       pmix_op_cbfunc_t cbfunc, void* cbdata) {
  PmixServer* s = g_live.load();
  return s != nullptr ? s->on_abort(proc, status, msg, cbfunc, cbdata) : PMIX_ERR_INIT;
}

pmix_status_t cb_fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t[], size_t, char* data, size_t ndata,
                       pmix_modex_cbfunc_t cbfunc, void* cbdata) {
  PmixServer* s = g_live.load();
  return s != nullptr ? s->on_fence(procs, nprocs, data, ndata, cbfunc, cbdata) : PMIX_ERR_INIT;
}

pmix_status_t cb_direct_modex(const pmix_proc_t* proc, const pmix_info_t[], size_t, pmix_modex_cbfunc_t cbfunc,
                              void* cbdata) {
  PmixServer* s = g_live.load();
  return s != nullptr ? s->on_direct_modex(proc, cbfunc, cbdata) : PMIX_ERR_INIT;
}

std::string nspace_of(const pmix_proc_t* proc) { return std::string(proc->nspace, ::strnlen(proc->nspace, PMIX_MAX_NSLEN + 1)); }

}  // namespace

// What libpmix and hwloc read from the environment at the server's
// start, set on the loop's thread before the thread that starts them
// runs, removed there once that thread has ended (the ranks' environment
// is made afterwards), and each left alone when the user set it:
// - HWLOC_PLUGINS_BLACKLIST: hwloc loads its plugins (GL, OpenCL, PCI:
//   with libX11, libOpenCL and libpciaccess) when a process's first
//   topology is made, 2-3 ms of CPU in every daemon, for I/O devices this
//   topology leaves out anyway;
// - PMIX_MCA_gds (pmi_pmix_gds): libpmix 4.2.2 reads its data store's
//   choice from there only (PMIX_GDS_MODULE given to PMIx_server_init is
//   ignored).
class PmixServer::StartEnvironment {
 public:
  explicit StartEnvironment(const std::string& gds) {
    set("HWLOC_PLUGINS_BLACKLIST", "hwloc_gl,hwloc_opencl,hwloc_pci,hwloc_xml_libxml");
    if (!gds.empty()) set("PMIX_MCA_gds", gds.c_str());
  }
  ~StartEnvironment() {
    for (const char* name : set_) ::unsetenv(name);
  }
  StartEnvironment(const StartEnvironment&) = delete;
  StartEnvironment& operator=(const StartEnvironment&) = delete;

 private:
  void set(const char* name, const char* value) {
    if (::getenv(name) != nullptr) return;
    ::setenv(name, value, 0);
    set_.push_back(name);
  }
  std::vector<const char*> set_;
};

PmixServer::Topology::Topology(const PmixLibrary& lib) : lib_(lib) {
  if (lib_.hwloc_topology_init(&topology) != 0) throw std::runtime_error("hwloc_topology_init failed");
  lib_.hwloc_topology_set_io_types_filter(topology, HWLOC_TYPE_FILTER_KEEP_NONE);
  if (lib_.hwloc_topology_load(topology) != 0) {
    lib_.hwloc_topology_destroy(topology);
    throw std::runtime_error("hwloc cannot load this host's topology");
  }
}

PmixServer::Topology::~Topology() { lib_.hwloc_topology_destroy(topology); }

std::string host_job_directory(const orca_pmi_host& host) {
  orca_mca_reason why{};
  const char* dir = host.job_directory != nullptr ? host.job_directory(host.host, &why) : nullptr;
  if (dir == nullptr || *dir == '\0') throw std::runtime_error(why.text[0] != '\0' ? why.text : "no job directory for PMIx");
  return dir;
}

PmixServer::PmixServer(const PmixLibrary& lib, const orca_pmi_host& host, const orca_pmi_job& job, Options options)
    : lib_(lib),
      options_(std::move(options)),
      loop_(host.base),
      handoff_(loop_),
      nspace_(job.name != nullptr ? job.name : ""),
      node_(job.node),
      tmpdir_(host_job_directory(host)) {  // the rendezvous lives in the first job's directory only
  if (nspace_.empty() || nspace_.size() + 8 > PMIX_MAX_NSLEN) throw std::runtime_error("the job's PMI name does not fit a PMIx namespace");
  PmixServer* expected = nullptr;
  if (!g_live.compare_exchange_strong(expected, this)) throw std::runtime_error("a PMIx server already runs in this daemon");

  // The topology and libpmix's start take some 4 ms of CPU: on a thread
  // of their own, so that the daemon's loop goes on (answering the
  // data-plane directory, taking the job's command) meanwhile; a job
  // waits for it (ready()). Nothing else touches libpmix or hwloc until
  // then, and the environment hwloc reads is set here, on the loop's
  // thread, and put back there.
  try {
    start_environment_ = std::make_unique<StartEnvironment>(options_.gds);
    library_ = std::async(std::launch::async, [this] { start_library(); });
  } catch (...) {  // no thread (a task limit): no server
    start_environment_.reset();
    g_live.store(nullptr);
    throw;
  }
}

// On the starting thread.
void PmixServer::start_library() {
  topology_ = std::make_unique<Topology>(lib_);
  pmix_server_module_t module{};  // libpmix keeps a copy
  module.client_connected = &cb_client_connected;
  module.client_finalized = &cb_client_finalized;
  module.abort = &cb_abort;
  module.fence_nb = &cb_fence;
  module.direct_modex = &cb_direct_modex;
  InfoList init(lib_);
  // The rendezvous lives in the first job's directory only: no system-wide
  // server, no tools, nothing from other hosts.
  init.text(PMIX_SERVER_TMPDIR, tmpdir_.c_str());
  init.text(PMIX_SYSTEM_TMPDIR, tmpdir_.c_str());
  init.flag(PMIX_SERVER_TOOL_SUPPORT, false);
  init.flag(PMIX_SERVER_SYSTEM_SUPPORT, false);
  init.flag(PMIX_SERVER_REMOTE_CONNECTIONS, false);
  init.text(PMIX_SERVER_NSPACE, nspace_ + "-daemons");
  init.rank(PMIX_SERVER_RANK, node_);
  pmix_topology_t topology{.source = const_cast<char*>("hwloc"), .topology = topology_->topology};
  init.add(PMIX_TOPOLOGY2, &topology, PMIX_TOPO);
  InfoArray info(init);
  if (pmix_status_t st = lib_.PMIx_server_init(&module, info.info(), info.size()); st != PMIX_SUCCESS) {
    std::string why = "PMIx_server_init failed: " + status_text(lib_, st);
    if (!options_.gds.empty()) {
      why += " (its data store is \"" + options_.gds + "\", pmi_pmix_gds: a name libpmix lacks fails so; \"hash\" is always there)";
    }
    throw std::runtime_error(why);
  }
  initialized_ = true;
}

void PmixServer::ready() {
  if (library_.valid()) {
    // After get() the thread has ended: its writes are seen here.
    const std::unique_ptr<StartEnvironment> put_back = std::move(start_environment_);
    try {
      library_.get();
    } catch (const std::exception& e) {
      failed_ = e.what();
    }
  }
  if (failed_) throw std::runtime_error(*failed_);
  if (!initialized_) throw std::runtime_error("libpmix's server did not start");
}

PmixServer::~PmixServer() {
  if (library_.valid()) library_.wait();
  start_environment_.reset();
  if (initialized_) lib_.PMIx_server_finalize();
  g_live.store(nullptr);
}

hwloc_topology_t PmixServer::topology() const noexcept { return topology_ ? topology_->topology : nullptr; }

void PmixServer::attach(const std::string& nspace, PmixJob& job) {
  if (!jobs_.emplace(nspace, &job).second) throw std::runtime_error("another job of this daemon has the PMIx namespace " + nspace);
}

void PmixServer::detach(const std::string& nspace) { jobs_.erase(nspace); }

constexpr auto kRetirePoll = std::chrono::milliseconds(1);

PmixServer::Retired PmixServer::retire(const std::string& nspace, const std::vector<std::uint32_t>& clients,
                                       bool connected) {
  Retired retired;
  if (connected && port_) {
    const auto deadline = std::chrono::steady_clock::now() + kRetireWait;
    for (;;) {
      ++retired.polls;
      const std::optional<std::size_t> open = half_closed_now(*port_);
      retired.left = open.value_or(0);
      if (retired.left == 0 || std::chrono::steady_clock::now() >= deadline) break;
      std::this_thread::sleep_for(kRetirePoll);
    }
  }
  // Network setup with nothing to set up: the cheapest call that goes
  // through libpmix's thread and answers.
  OperationWait round_trip;
  (void)round_trip.wait(lib_.PMIx_server_setup_local_support(nspace.c_str(), nullptr, 0, &OperationWait::done, &round_trip));
  for (const std::uint32_t rank : clients) {
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, nspace.c_str(), rank);
    lib_.PMIx_server_deregister_client(&proc, &ignore_result, nullptr);
  }
  lib_.PMIx_server_deregister_nspace(nspace.c_str(), &ignore_result, nullptr);
  return retired;
}

void PmixServer::saw_uri(std::string_view uri) {
  if (!port_) port_ = server_port(uri);
}

PmixJob* PmixServer::job(const std::string& nspace) const {
  auto it = jobs_.find(nspace);
  return it != jobs_.end() ? it->second : nullptr;
}

void PmixServer::on_client(const pmix_proc_t* proc, orca_pmi_rank_event what) {
  handoff_.post([this, nspace = nspace_of(proc), rank = proc->rank, what] {
    if (PmixJob* j = job(nspace)) j->on_client(rank, what);
  });
}

pmix_status_t PmixServer::on_abort(const pmix_proc_t* proc, int status, const char* message, pmix_op_cbfunc_t cbfunc,
                                   void* cbdata) {
  std::string text = message != nullptr ? message : "";
  handoff_.post([this, nspace = nspace_of(proc), rank = proc->rank, status, text = std::move(text), cbfunc, cbdata] {
    if (PmixJob* j = job(nspace)) j->on_abort(rank, status, text);
    // The rank waits in PMIx_Abort until released; the job ends it anyway.
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, cbdata);
  });
  return PMIX_SUCCESS;
}

pmix_status_t PmixServer::on_fence(const pmix_proc_t procs[], size_t nprocs, const char* data, size_t ndata,
                                   pmix_modex_cbfunc_t cbfunc, void* cbdata) {
  // The job-wide fence (MPI_Init, MPI_Finalize) only: one entry, the
  // whole namespace. A fence of some ranks would need its own collective.
  if (nprocs != 1 || procs[0].rank != PMIX_RANK_WILDCARD) return PMIX_ERR_NOT_SUPPORTED;
  std::string blob(data != nullptr ? data : "", data != nullptr ? ndata : 0);
  handoff_.post([this, nspace = nspace_of(&procs[0]), blob = std::move(blob), cbfunc, cbdata]() mutable {
    if (PmixJob* j = job(nspace)) {
      j->on_fence(std::move(blob), cbfunc, cbdata);
    } else if (cbfunc != nullptr) {
      cbfunc(PMIX_ERR_NOT_FOUND, nullptr, 0, cbdata, nullptr, nullptr);
    }
  });
  return PMIX_SUCCESS;
}

pmix_status_t PmixServer::on_direct_modex(const pmix_proc_t* proc, pmix_modex_cbfunc_t cbfunc, void* cbdata) {
  handoff_.post([this, nspace = nspace_of(proc), rank = proc->rank, cbfunc, cbdata] {
    if (PmixJob* j = job(nspace)) {
      j->on_direct_modex(rank, cbfunc, cbdata);
    } else {
      cbfunc(PMIX_ERR_NOT_FOUND, nullptr, 0, cbdata, nullptr, nullptr);
    }
  });
  return PMIX_SUCCESS;
}

void PmixServer::answered(const std::string& nspace, std::uint32_t to_node, std::uint64_t id, pmix_status_t status,
                          std::string blob) {
  handoff_.post([this, nspace, to_node, id, status, blob = std::move(blob)] {
    if (PmixJob* j = job(nspace)) j->answered(to_node, id, status, blob);
  });
}

PmixServer* PmixServer::live() noexcept { return g_live.load(); }

}  // namespace orca::pmi
