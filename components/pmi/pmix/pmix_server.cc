// PmixServer: libpmix's server API, its callbacks, and the namespace.
#include "pmix_server.h"

#include "direct_wire.h"

#include <orca/message.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <stdexcept>

namespace orca::pmi {

namespace {

// libpmix allows one server per process and calls fence and direct modex
// without a context: the live server, for the callbacks below.
std::atomic<PmixServer*> g_live{nullptr};

std::string status_text(const PmixLibrary& lib, pmix_status_t st) {
  return std::string(lib.PMIx_Error_string(st)) + " (" + std::to_string(st) + ")";
}

// An info list under construction (libpmix's own list API), freed on scope exit.
class InfoList {
 public:
  explicit InfoList(const PmixLibrary& lib) : lib_(lib), list_(lib.PMIx_Info_list_start()) {
    if (list_ == nullptr) throw std::runtime_error("libpmix cannot make an info list");
  }
  ~InfoList() { lib_.PMIx_Info_list_release(list_); }
  InfoList(const InfoList&) = delete;
  InfoList& operator=(const InfoList&) = delete;
  void add(const char* key, const void* value, pmix_data_type_t type) {
    if (pmix_status_t st = lib_.PMIx_Info_list_add(list_, key, value, type); st != PMIX_SUCCESS) {
      throw std::runtime_error(std::string("libpmix refused info ") + key + ": " + status_text(lib_, st));
    }
  }
  void text(const char* key, const std::string& v) { add(key, v.c_str(), PMIX_STRING); }
  void u32(const char* key, std::uint32_t v) { add(key, &v, PMIX_UINT32); }
  void u16(const char* key, std::uint16_t v) { add(key, &v, PMIX_UINT16); }
  void rank(const char* key, pmix_rank_t v) { add(key, &v, PMIX_PROC_RANK); }
  void flag(const char* key, bool v) { add(key, &v, PMIX_BOOL); }
  void* handle() const noexcept { return list_; }
  const PmixLibrary& library() const noexcept { return lib_; }

 private:
  const PmixLibrary& lib_;
  void* list_;
};

// An array of info made from a list, freed on scope exit.
class InfoArray {
 public:
  explicit InfoArray(const InfoList& list) : lib_(list.library()) {
    if (pmix_status_t st = lib_.PMIx_Info_list_convert(list.handle(), &array_); st != PMIX_SUCCESS) {
      throw std::runtime_error("libpmix cannot convert an info list: " + status_text(lib_, st));
    }
  }
  ~InfoArray() { lib_.PMIx_Data_array_destruct(&array_); }
  InfoArray(const InfoArray&) = delete;
  InfoArray& operator=(const InfoArray&) = delete;
  pmix_info_t* info() noexcept { return static_cast<pmix_info_t*>(array_.array); }
  size_t size() const noexcept { return array_.size; }
  pmix_data_array_t* array() noexcept { return &array_; }

