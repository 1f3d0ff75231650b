// SimpleServer: one job's ranks on one daemon, over real socketpairs and an
// event loop of the test's own. The test plays both sides: the daemon (the
// host callbacks, prepare / started / ended / release) and each rank's MPI
// library (PMI-1 lines and PMI-2 frames on the descriptor PMI_FD names).
#include "pmi/simple/simple_server.h"

#include "lib/result_assertions.h"

#include <orca/event_loop.h>
#include <orca/pmi.h>
#include <orca/unique_fd.h>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace orca::pmi {
namespace {

using namespace std::chrono_literals;
using orca::test::Succeeded;

constexpr auto kLimit = 3000ms;

/* The daemon's side of the C interface: what the server told it. */
struct TestHost {
  struct Contribution {
    std::uint64_t epoch = 0;
    Kvs entries;
  };
  struct RankEvent {
    std::uint32_t rank = 0;
    orca_pmi_rank_event what = ORCA_PMI_RANK_INITIALIZED;
    int status = 0;
    std::string text;
  };
  std::vector<Contribution> contributions;
  std::vector<RankEvent> events;
  std::vector<NodeKvs::OverBound> over_bound;  // what over_bound was called with
  std::vector<std::string> logs;
  std::size_t sends = 0;
  /* Called from contribute, after recording (a root daemon releases at once). */
  std::function<void(std::uint64_t, const Kvs&)> on_contribute;

  std::vector<RankEvent> events_of(std::uint32_t rank) const {
    std::vector<RankEvent> out;
    for (const auto& e : events) {
      if (e.rank == rank) out.push_back(e);
    }
    return out;
  }
  bool has_event(std::uint32_t rank, orca_pmi_rank_event what) const {
    for (const auto& e : events) {
      if (e.rank == rank && e.what == what) return true;
    }
    return false;
  }
};

TestHost& as_host(void* host) { return *static_cast<TestHost*>(host); }

void host_contribute(void* host, std::uint64_t epoch, const orca_pmi_entry* entries, size_t count) {
  TestHost& h = as_host(host);
  h.contributions.push_back({.epoch = epoch, .entries = kvs_of(entries, count)});
  if (h.on_contribute) h.on_contribute(epoch, h.contributions.back().entries);
}

void host_rank_event(void* host, std::uint32_t rank, orca_pmi_rank_event event, int status, const char* text) {
  as_host(host).events.push_back(
      {.rank = rank, .what = event, .status = status, .text = text != nullptr ? text : "<null>"});
}

void host_send(void* host, std::uint32_t, const std::uint8_t*, size_t) { ++as_host(host).sends; }

void host_log(void* host, int, const char* text) { as_host(host).logs.emplace_back(text); }

void host_over_bound(void* host, std::uint32_t rank, orca_pmi_bound which, std::uint64_t total) {
  as_host(host).over_bound.push_back({.rank = rank, .which = which, .total = total});
}

orca_pmi_host make_host(TestHost& h, EventLoop& loop) {
  return orca_pmi_host{.host = &h,
                       .base = loop.base(),
                       .contribute = &host_contribute,
                       .rank_event = &host_rank_event,
                       .send = &host_send,
                       .log = &host_log,
                       .over_bound = &host_over_bound};
}

/* A job as orca_pmi_job describes it, with storage for its arrays. */
struct TestJob {
  std::string name = "kvs_7_0";
  std::uint32_t node = 0;
  std::vector<std::uint32_t> rank_node;
  std::vector<std::uint32_t> local_rank;
  std::vector<std::string> hosts;
  std::vector<const char*> host_names;
  std::uint64_t max_keys = 0, max_bytes = 0;  // none

  explicit TestJob(std::vector<std::uint32_t> nodes, std::uint32_t this_node = 0)
      : node(this_node), rank_node(std::move(nodes)) {
    std::map<std::uint32_t, std::uint32_t> seen;
    std::uint32_t node_count = 0;
    for (std::uint32_t n : rank_node) {
      local_rank.push_back(seen[n]++);
      node_count = std::max(node_count, n + 1);
    }
    for (std::uint32_t n = 0; n < node_count; ++n) hosts.push_back("host" + std::to_string(n));
    for (const auto& h : hosts) host_names.push_back(h.c_str());
  }
  orca_pmi_job view() const {
    return orca_pmi_job{.job = 7,
                        .name = name.c_str(),
                        .size = static_cast<std::uint32_t>(rank_node.size()),
                        .node = node,
                        .node_count = static_cast<std::uint32_t>(hosts.size()),
                        .rank_node = rank_node.data(),
                        .local_rank = local_rank.data(),
                        .node_host = host_names.data(),
                        .max_keys = max_keys,
                        .max_bytes = max_bytes};
  }
};

/* A rank's environment as prepare() sets it. */
struct TestEnv {
  std::map<std::string, std::string> vars;
  orca_pmi_environment view() {
    return orca_pmi_environment{.context = this, .set = [](void* context, const char* name, const char* value) {
                                  static_cast<TestEnv*>(context)->vars[name] = value;
                                }};
  }
  std::string get(const std::string& name) const {
    auto it = vars.find(name);
    return it == vars.end() ? "<unset>" : it->second;
  }
};

/* One rank's end of PMI_FD, as its MPI library uses it. Reads run the
 * event loop (the server's side) until the reply is in or time is up. */
class Client {
 public:
  Client(EventLoop& loop, int fd) : loop_(loop), fd_(fd) {}

