// The launcher's wire messages: every kind round-trips, and every
// truncation, lying length, unknown kind or trailing byte is an error
// value naming the field, never a crash or a large allocation.
#include "launch/launch_wire.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace orca::launch {
namespace {

std::vector<WireMessage> samples() {
  Bootstrap b;
  b.job = 7;
  b.vpid = 3;
  b.daemons = 3;
  b.parent = 1;
  b.parent_uri = "7.1;host=abc;tcp=10.0.0.1/24/veth/5000";
  b.secret = std::vector<std::uint8_t>(32, 0xab);
  b.settings = "orca-settings 1\noob_tcp_if_include command-line 0 0 % eth0,%20eth1\n";
  b.hosts = {"h1", "h2", "h3"};
  b.daemon_command = {"/opt/orca/bin/orcad"};
  b.flags = kBootstrapTreeSpawn | kBootstrapReportTopology;
  b.launched_at_us = 0x0123456789abcdefULL;
  b.unused_components = {"pmi/pmix"};
  b.working_directory = "/scratch/run 1";
  DaemonReport r;
  r.vpid = 3;
  r.hostname = "h3";
  r.host_identity = "boot:ns";
  r.contact_uri = "7.3;host=x";
  r.route = "tcp: 10.0.0.3:40112 -> 10.0.0.1:5000";
  r.notes = {"eth0 10.0.0.3/24 veth", "", std::string("nul\0inside", 10)};
  r.startup_us = {1200, 80, 5100, 900, 2100, 400};
  r.addresses = {"10.0.0.3/24 veth", "fd00::3/64 bridge"};
  r.cpus = "0.0.0.0 1.0.0.0 2.1.0.0";
  r.cpus_error = "";
  LaunchCommand l;
  l.apps = {{.first_rank = 0, .argv = {"sh", "-c", "echo 'a b'; exit 3"}, .environment = {}, .directory = "/home/user/run 1",
             .directory_given = true},
            {.first_rank = 2, .argv = {"./b"}, .environment = {"ONLY_B=1"}, .directory = ""}};
  l.environment = {"X=1", "EMPTY="};
  l.placements = {{0, 1, 0}, {1, 1, 1}, {2, 2, 0}};
  l.cpus = {"0-1", "2-3", ""};
  l.size = 3;
  l.stdin_target = kStdinAll;
  l.merge_stderr = true;
  l.pmi_left_out = {"pmix"};
  l.links = {{"boot:ns1", "eth1", "10.0.1.2", 24, false}, {"boot:ns2", "ens3", "fd00::2", 64, true}};
  l.families = {"ompi", "gloo"};
  l.master_address = "10.0.1.2";
  l.master_port = 29500;
  OutputChunk o;
  o.rank = 2;
  o.stream = Stream::Stderr;
  o.eof = true;
  o.partial = true;
  o.bytes = {'p', 'a', 'r', 't', 0, 0xff};
  ExitRecord e;
  e.rank = 2;
  e.wait_status = 9;  // killed by SIGKILL
  e.started = false;
  e.message = "exec failed: No such file or directory";
  Teardown t;
  t.signal = 15;
  t.reason = "SIGTERM from the user";
  SignalRanks s;
  s.signal = 2;
  StdinData in;
  in.eof = true;
  in.bytes = {'y', '\n', 0};
  StdinCredit c;
  c.bytes = 65536;
  DaemonFailure f;
  f.vpid = 9;
  f.host = "h9";
  f.message = "the agent for h9 exited with status 255, printing:\nssh: Could not resolve hostname h9";
  FenceData fd;
  fd.component = "simple";
  fd.epoch = 0x0102030405060708ULL;
  fd.from = 3;
  fd.ranks = 4;
  fd.entries = {{"bc-0", std::string("a\0b", 3)}, {std::string("k\0", 2), std::string("\0\0\xff", 3)}, {"", ""}};
  FenceRelease fr;
  fr.component = "pmix";
  fr.epoch = 2;
  fr.entries = {{"bc-0", "x"}, {"bc-1", std::string(1, '\0')}};
  RankAbort ra;
  ra.rank = 5;
  ra.status = 3;
  ra.broke = true;
  ra.message = "malformed message: a pair without '='";
  PmiDirect pd;
  pd.component = "pmix";
  pd.from = 1;
  pd.to = 2;
  pd.bytes = {0, 1, 0, 0xff};
  ExitRecord ei;
  ei.rank = 1;
  ei.wait_status = 0;
  ei.started = true;
  ei.message = "";
  ei.pmi = PmiProgress::Initialized;
  JobFailure jf;
  jf.vpid = 2;
  jf.area = "pmi";
  jf.topic = "job-data-bound";
  jf.args = {{"component", "pmix"}, {"total", "70000000"}, {"source", std::string("n\0", 2)}};
  OutputCredit oc;
  oc.bytes = 262144;
  HostDirectory hd;
  hd.hosts = {{"boot:ns1", "h1", {"10.0.1.2/24 physical"}}, {"boot:ns2", "h2", {}}};
  DataPlaneAnswer da;
  da.vpid = 4;
  da.interface = "eth1";
  da.address = "10.0.1.2";
  da.prefix_length = 24;
  da.rdma = true;
  da.port = 41000;
  da.reason = "reaches 3 of 3 other hosts";
  da.others = {"eth0 10.0.0.2/24: reaches 2 of 3 other hosts"};
  da.unreached = {"h4"};
  da.inherited = {"GLOO_SOCKET_IFNAME=eth0"};
  da.check_port = 41001;
  hd.mesh_check = true;
  MeshCheck mc;
  mc.targets = {{"boot:ns2", "h2", "10.0.1.3", 41001}};
  mc.concurrency = 8;
  mc.timeout_ms = 1500;
  MeshResult mr;
  mr.vpid = 4;
  mr.failures = {"h2 10.0.1.3:41001: timed out"};
  DaemonDone dd;
  dd.vpid = 63;
  // The last four stay the data-plane ones (the tests below count from the end).
  return {b, r, l, o, e, t, s, in, c, f, fd, fr, ra, pd, ei, jf, oc, dd, hd, da, mc, mr};
}

/* The indices of the pmi samples above. */
constexpr std::size_t kFenceDataSample = 10;
constexpr std::size_t kFenceReleaseSample = 11;
constexpr std::size_t kRankAbortSample = 12;
constexpr std::size_t kPmiDirectSample = 13;
constexpr std::size_t kExitInitializedSample = 14;
constexpr std::size_t kJobFailureSample = 15;

WireMessage round_trip(const WireMessage& m) {
  auto bytes = encode(m);
  EXPECT_TRUE(bytes.ok()) << kind_name(m) << ": " << bytes.error().summary();
  if (!bytes.ok()) return m;
  auto back = decode(bytes.value());
  EXPECT_TRUE(back.ok()) << kind_name(m) << ": " << back.error().summary();
  return back.ok() ? back.value() : m;
}

bool same_entries(const std::vector<KeyValue>& a, const std::vector<KeyValue>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].key != b[i].key || a[i].value != b[i].value) return false;
  }
  return true;
}

