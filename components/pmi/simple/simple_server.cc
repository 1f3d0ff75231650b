// SimpleServer: socketpairs, reads and writes, and the node's barriers.
#include "simple_server.h"

#include <orca/message.h>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace orca::pmi {

struct SimpleServer::Connection {
  std::uint32_t rank = 0;
  UniqueFd ours;
  UniqueFd theirs;  // until the rank has started with it
  std::unique_ptr<IoWatch> reading;
  std::unique_ptr<IoWatch> writing;
  SimpleSession session;
  std::string unwritten;
  bool closing = false;  // write what is queued, then close
  explicit Connection(RankIdentity identity) : session(std::move(identity)) {}
};

namespace {
std::uint32_t ranks_on(const orca_pmi_job& job) {
  std::uint32_t n = 0;
  for (std::uint32_t r = 0; r < job.size; ++r) n += job.rank_node[r] == job.node ? 1 : 0;
  return n;
}
}  // namespace

SimpleServer::SimpleServer(const orca_pmi_host& host, const orca_pmi_job& job)
    : host_(host), loop_(host.base), size_(job.size), node_(job.node), name_(job.name),
      kvs_(ranks_on(job), DataBound::of(job)) {
  if (name_.empty() || name_.size() > kMaxKvsNameBytes) throw std::invalid_argument("the job's PMI name is empty or too long");
  rank_node_.assign(job.rank_node, job.rank_node + job.size);
  if (job.rank_app != nullptr) rank_app_.assign(job.rank_app, job.rank_app + job.size);
  mapping_ = process_mapping(rank_node_);
}

SimpleServer::~SimpleServer() = default;

void SimpleServer::log(int level, const std::string& text) {
  if (host_.log != nullptr) host_.log(host_.host, level, ("pmi/simple: " + text).c_str());
}

void SimpleServer::event(std::uint32_t rank, orca_pmi_rank_event what, int status, const std::string& text) {
  host_.rank_event(host_.host, rank, what, status, text.c_str());
}

Status SimpleServer::prepare(std::uint32_t rank, const orca_pmi_environment& env, int* inherit) {
  if (rank >= size_ || rank_node_[rank] != node_ || ranks_.contains(rank)) {
    return Message("pmi", "not-local-rank", {{"rank", std::to_string(rank)}, {"node", std::to_string(node_)}});
  }
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    return Message("pmi", "socketpair-failed", {{"rank", std::to_string(rank)}, {"why", std::strerror(errno)}});
  }
  auto c = std::make_unique<Connection>(RankIdentity{.rank = static_cast<int>(rank),
                                                     .size = static_cast<int>(size_),
                                                     .appnum = rank < rank_app_.size() ? static_cast<int>(rank_app_[rank]) : 0,
                                                     .universe_size = static_cast<int>(size_),
                                                     .kvsname = name_,
                                                     .process_mapping = mapping_});
  c->rank = rank;
  c->ours.reset(fds[0]);
  c->theirs.reset(fds[1]);
  ::fcntl(fds[0], F_SETFL, ::fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  *inherit = fds[1];
  const std::string fd_text = std::to_string(fds[1]);
  env.set(env.context, "PMI_FD", fd_text.c_str());
  env.set(env.context, "PMI_RANK", std::to_string(rank).c_str());
  env.set(env.context, "PMI_SIZE", std::to_string(size_).c_str());
  Connection* raw = c.get();
  c->reading = std::make_unique<IoWatch>(loop_, fds[0], IoWatch::kRead, [this, raw](short) { readable(*raw); });
  c->writing = std::make_unique<IoWatch>(loop_, fds[0], IoWatch::kWrite, [this, raw](short) { writable(*raw); });
  ranks_[rank] = std::move(c);
  return {};
}

void SimpleServer::started(std::uint32_t rank, bool ok) {
  auto it = ranks_.find(rank);
  if (it == ranks_.end()) return;
  it->second->theirs.reset();
  if (!ok) {
    ranks_.erase(it);
    // Barriers the other ranks entered already no longer wait for it.
    for (const NodeKvs::Part& part : kvs_.leave()) contribute(part);
    return;
  }
  it->second->reading->enable();
}

void SimpleServer::ended(std::uint32_t rank) {
  auto it = ranks_.find(rank);
  if (it == ranks_.end()) return;
  // What the rank wrote last (an abort) may still be unread.
  if (!it->second->closing && it->second->ours.valid()) readable(*it->second);
  // Its own destructor may run inside its own callback's stack no more:
  // ended() comes from the daemon, never from this connection's watch.
  ranks_.erase(rank);
}