  int fd() const { return fd_.get(); }

  void send(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd_.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      ASSERT_GT(n, 0) << "send failed: " << std::strerror(errno);
      bytes.remove_prefix(static_cast<size_t>(n));
    }
  }
  void send_pmi2(const std::string& command, const Pairs& pairs = {}) {
    auto bytes = format(Framing::Pmi2, WireMessage{.command = command, .pairs = pairs});
    ASSERT_TRUE(Succeeded(bytes));
    send(bytes.value());
  }

  /* The next reply line (without its '\n'); nullopt on time-out or EOF. */
  std::optional<std::string> line() {
    loop_.run_until(
        [this] {
          pump();
          return buffer_.find('\n') != std::string::npos || eof_;
        },
        kLimit);
    const auto nl = buffer_.find('\n');
    if (nl == std::string::npos) return std::nullopt;
    std::string out = buffer_.substr(0, nl);
    buffer_.erase(0, nl + 1);
    return out;
  }

  /* The next PMI-2 reply; nullopt on time-out, EOF or a malformed frame. */
  std::optional<WireMessage> frame() {
    std::optional<std::size_t> length;
    const auto whole = [this, &length] {
      if (buffer_.size() < kPmi2LengthBytes) return false;
      if (!length) {
        std::size_t n = 0;
        for (const char c : std::string_view(buffer_).substr(0, kPmi2LengthBytes)) {
          if (c >= '0' && c <= '9') n = n * 10 + static_cast<std::size_t>(c - '0');
        }
        length = n;
      }
      return buffer_.size() >= kPmi2LengthBytes + *length;
    };
    loop_.run_until(
        [this, &whole] {
          pump();
          return whole() || eof_;
        },
        kLimit);
    if (!whole()) return std::nullopt;
    auto parsed = parse_pmi2_body(std::string_view(buffer_).substr(kPmi2LengthBytes, *length));
    buffer_.erase(0, kPmi2LengthBytes + *length);
    if (!parsed.ok()) {
      ADD_FAILURE() << parsed.error().summary();
      return std::nullopt;
    }
    return std::move(parsed).value();
  }

  /* Runs the loop for `time`; true when nothing arrived meanwhile. */
  bool quiet(std::chrono::milliseconds time = 100ms) {
    loop_.run_until(
        [this] {
          pump();
          return !buffer_.empty() || eof_;
        },
        time);
    return buffer_.empty() && !eof_;
  }

  /* Runs the loop until the server ends the connection: every byte before
   * it, or nullopt when it stays open. */
  std::optional<std::string> until_eof() {
    loop_.run_until(
        [this] {
          pump();
          return eof_;
        },
        kLimit);
    if (!eof_) return std::nullopt;
    return std::exchange(buffer_, {});
  }

  /* The rank exits (or closes PMI_FD). */
  void close() { fd_.reset(); }

