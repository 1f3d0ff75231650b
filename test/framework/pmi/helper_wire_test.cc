// The daemon <-> PMI helper messages: every kind through the codec and
// back, and what decode refuses.
#include "pmi/helper_wire.h"

#include "lib/result_assertions.h"

#include <gtest/gtest.h>

#include <cstring>

namespace orca::pmi {
namespace {

using test::FailedWith;


HelperJob two_node_job() {
  return HelperJob{.job = 7,
                   .name = "orca-1-7",
                   .size = 3,
                   .node = 1,
                   .node_count = 2,
                   .rank_node = {0, 1, 1},
                   .local_rank = {0, 0, 1},
                   .node_host = {"h1", "h2"},
                   .max_keys = 100,
                   .max_bytes = 1 << 20,
                   .rank_app = {0, 0, 1},
                   .app_count = 2,
                   .directory = "/tmp/job7",
                   .directory_error = ""};
}

HelperMessage round_trip(const HelperMessage& m) {
  const std::vector<std::uint8_t> frame = encode_helper(m);
  EXPECT_GE(frame.size(), 5u);
  std::uint32_t length = 0;
  for (int i = 0; i < 4; ++i) length = (length << 8) | frame[i];
  EXPECT_EQ(length, frame.size() - 4);
  auto back = decode_helper(std::span<const std::uint8_t>(frame).subspan(4));
  EXPECT_TRUE(back.ok()) << (back.ok() ? "" : back.error().summary());
  return back.ok() ? back.value() : HelperMessage{};
}

TEST(HelperWire, EveryKindRoundTrips) {
  const std::string binary("a\0b\xff", 4);
  const std::vector<HelperMessage> all = {
      HelperWarmUp{.job = HelperJob{.job = 1, .name = "n", .node = 0, .node_count = 1, .node_host = {"h"}}},
      HelperJobStart{.id = 3, .job = two_node_job()},
      HelperRankState{.id = 3, .rank = 2, .kind = HelperRankState::kEnded},
      HelperRelease{.id = 3, .epoch = 9, .data = {.entries = {{"k", binary}, {"", ""}}}},
      HelperDeliver{.id = 3, .node = 1, .bytes = binary},
      HelperJobEnd{.id = 3},
      HelperWarmedUp{.ok = false, .why = "no libpmix"},
      HelperJobStarted{.id = 3,
                       .ok = true,
                       .ranks = {HelperPrepared{.rank = 1, .environment = {{"PMIX_RANK", "1"}}},
                                 HelperPrepared{.rank = 2, .ok = false, .why = "refused"}}},
      HelperContribute{.id = 3, .epoch = 0, .data = {.entries = {{"node.1", binary}}}},
      HelperRankEvent{.id = 3, .rank = 1, .event = ORCA_PMI_RANK_ABORTED, .status = -5, .text = "bye"},
      HelperSend{.id = 3, .node = 0, .bytes = binary},
      HelperLog{.id = 0, .level = 2, .text = "line"},
      HelperOverBound{.id = 3, .rank = 2, .which = ORCA_PMI_BOUND_BYTES, .total = 1ull << 40},
      HelperEndedSeen{.id = 3, .rank = 2},
  };
  for (const HelperMessage& m : all) EXPECT_EQ(round_trip(m), m) << "kind " << m.index();
}

TEST(HelperWire, AJobViewPointsIntoItsCopy) {
  const HelperJob j = two_node_job();
  const HelperJobView view(j);
  EXPECT_EQ(view.job.size, 3u);
  EXPECT_STREQ(view.job.name, "orca-1-7");
  EXPECT_STREQ(view.job.node_host[1], "h2");
  EXPECT_EQ(view.job.rank_node[2], 1u);
  EXPECT_EQ(view.job.rank_app[2], 1u);
  EXPECT_EQ(helper_job_of(view.job).rank_node, j.rank_node);
  // A warm-up's job has no rank arrays.
  const HelperJob warm{.job = 1, .name = "w", .node_count = 1, .node_host = {"h"}};
  const HelperJobView warm_view(warm);
  EXPECT_EQ(warm_view.job.rank_node, nullptr);
  EXPECT_EQ(warm_view.job.local_rank, nullptr);
}

std::vector<std::uint8_t> payload_of(const HelperMessage& m) {
  std::vector<std::uint8_t> frame = encode_helper(m);
  return {frame.begin() + 4, frame.end()};
}

TEST(HelperWire, DecodeRefusesWhatIsNoMessage) {
  EXPECT_TRUE(FailedWith(decode_helper({}), "pmi", "helper-malformed"));
  const std::uint8_t unknown[] = {99};
  EXPECT_TRUE(FailedWith(decode_helper(unknown), "pmi", "helper-malformed"));

  std::vector<std::uint8_t> whole = payload_of(HelperDeliver{.id = 1, .node = 2, .bytes = "xyz"});
  std::vector<std::uint8_t> cut(whole.begin(), whole.end() - 1);
  EXPECT_TRUE(FailedWith(decode_helper(cut), "pmi", "helper-malformed"));
  std::vector<std::uint8_t> longer = whole;
  longer.push_back(0);
  EXPECT_TRUE(FailedWith(decode_helper(longer), "pmi", "helper-malformed"));
  std::vector<std::uint8_t> state = payload_of(HelperRankState{.id = 1, .rank = 0, .kind = HelperRankState::kStarted});
  state.back() = 7;  // no such rank state
  EXPECT_TRUE(FailedWith(decode_helper(state), "pmi", "helper-malformed"));
}

TEST(HelperWire, ALyingCountAllocatesNothing) {
  // A release claiming 2^32-1 entries in a few bytes: refused before any
  // vector of that size is made.
  std::vector<std::uint8_t> m = payload_of(HelperRelease{.id = 1, .epoch = 0});
  const std::size_t count_at = m.size() - 4;
  for (std::size_t i = 0; i < 4; ++i) m[count_at + i] = 0xff;
  EXPECT_TRUE(FailedWith(decode_helper(m), "pmi", "helper-malformed"));
}

TEST(HelperWire, AJobWhoseArraysDoNotMatchItsCountsIsRefused) {
  HelperJob short_map = two_node_job();
  short_map.rank_node.pop_back();
  EXPECT_TRUE(FailedWith(decode_helper(payload_of(HelperJobStart{.id = 1, .job = short_map})), "pmi", "helper-malformed"));
  HelperJob far_node = two_node_job();
  far_node.rank_node[0] = 2;  // only nodes 0 and 1
  EXPECT_TRUE(FailedWith(decode_helper(payload_of(HelperJobStart{.id = 1, .job = far_node})), "pmi", "helper-malformed"));
  HelperJob far_app = two_node_job();
  far_app.rank_app[0] = 2;
  EXPECT_TRUE(FailedWith(decode_helper(payload_of(HelperJobStart{.id = 1, .job = far_app})), "pmi", "helper-malformed"));
  HelperJob hosts = two_node_job();
  hosts.node_host.pop_back();
  EXPECT_TRUE(FailedWith(decode_helper(payload_of(HelperWarmUp{.job = hosts})), "pmi", "helper-malformed"));
}

}  // namespace
}  // namespace orca::pmi
