// PmiModuleGlue: the C table of a pmi module, from a C++ server class; a
// State that can warm up gets warm_up in the table, and a warm-up that
// job_start never took is ended by job_end.
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
  std::unique_ptr<Server> server;
  void warm_up(const orca_pmi_host&, const orca_pmi_job&) {
    if (fail_warm_up) throw std::runtime_error("no library here");
    warmed = std::make_unique<Server>(&servers_ended);
  }
  void end_warm_up() { warmed.reset(); }
  std::unique_ptr<Server> make_server(const orca_pmi_host&, const orca_pmi_job&) {
    return warmed ? std::move(warmed) : std::make_unique<Server>(&servers_ended);
  }
};

// A module with nothing to do before the job.
struct PlainState {
  int servers_ended = 0;
  std::unique_ptr<Server> server;
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
  orca_mca_rc warm_up() { return m.warm_up(m.self, &host, &job, &why); }
  orca_mca_rc job_start() { return m.job_start(m.self, &host, &job, &why); }
  void job_end() { m.job_end(m.self); }
};

TEST(PmiModuleGlue, OnlyAStateThatWarmsUpHasWarmUp) {
  WarmingState warming;
  PlainState plain;
  EXPECT_NE(nullptr, PmiModuleGlue<WarmingState>::table(&warming).warm_up);
  EXPECT_EQ(nullptr, PmiModuleGlue<PlainState>::table(&plain).warm_up);
}

TEST(PmiModuleGlue, JobStartTakesTheWarmedServer) {
  WarmingModule w;
  ASSERT_EQ(ORCA_MCA_OK, w.warm_up());
  const Server* warmed = w.state.warmed.get();
  ASSERT_EQ(ORCA_MCA_OK, w.job_start());
  EXPECT_EQ(warmed, w.state.server.get());
  w.job_end();
  EXPECT_EQ(1, w.state.servers_ended);
}

// A daemon that gets no ranks: job_end ends what warm_up started.
TEST(PmiModuleGlue, JobEndEndsAWarmUpNoJobTook) {
  WarmingModule w;
  ASSERT_EQ(ORCA_MCA_OK, w.warm_up());
  w.job_end();
  EXPECT_EQ(nullptr, w.state.warmed);
  EXPECT_EQ(1, w.state.servers_ended);
}

TEST(PmiModuleGlue, AFailedWarmUpSaysWhyAndTheJobStillStarts) {
  WarmingModule w;
  w.state.fail_warm_up = true;
  EXPECT_EQ(ORCA_MCA_FAILED, w.warm_up());
  EXPECT_NE(std::string(w.why.text).find("no library here"), std::string::npos) << w.why.text;
  w.why = {};
  EXPECT_EQ(ORCA_MCA_OK, w.job_start());
  EXPECT_NE(nullptr, w.state.server);
  w.job_end();
}

}  // namespace
}  // namespace orca::pmi