 private:
  void pump() {
    if (!fd_.valid() || eof_) return;
    char buf[4096];
    for (;;) {
      const ssize_t n = ::recv(fd_.get(), buf, sizeof buf, MSG_DONTWAIT);
      if (n > 0) {
        buffer_.append(buf, static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      eof_ = true;  // 0, or an error (ECONNRESET): the server is gone
      return;
    }
  }

  EventLoop& loop_;
  UniqueFd fd_;
  std::string buffer_;
  bool eof_ = false;
};

std::string field(const WireMessage& m, std::string_view key) {
  const std::string* v = m.find(key);
  return v ? *v : std::string("<absent>");
}

/* A server for `job` on an event loop of its own, and the ranks it serves. */
class ServerTest : public ::testing::Test {
 protected:
  void start(std::vector<std::uint32_t> rank_node, std::uint32_t node = 0, std::uint64_t max_bytes = 0) {
    job_ = std::make_unique<TestJob>(std::move(rank_node), node);
    job_->max_bytes = max_bytes;
    host_view_ = make_host(host_, loop_);
    server_ = std::make_unique<SimpleServer>(host_view_, job_->view());
  }

  /* prepare + started for `rank`, checking the environment; the client
   * holds a copy of the descriptor, as the started rank would. */
  Client& rank(std::uint32_t r) {
    TestEnv env;
    int inherit = -1;
    const orca_pmi_environment view = env.view();
    const Status prepared = server_->prepare(r, view, &inherit);
    EXPECT_TRUE(Succeeded(prepared));
    EXPECT_GE(inherit, 0);
    EXPECT_EQ(env.get("PMI_FD"), std::to_string(inherit));
    EXPECT_EQ(env.get("PMI_RANK"), std::to_string(r));
    EXPECT_EQ(env.get("PMI_SIZE"), std::to_string(job_->rank_node.size()));
    const int mine = ::fcntl(inherit, F_DUPFD_CLOEXEC, 0);
    EXPECT_GE(mine, 0);
    server_->started(r, true);
    // The server's copy of the rank's end is closed once the rank has it.
    EXPECT_EQ(::fcntl(inherit, F_GETFD), -1);
    auto [it, fresh] = clients_.emplace(r, std::make_unique<Client>(loop_, mine));
    EXPECT_TRUE(fresh) << "rank " << r << " twice";
    return *it->second;
  }

  /* PMI-1 init, checked. */
  void init_pmi1(Client& c) {
    c.send("cmd=init pmi_version=1 pmi_subversion=1\n");
    EXPECT_EQ(c.line(), "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0");
  }

  /* Runs the loop until `n` contributions arrived (or time is up). */
  bool contributions(std::size_t n) {
    return loop_.run_until([this, n] { return host_.contributions.size() >= n; }, kLimit);
  }
  /* Runs the loop until the host has `what` for `rank`. */
  bool event(std::uint32_t rank, orca_pmi_rank_event what) {
    return loop_.run_until([this, rank, what] { return host_.has_event(rank, what); }, kLimit);
  }
  /* Runs the loop a while, long enough for bytes already sent to be read. */
  void settle() {
    loop_.run_until([] { return false; }, 100ms);
  }

  // Declaration order is destruction order reversed: the server (and its
  // watches) goes before the loop, the clients before the server.
  EventLoop loop_;
  TestHost host_;
  orca_pmi_host host_view_{};
  std::unique_ptr<TestJob> job_;
  std::unique_ptr<SimpleServer> server_;
  std::map<std::uint32_t, std::unique_ptr<Client>> clients_;

  void TearDown() override {
    clients_.clear();
    server_.reset();
  }
};

// The flood, small: rank 0's puts of each barrier are within the
// cap, and the job's KVS grows with each release until the next barrier's
// would pass the job's bound. The host hears which rank did it, and
// nothing of it is contributed.
TEST_F(ServerTest, ARankWhosePutsWouldPassTheJobsBoundIsReported) {
  start({0, 0}, 0, 100);
  Client& a = rank(0);
  Client& b = rank(1);
  init_pmi1(a);
  init_pmi1(b);
  const std::string value(37, 'v');  // 40 bytes with its key
  for (int e = 0; e < 3; ++e) {
    a.send("cmd=put kvsname=kvs_7_0 key=k" + std::to_string(e) + "_ value=" + value + "\n");
    EXPECT_EQ(a.line(), "cmd=put_result rc=0");
    a.send("cmd=barrier_in\n");
    b.send("cmd=barrier_in\n");
    if (e == 2) break;
    ASSERT_TRUE(contributions(static_cast<std::size_t>(e) + 1));
    server_->release(static_cast<std::uint64_t>(e), host_.contributions.back().entries);
    EXPECT_EQ(a.line(), "cmd=barrier_out rc=0");
    EXPECT_EQ(b.line(), "cmd=barrier_out rc=0");
  }
  // 2 x 40 bytes held: the third 40 would make 120.
  ASSERT_TRUE(loop_.run_until([this] { return !host_.over_bound.empty(); }, kLimit));
  settle();
  ASSERT_EQ(host_.over_bound.size(), 1u);
  EXPECT_EQ(host_.over_bound[0].rank, 0u);
  EXPECT_EQ(host_.over_bound[0].which, ORCA_PMI_BOUND_BYTES);
  EXPECT_EQ(host_.over_bound[0].total, 120u);
  EXPECT_EQ(host_.contributions.size(), 2u) << "the barrier past the bound is never contributed";
  EXPECT_TRUE(a.quiet(50ms)) << "rank 0 stays in its barrier until the job ends it";
}

TEST_F(ServerTest, Pmi1TwoLocalRanksThroughTwoBarriers) {
  start({0, 0});
  Client& a = rank(0);
  Client& b = rank(1);
  init_pmi1(a);
  a.send("cmd=get_maxes\n");
  EXPECT_EQ(a.line(), "cmd=maxes rc=0 kvsname_max=256 keylen_max=64 vallen_max=1024");
  a.send("cmd=get_my_kvsname\n");
  EXPECT_EQ(a.line(), "cmd=my_kvsname rc=0 kvsname=kvs_7_0");
  a.send("cmd=get kvsname=kvs_7_0 key=PMI_process_mapping\n");
  EXPECT_EQ(a.line(), "cmd=get_result rc=0 value=(vector,(0,1,2))");
  // A line in pieces is one message.
  b.send("cmd=init pmi_");
  EXPECT_TRUE(b.quiet(50ms));
  b.send("version=1 pmi_subversion=1\n");
  EXPECT_EQ(b.line(), "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0");
  a.send("cmd=put kvsname=kvs_7_0 key=bc-0 value=addr0\n");
  EXPECT_EQ(a.line(), "cmd=put_result rc=0");
  b.send("cmd=put kvsname=kvs_7_0 key=bc-1 value=addr1\n");
  EXPECT_EQ(b.line(), "cmd=put_result rc=0");

  a.send("cmd=barrier_in\n");
  EXPECT_TRUE(a.quiet());
  EXPECT_TRUE(host_.contributions.empty()) << "contributed before the second rank entered";
  b.send("cmd=barrier_in\n");
  ASSERT_TRUE(contributions(1));
  settle();
  ASSERT_EQ(host_.contributions.size(), 1u);
  EXPECT_EQ(host_.contributions[0].epoch, 0u);
  EXPECT_EQ(host_.contributions[0].entries, (Kvs{{"bc-0", "addr0"}, {"bc-1", "addr1"}}));
  // Nobody is out before the release.
  EXPECT_TRUE(a.quiet(50ms));
  EXPECT_TRUE(b.quiet(50ms));

  server_->release(0, Kvs{{"bc-0", "addr0"}, {"bc-1", "addr1"}, {"bc-9", "remote9"}});
  EXPECT_EQ(a.line(), "cmd=barrier_out rc=0");
  EXPECT_EQ(b.line(), "cmd=barrier_out rc=0");
  a.send("cmd=get kvsname=kvs_7_0 key=bc-1\n");
  EXPECT_EQ(a.line(), "cmd=get_result rc=0 value=addr1");
  a.send("cmd=get kvsname=kvs_7_0 key=bc-9\n");
  EXPECT_EQ(a.line(), "cmd=get_result rc=0 value=remote9");
  b.send("cmd=get kvsname=kvs_7_0 key=bc-0\n");
  EXPECT_EQ(b.line(), "cmd=get_result rc=0 value=addr0");

  // A second barrier without puts: epoch 1, nothing contributed, and the
  // KVS keeps what epoch 0 brought.
  a.send("cmd=barrier_in\n");
  b.send("cmd=barrier_in\n");
  ASSERT_TRUE(contributions(2));
  EXPECT_EQ(host_.contributions[1].epoch, 1u);
  EXPECT_TRUE(host_.contributions[1].entries.empty());
  server_->release(1, Kvs{});
  EXPECT_EQ(a.line(), "cmd=barrier_out rc=0");
  EXPECT_EQ(b.line(), "cmd=barrier_out rc=0");
  b.send("cmd=get kvsname=kvs_7_0 key=bc-9\n");
  EXPECT_EQ(b.line(), "cmd=get_result rc=0 value=remote9");
  b.send("cmd=get kvsname=kvs_7_0 key=bc-0\n");
  EXPECT_EQ(b.line(), "cmd=get_result rc=0 value=addr0");

  a.send("cmd=finalize\n");
  EXPECT_EQ(a.line(), "cmd=finalize_ack rc=0");
  b.send("cmd=finalize\n");
  EXPECT_EQ(b.line(), "cmd=finalize_ack rc=0");
  EXPECT_EQ(host_.contributions.size(), 2u);
  for (std::uint32_t r : {0u, 1u}) {
    const auto events = host_.events_of(r);
    ASSERT_EQ(events.size(), 2u) << "rank " << r;
    EXPECT_EQ(events[0].what, ORCA_PMI_RANK_INITIALIZED);
    EXPECT_EQ(events[1].what, ORCA_PMI_RANK_FINALIZED);
  }
  EXPECT_EQ(host_.sends, 0u);
}

TEST_F(ServerTest, Pmi2ConversationThroughAFence) {
  start({0, 0});
  Client& a = rank(0);
  Client& b = rank(1);
  for (Client* c : {&a, &b}) {
    c->send("cmd=init pmi_version=2 pmi_subversion=0\n");
    EXPECT_EQ(c->line(), "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0");
  }
  EXPECT_TRUE(host_.events.empty()) << "initialized before fullinit";
  a.send_pmi2("fullinit", {{"pmijobid", "kvs_7_0"}, {"pmirank", "0"}, {"threaded", "FALSE"}});
  auto init = a.frame();
  ASSERT_TRUE(init.has_value());
  EXPECT_EQ(init->command, "fullinit-response");
  EXPECT_EQ(field(*init, "rc"), "0");
  EXPECT_EQ(field(*init, "rank"), "0");
  EXPECT_EQ(field(*init, "size"), "2");
  EXPECT_TRUE(host_.has_event(0, ORCA_PMI_RANK_INITIALIZED));
  b.send_pmi2("fullinit", {{"pmirank", "1"}});
  auto init_b = b.frame();
  ASSERT_TRUE(init_b.has_value());
  EXPECT_EQ(field(*init_b, "rank"), "1");
  EXPECT_TRUE(host_.has_event(1, ORCA_PMI_RANK_INITIALIZED));

  a.send_pmi2("info-getjobattr", {{"key", "PMI_process_mapping"}});
  auto map = a.frame();
  ASSERT_TRUE(map.has_value());
  EXPECT_EQ(field(*map, "value"), "(vector,(0,1,2))");

  a.send_pmi2("kvs-put", {{"key", "bc;0"}, {"value", "v a;l"}});
  auto put = a.frame();
  ASSERT_TRUE(put.has_value());
  EXPECT_EQ(field(*put, "rc"), "0");
  b.send_pmi2("kvs-put", {{"key", "bc;1"}, {"value", "val1"}});
  ASSERT_TRUE(b.frame().has_value());
  a.send_pmi2("kvs-fence");
  EXPECT_TRUE(a.quiet());
  EXPECT_TRUE(host_.contributions.empty());
  b.send_pmi2("kvs-fence");
  ASSERT_TRUE(contributions(1));
  EXPECT_EQ(host_.contributions[0].epoch, 0u);
  EXPECT_EQ(host_.contributions[0].entries, (Kvs{{"bc;0", "v a;l"}, {"bc;1", "val1"}}));

  server_->release(0, Kvs{{"bc;0", "v a;l"}, {"bc;1", "val1"}, {"bc;2", "far"}});
  for (Client* c : {&a, &b}) {
    auto released = c->frame();
    ASSERT_TRUE(released.has_value());
    EXPECT_EQ(released->command, "kvs-fence-response");
    EXPECT_EQ(field(*released, "rc"), "0");
  }
  b.send_pmi2("kvs-get", {{"jobid", "kvs_7_0"}, {"srcid", "0"}, {"key", "bc;0"}});
  auto got = b.frame();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(field(*got, "found"), "TRUE");
  EXPECT_EQ(field(*got, "value"), "v a;l");
  a.send_pmi2("kvs-get", {{"key", "bc;2"}});
  auto far = a.frame();
  ASSERT_TRUE(far.has_value());
  EXPECT_EQ(field(*far, "value"), "far");

  a.send_pmi2("finalize");
  auto fin = a.frame();
  ASSERT_TRUE(fin.has_value());
  EXPECT_EQ(fin->command, "finalize-response");
  EXPECT_TRUE(event(0, ORCA_PMI_RANK_FINALIZED));
  EXPECT_FALSE(host_.has_event(1, ORCA_PMI_RANK_FINALIZED));
}

/* A rank whose library speaks PMI-2 from its first byte (no PMI-1
 * handshake). */
TEST_F(ServerTest, Pmi2WithoutHandshake) {
  start({0});
  Client& a = rank(0);
  a.send_pmi2("fullinit", {{"pmirank", "0"}});
  auto init = a.frame();
  ASSERT_TRUE(init.has_value());
  EXPECT_EQ(field(*init, "rc"), "0");
  EXPECT_TRUE(host_.has_event(0, ORCA_PMI_RANK_INITIALIZED));
  // One local rank: its fence alone completes the node's part.
  a.send_pmi2("kvs-fence");
  ASSERT_TRUE(contributions(1));
  server_->release(0, Kvs{});
  auto out = a.frame();
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->command, "kvs-fence-response");
}

TEST_F(ServerTest, AbortIsARankEvent) {
  start({0, 0});
  Client& a = rank(0);
  rank(1);
  init_pmi1(a);
  a.send("cmd=abort exitcode=3 message=giving_up\n");
  ASSERT_TRUE(event(0, ORCA_PMI_RANK_ABORTED));
  const auto events = host_.events_of(0);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].what, ORCA_PMI_RANK_INITIALIZED);
  EXPECT_EQ(events[1].what, ORCA_PMI_RANK_ABORTED);
  EXPECT_EQ(events[1].status, 3);
  EXPECT_EQ(events[1].text, "giving_up");
  // No reply to an abort, and nothing for the other rank.
  EXPECT_TRUE(a.quiet(50ms));
  EXPECT_TRUE(host_.events_of(1).empty());
}

