// pmi/pmix's pure parts: the job layout libpmix is told, the direct
// modex messages between daemons, and the kernel's TCP table read for
// half-closed PMIx connections.
#include "pmi/pmix/closing_connections.h"
#include "pmi/pmix/direct_wire.h"
#include "pmi/pmix/job_layout.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>
#include <vector>

namespace orca::pmi {
namespace {

struct Job {
  std::vector<std::uint32_t> rank_node;
  std::vector<std::uint32_t> local_rank;
  std::vector<const char*> hosts;
  orca_pmi_job c(std::uint32_t node) {
    local_rank.assign(rank_node.size(), 0);
    return orca_pmi_job{.job = 7,
                        .name = "orca-7",
                        .size = static_cast<std::uint32_t>(rank_node.size()),
                        .node = node,
                        .node_count = static_cast<std::uint32_t>(hosts.size()),
                        .rank_node = rank_node.data(),
                        .local_rank = local_rank.data(),
                        .node_host = hosts.data()};
  }
};

TEST(PmixJobLayout, RoundRobinOverThreeNodesOneEmpty) {
  Job j{.rank_node = {0, 2, 0, 2, 0}, .local_rank = {}, .hosts = {"h2", "h3", "h4"}};
  const JobLayout l = job_layout(j.c(0));
  EXPECT_EQ(l.nodes, (std::vector<std::uint32_t>{0, 2}));  // h3 runs nothing: not in the maps
  EXPECT_EQ(l.node_list, "h2,h4");
  EXPECT_EQ(l.ppn, "0,2,4;1,3");
  EXPECT_EQ(l.local, (std::vector<std::uint32_t>{0, 2, 4}));
  EXPECT_EQ(l.local_peers, "0,2,4");
  EXPECT_EQ(l.node_rank, (std::vector<std::uint16_t>{0, 0, 1, 1, 2}));
}

TEST(PmixJobLayout, ANodeWithoutRanksHasNoLocalPeers) {
  Job j{.rank_node = {0, 0}, .local_rank = {}, .hosts = {"a", "b"}};
  const JobLayout l = job_layout(j.c(1));
  EXPECT_TRUE(l.local.empty());
  EXPECT_EQ(l.local_peers, "");
  EXPECT_EQ(l.ppn, "0,1");
}

TEST(PmixJobLayout, ARankOnNoNodeIsRefused) {
  Job j{.rank_node = {0, 5}, .local_rank = {}, .hosts = {"a", "b"}};
  EXPECT_THROW(job_layout(j.c(0)), std::invalid_argument);
}

TEST(PmixDirectWire, RequestAndResponseRoundTrip) {
  const auto req = encode_direct(DirectRequest{.id = 0x0102030405060708ULL, .rank = 77});
  ASSERT_EQ(req.size(), 13u);
  auto back = decode_direct(req);
  ASSERT_TRUE(back);
  const auto* r = std::get_if<DirectRequest>(&*back);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->id, 0x0102030405060708ULL);
  EXPECT_EQ(r->rank, 77u);

  const std::string blob("\0bin\xff", 5);
  const auto resp = encode_direct(DirectResponse{.id = 9, .status = -46, .blob = blob});
  auto back2 = decode_direct(resp);
  ASSERT_TRUE(back2);
  const auto* s = std::get_if<DirectResponse>(&*back2);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->id, 9u);
  EXPECT_EQ(s->status, -46);
  EXPECT_EQ(s->blob, blob);
}

TEST(PmixDirectWire, AnythingElseIsRefused) {
  auto req = encode_direct(DirectRequest{.id = 1, .rank = 2});
  for (size_t n = 0; n < req.size(); ++n) {
    EXPECT_FALSE(decode_direct(std::span<const std::uint8_t>(req.data(), n))) << "truncated to " << n;
  }
  req.push_back(0);
  EXPECT_FALSE(decode_direct(req)) << "a request with trailing bytes";
  req.pop_back();
  req[0] = 3;
  EXPECT_FALSE(decode_direct(req)) << "an unknown kind";
}