TEST(LaunchWire, EveryKindRoundTrips) {
  for (const WireMessage& m : samples()) {
    auto bytes = encode(m);
    ASSERT_TRUE(bytes.ok()) << kind_name(m) << ": " << bytes.error().summary();
    auto back = decode(bytes.value());
    ASSERT_TRUE(back.ok()) << kind_name(m) << ": " << back.error().summary();
    EXPECT_EQ(back->index(), m.index());
    auto again = encode(back.value());
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again.value(), bytes.value()) << kind_name(m);
  }
  // Spot-check fields survive, not just the bytes.
  auto l = decode(encode(samples()[2]).value()).value();
  const auto& cmd = std::get<LaunchCommand>(l);
  ASSERT_EQ(cmd.apps.size(), 2u);
  EXPECT_EQ(cmd.apps[0].argv[2], "echo 'a b'; exit 3");
  EXPECT_EQ(cmd.apps[1].environment, (std::vector<std::string>{"ONLY_B=1"}));
  EXPECT_EQ(app_of_rank(cmd.apps, 1), 0u);
  EXPECT_EQ(app_of_rank(cmd.apps, 2), 1u);
  EXPECT_EQ(app_of_rank(cmd.apps, 99), 1u);
  EXPECT_EQ(app_of_rank({}, 0), 0u);
  ASSERT_EQ(cmd.placements.size(), 3u);
  EXPECT_EQ(cmd.placements[2].daemon, 2u);
  EXPECT_EQ(cmd.cpus[1], "2-3");
  const WireMessage report_message = decode(encode(samples()[1]).value()).value();
  const auto& report = std::get<DaemonReport>(report_message);
  EXPECT_EQ(report.notes[2], std::string("nul\0inside", 10));
  EXPECT_EQ(cmd.apps[0].directory, "/home/user/run 1");
  EXPECT_EQ(cmd.stdin_target, kStdinAll);
  EXPECT_TRUE(cmd.merge_stderr);
  EXPECT_EQ(cmd.pmi_left_out, (std::vector<std::string>{"pmix"}));
  const WireMessage boot_message = decode(encode(samples()[0]).value()).value();
  const auto& boot = std::get<Bootstrap>(boot_message);
  EXPECT_EQ(boot.hosts, (std::vector<std::string>{"h1", "h2", "h3"}));
  EXPECT_EQ(boot.flags, kBootstrapTreeSpawn | kBootstrapReportTopology);
  EXPECT_EQ(boot.launched_at_us, 0x0123456789abcdefULL);
  EXPECT_EQ(boot.unused_components, (std::vector<std::string>{"pmi/pmix"}));
  EXPECT_EQ(boot.working_directory, "/scratch/run 1");
  EXPECT_EQ(report.startup_us, (std::vector<std::uint32_t>{1200, 80, 5100, 900, 2100, 400}));
  EXPECT_EQ(report.cpus, "0.0.0.0 1.0.0.0 2.1.0.0");
  const WireMessage chunk = decode(encode(samples()[3]).value()).value();
  EXPECT_TRUE(std::get<OutputChunk>(chunk).partial);
  const WireMessage failure = decode(encode(samples()[9]).value()).value();
  EXPECT_EQ(std::get<DaemonFailure>(failure).host, "h9");
}