/* The rank writes its abort and exits at once: the daemon's ended() comes
 * before the loop got to read the socket, and still reports the abort. */
TEST_F(ServerTest, AnAbortWrittenJustBeforeTheRankEndedIsReported) {
  start({0, 0});
  Client& a = rank(0);
  init_pmi1(a);
  a.send("cmd=abort exitcode=5 message=last_words\n");
  a.close();
  server_->ended(0);
  ASSERT_TRUE(host_.has_event(0, ORCA_PMI_RANK_ABORTED));
  const auto events = host_.events_of(0);
  EXPECT_EQ(events.back().what, ORCA_PMI_RANK_ABORTED);
  EXPECT_EQ(events.back().status, 5);
  EXPECT_EQ(events.back().text, "last_words");
  settle();
  EXPECT_EQ(host_.events_of(0).size(), 2u);
  // Once ended, the rank is forgotten: a second ended() is harmless.
  server_->ended(0);
}

/* The same for a PMI-2 abort, written in the same write as the rank's
 * last other message. */
TEST_F(ServerTest, APmi2AbortJustBeforeTheEndIsReported) {
  start({0});
  Client& a = rank(0);
  a.send_pmi2("fullinit");
  ASSERT_TRUE(a.frame().has_value());
  auto bytes = format(Framing::Pmi2, WireMessage{.command = "abort", .pairs = {{"msg", "bye; now"}}});
  ASSERT_TRUE(Succeeded(bytes));
  a.send(bytes.value());
  a.close();
  server_->ended(0);
  ASSERT_TRUE(host_.has_event(0, ORCA_PMI_RANK_ABORTED));
  EXPECT_EQ(host_.events_of(0).back().text, "bye; now");
  EXPECT_EQ(host_.events_of(0).back().status, 1);
}

