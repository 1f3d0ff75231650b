// process_mapping: MPICH's PMI_process_mapping vector text for ranks placed
// on nodes. Each triple (start node, nodes, ranks per node) gives the next
// ranks in order; MPICH reads it to find the ranks it shares a node with.
#include <orca/pmi.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace orca::pmi {
namespace {

std::string mapping(const std::vector<std::uint32_t>& rank_node) { return process_mapping(rank_node); }

/* The vector read back as MPICH reads it (MPL_rankmap_str_to_array): each
 * (X,Y,Z) gives Z ranks to each of the nodes X .. X+Y-1, in rank order;
 * when the ranks outnumber the vector, it starts over (from a first triple
 * at node 0). nullopt when the text is not a vector of triples or names
 * more than `size` ranks. */
std::optional<std::vector<std::uint32_t>> read_as_mpich(std::string_view text, std::size_t size) {
  const auto number = [&text]() -> std::optional<std::uint32_t> {
    std::size_t i = 0;
    std::uint64_t n = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9' && i < 10) {
      n = n * 10 + static_cast<std::uint64_t>(text[i] - '0');
      ++i;
    }
    if (i == 0) return std::nullopt;
    text.remove_prefix(i);
    return static_cast<std::uint32_t>(n);
  };
  const auto skip = [&text](std::string_view s) {
    if (!text.starts_with(s)) return false;
    text.remove_prefix(s.size());
    return true;
  };
  if (!skip("(vector")) return std::nullopt;
  std::vector<std::uint32_t> out;
  while (skip(",(")) {
    const auto start = number();
    if (!start || !skip(",")) return std::nullopt;
    const auto nodes = number();
    if (!nodes || !skip(",")) return std::nullopt;
    const auto ranks = number();
    if (!ranks || !skip(")")) return std::nullopt;
    if (*nodes == 0 || *ranks == 0) return std::nullopt;
    for (std::uint32_t n = 0; n < *nodes; ++n) {
      for (std::uint32_t r = 0; r < *ranks; ++r) out.push_back(*start + n);
    }
    if (out.size() > size) return std::nullopt;
  }
  if (!skip(")") || !text.empty() || out.empty()) return std::nullopt;
  if (out.size() < size && out.front() != 0) return std::nullopt;
  for (std::size_t covered = out.size(); out.size() < size;) out.push_back(out[out.size() % covered]);
  return out;
}

TEST(ProcessMapping, NoRanksIsEmpty) { EXPECT_EQ(mapping({}), ""); }

TEST(ProcessMapping, OneNode) {
  EXPECT_EQ(mapping({0}), "(vector,(0,1,1))");
  EXPECT_EQ(mapping({0, 0, 0, 0}), "(vector,(0,1,4))");
}

TEST(ProcessMapping, BlocksOnConsecutiveNodesFold) {
  EXPECT_EQ(mapping({0, 0, 1, 1}), "(vector,(0,2,2))");
  EXPECT_EQ(mapping({0, 0, 0, 1, 1, 1, 2, 2, 2}), "(vector,(0,3,3))");
  EXPECT_EQ(mapping({0, 1, 2, 3}), "(vector,(0,4,1))");
}

TEST(ProcessMapping, RoundRobinIsWrittenOnce) {
  EXPECT_EQ(mapping({0, 1, 0, 1}), "(vector,(0,2,1))");
  EXPECT_EQ(mapping({0, 1, 0, 1, 0}), "(vector,(0,2,1))") << "a last round cut short wraps too";
  EXPECT_EQ(mapping({0, 0, 1, 0, 0, 1}), "(vector,(0,1,2),(1,1,1))");
  // A repeat that does not start at node 0 is written in full.
  EXPECT_EQ(mapping({1, 0, 1, 0}), "(vector,(1,1,1),(0,2,1),(0,1,1))");
}

TEST(ProcessMapping, TooLongForMpichIsLeftOut) {
  // 600 ranks, each on a node of its own in descending order: no folding.
  std::vector<std::uint32_t> rank_node(600);
  for (std::size_t r = 0; r < rank_node.size(); ++r) rank_node[r] = static_cast<std::uint32_t>(599 - r);
  EXPECT_EQ(mapping(rank_node), "");
}

TEST(ProcessMapping, UnevenBlocks) {
  EXPECT_EQ(mapping({0, 0, 0, 1}), "(vector,(0,1,3),(1,1,1))");
  EXPECT_EQ(mapping({0, 0, 1, 1, 2}), "(vector,(0,2,2),(2,1,1))");
}

TEST(ProcessMapping, NonConsecutiveNodes) {
  EXPECT_EQ(mapping({2, 2, 0, 0}), "(vector,(2,1,2),(0,1,2))");
  // Same block size, but node 2 does not follow node 0: no folding.
  EXPECT_EQ(mapping({0, 0, 2, 2}), "(vector,(0,1,2),(2,1,2))");
  // Descending nodes do not fold either.
  EXPECT_EQ(mapping({1, 0}), "(vector,(1,1,1),(0,1,1))");
}

/* Whatever the placement, MPICH reads back the node of every rank. */
TEST(ProcessMapping, MpichReadsEveryPlacementBack) {
  std::mt19937 rng(5);
  for (int round = 0; round < 2000; ++round) {
    const std::size_t size = 1 + rng() % 24;
    const std::uint32_t nodes = 1 + rng() % 5;
    std::vector<std::uint32_t> rank_node(size);
    // Blocks of random length on random nodes: runs, repeats and gaps.
    for (std::size_t r = 0; r < size;) {
      const std::uint32_t node = rng() % nodes;
      for (std::size_t n = 1 + rng() % 4; n > 0 && r < size; --n) rank_node[r++] = node;
    }
    const std::string text = mapping(rank_node);
    const auto back = read_as_mpich(text, size);
    ASSERT_TRUE(back.has_value()) << text;
    ASSERT_EQ(*back, rank_node) << text;
  }
}

/* MPICH reads PMI_process_mapping as one value: at most vallen_max (1024,
 * pmi/simple's kMaxValueBytes and MPICH's PMI2_MAX_VALLEN) bytes, in a
 * PMI-1 reply line of at most 1024 bytes (MPICH's PMIU_MAXLINE). A
 * cyclic placement ("--map-by node") of a few hundred ranks repeats the
 * same triple once per round and grows past that, although MPICH's own
 * wrap-around reads "(vector,(0,2,1))" as ranks alternating between nodes
 * 0 and 1 for any number of ranks. */
TEST(ProcessMapping, ACyclicPlacementFitsInOneValue) {
  std::vector<std::uint32_t> rank_node(512);
  for (std::size_t r = 0; r < rank_node.size(); ++r) rank_node[r] = static_cast<std::uint32_t>(r % 2);
  const std::string text = mapping(rank_node);
  EXPECT_LE(text.size(), 1024u) << text.substr(0, 64) << "...";
}

}  // namespace
}  // namespace orca::pmi