TEST(LaunchWire, DataPlaneFieldsSurvive) {
  const auto all = samples();
  const WireMessage l = decode(encode(all[2]).value()).value();
  const auto& cmd = std::get<LaunchCommand>(l);
  ASSERT_EQ(cmd.links.size(), 2u);
  EXPECT_EQ(cmd.links[1].interface, "ens3");
  EXPECT_EQ(cmd.links[1].prefix_length, 64u);
  EXPECT_TRUE(cmd.links[1].rdma);
  EXPECT_EQ(cmd.families, (std::vector<std::string>{"ompi", "gloo"}));
  EXPECT_EQ(cmd.master_port, 29500u);
  const WireMessage r = decode(encode(all[1]).value()).value();
  EXPECT_EQ(std::get<DaemonReport>(r).addresses[1], "fd00::3/64 bridge");
  const WireMessage d = decode(encode(all[all.size() - 4]).value()).value();
  EXPECT_EQ(std::get<HostDirectory>(d).hosts[0].addresses[0], "10.0.1.2/24 physical");
  EXPECT_TRUE(std::get<HostDirectory>(d).mesh_check);
  const WireMessage mc = decode(encode(all[all.size() - 2]).value()).value();
  EXPECT_EQ(std::get<MeshCheck>(mc).targets[0].port, 41001u);
  EXPECT_EQ(std::get<MeshCheck>(mc).timeout_ms, 1500u);
  const WireMessage mr = decode(encode(all.back()).value()).value();
  EXPECT_EQ(std::get<MeshResult>(mr).failures[0], "h2 10.0.1.3:41001: timed out");
  const WireMessage a = decode(encode(all[all.size() - 3]).value()).value();
  const auto& answer = std::get<DataPlaneAnswer>(a);
  EXPECT_EQ(answer.unreached, (std::vector<std::string>{"h4"}));
  EXPECT_EQ(answer.port, 41000u);
  EXPECT_TRUE(answer.rdma);
  EXPECT_EQ(answer.check_port, 41001u);
  EXPECT_STREQ(kind_name(a), "data-plane answer");
  const WireMessage dd = decode(encode(all[all.size() - 5]).value()).value();
  EXPECT_EQ(std::get<DaemonDone>(dd).vpid, 63u);
  EXPECT_STREQ(kind_name(dd), "daemon done");
}

// A DVM's controller and its clients (orcadvm status, stop).
TEST(LaunchWire, DvmMessagesRoundTrip) {
  DvmRequest request{.ask = static_cast<std::uint32_t>(DvmAsk::Stop), .client_uri = "tcp://10.0.0.1:4000"};
  const WireMessage rq = round_trip(request);
  EXPECT_EQ(std::get<DvmRequest>(rq).ask, 2u);
  EXPECT_EQ(std::get<DvmRequest>(rq).client_uri, "tcp://10.0.0.1:4000");
  EXPECT_STREQ(kind_name(rq), "dvm request");
  DvmState state{.pid = 4242, .uptime_ms = 0x1'0000'0001ULL, .hosts = {{"h1", 2, true}, {"h2", 4, false}},
                 .running = 3, .waiting = 1, .clients = 2, .stopping = true};
  const WireMessage st = round_trip(state);
  const auto& back = std::get<DvmState>(st);
  EXPECT_EQ(back.pid, 4242u);
  EXPECT_EQ(back.uptime_ms, 0x1'0000'0001ULL);
  ASSERT_EQ(back.hosts.size(), 2u);
  EXPECT_EQ(back.hosts[1].name, "h2");
  EXPECT_EQ(back.hosts[1].slots, 4u);
  EXPECT_FALSE(back.hosts[1].up);
  EXPECT_TRUE(back.hosts[0].up);
  EXPECT_EQ(back.running, 3u);
  EXPECT_EQ(back.waiting, 1u);
  EXPECT_EQ(back.clients, 2u);
  EXPECT_TRUE(back.stopping);
  // A client's contact is bounded: a lie about its length costs nothing.
  auto bytes = encode(request).value();
  bytes.resize(bytes.size() - 1);
  EXPECT_FALSE(decode(bytes).ok());
  request.client_uri.assign(5000, 'x');
  EXPECT_FALSE(encode(request).ok());
}