TEST_F(ServerTest, GarbageBreaksTheConnection) {
  start({0, 0});
  Client& a = rank(0);
  Client& b = rank(1);
  init_pmi1(a);
  a.send("hello, this is not PMI\n");
  ASSERT_TRUE(event(0, ORCA_PMI_RANK_BROKE));
  const auto events = host_.events_of(0);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].what, ORCA_PMI_RANK_BROKE);
  EXPECT_NE(events[1].text.find("wire-malformed"), std::string::npos) << events[1].text;
  // The rank reads a last error reply, then the end of the connection.
  auto rest = a.until_eof();
  ASSERT_TRUE(rest.has_value()) << "the connection stayed open";
  EXPECT_TRUE(rest->starts_with("cmd=error rc=-1 msg=malformed_message:")) << *rest;
  EXPECT_EQ(rest->find('\n'), rest->size() - 1) << *rest;
  // The other rank goes on.
  init_pmi1(b);
  EXPECT_FALSE(host_.has_event(1, ORCA_PMI_RANK_BROKE));
  server_->ended(0);
}

TEST_F(ServerTest, UnframablePmi2BreaksTheConnection) {
  start({0});
  Client& a = rank(0);
  a.send("12xx  cmd=fullinit;");
  ASSERT_TRUE(event(0, ORCA_PMI_RANK_BROKE));
  auto rest = a.until_eof();
  ASSERT_TRUE(rest.has_value());
  auto reply = parse_pmi2_body(std::string_view(*rest).substr(std::min(rest->size(), kPmi2LengthBytes)));
  ASSERT_TRUE(Succeeded(reply)) << *rest;
  EXPECT_EQ(reply->command, "error-response");
  EXPECT_EQ(field(reply.value(), "rc"), "-1");
}

