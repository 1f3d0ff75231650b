// PmiModuleGlue: the C table of a pmi module, from a C++ server class; a
// State that can warm up gets warm_up and warm_end in the table, and a
// warm-up that job_start never took is ended by warm_end; each job has its
// own handle, and only a State that says so serves several at once.
#include <orca/pmi_module_glue.h>

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace orca::pmi {
namespace {

struct Server {
  explicit Server(int* ended) : ended_(ended) {}
  ~Server() { ++*ended_; }
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;
  Status prepare(std::uint32_t, const orca_pmi_environment&, int*) { return {}; }
  void started(std::uint32_t, bool) {}
  void ended(std::uint32_t) {}
  void release(std::uint64_t, const Kvs&) {}
  void deliver(std::uint32_t, std::span<const std::uint8_t>) {}
  int* ended_;
};

// A module that starts its library before the job.
struct WarmingState {
  int servers_ended = 0;
  bool fail_warm_up = false;
  std::unique_ptr<Server> warmed;
  PmiJobs<Server> jobs;
  void warm_up(const orca_pmi_host&, const orca_pmi_job&) {
    if (fail_warm_up) throw std::runtime_error("no library here");
    warmed = std::make_unique<Server>(&servers_ended);
  }
  void end_warm_up() { warmed.reset(); }
  std::unique_ptr<Server> make_server(const orca_pmi_host&, const orca_pmi_job&) {
    return warmed ? std::move(warmed) : std::make_unique<Server>(&servers_ended);
  }
};

// A module with nothing to do before the job, whose servers may serve
// several jobs of a daemon at once.
struct PlainState {
  static constexpr bool kManyJobs = true;
  int servers_ended = 0;
  PmiJobs<Server> jobs;
  std::unique_ptr<Server> make_server(const orca_pmi_host&, const orca_pmi_job&) {
    return std::make_unique<Server>(&servers_ended);
  }
};

// The table of a WarmingState, and what its calls are given.
struct WarmingModule {
  WarmingState state;
  orca_pmi_module m = PmiModuleGlue<WarmingState>::table(&state);
  orca_pmi_host host{};
  orca_pmi_job job{};
  orca_mca_reason why{};
  void* served = nullptr;
  orca_mca_rc warm_up() { return m.warm_up(m.self, &host, &job, &why); }
  orca_mca_rc job_start() { return m.job_start(m.self, &host, &job, &served, &why); }
  void job_end() { m.job_end(served); }
  const Server* server() const { return PmiJobs<Server>::server_of(served); }
};

TEST(PmiModuleGlue, OnlyAStateThatWarmsUpHasWarmUp) {
  WarmingState warming;
  PlainState plain;
  EXPECT_NE(nullptr, PmiModuleGlue<WarmingState>::table(&warming).warm_up);
  EXPECT_NE(nullptr, PmiModuleGlue<WarmingState>::table(&warming).warm_end);
  EXPECT_EQ(nullptr, PmiModuleGlue<PlainState>::table(&plain).warm_up);
  EXPECT_EQ(nullptr, PmiModuleGlue<PlainState>::table(&plain).warm_end);
}

TEST(PmiModuleGlue, ManyJobsOnlyWhenTheStateSaysSo) {
  WarmingState warming;
  PlainState plain;
  EXPECT_EQ(0, PmiModuleGlue<WarmingState>::table(&warming).many_jobs);
  EXPECT_EQ(1, PmiModuleGlue<PlainState>::table(&plain).many_jobs);
}

TEST(PmiModuleGlue, JobStartTakesTheWarmedServer) {
  WarmingModule w;
  ASSERT_EQ(ORCA_MCA_OK, w.warm_up());
  const Server* warmed = w.state.warmed.get();
  ASSERT_EQ(ORCA_MCA_OK, w.job_start());
  EXPECT_EQ(warmed, w.server());
  w.m.warm_end(w.m.self);  // harmless once a job took it
  EXPECT_EQ(0, w.state.servers_ended);
  w.job_end();
  EXPECT_EQ(1, w.state.servers_ended);
  EXPECT_TRUE(w.state.jobs.empty());
}

// A daemon that gets no ranks: warm_end ends what warm_up started.
TEST(PmiModuleGlue, WarmEndEndsAWarmUpNoJobTook) {
  WarmingModule w;
  ASSERT_EQ(ORCA_MCA_OK, w.warm_up());
  w.m.warm_end(w.m.self);
  EXPECT_EQ(nullptr, w.state.warmed);
  EXPECT_EQ(1, w.state.servers_ended);
}

// A module of one job at a time refuses a second before the first ends,
// saying why, and takes the next one after.
TEST(PmiModuleGlue, OneJobAtATimeRefusesASecondUntilTheFirstEnds) {
  WarmingModule w;
  ASSERT_EQ(ORCA_MCA_OK, w.job_start());
  void* first = w.served;
  w.job.job = 7;
  EXPECT_EQ(ORCA_MCA_FAILED, w.job_start());
  EXPECT_EQ(nullptr, w.served);
  EXPECT_NE(std::string(w.why.text).find("one job at a time"), std::string::npos) << w.why.text;
  EXPECT_EQ(1u, w.state.jobs.size());
  w.m.job_end(first);
  EXPECT_EQ(ORCA_MCA_OK, w.job_start());
  w.job_end();
  EXPECT_EQ(2, w.state.servers_ended);
}

// Each job its own server, reached through its own handle; ending one
// leaves the other serving.
TEST(PmiModuleGlue, SeveralJobsEachTheirOwnServer) {
  PlainState state;
  const orca_pmi_module m = PmiModuleGlue<PlainState>::table(&state);
  orca_pmi_host host{};
  orca_pmi_job job{};
  orca_mca_reason why{};
  void* a = nullptr;
  void* b = nullptr;
  ASSERT_EQ(ORCA_MCA_OK, m.job_start(m.self, &host, &job, &a, &why));
  ASSERT_EQ(ORCA_MCA_OK, m.job_start(m.self, &host, &job, &b, &why));
  ASSERT_NE(a, b);
  EXPECT_NE(PmiJobs<Server>::server_of(a), PmiJobs<Server>::server_of(b));
  m.job_end(a);
  EXPECT_EQ(1, state.servers_ended);
  EXPECT_EQ(1u, state.jobs.size());
  const orca_pmi_environment env{};
  int inherit = 5;
  EXPECT_EQ(ORCA_MCA_OK, m.rank_prepare(b, 0, &env, &inherit, &why));
  EXPECT_EQ(-1, inherit);
  m.job_end(b);
  EXPECT_EQ(2, state.servers_ended);
}

TEST(PmiModuleGlue, APrepareWithoutAJobSaysSo) {
  PlainState state;
  const orca_pmi_module m = PmiModuleGlue<PlainState>::table(&state);
  const orca_pmi_environment env{};
  orca_mca_reason why{};
  int inherit = 0;
  EXPECT_EQ(ORCA_MCA_FAILED, m.rank_prepare(nullptr, 0, &env, &inherit, &why));
  EXPECT_STREQ("no job was started", why.text);
}

TEST(PmiModuleGlue, AFailedWarmUpSaysWhyAndTheJobStillStarts) {
  WarmingModule w;
  w.state.fail_warm_up = true;
  EXPECT_EQ(ORCA_MCA_FAILED, w.warm_up());
  EXPECT_NE(std::string(w.why.text).find("no library here"), std::string::npos) << w.why.text;
  w.why = {};
  EXPECT_EQ(ORCA_MCA_OK, w.job_start());
  EXPECT_NE(nullptr, w.server());
  w.job_end();
}

}  // namespace
}  // namespace orca::pmi