// orcarun --dvm: a submission, its job's state, and the job number every
// message of a job's life carries (0 in a standalone run).
TEST(LaunchWire, DvmJobMessagesRoundTrip) {
  DvmSubmit submit{.client_uri = "1.2;host=h;usock=@orca/c",
                   .apps = {{.first_rank = 0, .argv = {"./a", "x y"}, .environment = {}, .directory = "/tmp"},
                            {.first_rank = 0, .argv = {"./b"}, .environment = {"ROLE=b"}, .directory = "/w",
                             .directory_given = true}},
                   .app_processes = {2, 1},
                   .environment = {"A=1"},
                   .map_by = "node",
                   .per_node = 3,
                   .oversubscribe = true,
                   .wait = false,
                   .stdin_target = kStdinAll,
                   .merge_stderr = true,
                   .timeout_ms = 0x1'0000'0002ULL,
                   .pmi_left_out = {"pmix", "simple"},
                   .torch_master = true};
  const WireMessage sm = round_trip(submit);
  const auto& s = std::get<DvmSubmit>(sm);
  EXPECT_EQ(s.client_uri, submit.client_uri);
  ASSERT_EQ(s.apps.size(), 2u);
  EXPECT_EQ(s.apps[0].argv, (std::vector<std::string>{"./a", "x y"}));
  EXPECT_EQ(s.apps[1].environment, (std::vector<std::string>{"ROLE=b"}));
  EXPECT_TRUE(s.apps[1].directory_given);
  EXPECT_EQ(s.app_processes, (std::vector<std::uint32_t>{2, 1}));
  EXPECT_EQ(s.environment, (std::vector<std::string>{"A=1"}));
  EXPECT_EQ(s.map_by, "node");
  EXPECT_EQ(s.per_node, 3u);
  EXPECT_TRUE(s.oversubscribe);
  EXPECT_FALSE(s.wait);
  EXPECT_EQ(s.stdin_target, kStdinAll);
  EXPECT_TRUE(s.merge_stderr);
  EXPECT_EQ(s.timeout_ms, 0x1'0000'0002ULL);
  EXPECT_EQ(s.pmi_left_out, (std::vector<std::string>{"pmix", "simple"}));
  EXPECT_TRUE(s.torch_master);
  EXPECT_STREQ(kind_name(sm), "dvm submit");
  // The port for a DVM job's torch master, asked of its rank 0's daemon.
  const WireMessage ask = round_trip(MasterPortAsk{.job = 11, .near = "fd00::2"});
  EXPECT_EQ(std::get<MasterPortAsk>(ask).job, 11u);
  EXPECT_EQ(std::get<MasterPortAsk>(ask).near, "fd00::2");
  EXPECT_STREQ(kind_name(ask), "master port ask");
  const WireMessage port = round_trip(MasterPort{.job = 11, .vpid = 3, .port = 29500});
  EXPECT_EQ(std::get<MasterPort>(port).job, 11u);
  EXPECT_EQ(std::get<MasterPort>(port).vpid, 3u);
  EXPECT_EQ(std::get<MasterPort>(port).port, 29500u);
  EXPECT_STREQ(kind_name(port), "master port");
  EXPECT_EQ(job_of(port), 11u);
  const WireMessage js = round_trip(DvmJobState{.job = 9, .ranks = 4, .started = true, .ended = true, .exit_status = 130});
  EXPECT_EQ(std::get<DvmJobState>(js).job, 9u);
  EXPECT_EQ(std::get<DvmJobState>(js).ranks, 4u);
  EXPECT_TRUE(std::get<DvmJobState>(js).started);
  EXPECT_TRUE(std::get<DvmJobState>(js).ended);
  EXPECT_EQ(std::get<DvmJobState>(js).exit_status, 130);
  EXPECT_STREQ(kind_name(js), "dvm job state");
  // Every message of a job's life carries its number.
  EXPECT_EQ(std::get<OutputChunk>(round_trip(OutputChunk{.job = 7, .rank = 1})).job, 7u);
  EXPECT_EQ(std::get<ExitRecord>(round_trip(ExitRecord{.job = 8, .rank = 1})).job, 8u);
  EXPECT_EQ(std::get<LaunchCommand>(round_trip(LaunchCommand{.job = 3})).job, 3u);
  EXPECT_EQ(std::get<Teardown>(round_trip(Teardown{.job = 4})).job, 4u);
  EXPECT_EQ(std::get<SignalRanks>(round_trip(SignalRanks{.job = 5, .signal = 2})).job, 5u);
  EXPECT_EQ(std::get<FenceData>(round_trip(FenceData{.job = 6})).job, 6u);
  EXPECT_EQ(std::get<FenceRelease>(round_trip(FenceRelease{.job = 6})).job, 6u);
  EXPECT_EQ(std::get<PmiDirect>(round_trip(PmiDirect{.job = 6})).job, 6u);
  EXPECT_EQ(std::get<RankAbort>(round_trip(RankAbort{.job = 2})).job, 2u);
  EXPECT_EQ(std::get<JobFailure>(round_trip(JobFailure{.job = 2})).job, 2u);
  EXPECT_EQ(std::get<StdinData>(round_trip(StdinData{.job = 2})).job, 2u);
  EXPECT_EQ(std::get<StdinCredit>(round_trip(StdinCredit{.job = 2})).job, 2u);
  EXPECT_EQ(std::get<OutputCredit>(round_trip(OutputCredit{.job = 2})).job, 2u);
  EXPECT_EQ(std::get<DaemonDone>(round_trip(DaemonDone{.job = 2, .vpid = 1})).job, 2u);
}

// Well-formed but unusable: orcad would size its tree and index its hosts
// by these, so read_bootstrap refuses them, saying which.
TEST(LaunchWire, AnInconsistentBootstrapIsRefusedWhenRead) {
  const Bootstrap good = std::get<Bootstrap>(samples()[0]);
  const std::vector<std::pair<std::function<void(Bootstrap&)>, std::string>> cases = {
      {[](Bootstrap& b) { b.daemons = 0; b.hosts.clear(); }, "0 daemons"},
      {[](Bootstrap& b) { b.daemons = 4000000000u; }, "3 hosts for 4000000000 daemons"},
      // vpid 0 is one bootstrap for every daemon: only with parent 0.
      {[](Bootstrap& b) { b.vpid = 0; b.parent = 1; }, "parent 1 in a bootstrap for every daemon"},
      {[](Bootstrap& b) { b.vpid = 4; }, "vpid 4 outside 1..3"},
      {[](Bootstrap& b) { b.parent = 3; }, "parent 3 for vpid 3"},
      {[](Bootstrap& b) { b.parent = 9; }, "parent 9 for vpid 3"},
      {[](Bootstrap& b) { b.secret.resize(8); }, "a job secret of 8 bytes"},
  };
  for (const auto& [spoil, why] : cases) {
    Bootstrap b = good;
    spoil(b);
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const auto frame = bootstrap_frame(b).value();
    ASSERT_EQ(::write(fds[1], frame.data(), frame.size()), static_cast<ssize_t>(frame.size()));
    auto read = read_bootstrap(fds[0], 1000);
    ::close(fds[0]);
    ::close(fds[1]);
    ASSERT_FALSE(read.ok()) << why;
    EXPECT_NE(read.error().arg("why").find(why), std::string::npos) << read.error().summary();
  }
}

// Every field within its bound, the whole above what read_bootstrap takes:
// refused by the writer, naming the bound.
TEST(LaunchWire, ABootstrapAboveTheFrameBoundIsRefusedWhenFramed) {
  Bootstrap b = std::get<Bootstrap>(samples()[0]);
  b.settings.assign(kMaxBytes, 'x');
  b.hosts.assign(5, std::string(kMaxText, 'h'));
  auto frame = bootstrap_frame(b);
  ASSERT_FALSE(frame.ok());
  EXPECT_NE(frame.error().arg("why").find(std::to_string(kMaxBootstrap)), std::string::npos) << frame.error().summary();
}

