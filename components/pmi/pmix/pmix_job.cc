// PmixJob: one job's namespace in the daemon's PMIx server.
#include "pmix_job.h"

#include "direct_wire.h"
#include "pmix_info.h"

#include <orca/message.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <stdexcept>

namespace orca::pmi {

namespace {

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

}  // namespace

PmixJob::PmixJob(PmixServer& server, const orca_pmi_host& host, const orca_pmi_job& job)
    : server_(server),
      lib_(server.library()),
      host_(host),
      nspace_(job.name != nullptr ? job.name : ""),
      node_(job.node),
      tmpdir_(host_job_directory(host)) {  // its ranks' files live there only
  server_.ready();
  if (nspace_.empty() || nspace_.size() > PMIX_MAX_NSLEN) throw std::runtime_error("the job's PMI name does not fit a PMIx namespace");
  // Port 1 on loopback: nothing listens there, and no rank connects.
  if (server_.options().open_mpi_4) {
    placeholder_daemon_ = std::to_string(job.job & 0x7fffffffu) + "." + std::to_string(job.node + 1) + ";tcp://127.0.0.1:1";
  }
  layout_ = job_layout(job);
  rank_node_.assign(job.rank_node, job.rank_node + job.size);
  server_.attach(nspace_, *this);
  try {
    register_namespace(job);
  } catch (...) {
    server_.detach(nspace_);
    throw;
  }
  registered_ = true;
}

PmixJob::~PmixJob() {
  server_.detach(nspace_);
  // A job can end with a collective open (a rank of another node gone
  // before its fence, a peer's data asked of an aborted node): libpmix
  // keeps each tracker, and its clients' requests, until it is answered.
  if (!fences_.empty() || !requests_.empty()) {
    log(1, "the job ends with " + std::to_string(fences_.size()) + " fences and " + std::to_string(requests_.size()) +
               " direct-modex requests open: each answered unreachable");
  }
  for (auto* pending : {&fences_, &requests_}) {
    for (const auto& [id, p] : *pending) {
      if (p.cbfunc != nullptr) p.cbfunc(PMIX_ERR_UNREACH, nullptr, 0, p.cbdata, nullptr, nullptr);
    }
  }
  if (registered_) {
    const PmixServer::Retired r = server_.retire(nspace_, clients_, connected_);
    if (r.left > 0) {
      log(1, "the job ends with " + std::to_string(r.left) +
                 " connections to the PMIx server still half closed after " +
                 std::to_string(PmixServer::kRetireWait.count()) + " ms: deregistered all the same (a later "
                 "rank of this daemon may hang in PMIx_Init)");
    } else if (r.polls > 1) {
      log(2, "the job's half-closed PMIx connections were closed after " + std::to_string(r.polls) + " looks");
    }
  }
}

void PmixJob::log(int level, const std::string& text) {
  if (host_.log != nullptr) host_.log(host_.host, level, ("pmi/pmix: " + text).c_str());
}

void PmixJob::register_namespace(const orca_pmi_job& job) {
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
  if (server_.options().share_topology && server_.topology() != nullptr) {
    // Open MPI 4 reads the node's topology from here at MPI_Init; without
    // it every rank discovers it again, with every hwloc plugin (X11
    // displays probed, PCI walked): some 20 ms of CPU a rank here.
    char* xml = nullptr;
    int length = 0;
    if (lib_.hwloc_topology_export_xmlbuffer(server_.topology(), &xml, &length, 0) == 0) {
      const std::unique_ptr<char, std::function<void(char*)>> owner(
          xml, [this](char* x) { lib_.hwloc_free_xmlbuffer(server_.topology(), x); });
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

Status PmixJob::prepare(std::uint32_t rank, const orca_pmi_environment& env, int* inherit) {
  *inherit = -1;
  pmix_proc_t proc;
  PMIX_LOAD_PROCID(&proc, nspace_.c_str(), rank);
  OperationWait wait;
  pmix_status_t st = wait.wait(lib_.PMIx_server_register_client(&proc, ::getuid(), ::getgid(), nullptr, &OperationWait::done, &wait));
  if (st != PMIX_SUCCESS) {
    return Message("pmi", "pmix-call-failed", {{"call", "PMIx_server_register_client"}, {"rank", std::to_string(rank)},
                                               {"why", status_text(lib_, st)}});
  }
  clients_.push_back(rank);
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
    if (eq == std::string::npos) continue;
    if (entry.starts_with("PMIX_SERVER_URI")) server_.saw_uri(std::string_view(entry).substr(eq + 1));
    env.set(env.context, entry.substr(0, eq).c_str(), entry.substr(eq + 1).c_str());
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

void PmixJob::started(std::uint32_t rank, bool ok) {
  if (!ok) ended(rank);
}

void PmixJob::ended(std::uint32_t /*rank*/) {
  // libpmix called client_finalized (which posted its event) before it
  // let the rank's PMIx_Finalize return: the event is queued by now, and
  // must count before the exit does, or a clean exit would read as one
  // before finalize.
  server_.drain();
  // The rank is deregistered with its namespace at the job's end
  // (PmixServer::retire), not now: libpmix 4.2.2, told of a client whose
  // connection it has not yet seen close, closes that socket but leaves
  // its read event registered, and the next connection given the same
  // descriptor number is never read: that rank hangs in PMIx_Init (a DVM's
  // Open MPI jobs did, every few to twenty jobs here).
}

void PmixJob::on_client(std::uint32_t rank, orca_pmi_rank_event what) {
  if (what == ORCA_PMI_RANK_INITIALIZED) connected_ = true;
  host_.rank_event(host_.host, rank, what, 0, "");
}

void PmixJob::on_abort(std::uint32_t rank, int status, const std::string& text) {
  host_.rank_event(host_.host, rank, ORCA_PMI_RANK_ABORTED, status, text.c_str());
}

void PmixJob::on_fence(std::string blob, pmix_modex_cbfunc_t cbfunc, void* cbdata) {
  const std::uint64_t epoch = next_epoch_++;
  fences_[epoch] = Pending{cbfunc, cbdata};
  log(1, "fence " + std::to_string(epoch) + ": this node's ranks are in, " + std::to_string(blob.size()) + " bytes");
  Kvs part;
  part.emplace("node-" + std::to_string(node_), std::move(blob));  // the blob may be large: not copied
  const auto entries = entries_of(part);
  host_.contribute(host_.host, epoch, entries.data(), entries.size());
}

void PmixJob::release(std::uint64_t epoch, const Kvs& entries) {
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

void PmixJob::on_direct_modex(std::uint32_t rank, pmix_modex_cbfunc_t cbfunc, void* cbdata) {
  if (rank >= rank_node_.size()) {
    cbfunc(PMIX_ERR_NOT_FOUND, nullptr, 0, cbdata, nullptr, nullptr);
    return;
  }
  const std::uint64_t id = next_request_++;
  requests_[id] = Pending{cbfunc, cbdata};
  log(1, "direct modex: rank " + std::to_string(rank) + "'s data asked of node " + std::to_string(rank_node_[rank]));
  const auto bytes = encode_direct(DirectRequest{.id = id, .rank = rank});
  host_.send(host_.host, rank_node_[rank], bytes.data(), bytes.size());
}

namespace {
struct DmodexAsk {
  std::string nspace;
  std::uint32_t from_node = 0;
  std::uint64_t id = 0;
};
}  // namespace

void PmixJob::answer_request(std::uint32_t from_node, std::uint64_t id, std::uint32_t rank) {
  pmix_proc_t proc;
  PMIX_LOAD_PROCID(&proc, nspace_.c_str(), rank);
  auto ask = std::make_unique<DmodexAsk>(DmodexAsk{nspace_, from_node, id});
  // On libpmix's thread: to the job of that namespace, if it still runs.
  auto done = [](pmix_status_t status, char* data, size_t size, void* cbdata) {
    const std::unique_ptr<DmodexAsk> a(static_cast<DmodexAsk*>(cbdata));
    PmixServer* s = PmixServer::live();
    if (s == nullptr) return;
    s->answered(a->nspace, a->from_node, a->id, status, std::string(data != nullptr ? data : "", data != nullptr ? size : 0));
  };
  const pmix_status_t st = lib_.PMIx_server_dmodex_request(&proc, done, ask.get());
  if (st == PMIX_SUCCESS) {
    (void)ask.release();  // the callback owns it now
    return;
  }
  answered(from_node, id, st, {});
}

void PmixJob::answered(std::uint32_t to_node, std::uint64_t id, pmix_status_t status, const std::string& blob) {
  const auto bytes = encode_direct(DirectResponse{.id = id, .status = status, .blob = blob});
  host_.send(host_.host, to_node, bytes.data(), bytes.size());
}

void PmixJob::deliver(std::uint32_t node, std::span<const std::uint8_t> bytes) {
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