// A rank's URI names libpmix's port, v4 or v6.
TEST(PmixClosingConnections, ServerPortOfAUri) {
  EXPECT_EQ(server_port("orca-7-daemons.0;tcp4://127.0.0.1:38857"), (ServerPort{38857, false}));
  EXPECT_EQ(server_port("orca-7-daemons.0;tcp6://[::1]:443"), (ServerPort{443, true}));
  EXPECT_EQ(server_port("orca-7-daemons.0;tcp4://127.0.0.1:38857,extra"), (ServerPort{38857, false}));
  EXPECT_FALSE(server_port("orca-7-daemons.0;usock:/tmp/x")) << "no TCP port";
  EXPECT_FALSE(server_port("x;tcp4://127.0.0.1:")) << "no digits";
  EXPECT_FALSE(server_port("x;tcp4://127.0.0.1:0"));
  EXPECT_FALSE(server_port("x;tcp4://127.0.0.1:65536"));
  EXPECT_FALSE(server_port("x;tcp4://noport"));
}

// /proc/net/tcp as the kernel writes it: server port 0x97C9 (38857). The
// rows that count: a rank's FIN in flight (its side FIN_WAIT1), one that
// libpmix has not closed (rank FIN_WAIT2, libpmix CLOSE_WAIT: one
// connection, two rows). Not: established or listening sockets, a rank's
// TIME_WAIT (both closed), another port's half-closed connection.
constexpr const char* kTable =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
    "   0: 0100007F:97C9 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 7900350 1\n"
    "   1: 0100007F:B188 0100007F:97C9 01 00000000:00000000 00:00000000 00000000     0        0 7900357 1\n"
    "   2: 0100007F:97C9 0100007F:B188 01 00000000:00000012 00:00000000 00000000     0        0 7900358 1\n"
    "   3: 0100007F:B189 0100007F:97C9 04 00000001:00000000 01:00000014 00000000     0        0 0 1\n"
    "   4: 0100007F:B18A 0100007F:97C9 05 00000000:00000000 00:00000000 00000000     0        0 0 1\n"
    "   5: 0100007F:97C9 0100007F:B18A 08 00000000:00000000 00:00000000 00000000     0        0 7900360 1\n"
    "   6: 0100007F:B18B 0100007F:97C9 06 00000000:00000000 03:00001770 00000000     0        0 0 3\n"
    "   7: 0100007F:B18C 0100007F:1F90 04 00000000:00000000 00:00000000 00000000     0        0 0 1\n"
    "   8: 0100007F:1F90 0100007F:B18D 08 00000000:00000000 00:00000000 00000000     0        0 0 1\n";

TEST(PmixClosingConnections, HalfClosedConnectionsToThePort) {
  EXPECT_EQ(half_closed(kTable, 0x97C9), 3u);
  EXPECT_EQ(half_closed(kTable, 0x1F90), 2u) << "another server's";
  EXPECT_EQ(half_closed(kTable, 4242), 0u);
}

TEST(PmixClosingConnections, UnreadableRowsAreSkipped) {
  EXPECT_EQ(half_closed("", 0x97C9), 0u);
  EXPECT_EQ(half_closed("garbage\n   3: 0100007F:B189 0100007F:97C9\n   4: x:y 0100007F:97C9 05\n", 0x97C9), 0u);
  EXPECT_EQ(half_closed("   3: 0100007F:B189 0100007F:97C9 04", 0x97C9), 1u) << "no final newline";
  EXPECT_EQ(half_closed("   3: 0100007F:B189 0100007F:97C9 zz\n", 0x97C9), 0u) << "a state not hex";
}

// This process's own table: a connection to a listener of ours whose
// client has shut its side is half closed until the server side closes.
TEST(PmixClosingConnections, ThisProcessesOwnTable) {
  const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(listener, 4), 0);
  socklen_t len = sizeof a;
  ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len), 0);
  const ServerPort server{ntohs(a.sin_port), false};
  const int client = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_EQ(::connect(client, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  const int accepted = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
  ASSERT_GE(accepted, 0);
  // The kernel may hand a FIN to its softirq thread: each state is
  // awaited (1 s at most).
  auto settles_at = [&](std::size_t want) {
    std::optional<std::size_t> seen;
    for (int i = 0; i < 1000; ++i) {
      seen = half_closed_now(server);
      if (seen == want) return true;
      ::usleep(1000);
    }
    ADD_FAILURE() << "half-closed connections: " << (seen ? std::to_string(*seen) : "unreadable") << ", not " << want;
    return false;
  };
  EXPECT_TRUE(settles_at(0)) << "established";
  ::close(client);  // the rank exits
  EXPECT_TRUE(settles_at(2)) << "the rank's FIN_WAIT2 and our CLOSE_WAIT";
  ::close(accepted);  // libpmix closes its side
  EXPECT_TRUE(settles_at(0)) << "the rank's side in TIME_WAIT";
  ::close(listener);
}

}  // namespace
}  // namespace orca::pmi
