// PmiHelper: a pmi module run in a forked helper process, as a DVM's
// daemon runs pmi/pmix. The module here is this test's own (plain C ABI,
// as a component's), run for real in the helper: what it sees and sends
// back crosses the process boundary.
#include "pmi/pmi_helper.h"

#include <orca/pmi_module_glue.h>

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace orca::pmi {
namespace {

// --- the module (runs in the helper) ---------------------------------------

class TestServer {
 public:
  explicit TestServer(const orca_pmi_host& host) : host_(host) {}
  Status prepare(std::uint32_t rank, const orca_pmi_environment& env, int* inherit) {
    env.set(env.context, "TEST_RANK", std::to_string(rank).c_str());
    env.set(env.context, "TEST_PID", std::to_string(::getpid()).c_str());
    if (rank == 2) *inherit = 0;  // a descriptor to inherit, which a helper cannot give
    return {};
  }
  void started(std::uint32_t, bool) {}
  // The rank's finalize, as libpmix's would come: sent while the module
  // handles the rank's end, so it must reach the daemon before rank_ended
  // returns there.
  void ended(std::uint32_t rank) { host_.rank_event(host_.host, rank, ORCA_PMI_RANK_FINALIZED, 0, ""); }
  void release(std::uint64_t epoch, const Kvs& entries) {
    if (entries.contains("grow")) {
      // What a library keeps after a job: 2 MB, touched, never freed.
      void* kept = std::malloc(2u << 20);
      std::memset(kept, 1, 2u << 20);
    }
    const auto view = entries_of(entries);
    host_.contribute(host_.host, epoch + 1, view.data(), view.size());
  }
  void deliver(std::uint32_t node, std::span<const std::uint8_t> bytes) {
    if (std::string(bytes.begin(), bytes.end()) == "hang up") {
      // The helper's channel (its descriptor 3) closed under it, the
      // helper itself stuck: as a wedged library would leave it.
      ::shutdown(3, SHUT_RDWR);
      ::sleep(30);
    }
    host_.send(host_.host, node + 1, bytes.data(), bytes.size());
    const std::string line = "delivered " + std::string(bytes.begin(), bytes.end());
    host_.log(host_.host, 1, line.c_str());
    const char* dir = host_.job_directory(host_.host, nullptr);
    host_.log(host_.host, 1, (std::string("directory ") + (dir != nullptr ? dir : "(none)")).c_str());
  }

 private:
  orca_pmi_host host_;
};

struct TestState {
  static constexpr bool kManyJobs = true;
  PmiJobs<TestServer> jobs;
  std::unique_ptr<TestServer> make_server(const orca_pmi_host& host, const orca_pmi_job& job) {
    if (std::strcmp(job.name, "refused") == 0) throw std::runtime_error("this job is refused");
    return std::make_unique<TestServer>(host);
  }
};

// A module as a component's open() makes it (the helper, a fork, runs
// its own copy).
struct TestModule {
  TestState state;
  orca_pmi_module table = PmiModuleGlue<TestState>::table(&state);
};

// --- the daemon's side -----------------------------------------------------

// What a job's host was told, in order.
struct HostRecord {
  std::vector<std::string> events;
  static HostRecord& of(void* host) { return *static_cast<HostRecord*>(host); }
  static void contribute(void* host, uint64_t epoch, const orca_pmi_entry* entries, size_t count) {
    std::string e = "contribute " + std::to_string(epoch);
    for (size_t i = 0; i < count; ++i) e += " " + std::string(entries[i].key, entries[i].key_length);
    of(host).events.push_back(e);
  }
  static void rank_event(void* host, uint32_t rank, orca_pmi_rank_event event, int, const char* text) {
    of(host).events.push_back("rank " + std::to_string(rank) + " event " + std::to_string(event) + " " + text);
  }
  static void send(void* host, uint32_t node, const uint8_t* bytes, size_t length) {
    of(host).events.push_back("send " + std::to_string(node) + " " +
                              std::string(reinterpret_cast<const char*>(bytes), length));
  }
  static void log(void* host, int, const char* text) { of(host).events.push_back(std::string("log ") + text); }
  static void over_bound(void*, uint32_t, orca_pmi_bound, uint64_t) {}
  static const char* job_directory(void*, orca_mca_reason*) { return "/tmp/the-jobs-directory"; }
};

struct JobUnderTest {
  HostRecord record;
  orca_pmi_host host{};
  std::vector<std::uint32_t> rank_node = {0, 1, 0};
  std::vector<std::uint32_t> local_rank = {0, 0, 1};
  std::vector<const char*> hosts = {"h1", "h2"};
  orca_pmi_job job{};
  void* served = nullptr;

  JobUnderTest(EventLoop& loop, const char* name) {
    host = orca_pmi_host{.host = &record,
                         .base = loop.base(),
                         .contribute = &HostRecord::contribute,
                         .rank_event = &HostRecord::rank_event,
                         .send = &HostRecord::send,
                         .log = &HostRecord::log,
                         .over_bound = &HostRecord::over_bound,
                         .job_directory = &HostRecord::job_directory};
    job = orca_pmi_job{.job = 5,
                       .name = name,
                       .size = 3,
                       .node = 0,
                       .node_count = 2,
                       .rank_node = rank_node.data(),
                       .local_rank = local_rank.data(),
                       .node_host = hosts.data(),
                       .max_keys = 0,
                       .max_bytes = 0,
                       .rank_app = nullptr,
                       .app_count = 1};
  }
  orca_mca_rc start(const orca_pmi_module& m, orca_mca_reason* why) { return m.job_start(m.self, &host, &job, &served, why); }
};

std::map<std::string, std::string> prepare(const orca_pmi_module& m, void* served, std::uint32_t rank, orca_mca_rc* rc,
                                           std::string* why) {
  std::map<std::string, std::string> env;
  struct Sink {
    std::map<std::string, std::string>* env;
    static void set(void* c, const char* n, const char* v) { (*static_cast<Sink*>(c)->env)[n] = v; }
  } sink{&env};
  const orca_pmi_environment e{.context = &sink, .set = &Sink::set};
  int inherit = 7;
  orca_mca_reason r{};
  *rc = m.rank_prepare(served, rank, &e, &inherit, &r);
  EXPECT_EQ(inherit, -1);
  *why = r.text;
  return env;
}

bool has(const std::vector<std::string>& events, const std::string& wanted) {
  for (const auto& e : events) {
    if (e.find(wanted) != std::string::npos) return true;
  }
  return false;
}

TEST(PmiHelper, AJobIsServedInTheHelperProcess) {
  EventLoop loop;
  TestModule module;
  PmiHelper helper(loop, module.table, {.component = "test", .growth_bytes = 64u << 20, .log = {}});
  const orca_pmi_module& m = *helper.module();
  JobUnderTest j(loop, "job-a");
  orca_mca_reason why{};
  ASSERT_EQ(j.start(m, &why), ORCA_MCA_OK) << why.text;
  ASSERT_GT(helper.pid(), 0);
  EXPECT_NE(helper.pid(), ::getpid());

  // Each of this node's ranks (0 and 2), prepared in the helper.
  orca_mca_rc rc{};
  std::string text;
  auto env = prepare(m, j.served, 0, &rc, &text);
  ASSERT_EQ(rc, ORCA_MCA_OK) << text;
  EXPECT_EQ(env["TEST_RANK"], "0");
  EXPECT_EQ(env["TEST_PID"], std::to_string(helper.pid()));
  (void)prepare(m, j.served, 1, &rc, &text);
  EXPECT_EQ(rc, ORCA_MCA_FAILED) << "rank 1 is node 1's";
  (void)prepare(m, j.served, 2, &rc, &text);
  EXPECT_EQ(rc, ORCA_MCA_FAILED);
  EXPECT_NE(text.find("pmi_base_helper"), std::string::npos) << text;

  // A rank's end: what the module sends of it is there when rank_ended returns.
  m.rank_ended(j.served, 0);
  ASSERT_FALSE(j.record.events.empty());
  EXPECT_EQ(j.record.events.back(), "rank 0 event " + std::to_string(ORCA_PMI_RANK_FINALIZED) + " ");

  // A release, a delivery and what they bring back, in order, on the loop.
  const std::string value("v\0w", 3);
  const orca_pmi_entry entry{.key = "k", .key_length = 1, .value = reinterpret_cast<const std::uint8_t*>(value.data()),
                             .value_length = value.size()};
  m.release(j.served, 4, &entry, 1);
  m.deliver(j.served, 1, reinterpret_cast<const std::uint8_t*>("xy"), 2);
  ASSERT_TRUE(loop.run_until([&] { return j.record.events.size() >= 5; }, std::chrono::seconds(10)));
  EXPECT_EQ(j.record.events[1], "contribute 5 k");
  EXPECT_EQ(j.record.events[2], "send 2 xy");
  EXPECT_EQ(j.record.events[3], "log delivered xy");
  EXPECT_EQ(j.record.events[4], "log directory /tmp/the-jobs-directory");
  m.job_end(j.served);

  // A job the module refuses: its reason, from the helper.
  JobUnderTest refused(loop, "refused");
  ASSERT_EQ(refused.start(m, &why), ORCA_MCA_FAILED);
  EXPECT_STREQ(why.text, "this job is refused");
  EXPECT_EQ(helper.starts(), 1u);
}

TEST(PmiHelper, AHelperLostEndsItsJobsAndTheNextJobGetsANewOne) {
  EventLoop loop;
  TestModule module;
  std::vector<std::string> lines;
  PmiHelper helper(loop, module.table,
                   {.component = "test", .growth_bytes = 64u << 20, .log = [&](int, const std::string& t) { lines.push_back(t); }});
  const orca_pmi_module& m = *helper.module();
  JobUnderTest j(loop, "job-b");
  orca_mca_reason why{};
  ASSERT_EQ(j.start(m, &why), ORCA_MCA_OK) << why.text;
  const pid_t first = helper.pid();
  ASSERT_EQ(::kill(first, SIGKILL), 0);
  ASSERT_TRUE(loop.run_until([&] { return has(j.record.events, "helper process"); }, std::chrono::seconds(10)));
  EXPECT_EQ(j.record.events.back(), "rank 0 event " + std::to_string(ORCA_PMI_RANK_SERVER_LOST) + " its helper process " +
                                        std::to_string(first) +
                                        " (orcad-pmi, pmi_base_helper) ended: it was killed by signal 9 (Killed)");
  // Calls for the lost job do nothing; its end is still taken.
  m.rank_ended(j.served, 0);
  m.job_end(j.served);

  JobUnderTest next(loop, "job-c");
  ASSERT_EQ(next.start(m, &why), ORCA_MCA_OK) << why.text;
  EXPECT_NE(helper.pid(), first);
  EXPECT_EQ(helper.starts(), 2u);
  m.job_end(next.served);
}

// A helper whose channel closed but which does not exit is killed after
// a while, and its jobs told so.
TEST(PmiHelper, AHelperThatHangsUpButStaysIsKilled) {
  EventLoop loop;
  TestModule module;
  PmiHelper helper(loop, module.table, {.component = "test", .growth_bytes = 64u << 20, .log = {}});
  const orca_pmi_module& m = *helper.module();
  JobUnderTest j(loop, "job-d");
  orca_mca_reason why{};
  ASSERT_EQ(j.start(m, &why), ORCA_MCA_OK) << why.text;
  const pid_t pid = helper.pid();
  m.deliver(j.served, 0, reinterpret_cast<const std::uint8_t*>("hang up"), 7);
  ASSERT_TRUE(loop.run_until([&] { return has(j.record.events, "helper process"); }, std::chrono::seconds(20)));
  EXPECT_TRUE(has(j.record.events, "its helper process " + std::to_string(pid) +
                                       " (orcad-pmi, pmi_base_helper) ended: it was killed by signal 9 (Killed) once "
                                       "its channel had closed ("))
      << j.record.events.back();
  m.job_end(j.served);
}

TEST(PmiHelper, AGrownHelperIsReplacedOnceNoJobUsesIt) {
  EventLoop loop;
  TestModule module;
  PmiHelper helper(loop, module.table, {.component = "test", .growth_bytes = 256u << 10, .log = {}});
  const orca_pmi_module& m = *helper.module();
  orca_mca_reason why{};
  auto run_job = [&](const char* name, bool grow, bool end) {
    auto j = std::make_unique<JobUnderTest>(loop, name);
    EXPECT_EQ(j->start(m, &why), ORCA_MCA_OK) << why.text;
    const orca_pmi_entry entry{.key = grow ? "grow" : "keep", .key_length = 4, .value = nullptr, .value_length = 0};
    m.release(j->served, 0, &entry, 1);
    EXPECT_TRUE(loop.run_until([&] { return !j->record.events.empty(); }, std::chrono::seconds(10)));
    if (end) m.job_end(j->served);
    return j;
  };
  (void)run_job("first", false, true);  // its memory after one job is the base
  const pid_t first = helper.pid();
  (void)run_job("small", false, true);
  EXPECT_EQ(helper.pid(), first) << "replaced without growing";

  // Grown while another job still runs: kept until that one ends.
  auto open = run_job("open", false, false);
  (void)run_job("grows", true, true);
  EXPECT_EQ(helper.pid(), first) << "replaced under a running job";
  m.job_end(open->served);
  EXPECT_NE(helper.pid(), first);
  EXPECT_EQ(helper.starts(), 2u);
  (void)run_job("after", false, true);  // the new helper serves
}

}  // namespace
}  // namespace orca::pmi
