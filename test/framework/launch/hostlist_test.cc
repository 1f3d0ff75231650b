// expand_hostlist: every form of the hostlist syntax, every malformed
// input, the limits, and random input that must neither crash nor grow
// without bound.
#include <orca/host_list.h>

#include "lib/expect_text.h"
#include "lib/result_assertions.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace orca::launch {
namespace {

using Names = std::vector<std::string>;
using test::Contains;
using test::FailedWith;
using test::Succeeded;

Names expand(std::string_view text) {
  auto r = expand_hostlist(text, "--host");
  EXPECT_TRUE(Succeeded(r)) << text;
  return r.ok() ? r.value() : Names{};
}

// ---------------------------------------------------------------- forms

TEST(ExpandHostlist, PlainName) {
  EXPECT_EQ(expand("node1"), Names{"node1"});
  EXPECT_EQ(expand("login.example.org"), Names{"login.example.org"});
  EXPECT_EQ(expand("a-b_c.D9"), Names{"a-b_c.D9"});
}

TEST(ExpandHostlist, Range) {
  EXPECT_EQ(expand("node[1-3]"), (Names{"node1", "node2", "node3"}));
  EXPECT_EQ(expand("node[8-10]"), (Names{"node8", "node9", "node10"}));
  EXPECT_EQ(expand("n[5-5]"), Names{"n5"});
}

TEST(ExpandHostlist, ListInBrackets) {
  EXPECT_EQ(expand("node[01-04,07]"), (Names{"node01", "node02", "node03", "node04", "node07"}));
  EXPECT_EQ(expand("n[3,1,2]"), (Names{"n3", "n1", "n2"}));
}

TEST(ExpandHostlist, PaddingKept) {
  EXPECT_EQ(expand("node[08-10]"), (Names{"node08", "node09", "node10"}));
  EXPECT_EQ(expand("n[007]"), Names{"n007"});
  const Names linux = expand("linux[0000-1023]");
  ASSERT_EQ(linux.size(), 1024u);
  EXPECT_EQ(linux.front(), "linux0000");
  EXPECT_EQ(linux[7], "linux0007");
  EXPECT_EQ(linux.back(), "linux1023");
}

TEST(ExpandHostlist, SeveralGroupsLastVaryingFastest) {
  const Names n = expand("rack[0-1]_blade[0-3]");
  ASSERT_EQ(n.size(), 8u);
  EXPECT_EQ(n[0], "rack0_blade0");
  EXPECT_EQ(n[1], "rack0_blade1");
  EXPECT_EQ(n[3], "rack0_blade3");
  EXPECT_EQ(n[4], "rack1_blade0");
  EXPECT_EQ(n[7], "rack1_blade3");
}

TEST(ExpandHostlist, GroupsAtStartAndEnd) {
  EXPECT_EQ(expand("[1-2]n"), (Names{"1n", "2n"}));
  EXPECT_EQ(expand("[1-2]"), (Names{"1", "2"}));
}

TEST(ExpandHostlist, CommasBetweenItems) {
  EXPECT_EQ(expand("a,b[1-2],c"), (Names{"a", "b1", "b2", "c"}));
  EXPECT_EQ(expand("x[1,2],y[3,4]"), (Names{"x1", "x2", "y3", "y4"}));
}

TEST(ExpandHostlist, OrderKeptAndDuplicatesKept) {
  EXPECT_EQ(expand("c,a,b"), (Names{"c", "a", "b"}));
  EXPECT_EQ(expand("a,n[2-1000],a").size(), 1001u);
  EXPECT_EQ(expand("a,b,a"), (Names{"a", "b", "a"}));
}

TEST(ExpandHostlist, SurroundingWhitespaceIgnored) {
  EXPECT_EQ(expand("  n[1-2]\n"), (Names{"n1", "n2"}));
}

TEST(ExpandHostlist, AtTheLimit) {
  const Names n = expand("n[1-1000000]");
  ASSERT_EQ(n.size(), kMaxHostNames);
  EXPECT_EQ(n.back(), "n1000000");
}

// Found by test/fuzz/hostlist_fuzz (corpus regression-long-names-oom): a
// 29-byte --host of a million 26-character names took 280 MB, a 250-byte
// one of 246-character names 690 MB, all within the limit on names.
TEST(ExpandHostlist, CharactersOfNamesAreBoundedBeforeExpanding) {
  const std::string long_name(240, 'a');
  auto r = expand_hostlist(long_name + "[0-999999]", "--host");
  ASSERT_TRUE(FailedWith(r, "launch", "hostlist-too-long"));
  EXPECT_EQ(r.error().arg("count"), "246000000");
  EXPECT_EQ(r.error().arg("limit"), std::to_string(kMaxHostListChars));
  // The bound is on the whole list, not on one item: two halves of a
  // million 20-character names are 20 million characters.
  const std::string half = std::string(14, 'b') + "[000000-499999]";
  EXPECT_TRUE(expand_hostlist(half, "--host").ok());
  EXPECT_TRUE(FailedWith(expand_hostlist(half + ",c" + half.substr(1), "--host"), "launch", "hostlist-too-long"));
}

// ---------------------------------------------------------------- malformed

struct Bad {
  const char* text;
  const char* topic;
  const char* why;  // a piece of the reason
};

class MalformedHostlist : public ::testing::TestWithParam<Bad> {};

TEST_P(MalformedHostlist, RefusedNamingSourceAndPart) {
  const Bad& bad = GetParam();
  auto r = expand_hostlist(bad.text, "SLURM_JOB_NODELIST");
  ASSERT_TRUE(FailedWith(r, "launch", bad.topic)) << bad.text;
  EXPECT_EQ(r.error().arg("source"), "SLURM_JOB_NODELIST");
  EXPECT_TRUE(Contains(r.error().arg("why") + r.error().arg("count"), bad.why)) << r.error().summary();
  // The same refusal in a few words, for a caller's own message (srun's).
  EXPECT_FALSE(r.error().arg("problem").empty()) << r.error().summary();
  EXPECT_TRUE(Contains(r.error().arg("problem"), bad.why)) << r.error().summary();
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, MalformedHostlist,
    ::testing::Values(Bad{"node[1-3", "hostlist-syntax", "never closed"},
                      Bad{"node[1-3,5,a", "hostlist-syntax", "never closed"},
                      Bad{"n[1[2]]", "hostlist-syntax", "cannot nest"},
                      Bad{"n]", "hostlist-syntax", "without its '['"},
                      Bad{"n[1-2]]", "hostlist-syntax", "without its '['"},
                      Bad{"node[5-3]", "hostlist-syntax", "reversed"},
                      Bad{"node[]", "hostlist-syntax", "hold no number"},
                      Bad{"node[1,]", "hostlist-syntax", "empty range"},
                      Bad{"node[,1]", "hostlist-syntax", "empty range"},
                      Bad{"node[-3]", "hostlist-syntax", "lacks a bound"},
                      Bad{"node[3-]", "hostlist-syntax", "lacks a bound"},
                      Bad{"node[1-2-3]", "hostlist-syntax", "only numbers"},
                      Bad{"node[a-b]", "hostlist-syntax", "only numbers"},
                      Bad{"node[ 1]", "hostlist-syntax", "only numbers"},
                      Bad{"node[1234567890]", "hostlist-syntax", "more than 9 digits"},
                      Bad{"node[1-10000000]", "hostlist-too-large", "10000000"},
                      Bad{"n[1-1000000],x", "hostlist-too-large", "1000001"},
                      Bad{"n[1-1000][1-1001]", "hostlist-too-large", "1001000"},
                      Bad{"n[0-999999999][0-999999999][0-999999999]", "hostlist-too-large", "1000000000"},
                      Bad{"user@node1", "hostlist-syntax", "'@'"},
                      Bad{"node 1", "hostlist-syntax", "' '"},
                      Bad{"node1:4", "hostlist-syntax", "':'"},
                      Bad{"a,,b", "hostlist-syntax", "empty"},
                      Bad{",a", "hostlist-syntax", "empty"},
                      Bad{"a,", "hostlist-syntax", "empty"},
                      Bad{"", "hostlist-empty", ""},
                      Bad{"  \t", "hostlist-empty", ""}));

TEST(ExpandHostlist, ErrorNamesTheOffendingPart) {
  auto r = expand_hostlist("good[1-2],bad[9-3]", "hostfile /x:3");
  ASSERT_TRUE(FailedWith(r, "launch", "hostlist-syntax"));
  EXPECT_EQ(r.error().arg("source"), "hostfile /x:3");
  EXPECT_EQ(r.error().arg("part"), "9-3");
  EXPECT_TRUE(Contains(r.error().arg("why"), "(3-9)"));

  auto range = expand_hostlist("n[1-10000000]", "--host");
  ASSERT_TRUE(FailedWith(range, "launch", "hostlist-too-large"));
  EXPECT_EQ(range.error().arg("part"), "1-10000000");
  EXPECT_EQ(range.error().arg("count"), "10000000");
  EXPECT_EQ(range.error().arg("limit"), "1000000");
}

TEST(ExpandHostlist, LongPartsAreShortenedInMessages) {
  const std::string long_name = std::string(300, 'a') + "!";
  auto r = expand_hostlist(long_name, "--host");
  ASSERT_TRUE(FailedWith(r, "launch", "hostlist-syntax"));
  EXPECT_LT(r.error().arg("part").size(), 70u);
}

TEST(ExpandHostlist, NameTooLong) {
  EXPECT_EQ(expand(std::string(253, 'a')).size(), 1u);
  auto r = expand_hostlist(std::string(254, 'a'), "--host");
  ASSERT_TRUE(FailedWith(r, "launch", "hostlist-syntax"));
  EXPECT_TRUE(Contains(r.error().arg("why"), "at most 253"));
  // The width of the numbers counts too.
  EXPECT_TRUE(FailedWith(expand_hostlist(std::string(250, 'a') + "[1-1000]", "--host"), "launch",
                         "hostlist-syntax"));
}

TEST(ExpandHostlist, NulAndControlBytesAreRefused) {
  EXPECT_TRUE(FailedWith(expand_hostlist(std::string("a\0b", 3), "--host"), "launch", "hostlist-syntax"));
  EXPECT_TRUE(FailedWith(expand_hostlist("a\x1b[2Jb", "--host"), "launch", "hostlist-syntax"));
}

// ---------------------------------------------------------------- random input

TEST(ExpandHostlist, RandomInputNeverCrashesAndStaysBounded) {
  std::mt19937 rng(20240611);
  // Mostly hostlist characters, so that valid lists and near misses form;
  // every fourth string is raw bytes.
  const std::string alphabet = "abn0123456789[]-,.@: ";
  std::uniform_int_distribution<size_t> length(0, 24);
  std::uniform_int_distribution<size_t> pick(0, alphabet.size() - 1);
  std::uniform_int_distribution<int> byte(0, 255);
  size_t accepted = 0;
  for (int iter = 0; iter < 10000; ++iter) {
    std::string text;
    const size_t n = length(rng);
    const bool raw = iter % 4 == 3;
    for (size_t i = 0; i < n; ++i) {
      text += raw ? static_cast<char>(byte(rng)) : alphabet[pick(rng)];
    }
    auto r = expand_hostlist(text, "fuzz");
    if (r.ok()) {
      ++accepted;
      ASSERT_GE(r->size(), 1u) << text;
      ASSERT_LE(r->size(), kMaxHostNames) << text;
      for (const std::string& name : r.value()) {
        ASSERT_FALSE(name.empty()) << text;
        ASSERT_LE(name.size(), kMaxHostNameLength) << text;
      }
    } else {
      ASSERT_EQ(r.error().area(), "launch");
      ASSERT_EQ(r.error().arg("source"), "fuzz");
    }
  }
  // Both paths run (about a tenth of the strings are valid lists).
  EXPECT_GT(accepted, 500u);
}

}  // namespace
}  // namespace orca::launch
