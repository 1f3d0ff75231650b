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

TEST(PmiModuleGlue, OnlyAStateThatWarmsUpHasWarmUp) {
  WarmingState warming;
  PlainState plain;
  EXPECT_NE(nullptr, PmiModuleGlue<WarmingState>::table(&warming).warm_up);
  EXPECT_EQ(nullptr, PmiModuleGlue<PlainState>::table(&plain).warm_up);
}

TEST(PmiModuleGlue, JobStartTakesTheWarmedServer) {
  WarmingState s;
  const orca_pmi_module m = PmiModuleGlue<WarmingState>::table(&s);
  const orca_pmi_host host{};
  const orca_pmi_job job{};
  orca_mca_reason why{};
  ASSERT_EQ(ORCA_MCA_OK, m.warm_up(m.self, &host, &job, &why));
  const Server* warmed = s.warmed.get();
  ASSERT_EQ(ORCA_MCA_OK, m.job_start(m.self, &host, &job, &why));
  EXPECT_EQ(warmed, s.server.get());
  m.job_end(m.self);
  EXPECT_EQ(1, s.servers_ended);
}

// A daemon that gets no ranks: job_end ends what warm_up started.
TEST(PmiModuleGlue, JobEndEndsAWarmUpNoJobTook) {
  WarmingState s;
  const orca_pmi_module m = PmiModuleGlue<WarmingState>::table(&s);
  const orca_pmi_host host{};
  const orca_pmi_job job{};
  orca_mca_reason why{};
  ASSERT_EQ(ORCA_MCA_OK, m.warm_up(m.self, &host, &job, &why));
  m.job_end(m.self);
  EXPECT_EQ(nullptr, s.warmed);
  EXPECT_EQ(1, s.servers_ended);
}

TEST(PmiModuleGlue, AFailedWarmUpSaysWhyAndTheJobStillStarts) {
  WarmingState s;
  s.fail_warm_up = true;
  const orca_pmi_module m = PmiModuleGlue<WarmingState>::table(&s);
  const orca_pmi_host host{};
  const orca_pmi_job job{};
  orca_mca_reason why{};
  EXPECT_EQ(ORCA_MCA_FAILED, m.warm_up(m.self, &host, &job, &why));
  EXPECT_NE(std::string(why.text).find("no library here"), std::string::npos) << why.text;
  orca_mca_reason why_start{};
  EXPECT_EQ(ORCA_MCA_OK, m.job_start(m.self, &host, &job, &why_start));
  EXPECT_NE(nullptr, s.server);
  m.job_end(m.self);
}

}  // namespace
}  // namespace orca::pmi