 private:
  const PmixLibrary& lib_;
  pmix_data_array_t array_{};
};

// Waits on the loop thread for a libpmix operation's callback.
// The job's programs: one app (its size the job's), or, for MPMD, each
// program's number, size and first rank (Open MPI's MPI_APPNUM comes from
// its ranks' PMIX_APPNUM).
std::vector<std::uint32_t> add_app_info(const PmixLibrary& lib, InfoList& info, const orca_pmi_job& job) {
  const std::uint32_t apps = job.rank_app != nullptr ? std::max<std::uint32_t>(1, job.app_count) : 1;
  std::vector<std::uint32_t> sizes(apps, 0);
  for (std::uint32_t r = 0; r < job.size; ++r) ++sizes[job.rank_app != nullptr ? std::min(job.rank_app[r], apps - 1) : 0];
  std::vector<std::uint32_t> first{0};  // each program's first rank
  for (std::uint32_t a = 0; a + 1 < apps; ++a) first.push_back(first.back() + sizes[a]);
  if (apps == 1) {
    info.u32(PMIX_APP_SIZE, job.size);
    info.u32(PMIX_APPNUM, 0);
    info.rank(PMIX_APPLDR, 0);
    return first;
  }
  for (std::uint32_t a = 0; a < apps; ++a) {
    InfoList app(lib);
    app.u32(PMIX_APPNUM, a);
    app.u32(PMIX_APP_SIZE, sizes[a]);
    app.rank(PMIX_APPLDR, first[a]);
    InfoArray array(app);
    info.add(PMIX_APP_INFO_ARRAY, array.array(), PMIX_DATA_ARRAY);
  }
  return first;
}

class OperationWait {
 public:
  static void done(pmix_status_t status, void* cbdata) {
    auto* w = static_cast<OperationWait*>(cbdata);
    const std::lock_guard<std::mutex> lock(w->mutex_);
    w->status_ = status;
    w->done_ = true;
    w->cv_.notify_all();
  }
  /* `started`: what the call returned. */
  pmix_status_t wait(pmix_status_t started) {
    if (started == PMIX_OPERATION_SUCCEEDED) return PMIX_SUCCESS;
    if (started != PMIX_SUCCESS) return started;
    std::unique_lock<std::mutex> lock(mutex_);
    if (!cv_.wait_for(lock, std::chrono::seconds(30), [this] { return done_; })) return PMIX_ERR_TIMEOUT;
    return status_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  pmix_status_t status_ = PMIX_SUCCESS;
};

void ignore_result(pmix_status_t, void*) {}

// The bytes libpmix gets back from a fence or a direct modex stay alive
// until it calls this with them.
void release_bytes(void* owner) { std::unique_ptr<std::string>(static_cast<std::string*>(owner)); }

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

}  // namespace

// hwloc loads its plugins (GL, OpenCL, PCI: with libX11, libOpenCL and
// libpciaccess) when a process's first topology is made, 2-3 ms of CPU in
// every daemon, for I/O devices this topology leaves out anyway. They are
// blacklisted while it is made only: set on the loop's thread before the
// thread that makes it starts, removed there once that thread has ended
// (the ranks' environment is made afterwards), and not at all when the
// user set HWLOC_PLUGINS_BLACKLIST.
class PmixServer::PluginBlacklist {
 public:
  PluginBlacklist() : set_(::getenv("HWLOC_PLUGINS_BLACKLIST") == nullptr) {
    if (set_) ::setenv("HWLOC_PLUGINS_BLACKLIST", "hwloc_gl,hwloc_opencl,hwloc_pci,hwloc_xml_libxml", 0);
  }
  ~PluginBlacklist() {
    if (set_) ::unsetenv("HWLOC_PLUGINS_BLACKLIST");
  }
  PluginBlacklist(const PluginBlacklist&) = delete;
  PluginBlacklist& operator=(const PluginBlacklist&) = delete;