TEST_F(ServerTest, PrepareRefusesARankOutsideTheJob) {
  start({0, 0});
  for (const std::uint32_t r : {2u, 3u, 0xffffffffu}) {
    TestEnv env;
    int inherit = -1;
    const orca_pmi_environment view = env.view();
    const Status st = server_->prepare(r, view, &inherit);
    ASSERT_FALSE(st.ok()) << "rank " << r;
    EXPECT_EQ(st.error().area(), "pmi");
    EXPECT_EQ(st.error().arg("rank"), std::to_string(r));
    EXPECT_TRUE(env.vars.empty()) << "rank " << r;
  }
  // started / ended of an unknown rank do nothing.
  server_->started(5, true);
  server_->ended(5);
}

/* simple_server.h: prepare() errors for "not a rank of this node". */
TEST_F(ServerTest, PrepareRefusesARankOfAnotherNode) {
  start({0, 1, 0, 1}, 0);
  TestEnv env;
  int inherit = -1;
  const orca_pmi_environment view = env.view();
  const Status st = server_->prepare(1, view, &inherit);
  EXPECT_FALSE(st.ok()) << "rank 1 runs on node 1, this server is node 0's";
}

/* Ranks 0 and 2 of four are here (node 0), ranks 1 and 3 on node 1. */
TEST_F(ServerTest, OnlyTheLocalRanksMakeTheNodesPart) {
  start({0, 1, 0, 1}, 0);
  Client& r0 = rank(0);
  Client& r2 = rank(2);
  init_pmi1(r0);
  init_pmi1(r2);
  r2.send("cmd=get kvsname=kvs_7_0 key=PMI_process_mapping\n");
  EXPECT_EQ(r2.line(), "cmd=get_result rc=0 value=(vector,(0,2,1))");
  r2.send("cmd=get_universe_size\n");
  EXPECT_EQ(r2.line(), "cmd=universe_size rc=0 size=4");
  r0.send("cmd=put kvsname=kvs_7_0 key=bc-0 value=a0\ncmd=barrier_in\n");
  EXPECT_EQ(r0.line(), "cmd=put_result rc=0");
  EXPECT_TRUE(r0.quiet());
  EXPECT_TRUE(host_.contributions.empty());
  r2.send("cmd=put kvsname=kvs_7_0 key=bc-2 value=a2\ncmd=barrier_in\n");
  EXPECT_EQ(r2.line(), "cmd=put_result rc=0");
  ASSERT_TRUE(contributions(1));
  EXPECT_EQ(host_.contributions[0].entries, (Kvs{{"bc-0", "a0"}, {"bc-2", "a2"}}));
  // The whole job's data comes back: the remote ranks' keys too.
  server_->release(0, Kvs{{"bc-0", "a0"}, {"bc-1", "a1"}, {"bc-2", "a2"}, {"bc-3", "a3"}});
  EXPECT_EQ(r0.line(), "cmd=barrier_out rc=0");
  EXPECT_EQ(r2.line(), "cmd=barrier_out rc=0");
  r0.send("cmd=get kvsname=kvs_7_0 key=bc-3\n");
  EXPECT_EQ(r0.line(), "cmd=get_result rc=0 value=a3");
}