void SimpleServer::readable(Connection& c) {
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(c.ours.get(), buf, sizeof buf);
    if (n > 0) {
      c.session.receive(std::string_view(buf, static_cast<size_t>(n)));
      after_input(c);
      if (c.closing || static_cast<size_t>(n) < sizeof buf) return;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    // End of stream (or an error): the rank closed PMI_FD or died. Its
    // exit tells the daemon the rest.
    c.reading->disable();
    c.writing->disable();
    c.closing = true;
    return;
  }
}

void SimpleServer::after_input(Connection& c) {
  for (SessionEvent& e : c.session.take_events()) {
    if (std::holds_alternative<Initialized>(e)) {
      log(2, "rank " + std::to_string(c.rank) + " initialized (" +
                 (c.session.framing() == Framing::Pmi2 ? "PMI-2" : "PMI-1") + ")");
      event(c.rank, ORCA_PMI_RANK_INITIALIZED, 0, {});
    } else if (auto* b = std::get_if<BarrierEntered>(&e)) {
      const NodeKvs::Entered entered = kvs_.enter(b->epoch, c.rank, std::move(b->puts));
      if (const auto* part = std::get_if<NodeKvs::Part>(&entered)) {
        contribute(*part);
      } else if (const auto* over = std::get_if<NodeKvs::OverBound>(&entered)) {
        log(1, "barrier " + std::to_string(b->epoch) + ": rank " + std::to_string(c.rank) +
                   "'s puts would take the job's KVS past its bound");
        host_.over_bound(host_.host, over->rank, over->which, over->total);
      }
    } else if (auto* a = std::get_if<AbortRequested>(&e)) {
      event(c.rank, ORCA_PMI_RANK_ABORTED, a->exit_code, a->message);
    } else if (std::holds_alternative<Finalized>(e)) {
      event(c.rank, ORCA_PMI_RANK_FINALIZED, 0, {});
    } else if (auto* f = std::get_if<ProtocolFailed>(&e)) {
      c.closing = true;
      c.reading->disable();
      event(c.rank, ORCA_PMI_RANK_BROKE, 0, f->why.summary());
    }
  }
  flush(c);
}

void SimpleServer::contribute(const NodeKvs::Part& part) {
  log(1, "barrier " + std::to_string(part.epoch) + ": all " + std::to_string(kvs_.ranks()) + " ranks here are in, " +
             std::to_string(part.puts.size()) + " new keys");
  const auto entries = entries_of(part.puts);
  host_.contribute(host_.host, part.epoch, entries.data(), entries.size());
}

void SimpleServer::flush(Connection& c) {
  c.unwritten += c.session.take_output();
  while (!c.unwritten.empty()) {
    const ssize_t n = ::send(c.ours.get(), c.unwritten.data(), c.unwritten.size(), MSG_NOSIGNAL);
    if (n > 0) {
      c.unwritten.erase(0, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    // The rank is gone: nothing more to say to it.
    c.unwritten.clear();
    c.closing = true;
    break;
  }
  if (c.unwritten.size() > kMaxUnreadReply) {
    c.unwritten.clear();
    c.closing = true;
    event(c.rank, ORCA_PMI_RANK_BROKE, 0,
          "it left more than " + std::to_string(kMaxUnreadReply) + " bytes of replies unread on PMI_FD");
  }
  if (!c.unwritten.empty()) c.writing->enable();
  else c.writing->disable();
  if (c.closing && c.unwritten.empty()) close(c);
}

void SimpleServer::writable(Connection& c) { flush(c); }

void SimpleServer::close(Connection& c) {
  // The watches stay (disabled) until ended(): this may run inside one.
  c.reading->disable();
  c.writing->disable();
  ::shutdown(c.ours.get(), SHUT_RDWR);
}

void SimpleServer::release(std::uint64_t epoch, Kvs entries) {
  kvs_.release(std::move(entries));
  for (auto& [rank, c] : ranks_) {
    if (!c->session.in_barrier()) continue;
    if (Status st = c->session.barrier_done(kvs_.kvs()); !st) {
      log(1, "barrier " + std::to_string(epoch) + ": " + st.error().summary());
      continue;
    }
    flush(*c);
  }
}

}  // namespace orca::pmi