TEST(LaunchWire, TheBootstrapFrameReadsBackFromAPipe) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const auto frame = bootstrap_frame(std::get<Bootstrap>(samples()[0])).value();
  ASSERT_EQ(::write(fds[1], frame.data(), frame.size()), static_cast<ssize_t>(frame.size()));
  auto back = read_bootstrap(fds[0], 1000);
  ASSERT_TRUE(back.ok()) << back.error().summary();
  EXPECT_EQ(back->hosts.size(), 3u);
  // A cut frame: the writer is gone before the end.
  ASSERT_EQ(::write(fds[1], frame.data(), frame.size() / 2), static_cast<ssize_t>(frame.size() / 2));
  ::close(fds[1]);
  auto cut = read_bootstrap(fds[0], 1000);
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().arg("why").find("ended"), std::string::npos) << cut.error().summary();
  ::close(fds[0]);
  // A writer that never writes: the time limit, not a hang.
  ASSERT_EQ(::pipe(fds), 0);
  auto silent = read_bootstrap(fds[0], 50);
  ASSERT_FALSE(silent.ok());
  EXPECT_NE(silent.error().arg("why").find("50 ms"), std::string::npos);
  ::close(fds[0]);
  ::close(fds[1]);
  // A length that is within the bound but lies: 16 MiB claimed, 10 bytes
  // sent. An error naming how much arrived, not a wait for the rest.
  ASSERT_EQ(::pipe(fds), 0);
  const std::uint8_t claims[] = {0x01, 0x00, 0x00, 0x00, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  ASSERT_EQ(::write(fds[1], claims, sizeof claims), static_cast<ssize_t>(sizeof claims));
  ::close(fds[1]);
  auto short_body = read_bootstrap(fds[0], 1000);
  ASSERT_FALSE(short_body.ok());
  EXPECT_NE(short_body.error().arg("why").find("after 10 of"), std::string::npos) << short_body.error().summary();
  ::close(fds[0]);
  // A lying length.
  ASSERT_EQ(::pipe(fds), 0);
  const std::uint8_t huge[] = {0xff, 0xff, 0xff, 0xff};
  ASSERT_EQ(::write(fds[1], huge, 4), 4);
  auto lie = read_bootstrap(fds[0], 1000);
  ASSERT_FALSE(lie.ok());
  ::close(fds[0]);
  ::close(fds[1]);
}