/* A root daemon (the whole job on one node) may release from inside
 * contribute: the server is re-entered from its own read callback. */
TEST_F(ServerTest, ReleaseFromInsideContribute) {
  start({0, 0, 0});
  host_.on_contribute = [this](std::uint64_t epoch, const Kvs& entries) { server_->release(epoch, entries); };
  std::vector<Client*> ranks;
  for (std::uint32_t r = 0; r < 3; ++r) ranks.push_back(&rank(r));
  for (std::uint32_t r = 0; r < 3; ++r) {
    init_pmi1(*ranks[r]);
    ranks[r]->send("cmd=put kvsname=kvs_7_0 key=k" + std::to_string(r) + " value=v" + std::to_string(r) + "\n");
    EXPECT_EQ(ranks[r]->line(), "cmd=put_result rc=0");
  }
  for (int epoch = 0; epoch < 2; ++epoch) {
    for (Client* c : ranks) c->send("cmd=barrier_in\n");
    for (Client* c : ranks) EXPECT_EQ(c->line(), "cmd=barrier_out rc=0") << "epoch " << epoch;
  }
  EXPECT_EQ(host_.contributions.size(), 2u);
  ranks[2]->send("cmd=get kvsname=kvs_7_0 key=k0\n");
  EXPECT_EQ(ranks[2]->line(), "cmd=get_result rc=0 value=v0");
}

/* Several messages in one write are all answered, in order. */
TEST_F(ServerTest, PipelinedRequests) {
  start({0});
  Client& a = rank(0);
  a.send("cmd=init pmi_version=1 pmi_subversion=1\ncmd=get_appnum\ncmd=get_universe_size\ncmd=get_my_kvsname\n");
  EXPECT_EQ(a.line(), "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0");
  EXPECT_EQ(a.line(), "cmd=appnum rc=0 appnum=0");
  EXPECT_EQ(a.line(), "cmd=universe_size rc=0 size=1");
  EXPECT_EQ(a.line(), "cmd=my_kvsname rc=0 kvsname=kvs_7_0");
}

/* A rank that closes PMI_FD without a word: no event (its exit tells the
 * daemon), and ended() afterwards is fine. */
TEST_F(ServerTest, ARankClosingItsConnection) {
  start({0, 0});
  Client& a = rank(0);
  init_pmi1(a);
  a.close();
  settle();
  ASSERT_EQ(host_.events_of(0).size(), 1u);
  EXPECT_EQ(host_.events_of(0)[0].what, ORCA_PMI_RANK_INITIALIZED);
  server_->ended(0);
  EXPECT_EQ(host_.events_of(0).size(), 1u);
}

