// pmi/pmix's pure parts: the job layout libpmix is told, and the direct
// modex messages between daemons.
#include "pmi/pmix/direct_wire.h"
#include "pmi/pmix/job_layout.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace orca::pmi
