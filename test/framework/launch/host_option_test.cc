// parse_host_option (--host h1:4,node[1-3]:2,h2), merging repeated hosts,
// and pairing Slurm's node list with its task counts.
#include <orca/host_list.h>

#include "lib/expect_text.h"
#include "lib/result_assertions.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace orca::launch {
namespace {

using Hosts = std::vector<HostSlots>;
using test::Contains;
using test::FailedWith;
using test::Succeeded;

HostSlots given(std::string name, unsigned slots) { return HostSlots{std::move(name), slots, true}; }
HostSlots defaulted(std::string name) { return HostSlots{std::move(name), 1, false}; }

Hosts hosts(std::string_view text) {
  auto r = parse_host_option(text);
  EXPECT_TRUE(Succeeded(r)) << text;
  return r.ok() ? r.value() : Hosts{};
}

TEST(HostOption, PlainHostsHaveOneDefaultSlot) {
  EXPECT_EQ(hosts("h1,h2"), (Hosts{defaulted("h1"), defaulted("h2")}));
}

TEST(HostOption, SlotsAfterAColon) {
  EXPECT_EQ(hosts("h1:4,node[1-3]:2,h2"),
            (Hosts{given("h1", 4), given("node1", 2), given("node2", 2), given("node3", 2), defaulted("h2")}));
  EXPECT_EQ(hosts("n[01-02,5]:8"), (Hosts{given("n01", 8), given("n02", 8), given("n5", 8)}));
  EXPECT_EQ(hosts("h:007"), Hosts{given("h", 7)});
}

TEST(HostOption, IPv6AddressesInBracketsTakeSlots) {
  EXPECT_EQ(hosts("[fe80::1]:2,[::1],h1"), (Hosts{given("fe80::1", 2), defaulted("::1"), defaulted("h1")}));
  // Without brackets an address is taken whole: it cannot carry slots.
  EXPECT_EQ(hosts("2001:db8::7"), Hosts{defaulted("2001:db8::7")});
  EXPECT_EQ(hosts("[::1]:2,::1"), Hosts{given("::1", 3)});
}

TEST(HostOption, AUserBeforeTheHostStaysWithItForTheAgent) {
  EXPECT_EQ(hosts("alice@node[1-2]:2,bob@[fe80::1],h"),
            (Hosts{given("alice@node1", 2), given("alice@node2", 2), defaulted("bob@fe80::1"), defaulted("h")}));
  // Another user on the same host is another login: not merged.
  EXPECT_EQ(hosts("a@h,b@h,a@h"), (Hosts{HostSlots{"a@h", 2, false}, defaulted("b@h")}));
  // A user is at most 32 characters, and its copies count against the
  // list's bound like the names they prefix.
  EXPECT_TRUE(Succeeded(parse_host_option(std::string(32, 'u') + "@h")));
  auto long_user = parse_host_option(std::string(33, 'u') + "@h");
  ASSERT_TRUE(FailedWith(long_user, "launch", "hostlist-syntax"));
  EXPECT_TRUE(Contains(long_user.error().arg("why"), "longer than 32"));
  EXPECT_TRUE(FailedWith(parse_host_option(std::string(32, 'u') + "@n[1-600000]"), "launch", "hostlist-too-long"));
  for (const char* text : {"@h", "-oProxyCommand=x@h", "a b@h", "a@"}) {
    auto r = parse_host_option(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.error().arg("source"), "--host") << text;
  }
}

TEST(HostOption, BadIPv6Forms) {
  struct Case {
    const char* text;
    const char* why;
  };
  for (const Case& c : {Case{"[fe80::1", "never closed"}, Case{"[fe80::zz]:2", "is not an IPv6 address"},
                        Case{"[::1]x", "only :SLOTS may follow"}, Case{"h:1:2", "brackets, as in [fe80::1]:4"},
                        Case{"fe80::1:2:", "brackets"}}) {
    auto r = parse_host_option(c.text);
    ASSERT_TRUE(FailedWith(r, "launch", "hostlist-syntax")) << c.text;
    EXPECT_TRUE(Contains(r.error().arg("why"), c.why)) << c.text << ": " << r.error().summary();
    EXPECT_EQ(r.error().arg("source"), "--host");
  }
  EXPECT_TRUE(FailedWith(parse_host_option("[::1]:0"), "launch", "host-bad-slots"));
}

TEST(HostOption, DuplicatesMergedWithSlotsAddedInFirstAppearanceOrder) {
  EXPECT_EQ(hosts("b,a,b"), (Hosts{HostSlots{"b", 2, false}, defaulted("a")}));
  EXPECT_EQ(hosts("a:2,b,a:3"), (Hosts{given("a", 5), defaulted("b")}));
  EXPECT_EQ(hosts("n[1-2],n[2-3]:4"), (Hosts{defaulted("n1"), given("n2", 5), given("n3", 4)}));
}

TEST(HostOption, BadSlots) {
  for (const char* text : {"h1:", "h1:0", "h1:x", "h1:-1", "h1:4x", "h1:1048577", "h1:99999999999999999999"}) {
    auto r = parse_host_option(text);
    ASSERT_TRUE(FailedWith(r, "launch", "host-bad-slots")) << text;
    EXPECT_EQ(r.error().arg("source"), "--host");
    EXPECT_TRUE(Contains(r.error().arg("why"), "from 1 to 1048576")) << text;
  }
  auto r = parse_host_option("good:2,bad:zero");
  ASSERT_TRUE(FailedWith(r, "launch", "host-bad-slots"));
  EXPECT_EQ(r.error().arg("host"), "bad");
  EXPECT_EQ(r.error().arg("slots"), "zero");
}

TEST(HostOption, SlotsOverTheLimitWhenAddedUp) {
  EXPECT_TRUE(Succeeded(parse_host_option("h:1048576")));
  auto r = parse_host_option("h:1048576,h");
  ASSERT_TRUE(FailedWith(r, "launch", "host-bad-slots"));
  EXPECT_TRUE(Contains(r.error().arg("why"), "more than once"));
}

TEST(HostOption, HostlistErrorsNameTheOption) {
  auto r = parse_host_option("node[1-3:2");
  ASSERT_TRUE(FailedWith(r, "launch", "hostlist-syntax"));
  EXPECT_EQ(r.error().arg("source"), "--host");
  EXPECT_TRUE(FailedWith(parse_host_option(":4"), "launch", "hostlist-syntax"));
  EXPECT_TRUE(FailedWith(parse_host_option("h:1:2"), "launch", "hostlist-syntax"));
  EXPECT_TRUE(FailedWith(parse_host_option("a,,b"), "launch", "hostlist-syntax"));
  EXPECT_TRUE(FailedWith(parse_host_option(""), "launch", "hostlist-empty"));
  EXPECT_TRUE(FailedWith(parse_host_option("n[1-600000],m[1-600000]"), "launch", "hostlist-too-large"));
}

TEST(MergeDuplicateHosts, KeepsOrderAndAddsSlots) {
  auto r = merge_duplicate_hosts({given("x", 2), defaulted("y"), defaulted("x"), given("y", 3)}, "test");
  ASSERT_TRUE(Succeeded(r));
  EXPECT_EQ(r.value(), (Hosts{given("x", 3), given("y", 4)}));
  EXPECT_TRUE(FailedWith(merge_duplicate_hosts({given("x", kMaxSlotsPerHost + 1)}, "test"), "launch",
                         "host-bad-slots"));
}

TEST(MergeDuplicateHosts, NamesTheFirstHostInListOrderWhoseSlotsAddUpPastTheBound) {
  // "z" sorts after "a" but goes past the bound earlier in the list.
  const unsigned half = kMaxSlotsPerHost / 2 + 1;
  auto r = merge_duplicate_hosts({given("z", half), given("a", half), given("z", half), given("a", half)}, "test");
  ASSERT_TRUE(FailedWith(r, "launch", "host-bad-slots"));
  EXPECT_EQ(r.error().arg("host"), "z");
  EXPECT_EQ(r.error().arg("slots"), std::to_string(2 * half));
  EXPECT_TRUE(Contains(r.error().arg("why"), "more than once"));
}

TEST(MergeDuplicateHosts, AMillionHostsWithRepeatsKeepTheirFirstOrder) {
  // The documented bound (kMaxHostNames), every name twice but the last.
  Hosts in;
  for (unsigned i = 0; i < kMaxHostNames / 2; ++i) in.push_back(defaulted("n" + std::to_string(kMaxHostNames / 2 - i)));
  for (unsigned i = 0; i < kMaxHostNames / 2 - 1; ++i) in.push_back(given("n" + std::to_string(kMaxHostNames / 2 - i), 3));
  auto r = merge_duplicate_hosts(std::move(in), "test");
  ASSERT_TRUE(Succeeded(r));
  ASSERT_EQ(r->size(), kMaxHostNames / 2);
  EXPECT_EQ(r->front(), given("n" + std::to_string(kMaxHostNames / 2), 4));
  EXPECT_EQ(r->back(), defaulted("n1"));
}

TEST(HostsWithCounts, PairsInOrder) {
  auto r = hosts_with_counts({"n1", "n2", "n3"}, {2, 2, 5}, "SLURM_JOB_NODELIST", "SLURM_TASKS_PER_NODE");
  ASSERT_TRUE(Succeeded(r));
  EXPECT_EQ(r.value(), (Hosts{given("n1", 2), given("n2", 2), given("n3", 5)}));
}

TEST(HostsWithCounts, DifferentLengthsAreAnError) {
  auto r = hosts_with_counts({"n1", "n2"}, {2}, "SLURM_JOB_NODELIST", "SLURM_TASKS_PER_NODE");
  ASSERT_TRUE(FailedWith(r, "launch", "tasks-per-node-mismatch"));
  EXPECT_EQ(r.error().arg("names"), "2");
  EXPECT_EQ(r.error().arg("counts"), "1");
}

}  // namespace
}  // namespace orca::launch