/* A rank that could not be started: its connection is dropped (the end it
 * would have inherited reads EOF), and nothing is reported for it. */
TEST_F(ServerTest, ARankThatFailedToStartIsDropped) {
  start({0, 0});
  rank(0);
  TestEnv env;
  int inherit = -1;
  const orca_pmi_environment view = env.view();
  ASSERT_TRUE(Succeeded(server_->prepare(1, view, &inherit)));
  Client would_be(loop_, ::fcntl(inherit, F_DUPFD_CLOEXEC, 0));
  server_->started(1, false);
  EXPECT_EQ(::fcntl(inherit, F_GETFD), -1);
  EXPECT_TRUE(would_be.until_eof().has_value());
  server_->ended(1);
  EXPECT_TRUE(host_.events_of(1).empty());
}

/* A rank that never started takes no part in the node's barriers: the
 * ranks that did start are not kept waiting for it, whether it fails
 * before they enter or while they wait. */
TEST_F(ServerTest, ARankThatFailedToStartTakesNoPartInTheBarrier) {
  start({0, 0});
  Client& a = rank(0);
  TestEnv env;
  int inherit = -1;
  const orca_pmi_environment view = env.view();
  ASSERT_TRUE(Succeeded(server_->prepare(1, view, &inherit)));
  server_->started(1, false);
  init_pmi1(a);
  a.send("cmd=put kvsname=kvs_7_0 key=bc-0 value=a0\n");
  EXPECT_EQ(a.line(), "cmd=put_result rc=0");
  a.send("cmd=barrier_in\n");
  ASSERT_TRUE(contributions(1)) << "the barrier waits for the rank that never started";
  EXPECT_EQ(host_.contributions[0].entries, (Kvs{{"bc-0", "a0"}}));
  server_->release(0, host_.contributions[0].entries);
  EXPECT_EQ(a.line(), "cmd=barrier_out rc=0");
}

TEST_F(ServerTest, ARankThatFailsToStartWhileOthersWaitReleasesThem) {
  start({0, 0});
  Client& a = rank(0);
  TestEnv env;
  int inherit = -1;
  const orca_pmi_environment view = env.view();
  ASSERT_TRUE(Succeeded(server_->prepare(1, view, &inherit)));
  init_pmi1(a);
  a.send("cmd=barrier_in\n");
  settle();
  EXPECT_TRUE(host_.contributions.empty()) << "rank 1 may still start";
  server_->started(1, false);
  ASSERT_TRUE(contributions(1)) << "the barrier still waits for the rank that never started";
  server_->release(0, host_.contributions[0].entries);
  EXPECT_EQ(a.line(), "cmd=barrier_out rc=0");
}

/* A rank that asks and never reads its replies: once more than
 * kMaxUnreadReply bytes wait for it, its connection ends (BROKE). */
TEST_F(ServerTest, ARankThatNeverReadsItsRepliesIsCutOff) {
  start({0});
  Client& a = rank(0);
  init_pmi1(a);
  const std::string value(1000, 'v');
  a.send("cmd=put kvsname=kvs_7_0 key=big value=" + value + "\n");
  EXPECT_EQ(a.line(), "cmd=put_result rc=0");
  // Each get (31 bytes) asks for a reply of over 1000; write them without
  // blocking while the loop serves them, never reading.
  const std::string get = "cmd=get kvsname=kvs_7_0 key=big\n";
  std::string pending;
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (!host_.has_event(0, ORCA_PMI_RANK_BROKE) && std::chrono::steady_clock::now() < deadline) {
    while (pending.size() < 64 * 1024) pending += get;
    const ssize_t n = ::send(a.fd(), pending.data(), pending.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) pending.erase(0, static_cast<size_t>(n));
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) break;
    loop_.run_until([] { return false; }, 1ms);
  }
  ASSERT_TRUE(host_.has_event(0, ORCA_PMI_RANK_BROKE));
  EXPECT_NE(host_.events_of(0).back().text.find("unread"), std::string::npos) << host_.events_of(0).back().text;
  server_->ended(0);
}

TEST(SimpleServer, RefusesAnEmptyOrOverlongJobName) {
  EventLoop loop;
  TestHost host;
  const orca_pmi_host view = make_host(host, loop);
  TestJob job({0});
  job.name = "";
  EXPECT_THROW(SimpleServer(view, job.view()), std::invalid_argument);
  job.name = std::string(kMaxKvsNameBytes + 1, 'n');
  EXPECT_THROW(SimpleServer(view, job.view()), std::invalid_argument);
  job.name = std::string(kMaxKvsNameBytes, 'n');
  EXPECT_NO_THROW(SimpleServer(view, job.view()));
}

}  // namespace
}  // namespace orca::pmi