/* Writes all of `bytes` to `fd` (a pipe that holds them). */
void write_all(int fd, const std::vector<std::uint8_t>& bytes) {
  ASSERT_EQ(::write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
}

// vpid 0: one bootstrap for every daemon of a launcher that starts them
// all at once (plm/slurm's one srun step); each finds its own vpid.
TEST(LaunchWire, ABootstrapForEveryDaemonReadsBackFromAPipe) {
  Bootstrap sent = std::get<Bootstrap>(samples()[0]);
  sent.vpid = 0;
  sent.parent = 0;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  write_all(fds[1], bootstrap_frame(sent).value());
  auto back = read_bootstrap(fds[0], 1000);
  ::close(fds[0]);
  ::close(fds[1]);
  ASSERT_TRUE(back.ok()) << back.error().summary();
  EXPECT_EQ(back->vpid, 0u);
  EXPECT_EQ(back->parent, 0u);
  EXPECT_EQ(back->daemons, 3u);
  EXPECT_EQ(back->job, 7u);
  EXPECT_EQ(back->hosts, sent.hosts);
  EXPECT_EQ(back->secret, sent.secret);
  EXPECT_EQ(back->parent_uri, sent.parent_uri);
  EXPECT_EQ(back->settings, sent.settings);
  EXPECT_EQ(back->daemon_command, sent.daemon_command);
  EXPECT_EQ(back->flags, sent.flags);
}

TEST(LaunchWire, RanksPerDaemonCountsByVpid) {
  const std::vector<RankPlacement> placements = {
      {.rank = 0, .daemon = 2}, {.rank = 1, .daemon = 2}, {.rank = 2, .daemon = 1}, {.rank = 3, .daemon = 9}, {.rank = 4, .daemon = 0}};
  EXPECT_EQ(ranks_per_daemon(placements, 3), (std::vector<std::uint32_t>{0, 1, 2, 0}));
  EXPECT_EQ(ranks_per_daemon({}, 1), (std::vector<std::uint32_t>{0, 0}));
}

// The bootstrap as plm/slurm hands it over, in ORCA_BOOTSTRAP: the same
// frame in hex, read back whole.
TEST(LaunchWire, ABootstrapInTheEnvironmentReadsBack) {
  Bootstrap sent = std::get<Bootstrap>(samples()[0]);
  sent.vpid = 0;
  sent.parent = 0;
  const auto frame = bootstrap_frame(sent).value();
  const std::string text = bootstrap_text(frame);
  EXPECT_EQ(text.size(), 2 * frame.size());
  EXPECT_EQ(text.find_first_not_of("0123456789abcdef"), std::string::npos);
  auto back = parse_bootstrap_text(text);
  ASSERT_TRUE(back.ok()) << back.error().summary();
  EXPECT_EQ(back->secret, sent.secret);
  EXPECT_EQ(back->hosts, sent.hosts);
  EXPECT_EQ(back->settings, sent.settings);
  // Upper-case hex is hex too.
  std::string upper = text;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_TRUE(parse_bootstrap_text(upper).ok());
}

// What a variable of another program, a truncated copy or an edited one
// holds is refused, saying what is wrong with it.
TEST(LaunchWire, AMalformedBootstrapInTheEnvironmentIsRefused) {
  const std::string good = bootstrap_text(bootstrap_frame(std::get<Bootstrap>(samples()[0])).value());
  std::string not_hex = good;
  not_hex[20] = 'g';
  std::string longer_frame = good;
  longer_frame[7] = static_cast<char>(longer_frame[7] == '0' ? '1' : '0');  // the length's last digit
  const std::pair<std::string, std::string> cases[] = {
      {"", "no whole frame"},
      {"abc", "no whole frame"},
      {good.substr(0, good.size() - 2), "a frame of"},
      {good + "00", "a frame of"},
      {not_hex, "not a hex digit at 20"},
      {longer_frame, "a frame of"},
      {bootstrap_text(stdin_frame(samples()[1]).value()), "instead of a bootstrap"},
  };
  for (const auto& [text, why] : cases) {
    auto back = parse_bootstrap_text(text);
    ASSERT_FALSE(back.ok()) << why;
    EXPECT_NE(back.error().arg("why").find(why), std::string::npos) << back.error().arg("why");
    EXPECT_NE(back.error().arg("why").find("ORCA_BOOTSTRAP"), std::string::npos) << back.error().arg("why");
  }
}

// Every daemon finds its parent itself from its vpid: a bootstrap for
// every daemon that names one is refused.
TEST(LaunchWire, ABootstrapForEveryDaemonWithAParentIsRefused) {
  for (const std::uint32_t parent : {1u, 3u}) {
    Bootstrap b = std::get<Bootstrap>(samples()[0]);
    b.vpid = 0;
    b.parent = parent;
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    write_all(fds[1], bootstrap_frame(b).value());
    auto read = read_bootstrap(fds[0], 1000);
    ::close(fds[0]);
    ::close(fds[1]);
    ASSERT_FALSE(read.ok()) << "parent " << parent;
    EXPECT_EQ(read.error().topic(), "bad-bootstrap");
    EXPECT_NE(read.error().arg("why").find("parent " + std::to_string(parent) + " in a bootstrap for every daemon"),
              std::string::npos)
        << read.error().summary();
  }
}

// After a bootstrap for every daemon the launcher writes more frames on the
// same standard input (a parent's contact URI): each read takes one frame
// and no byte of the next, and the end of input is an error saying so.
TEST(LaunchWire, FramesAfterTheBootstrapAreReadInOrder) {
  Bootstrap b = std::get<Bootstrap>(samples()[0]);
  b.vpid = 0;
  b.parent = 0;
  auto stream = bootstrap_frame(b).value();
  const auto report = stdin_frame(DaemonReport{.vpid = 1, .contact_uri = "tcp://x"});
  ASSERT_TRUE(report.ok()) << report.error().summary();
  stream.insert(stream.end(), report->begin(), report->end());
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  write_all(fds[1], stream);  // in one write: the reader must not take the second frame with the first
  auto first = read_bootstrap(fds[0], 1000);
  ASSERT_TRUE(first.ok()) << first.error().summary();
  EXPECT_EQ(first->vpid, 0u);
  EXPECT_EQ(first->hosts, b.hosts);
  auto second = read_stdin_message(fds[0], 1000);
  ASSERT_TRUE(second.ok()) << second.error().summary();
  ASSERT_TRUE(std::holds_alternative<DaemonReport>(second.value())) << kind_name(second.value());
  EXPECT_EQ(std::get<DaemonReport>(second.value()).vpid, 1u);
  EXPECT_EQ(std::get<DaemonReport>(second.value()).contact_uri, "tcp://x");
  // Nothing more yet: the time limit.
  auto silent = read_stdin_message(fds[0], 20);
  ASSERT_FALSE(silent.ok());
  EXPECT_NE(silent.error().arg("why").find("20 ms"), std::string::npos) << silent.error().summary();
  // The writer gone: the end of input.
  ::close(fds[1]);
  auto end = read_stdin_message(fds[0], 1000);
  ::close(fds[0]);
  ASSERT_FALSE(end.ok());
  EXPECT_EQ(end.error().topic(), "bad-bootstrap");
  EXPECT_NE(end.error().arg("why").find("standard input ended after 0 of 4 bytes"), std::string::npos)
      << end.error().summary();
}

// The first frame must be the bootstrap.
TEST(LaunchWire, AnotherKindInsteadOfTheBootstrapIsRefused) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  write_all(fds[1], stdin_frame(DaemonReport{.vpid = 1, .contact_uri = "tcp://x"}).value());
  auto read = read_bootstrap(fds[0], 1000);
  ::close(fds[0]);
  ::close(fds[1]);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().arg("why").find("a daemon report instead of a bootstrap"), std::string::npos)
      << read.error().summary();
}

TEST(LaunchWire, EveryTruncationIsAnErrorNamingAField) {
  for (const WireMessage& m : samples()) {
    const auto bytes = encode(m).value();
    for (size_t cut = 0; cut < bytes.size(); ++cut) {
      auto r = decode(std::span(bytes).first(cut));
      ASSERT_FALSE(r.ok()) << kind_name(m) << " cut at " << cut;
      EXPECT_EQ(r.error().topic(), "bad-wire-message");
      EXPECT_FALSE(r.error().arg("field").empty());
    }
  }
}

TEST(LaunchWire, TrailingBytesAndUnknownKindsAreRefused) {
  auto bytes = encode(samples()[5]).value();
  bytes.push_back(0);
  auto r = decode(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().arg("field"), "end");
  for (std::uint8_t kind : {0, 28, 200, 255}) {
    const std::vector<std::uint8_t> b = {kind, 0, 0, 0, 0};
    auto u = decode(b);
    ASSERT_FALSE(u.ok()) << int(kind);
    EXPECT_EQ(u.error().arg("field"), "kind");
  }
  EXPECT_FALSE(decode({}).ok());
}