 private:
  bool set_;
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

// The daemon's directory for this job: the rendezvous lives there only.
std::string PmixServer::job_directory(const orca_pmi_host& host) {
  orca_mca_reason why{};
  const char* dir = host.job_directory != nullptr ? host.job_directory(host.host, &why) : nullptr;
  if (dir == nullptr || *dir == '\0') {
    throw std::runtime_error(why.text[0] != '\0' ? why.text : "no job directory for the PMIx rendezvous");
  }
  return dir;
}

PmixServer::PmixServer(const PmixLibrary& lib, const orca_pmi_host& host, const orca_pmi_job& job, Options options)
    : lib_(lib),
      host_(host),
      loop_(host.base),
      handoff_(loop_),
      nspace_(job.name),
      node_(job.node),
      tmpdir_(job_directory(host)),
      share_topology_(options.share_topology) {
  // Port 1 on loopback: nothing listens there, and no rank connects.
  if (options.open_mpi_4) {
    placeholder_daemon_ = std::to_string(job.job & 0x7fffffffu) + "." + std::to_string(job.node + 1) + ";tcp://127.0.0.1:1";
  }
  if (nspace_.empty() || nspace_.size() > PMIX_MAX_NSLEN) throw std::runtime_error("the job's PMI name does not fit a PMIx namespace");
  PmixServer* expected = nullptr;
  if (!g_live.compare_exchange_strong(expected, this)) throw std::runtime_error("a PMIx server already runs in this daemon");

  // The topology and libpmix's start take some 4 ms of CPU: on a thread
  // of their own, so that the daemon's loop goes on (answering the
  // data-plane directory, taking the job's command) meanwhile; start_job
  // waits for it. Nothing else touches libpmix or hwloc until then, and
  // the environment hwloc reads is set here, on the loop's thread, and
  // put back there (ready()).
  try {
    no_io_plugins_ = std::make_unique<PluginBlacklist>();
    library_ = std::async(std::launch::async, [this] { start_library(); });
  } catch (...) {  // no thread (a task limit): no server
    no_io_plugins_.reset();
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
  // The rendezvous lives in the job's directory only: no system-wide
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
    throw std::runtime_error("PMIx_server_init failed: " + status_text(lib_, st));
  }
  initialized_ = true;
}

void PmixServer::ready() {
  if (!library_.valid()) return;
  // After get() the thread has ended: its writes are seen here.
  const std::unique_ptr<PluginBlacklist> put_back = std::move(no_io_plugins_);
  library_.get();  // rethrows why the start failed
}

PmixServer::~PmixServer() {
  if (library_.valid()) library_.wait();
  no_io_plugins_.reset();
  if (initialized_) {
    if (registered_) lib_.PMIx_server_deregister_nspace(nspace_.c_str(), &ignore_result, nullptr);
    lib_.PMIx_server_finalize();
  }
  g_live.store(nullptr);
}

void PmixServer::log(int level, const std::string& text) {
  if (host_.log != nullptr) host_.log(host_.host, level, ("pmi/pmix: " + text).c_str());
}

void PmixServer::start_job(const orca_pmi_job& job) {
  ready();
  if (job.name == nullptr || nspace_ != job.name || job.node != node_) {
    throw std::runtime_error("the job is not the one this PMIx server was started for");
  }
  if (registered_) throw std::runtime_error("this PMIx server already serves a job");
  layout_ = job_layout(job);
  rank_node_.assign(job.rank_node, job.rank_node + job.size);
  register_namespace(job);
  registered_ = true;
}

void PmixServer::register_namespace(const orca_pmi_job& job) {
  char* regex = nullptr;
  char* ppn = nullptr;
  if (pmix_status_t st = lib_.PMIx_generate_regex(layout_.node_list.c_str(), &regex); st != PMIX_SUCCESS) {
    throw std::runtime_error("PMIx_generate_regex failed: " + status_text(lib_, st));
  }
  const std::unique_ptr<char, decltype(&std::free)> regex_owner(regex, &std::free);
  if (pmix_status_t st = lib_.PMIx_generate_ppn(layout_.ppn.c_str(), &ppn); st != PMIX_SUCCESS) {
    throw std::runtime_error("PMIx_generate_ppn failed: " + status_text(lib_, st));
  }
  const std::unique_ptr<char, decltype(&std::free)> ppn_owner(ppn, &std::free);

  InfoList info(lib_);
  info.text(PMIX_JOBID, nspace_);
  info.u32(PMIX_UNIV_SIZE, job.size);
  info.u32(PMIX_JOB_SIZE, job.size);
  info.u32(PMIX_MAX_PROCS, job.size);
  const std::vector<std::uint32_t> app_first = add_app_info(lib_, info, job);
  info.u32(PMIX_NUM_NODES, static_cast<std::uint32_t>(layout_.nodes.size()));
  info.add(PMIX_NODE_MAP, regex, PMIX_REGEX);
  info.add(PMIX_PROC_MAP, ppn, PMIX_REGEX);
  info.text(PMIX_LOCAL_PEERS, layout_.local_peers);
  info.u32(PMIX_LOCAL_SIZE, static_cast<std::uint32_t>(layout_.local.size()));
  info.u32(PMIX_NODE_SIZE, static_cast<std::uint32_t>(layout_.local.size()));
  info.rank(PMIX_LOCALLDR, layout_.local.empty() ? 0 : layout_.local.front());
  info.u32(PMIX_NODEID, job.node);
  info.text(PMIX_HOSTNAME, job.node_host[job.node]);
  info.text(PMIX_TMPDIR, tmpdir_.c_str());
  info.text(PMIX_NSDIR, tmpdir_.c_str());
  if (share_topology_) {
    // Open MPI 4 reads the node's topology from here at MPI_Init; without
    // it every rank discovers it again, with every hwloc plugin (X11
    // displays probed, PCI walked): some 20 ms of CPU a rank here.
    char* xml = nullptr;
    int length = 0;
    if (lib_.hwloc_topology_export_xmlbuffer(topology_->topology, &xml, &length, 0) == 0) {
      const std::unique_ptr<char, std::function<void(char*)>> owner(
          xml, [this](char* x) { lib_.hwloc_free_xmlbuffer(topology_->topology, x); });
      info.text(PMIX_HWLOC_XML_V2, xml);
    }
  }
  info.flag(PMIX_SPAWNED, false);
  // What each of this node's ranks is: Open MPI reads its own local and
  // node rank from here. Only this node's: libpmix derives every rank's
  // host and node from the two maps above, and a list of every rank of the
  // job on every node made the job's start quadratic (1024 daemons: 48 s
  // of CPU in all, against 12 s without a PMIx server).
  for (const std::uint32_t r : layout_.local) {
    InfoList proc(lib_);
    proc.rank(PMIX_RANK, r);
    proc.rank(PMIX_GLOBAL_RANK, r);
    const std::uint32_t app = job.rank_app != nullptr ? job.rank_app[r] : 0;
    proc.rank(PMIX_APP_RANK, r - app_first[std::min<std::size_t>(app, app_first.size() - 1)]);
    proc.u32(PMIX_APPNUM, app);
    proc.u16(PMIX_LOCAL_RANK, layout_.node_rank[r]);
    proc.u16(PMIX_NODE_RANK, layout_.node_rank[r]);
    proc.u32(PMIX_NODEID, job.rank_node[r]);
    proc.text(PMIX_HOSTNAME, job.node_host[job.rank_node[r]]);
    InfoArray array(proc);
    info.add(PMIX_PROC_INFO_ARRAY, array.array(), PMIX_DATA_ARRAY);
  }
  InfoArray all(info);
  OperationWait wait;
  const pmix_status_t st = wait.wait(lib_.PMIx_server_register_nspace(nspace_.c_str(), static_cast<int>(layout_.local.size()),
                                                                 all.info(), all.size(), &OperationWait::done, &wait));
  if (st != PMIX_SUCCESS) throw std::runtime_error("PMIx_server_register_nspace failed: " + status_text(lib_, st));
}

Status PmixServer::prepare(std::uint32_t rank, const orca_pmi_environment& env, int* inherit) {
  *inherit = -1;
  pmix_proc_t proc;
  PMIX_LOAD_PROCID(&proc, nspace_.c_str(), rank);
  OperationWait wait;
  pmix_status_t st = wait.wait(lib_.PMIx_server_register_client(&proc, ::getuid(), ::getgid(), nullptr, &OperationWait::done, &wait));
  if (st != PMIX_SUCCESS) {
    return Message("pmi", "pmix-call-failed", {{"call", "PMIx_server_register_client"}, {"rank", std::to_string(rank)},
                                               {"why", status_text(lib_, st)}});
  }
  char** vars = nullptr;
  st = lib_.PMIx_server_setup_fork(&proc, &vars);
  if (st != PMIX_SUCCESS) {
    return Message("pmi", "pmix-call-failed", {{"call", "PMIx_server_setup_fork"}, {"rank", std::to_string(rank)},
                                               {"why", status_text(lib_, st)}});
  }
  for (char** v = vars; v != nullptr && *v != nullptr; ++v) {
    const std::string entry(*v);
    std::free(*v);
    const auto eq = entry.find('=');
    if (eq != std::string::npos) env.set(env.context, entry.substr(0, eq).c_str(), entry.substr(eq + 1).c_str());
  }
  std::free(vars);
  // Open MPI 4's launch detection (its schizo framework) otherwise makes
  // a rank of a job it did not start a singleton, which never reads the
  // PMIx server. Its shared-memory segments go in the job's directory,
  // which the daemon removes however the ranks end (in /dev/shm a killed
  // job's would stay, and simulated nodes of one host would share names).
  if (!placeholder_daemon_.empty()) {
    env.set(env.context, "OMPI_MCA_orte_local_daemon_uri", placeholder_daemon_.c_str());
    env.set(env.context, "OMPI_MCA_btl_vader_backing_directory", tmpdir_.c_str());
  }
  return {};
}

void PmixServer::started(std::uint32_t rank, bool ok) {
  if (!ok) ended(rank);
}

void PmixServer::ended(std::uint32_t rank) {
  // libpmix called client_finalized (which posted its event) before it
  // let the rank's PMIx_Finalize return: the event is queued by now, and
  // must count before the exit does, or a clean exit would read as one
  // before finalize.
  handoff_.drain();
  pmix_proc_t proc;
  PMIX_LOAD_PROCID(&proc, nspace_.c_str(), rank);
  lib_.PMIx_server_deregister_client(&proc, &ignore_result, nullptr);
}

void PmixServer::on_client(const pmix_proc_t* proc, orca_pmi_rank_event what) {
  const std::uint32_t rank = proc->rank;
  handoff_.post([this, rank, what] { host_.rank_event(host_.host, rank, what, 0, ""); });
}

pmix_status_t PmixServer::on_abort(const pmix_proc_t* proc, int status, const char* message, pmix_op_cbfunc_t cbfunc,
                                   void* cbdata) {
  const std::uint32_t rank = proc->rank;
  std::string text = message != nullptr ? message : "";
  handoff_.post([this, rank, status, text = std::move(text), cbfunc, cbdata] {
    host_.rank_event(host_.host, rank, ORCA_PMI_RANK_ABORTED, status, text.c_str());
    // The rank waits in PMIx_Abort until released; the job ends it anyway.
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, cbdata);
  });
  return PMIX_SUCCESS;
}

pmix_status_t PmixServer::on_fence(const pmix_proc_t procs[], size_t nprocs, const char* data, size_t ndata,
                                   pmix_modex_cbfunc_t cbfunc, void* cbdata) {
  // The job-wide fence (MPI_Init, MPI_Finalize) only: one entry, the
  // whole namespace. A fence of some ranks would need its own collective.
  if (nprocs != 1 || procs[0].rank != PMIX_RANK_WILDCARD || !PMIX_CHECK_NSPACE(procs[0].nspace, nspace_.c_str())) {
    return PMIX_ERR_NOT_SUPPORTED;
  }
  std::string blob(data != nullptr ? data : "", data != nullptr ? ndata : 0);
  handoff_.post([this, blob = std::move(blob), cbfunc, cbdata]() mutable {
    const std::uint64_t epoch = next_epoch_++;
    fences_[epoch] = Pending{cbfunc, cbdata};
    log(1, "fence " + std::to_string(epoch) + ": this node's ranks are in, " + std::to_string(blob.size()) + " bytes");
    Kvs part;
    part.emplace("node-" + std::to_string(node_), std::move(blob));  // the blob may be large: not copied
    const auto entries = entries_of(part);
    host_.contribute(host_.host, epoch, entries.data(), entries.size());
  });
  return PMIX_SUCCESS;
}

void PmixServer::release(std::uint64_t epoch, const Kvs& entries) {
  auto it = fences_.find(epoch);
  if (it == fences_.end()) return;
  const Pending pending = it->second;
  fences_.erase(it);
  // libpmix takes every server's blob, concatenated in any order.
  auto bytes = std::make_unique<std::string>();
  for (const auto& [key, value] : entries) bytes->append(value);
  const char* data = bytes->data();
  const size_t size = bytes->size();
  if (pending.cbfunc != nullptr) pending.cbfunc(PMIX_SUCCESS, data, size, pending.cbdata, &release_bytes, bytes.release());
}

pmix_status_t PmixServer::on_direct_modex(const pmix_proc_t* proc, pmix_modex_cbfunc_t cbfunc, void* cbdata) {
  if (!PMIX_CHECK_NSPACE(proc->nspace, nspace_.c_str())) return PMIX_ERR_NOT_FOUND;
  const std::uint32_t rank = proc->rank;
  handoff_.post([this, rank, cbfunc, cbdata] {
    if (rank >= rank_node_.size()) {
      cbfunc(PMIX_ERR_NOT_FOUND, nullptr, 0, cbdata, nullptr, nullptr);
      return;
    }
    const std::uint64_t id = next_request_++;
    requests_[id] = Pending{cbfunc, cbdata};
    log(1, "direct modex: rank " + std::to_string(rank) + "'s data asked of node " + std::to_string(rank_node_[rank]));
    const auto bytes = encode_direct(DirectRequest{.id = id, .rank = rank});
    host_.send(host_.host, rank_node_[rank], bytes.data(), bytes.size());
  });
  return PMIX_SUCCESS;
}

namespace {
struct DmodexAsk {
  std::uint32_t from_node = 0;
  std::uint64_t id = 0;
};
}  // namespace

void PmixServer::answer_request(std::uint32_t from_node, std::uint64_t id, std::uint32_t rank) {
  pmix_proc_t proc;
  PMIX_LOAD_PROCID(&proc, nspace_.c_str(), rank);
  auto ask = std::make_unique<DmodexAsk>(DmodexAsk{from_node, id});
  auto done = [](pmix_status_t status, char* data, size_t size, void* cbdata) {
    std::unique_ptr<DmodexAsk> a(static_cast<DmodexAsk*>(cbdata));
    PmixServer* s = g_live.load();
    if (s == nullptr) return;
    std::string blob(data != nullptr ? data : "", data != nullptr ? size : 0);
    s->handoff_.post([s, from = a->from_node, id = a->id, status, blob = std::move(blob)] {
      const auto bytes = encode_direct(DirectResponse{.id = id, .status = status, .blob = blob});
      s->host_.send(s->host_.host, from, bytes.data(), bytes.size());
    });
  };
  const pmix_status_t st = lib_.PMIx_server_dmodex_request(&proc, done, ask.get());
  if (st == PMIX_SUCCESS) {
    (void)ask.release();  // the callback owns it now
    return;
  }
  const auto bytes = encode_direct(DirectResponse{.id = id, .status = st, .blob = {}});
  host_.send(host_.host, from_node, bytes.data(), bytes.size());
}

void PmixServer::deliver(std::uint32_t node, std::span<const std::uint8_t> bytes) {
  auto message = decode_direct(bytes);
  if (!message) {
    log(1, "ignored malformed direct-modex bytes from node " + std::to_string(node));
    return;
  }
  if (auto* request = std::get_if<DirectRequest>(&*message)) {
    if (request->rank < rank_node_.size() && rank_node_[request->rank] == node_) {
      log(2, "direct modex: node " + std::to_string(node) + " asks for rank " + std::to_string(request->rank) + "'s data");
      answer_request(node, request->id, request->rank);
    } else {
      const auto reply = encode_direct(DirectResponse{.id = request->id, .status = PMIX_ERR_NOT_FOUND, .blob = {}});
      host_.send(host_.host, node, reply.data(), reply.size());
    }
    return;
  }
  auto& response = std::get<DirectResponse>(*message);
  auto it = requests_.find(response.id);
  if (it == requests_.end()) return;
  const Pending pending = it->second;
  requests_.erase(it);
  auto blob = std::make_unique<std::string>(std::move(response.blob));
  const char* data = blob->data();
  const size_t size = blob->size();
  if (response.status != PMIX_SUCCESS) {
    pending.cbfunc(response.status, nullptr, 0, pending.cbdata, nullptr, nullptr);
    return;
  }
  pending.cbfunc(PMIX_SUCCESS, data, size, pending.cbdata, &release_bytes, blob.release());
}

}  // namespace orca::pmi