TEST(LaunchWire, ALyingLengthIsRefusedBeforeAnythingIsAllocated) {
  // An output chunk claiming 4 GiB of bytes, and a command claiming a
  // billion programs, in a few bytes each.
  const std::vector<std::uint8_t> chunk = {4, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0xff, 0xff, 0xff, 0xff, 'x'};
  auto r = decode(chunk);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().arg("field"), "bytes");
  const std::vector<std::uint8_t> apps = {3, 0, 0, 0, 0, 0x3b, 0x9a, 0xca, 0x00};
  auto a = decode(apps);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().arg("field"), "apps");
  // Within the bound but more than follows.
  const std::vector<std::uint8_t> short_text = {6, 0, 0, 0, 0, 0, 0, 0, 100, 'a', 'b'};
  auto t = decode(short_text);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().arg("field"), "reason");
}

TEST(LaunchWire, TheEncoderRefusesWhatTheDecoderWould) {
  Teardown t;
  t.reason = std::string(kMaxText + 1, 'x');
  auto r = encode(t);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().arg("field"), "reason");
  Bootstrap b;
  b.secret.resize(5000);
  EXPECT_FALSE(encode(b).ok());
}

// Decodes `b`; what decodes must encode back to the same bytes. Returns
// whether it decoded.
bool decodes_canonically(const std::vector<std::uint8_t>& b) {
  auto r = decode(b);
  if (!r.ok()) return false;
  auto again = encode(r.value());
  EXPECT_TRUE(again.ok());
  if (again.ok()) EXPECT_EQ(again.value(), b);
  return true;
}

TEST(LaunchWire, RandomBytesNeverCrash) {
  std::mt19937 rng(11);
  size_t accepted = 0;
  for (int round = 0; round < 20000; ++round) {
    std::vector<std::uint8_t> b(rng() % 64);
    for (auto& x : b) x = static_cast<std::uint8_t>(rng());
    if (!b.empty()) b[0] = static_cast<std::uint8_t>(1 + rng() % 14);
    accepted += decodes_canonically(b);
  }
  // Short messages with a valid type byte (an empty SignalRanks, say) do
  // decode: a decoder that refused everything would pass the loop above.
  EXPECT_GT(accepted, 0u);
}

// Valid messages with one byte changed or the tail cut: the decoder either
// refuses them or takes them as the message their bytes say, and takes some.
TEST(LaunchWire, DamagedValidMessagesAreRefusedOrTakenExactly) {
  std::mt19937 rng(12);
  size_t accepted = 0, refused = 0;
  for (const WireMessage& m : samples()) {
    const std::vector<std::uint8_t> good = encode(m).value();
    for (int round = 0; round < 500; ++round) {
      std::vector<std::uint8_t> b = good;
      if (round % 2 == 0) {
        b[rng() % b.size()] = static_cast<std::uint8_t>(rng());
      } else {
        b.resize(rng() % b.size());
      }
      (decodes_canonically(b) ? accepted : refused) += 1;
    }
  }
  EXPECT_GT(accepted, 0u);
  EXPECT_GT(refused, 0u);
}

TEST(LaunchWire, PmiMessagesKeepTheirFields) {
  const auto all = samples();
  const WireMessage fd_message = round_trip(all[kFenceDataSample]);
  const auto& fd = std::get<FenceData>(fd_message);
  const auto& fd_sent = std::get<FenceData>(all[kFenceDataSample]);
  EXPECT_EQ(fd.component, "simple");
  EXPECT_EQ(fd.epoch, 0x0102030405060708ULL);
  EXPECT_EQ(fd.from, 3u);
  EXPECT_EQ(fd.ranks, 4u);
  EXPECT_TRUE(same_entries(fd.entries, fd_sent.entries));
  ASSERT_EQ(fd.entries.size(), 3u);
  EXPECT_EQ(fd.entries[0].value, std::string("a\0b", 3));
  EXPECT_EQ(fd.entries[0].value.size(), 3u);
  EXPECT_EQ(fd.entries[1].key, std::string("k\0", 2));

  const WireMessage fr_message = round_trip(all[kFenceReleaseSample]);
  const auto& fr = std::get<FenceRelease>(fr_message);
  EXPECT_EQ(fr.component, "pmix");
  EXPECT_EQ(fr.epoch, 2u);
  EXPECT_TRUE(same_entries(fr.entries, std::get<FenceRelease>(all[kFenceReleaseSample]).entries));

  const WireMessage ra_message = round_trip(all[kRankAbortSample]);
  const auto& ra = std::get<RankAbort>(ra_message);
  EXPECT_EQ(ra.rank, 5u);
  EXPECT_EQ(ra.status, 3);
  EXPECT_TRUE(ra.broke);
  EXPECT_EQ(ra.message, "malformed message: a pair without '='");
  RankAbort negative;
  negative.status = -1;
  const WireMessage negative_message = round_trip(negative);
  EXPECT_EQ(std::get<RankAbort>(negative_message).status, -1);
  EXPECT_FALSE(std::get<RankAbort>(negative_message).broke);

  const WireMessage pd_message = round_trip(all[kPmiDirectSample]);
  const auto& pd = std::get<PmiDirect>(pd_message);
  EXPECT_EQ(pd.component, "pmix");
  EXPECT_EQ(pd.from, 1u);
  EXPECT_EQ(pd.to, 2u);
  EXPECT_EQ(pd.bytes, (std::vector<std::uint8_t>{0, 1, 0, 0xff}));

  for (const PmiProgress p : {PmiProgress::None, PmiProgress::Initialized, PmiProgress::Finalized}) {
    ExitRecord e = std::get<ExitRecord>(all[kExitInitializedSample]);
    e.pmi = p;
    const WireMessage back = round_trip(e);
    EXPECT_EQ(std::get<ExitRecord>(back).pmi, p) << static_cast<int>(p);
    EXPECT_EQ(std::get<ExitRecord>(back).rank, 1u);
  }
  EXPECT_STREQ(kind_name(all[kFenceDataSample]), "fence data");
  EXPECT_STREQ(kind_name(all[kFenceReleaseSample]), "fence release");
  EXPECT_STREQ(kind_name(all[kRankAbortSample]), "rank abort");
  EXPECT_STREQ(kind_name(all[kPmiDirectSample]), "pmi direct");

  const WireMessage jf_message = round_trip(all[kJobFailureSample]);
  const auto& jf = std::get<JobFailure>(jf_message);
  EXPECT_EQ(jf.vpid, 2u);
  EXPECT_EQ(jf.area, "pmi");
  EXPECT_EQ(jf.topic, "job-data-bound");
  EXPECT_TRUE(same_entries(jf.args, std::get<JobFailure>(all[kJobFailureSample]).args));
  EXPECT_STREQ(kind_name(all[kJobFailureSample]), "job failure");
}

TEST(LaunchWire, AnExitRecordWithAnUnknownPmiProgressIsRefused) {
  auto bytes = encode(samples()[kExitInitializedSample]).value();
  // The pmi byte is the last field.
  ASSERT_EQ(bytes.back(), 1);
  for (const std::uint8_t bad : {3, 4, 0x80, 0xff}) {
    bytes.back() = bad;
    auto r = decode(bytes);
    ASSERT_FALSE(r.ok()) << int(bad);
    EXPECT_EQ(r.error().topic(), "bad-wire-message");
    EXPECT_EQ(r.error().arg("field"), "pmi") << r.error().summary();
  }
  bytes.back() = 2;
  auto finalized = decode(bytes);
  ASSERT_TRUE(finalized.ok()) << finalized.error().summary();
  EXPECT_EQ(std::get<ExitRecord>(finalized.value()).pmi, PmiProgress::Finalized);
}

TEST(LaunchWire, EveryTruncationOfFenceDataIsAnError) {
  const auto bytes = encode(samples()[kFenceDataSample]).value();
  for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
    auto r = decode(std::span(bytes).first(cut));
    ASSERT_FALSE(r.ok()) << "cut at " << cut;
    EXPECT_EQ(r.error().topic(), "bad-wire-message");
    if (cut > 0) {
      EXPECT_EQ(r.error().arg("message"), "fence data") << "cut at " << cut;
    }
    EXPECT_FALSE(r.error().arg("field").empty()) << "cut at " << cut;
  }
  EXPECT_TRUE(decode(bytes).ok());
}

/* The header of a FenceData of component "" and then its entry count. */
std::vector<std::uint8_t> fence_data_head(std::uint32_t count) {
  std::vector<std::uint8_t> b = {11, 0, 0, 0, 0, 0, 0, 0, 0};  // kind, job 0, component ""
  b.insert(b.end(), {0, 0, 0, 0, 0, 0, 0, 1});           // epoch 1
  b.insert(b.end(), {0, 0, 0, 2, 0, 0, 0, 3});           // from 2, ranks 3
  for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<std::uint8_t>(count >> s));
  return b;
}

TEST(LaunchWire, AFenceDataClaimingMoreEntriesThanFollowIsRefused) {
  // Within the list bound, but far more than the 10 bytes that follow.
  auto many = fence_data_head(kMaxItems);
  many.insert(many.end(), 10, 0);
  auto r = decode(many);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().arg("field"), "entries") << r.error().summary();
  EXPECT_NE(r.error().arg("why").find("claims"), std::string::npos) << r.error().summary();
  // Above the bound.
  auto r2 = decode(fence_data_head(0xffffffffu));
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.error().arg("field"), "entries") << r2.error().summary();
  // One entry whose value claims 16 MiB, 1 byte sent.
  auto lying_value = fence_data_head(1);
  lying_value.insert(lying_value.end(), {0, 0, 0, 1, 'k', 0x01, 0, 0, 0, 'v'});
  auto r3 = decode(lying_value);
  ASSERT_FALSE(r3.ok());
  EXPECT_EQ(r3.error().arg("field"), "value") << r3.error().summary();
  // A key above its bound (1024).
  auto long_key = fence_data_head(1);
  long_key.insert(long_key.end(), {0, 0, 0x04, 0x01});
  long_key.insert(long_key.end(), 1025 + 4, 'k');
  auto r4 = decode(long_key);
  ASSERT_FALSE(r4.ok());
  EXPECT_EQ(r4.error().arg("field"), "key") << r4.error().summary();
  // Zero entries, nothing after: a valid, empty part.
  auto none = decode(fence_data_head(0));
  ASSERT_TRUE(none.ok()) << none.error().summary();
  EXPECT_TRUE(std::get<FenceData>(none.value()).entries.empty());
}

TEST(LaunchWire, AComponentNameAboveItsBoundIsRefused) {
  FenceData fd;
  fd.component = std::string(65, 'c');
  auto r = encode(fd);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().arg("field"), "component");
  PmiDirect pd;
  pd.component = std::string(65, 'c');
  EXPECT_FALSE(encode(pd).ok());
  JobFailure jf;
  jf.topic = std::string(65, 't');
  auto t = encode(jf);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().arg("field"), "topic");
}

TEST(LaunchWire, ADaemonsHostIsItsEntryOrItsVpid) {
  const std::vector<std::string> hosts = {"h1", "h2"};
  EXPECT_EQ(daemon_host(hosts, 1), "h1");
  EXPECT_EQ(daemon_host(hosts, 2), "h2");
  EXPECT_EQ(daemon_host(hosts, 0), "vpid 0");  // orcarun
  EXPECT_EQ(daemon_host(hosts, 3), "vpid 3");  // none such: a forged sender
  EXPECT_EQ(daemon_host({}, 1), "vpid 1");
}

}  // namespace
}  // namespace orca::launch
