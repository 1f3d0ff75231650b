// The reachable framework's base: base_verdict's rules, link_bonus, and
// compute_matrix around a fake C module that records what it is asked.
#include "help/help.h"
#include <orca/reachable.h>

#include "lib/expect_text.h"
#include "lib/synthetic_inventory.h"
#include "reachable/weighted/weighted_ranker.h"

#include <gtest/gtest.h>
#include <sys/socket.h>

#include <cstdio>
#include <cstring>
#include <list>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace orca::reach {
namespace {

using net::InterfaceKind;
using orca::test::Contains;
using orca::test::ip;
using orca::test::make_entry;
using orca::test::make_link;
using orca::test::remote;

// A local endpoint for address/prefix on a link of `kind`. The entry is
// kept alive in a list because the endpoint points at its name.
class Endpoints {
 public:
  orca_reach_endpoint local(const char* address, int prefix = 24, InterfaceKind kind = InterfaceKind::Physical,
                            std::uint64_t speed = 0, bool running = true) {
    net::LinkInfo link = make_link({"if" + std::to_string(entries_.size()), 10 + static_cast<int>(entries_.size()),
                                    kind, true, running, std::nullopt});
    if (speed != 0) link.speed_mbps = speed;
    entries_.push_back(make_entry(link, address, prefix));
    return to_endpoint(entries_.back());
  }
  static orca_reach_endpoint peer(const char* address, int prefix = 24, InterfaceKind kind = InterfaceKind::Unknown) {
    return to_endpoint(remote(address, prefix, kind));
  }

 private:
  std::list<net::InterfaceAddress> entries_;  // stable addresses
};

orca_reach_verdict blank() {
  orca_reach_verdict v{};
  v.weight = 12345;  // a value no rule gives
  std::snprintf(v.reason, sizeof v.reason, "untouched");
  return v;
}

// --- base_verdict ---------------------------------------------------------------

class BaseVerdict : public ::testing::Test {
 protected:
  // Runs the rule; returns whether the base decided.
  bool decide(const orca_reach_endpoint& l, const orca_reach_endpoint& r, bool same_host, bool remote_is_mine) {
    verdict_ = blank();
    return base_verdict(l, r, same_host, remote_is_mine, &verdict_);
  }
  std::string reason() const { return std::string(verdict_.reason, strnlen(verdict_.reason, sizeof verdict_.reason)); }

  Endpoints eps_;
  orca_reach_verdict verdict_{};
};

TEST_F(BaseVerdict, FamiliesDiffer) {
  for (bool same_host : {false, true}) {
    EXPECT_TRUE(decide(eps_.local("10.1.0.5"), Endpoints::peer("fd00:1::9", 64), same_host, false));
    EXPECT_EQ(verdict_.weight, 0);
    EXPECT_EQ(reason(), "address families differ");
    // Even between two loopbacks of one host.
    EXPECT_TRUE(decide(eps_.local("127.0.0.1", 8, InterfaceKind::Loopback), Endpoints::peer("::1", 128), same_host,
                       true));
    EXPECT_EQ(verdict_.weight, 0);
    EXPECT_EQ(reason(), "address families differ");
  }
}

TEST_F(BaseVerdict, LoopbackWithLoopbackOnTheSameHost) {
  EXPECT_TRUE(decide(eps_.local("127.0.0.1", 8, InterfaceKind::Loopback), Endpoints::peer("127.0.0.1", 8), true, true));
  EXPECT_EQ(verdict_.weight, kWeightSameHostLoopback);
  EXPECT_TRUE(Contains(reason(), "same host"));
  EXPECT_TRUE(decide(eps_.local("::1", 128, InterfaceKind::Loopback), Endpoints::peer("::1", 128), true, true));
  EXPECT_EQ(verdict_.weight, kWeightSameHostLoopback);
  // Any address of 127/8 is loopback.
  EXPECT_TRUE(decide(eps_.local("127.0.0.1", 8, InterfaceKind::Loopback), Endpoints::peer("127.0.0.2", 8), true, false));
  EXPECT_EQ(verdict_.weight, kWeightSameHostLoopback);
}

TEST_F(BaseVerdict, LoopbackWithLoopbackOnAnotherHost) {
  for (bool mine : {false, true}) {
    EXPECT_TRUE(decide(eps_.local("127.0.0.1", 8, InterfaceKind::Loopback), Endpoints::peer("127.0.0.1", 8), false, mine));
    EXPECT_EQ(verdict_.weight, 0);
    EXPECT_EQ(reason(), "loopback is only for peers on this host");
    EXPECT_TRUE(decide(eps_.local("::1", 128, InterfaceKind::Loopback), Endpoints::peer("::1", 128), false, mine));
    EXPECT_EQ(verdict_.weight, 0);
  }
}

TEST_F(BaseVerdict, LoopbackWithNonLoopbackBothWays) {
  for (bool same_host : {false, true}) {
    EXPECT_TRUE(decide(eps_.local("127.0.0.1", 8, InterfaceKind::Loopback), Endpoints::peer("10.1.0.9"), same_host,
                       false));
    EXPECT_EQ(verdict_.weight, 0) << same_host;
    EXPECT_EQ(reason(), "loopback pairs only with loopback");
    EXPECT_TRUE(decide(eps_.local("10.1.0.5"), Endpoints::peer("127.0.0.1", 8), same_host, true));
    EXPECT_EQ(verdict_.weight, 0) << same_host;
    EXPECT_EQ(reason(), "loopback pairs only with loopback");
    EXPECT_TRUE(decide(eps_.local("::1", 128, InterfaceKind::Loopback), Endpoints::peer("fd00:1::9", 64), same_host,
                       false));
    EXPECT_EQ(verdict_.weight, 0) << same_host;
    EXPECT_TRUE(decide(eps_.local("fd00:1::5", 64), Endpoints::peer("::1", 128), same_host, true));
    EXPECT_EQ(verdict_.weight, 0) << same_host;
  }
}

TEST_F(BaseVerdict, MyOwnAddressIsNoPathToAnotherHost) {
  EXPECT_TRUE(decide(eps_.local("192.168.122.1", 24, InterfaceKind::Bridge), Endpoints::peer("192.168.122.1"), false,
                     true));
  EXPECT_EQ(verdict_.weight, 0);
  EXPECT_TRUE(Contains(reason(), "192.168.122.1"));
  EXPECT_TRUE(Contains(reason(), "also an address of this host"));
  // Whichever local address is paired with it.
  EXPECT_TRUE(decide(eps_.local("10.1.0.5"), Endpoints::peer("172.17.0.1", 16), false, true));
  EXPECT_EQ(verdict_.weight, 0);
  EXPECT_TRUE(Contains(reason(), "172.17.0.1"));
  EXPECT_TRUE(decide(eps_.local("fd00:1::5", 64), Endpoints::peer("fd00:1::5", 64), false, true));
  EXPECT_EQ(verdict_.weight, 0);
  EXPECT_TRUE(Contains(reason(), "fd00:1::5"));
}

TEST_F(BaseVerdict, MyOwnAddressOnTheSameHostIsLeftToTheModule) {
  const orca_reach_verdict before = blank();
  EXPECT_FALSE(decide(eps_.local("192.168.122.1", 24, InterfaceKind::Bridge), Endpoints::peer("192.168.122.1"), true,
                      true));
  EXPECT_EQ(verdict_.weight, before.weight);
  EXPECT_EQ(reason(), "untouched");
}

TEST_F(BaseVerdict, LinkLocalPairsOnlyWithLinkLocal) {
  for (bool same_host : {false, true}) {
    EXPECT_TRUE(decide(eps_.local("fe80::5", 64), Endpoints::peer("fd00:1::9", 64), same_host, false));
    EXPECT_EQ(verdict_.weight, 0);
    EXPECT_EQ(reason(), "link-local pairs only with link-local on the same link");
    EXPECT_TRUE(decide(eps_.local("fd00:1::5", 64), Endpoints::peer("fe80::9", 64), same_host, false));
    EXPECT_EQ(verdict_.weight, 0);
    EXPECT_TRUE(decide(eps_.local("169.254.1.1", 16), Endpoints::peer("10.1.0.9"), same_host, false));
    EXPECT_EQ(verdict_.weight, 0);
    EXPECT_TRUE(decide(eps_.local("10.1.0.5"), Endpoints::peer("169.254.1.9", 16), same_host, false));
    EXPECT_EQ(verdict_.weight, 0);
  }
}

TEST_F(BaseVerdict, EverythingElseIsTheModulesDecision) {
  struct Pair {
    const char* local;
    const char* remote;
  };
  for (const Pair& p : {Pair{"10.1.0.5", "10.1.0.9"}, Pair{"10.1.0.5", "10.2.0.9"}, Pair{"10.1.0.5", "203.0.113.9"},
                        Pair{"192.168.122.1", "192.168.122.7"}, Pair{"fe80::5", "fe80::9"},
                        Pair{"169.254.1.1", "169.254.1.9"}, Pair{"fd00:1::5", "2001:db8::9"}}) {
    for (bool same_host : {false, true}) {
      EXPECT_FALSE(decide(eps_.local(p.local), Endpoints::peer(p.remote), same_host, false))
          << p.local << " -> " << p.remote << " decided: " << verdict_.weight << " " << reason();
    }
  }
}

// --- link_bonus -----------------------------------------------------------------

class LinkBonus : public ::testing::Test {
 protected:
  int bonus(InterfaceKind local, InterfaceKind remote_kind, std::uint64_t speed = 0, std::string* why = nullptr) {
    return link_bonus(eps_.local("10.1.0.5", 24, local, speed), Endpoints::peer("10.1.0.9", 24, remote_kind), why);
  }
  Endpoints eps_;
};

TEST_F(LinkBonus, PhysicalThenWirelessThenVethThenBridge) {
  const int physical = bonus(InterfaceKind::Physical, InterfaceKind::Unknown);
  const int wireless = bonus(InterfaceKind::Wireless, InterfaceKind::Unknown);
  const int veth = bonus(InterfaceKind::Veth, InterfaceKind::Unknown);
  const int bridge = bonus(InterfaceKind::Bridge, InterfaceKind::Unknown);
  EXPECT_GT(physical, wireless);
  EXPECT_GT(wireless, veth);
  EXPECT_GT(veth, bridge);
  EXPECT_GE(bridge, 0);
}

TEST_F(LinkBonus, TheWeakerEndDecides) {
  const int bridge_path = bonus(InterfaceKind::Bridge, InterfaceKind::Bridge);
  std::string why;
  EXPECT_EQ(bonus(InterfaceKind::Physical, InterfaceKind::Bridge, 0, &why), bridge_path);
  EXPECT_EQ(why, "bridge path");
  EXPECT_EQ(bonus(InterfaceKind::Bridge, InterfaceKind::Physical, 0, &why), bridge_path);
  EXPECT_EQ(why, "bridge path");
  EXPECT_EQ(bonus(InterfaceKind::Physical, InterfaceKind::Veth), bonus(InterfaceKind::Veth, InterfaceKind::Veth));
  EXPECT_EQ(bonus(InterfaceKind::Wireless, InterfaceKind::Physical),
            bonus(InterfaceKind::Wireless, InterfaceKind::Wireless));
  EXPECT_LT(bonus(InterfaceKind::Physical, InterfaceKind::Wireless),
            bonus(InterfaceKind::Physical, InterfaceKind::Physical));
}

TEST_F(LinkBonus, AnUnknownRemoteKindTakesTheLocalKind) {
  for (InterfaceKind k : {InterfaceKind::Physical, InterfaceKind::Wireless, InterfaceKind::Veth, InterfaceKind::Bridge,
                          InterfaceKind::Vlan, InterfaceKind::TunTap}) {
    std::string why_unknown, why_same;
    EXPECT_EQ(bonus(k, InterfaceKind::Unknown, 0, &why_unknown), bonus(k, k, 0, &why_same)) << net::kind_name(k);
    EXPECT_EQ(why_unknown, std::string(net::kind_name(k)) + " path");
    EXPECT_EQ(why_unknown, why_same);
  }
}

TEST_F(LinkBonus, SpeedRaisesIt) {
  int previous = -1;
  for (std::uint64_t speed : {0ull, 100ull, 1000ull, 10000ull, 25000ull, 100000ull}) {
    const int b = bonus(InterfaceKind::Physical, InterfaceKind::Physical, speed);
    EXPECT_GT(b, previous) << speed << " Mb/s";
    previous = b;
  }
  std::string why;
  bonus(InterfaceKind::Physical, InterfaceKind::Unknown, 10000, &why);
  EXPECT_EQ(why, "physical path, 10000 Mb/s");
  bonus(InterfaceKind::Physical, InterfaceKind::Unknown, 0, &why);
  EXPECT_EQ(why, "physical path");
}

TEST_F(LinkBonus, OnlyTheLocalSpeedCounts) {
  orca_reach_endpoint l = eps_.local("10.1.0.5", 24, InterfaceKind::Physical, 1000);
  orca_reach_endpoint r = Endpoints::peer("10.1.0.9", 24, InterfaceKind::Physical);
  const int base = link_bonus(l, r, nullptr);
  r.speed_mbps = 100000;
  EXPECT_EQ(link_bonus(l, r, nullptr), base);
}

TEST_F(LinkBonus, StaysWithin0To100) {
  std::vector<int> kinds;
  for (int k = 0; k <= static_cast<int>(InterfaceKind::Unknown); ++k) kinds.push_back(k);
  kinds.push_back(-1);  // not a kind at all: a peer's garbage
  kinds.push_back(99);
  for (int lk : kinds) {
    for (int rk : kinds) {
      for (std::uint64_t speed : {0ull, 1ull, 999ull, 1000ull, 25000ull, 100000ull, 400000ull, ~0ull}) {
        orca_reach_endpoint l = eps_.local("10.1.0.5");
        l.kind = lk;
        l.speed_mbps = speed;
        orca_reach_endpoint r = Endpoints::peer("10.1.0.9");
        r.kind = rk;
        std::string why;
        const int b = link_bonus(l, r, &why);
        EXPECT_GE(b, 0) << lk << "/" << rk << "/" << speed;
        EXPECT_LE(b, 100) << lk << "/" << rk << "/" << speed;
        EXPECT_FALSE(why.empty());
      }
    }
  }
}

// --- compute_matrix with a fake module -------------------------------------------

// A reachable module in plain C form. compute records the (local, remote)
// pairs it finds undecided, by address text, and gives each the weight the
// test chose (or leaves it undecided when the test says so).
struct FakeModule {
  std::map<std::pair<std::string, std::string>, int> weights;  // default: 1
  std::vector<std::pair<std::string, std::string>> asked;
  int calls = 0;
  int same_host = -1;
  int omit_reasons = -1;
  orca_mca_rc rc = ORCA_MCA_OK;

  static std::string text(const orca_reach_endpoint& e) {
    return net::IpAddress(e.family == AF_INET ? net::Family::V4 : net::Family::V6, e.address, e.scope_id).to_string();
  }

  static orca_mca_rc compute(void* self, const orca_reach_query* q, orca_reach_verdict* verdicts) {
    auto* fake = static_cast<FakeModule*>(self);
    ++fake->calls;
    fake->same_host = q->same_host;
    fake->omit_reasons = q->omit_reasons;
    if (fake->rc != ORCA_MCA_OK) return fake->rc;
    for (size_t l = 0; l < q->n_locals; ++l) {
      for (size_t r = 0; r < q->n_remotes; ++r) {
        orca_reach_verdict& v = verdicts[l * q->n_remotes + r];
        if (v.weight != ORCA_REACH_UNDECIDED) continue;
        auto key = std::make_pair(text(q->locals[l]), text(q->remotes[r]));
        fake->asked.push_back(key);
        auto it = fake->weights.find(key);
        v.weight = it == fake->weights.end() ? 1 : it->second;
        std::snprintf(v.reason, sizeof v.reason, "fake %s -> %s", key.first.c_str(), key.second.c_str());
      }
    }
    return ORCA_MCA_OK;
  }

  orca_reachable_module module() { return orca_reachable_module{this, &FakeModule::compute}; }
};

// The real weighted ranker as a module.
orca_mca_rc weighted_compute(void*, const orca_reach_query* q, orca_reach_verdict* verdicts) {
  return weighted::rank(*q, verdicts);
}

using Asked = std::vector<std::pair<std::string, std::string>>;

class ComputeMatrix : public ::testing::Test {
 protected:
  // The standard inventory, everything up selected (as with no lists).
  void SetUp() override {
    inventory_ = test::standard_inventory();
    auto d = net::select_interfaces(inventory_, net::InterfaceFilter{});
    ASSERT_TRUE(d.ok()) << d.error().summary();
    selection_ = d.value();
    remotes_ = {remote("10.1.0.9", 24, InterfaceKind::Physical), remote("192.168.122.1", 24, InterfaceKind::Bridge),
                remote("fd00:1::9", 64), remote("127.0.0.1", 8, InterfaceKind::Loopback)};
  }

  std::vector<PairVerdict> run(bool same_host) {
    auto m = compute_matrix(fake_.module(), inventory_, selection_, remotes_, same_host);
    if (!m.ok()) {
      ADD_FAILURE() << m.error().summary();
      return {};
    }
    return m.value();
  }

  const PairVerdict* find(const std::vector<PairVerdict>& m, const char* local, const char* remote_text) {
    for (const auto& v : m) {
      if (inventory_.entries()[v.local].address.same_address(ip(local)) &&
          remotes_[v.remote].address.same_address(ip(remote_text)))
        return &v;
    }
    ADD_FAILURE() << "no verdict for " << local << " -> " << remote_text;
    return nullptr;
  }

  net::InterfaceInventory inventory_;
  std::vector<net::InterfaceDecision> selection_;
  std::vector<RemoteAddress> remotes_;
  FakeModule fake_;
};

TEST_F(ComputeMatrix, TheModuleIsAskedOnlyForUndecidedPairs) {
  const auto m = run(false);
  EXPECT_EQ(fake_.calls, 1);
  EXPECT_EQ(fake_.same_host, 0);
  // 10.1.0.5 and 192.168.122.1 with the peer's 10.1.0.9, fd00:1::5 with
  // fd00:1::9. Not asked: anything with loopback, other families, the
  // peer's 192.168.122.1 (mine, peer elsewhere), unselected entries.
  EXPECT_EQ(fake_.asked, (Asked{{"10.1.0.5", "10.1.0.9"}, {"fd00:1::5", "fd00:1::9"}, {"192.168.122.1", "10.1.0.9"}}));
}

TEST_F(ComputeMatrix, SameHostIsPassedOnAndChangesWhatIsUndecided) {
  const auto m = run(true);
  EXPECT_EQ(fake_.calls, 1);
  EXPECT_EQ(fake_.same_host, 1);
  // On the same host the peer's 192.168.122.1 is no longer settled by the
  // base: it is the module's to rank.
  EXPECT_EQ(fake_.asked, (Asked{{"10.1.0.5", "10.1.0.9"},
                                {"10.1.0.5", "192.168.122.1"},
                                {"fd00:1::5", "fd00:1::9"},
                                {"192.168.122.1", "10.1.0.9"},
                                {"192.168.122.1", "192.168.122.1"}}));
  const PairVerdict* lo = find(m, "127.0.0.1", "127.0.0.1");
  ASSERT_NE(lo, nullptr);
  EXPECT_EQ(lo->weight, kWeightSameHostLoopback);
  EXPECT_EQ(&m.front(), lo);
}

TEST_F(ComputeMatrix, WeightsOnlyAsksTheModuleSoAndKeepsEveryWeightAndTheOrder) {
  fake_.weights = {{{"10.1.0.5", "10.1.0.9"}, 500}, {{"fd00:1::5", "fd00:1::9"}, 900}};
  const auto kept = run(false);
  EXPECT_EQ(fake_.omit_reasons, 0);
  auto omitted = compute_matrices(fake_.module(), inventory_, selection_, {remotes_}, false, Reasons::Omitted);
  ASSERT_TRUE(omitted.ok()) << omitted.error().summary();
  EXPECT_EQ(fake_.omit_reasons, 1);
  ASSERT_EQ(omitted.value().size(), 1u);
  const auto& m = omitted.value().front();
  ASSERT_EQ(m.size(), kept.size());
  for (size_t i = 0; i < m.size(); ++i) {
    EXPECT_EQ(m[i].local, kept[i].local) << i;
    EXPECT_EQ(m[i].remote, kept[i].remote) << i;
    EXPECT_EQ(m[i].weight, kept[i].weight) << i;
    EXPECT_TRUE(m[i].reason.empty()) << i << ": " << m[i].reason;
    EXPECT_FALSE(kept[i].reason.empty()) << i;
  }
}

TEST_F(ComputeMatrix, EveryPairOfSelectedEntriesAndRemotesOnce) {
  const auto m = run(false);
  // 5 selected entries (lo x2, eth0 x2, virbr0) x 4 remotes.
  ASSERT_EQ(m.size(), 5u * remotes_.size());
  std::map<std::pair<size_t, size_t>, int> seen;
  for (const auto& v : m) {
    EXPECT_TRUE(selection_[v.local].selected) << "entry " << v.local << " is not selected";
    EXPECT_LT(v.remote, remotes_.size());
    const std::pair<size_t, size_t> key(v.local, v.remote);
    EXPECT_EQ(++seen[key], 1) << v.local << "/" << v.remote;
    EXPECT_GE(v.weight, 0);
    EXPECT_FALSE(v.reason.empty()) << v.local << "/" << v.remote;
  }
  for (const auto& v : m) {
    EXPECT_NE(v.local, test::kEntryEth0Tentative);
    EXPECT_NE(v.local, test::kEntryWlan0);
  }
}

TEST_F(ComputeMatrix, SortedByWeightTiesInLocalThenRemoteOrder) {
  fake_.weights = {{{"10.1.0.5", "10.1.0.9"}, 500}, {{"fd00:1::5", "fd00:1::9"}, 900},
                   {{"192.168.122.1", "10.1.0.9"}, 500}};
  const auto m = run(false);
  ASSERT_EQ(m.size(), 20u);
  for (size_t i = 1; i < m.size(); ++i) {
    EXPECT_GE(m[i - 1].weight, m[i].weight) << "at " << i;
    if (m[i - 1].weight == m[i].weight) {
      EXPECT_LT(std::make_pair(m[i - 1].local, m[i - 1].remote), std::make_pair(m[i].local, m[i].remote))
          << "tie at " << i << " out of local/remote order";
    }
  }
  // Indexes map back to the inventory entry and the remote address.
  EXPECT_EQ(m[0].weight, 900);
  EXPECT_EQ(m[0].local, test::kEntryEth0V6);
  EXPECT_EQ(m[0].remote, 2u);
  EXPECT_EQ(m[0].reason, "fake fd00:1::5 -> fd00:1::9");
  EXPECT_EQ(m[1].weight, 500);
  EXPECT_EQ(m[1].local, test::kEntryEth0V4);
  EXPECT_EQ(m[1].remote, 0u);
  EXPECT_EQ(m[2].weight, 500);
  EXPECT_EQ(m[2].local, test::kEntryVirbr0);
  EXPECT_EQ(m[2].remote, 0u);
  EXPECT_EQ(m[3].weight, 0);
  // The first of the zeros: lo's 127.0.0.1 with the first remote.
  EXPECT_EQ(m[3].local, test::kEntryLo4);
  EXPECT_EQ(m[3].remote, 0u);
}

TEST_F(ComputeMatrix, TiesAmongRemotesKeepRemoteOrder) {
  remotes_ = {remote("10.1.0.9", 24), remote("10.1.0.8", 24), remote("10.1.0.7", 24)};
  fake_.weights = {{{"10.1.0.5", "10.1.0.9"}, 300}, {{"10.1.0.5", "10.1.0.8"}, 300}, {{"10.1.0.5", "10.1.0.7"}, 300}};
  const auto m = run(false);
  ASSERT_GE(m.size(), 3u);
  for (size_t r = 0; r < 3; ++r) {
    EXPECT_EQ(m[r].local, test::kEntryEth0V4);
    EXPECT_EQ(m[r].remote, r);
    EXPECT_EQ(m[r].weight, 300);
  }
}

TEST_F(ComputeMatrix, BaseReasonsAreKept) {
  const auto m = run(false);
  const PairVerdict* mine = find(m, "10.1.0.5", "192.168.122.1");
  ASSERT_NE(mine, nullptr);
  EXPECT_EQ(mine->weight, 0);
  EXPECT_TRUE(Contains(mine->reason, "192.168.122.1 is also an address of this host"));
  const PairVerdict* fam = find(m, "10.1.0.5", "fd00:1::9");
  ASSERT_NE(fam, nullptr);
  EXPECT_EQ(fam->reason, "address families differ");
}

TEST_F(ComputeMatrix, AnUndecidedOrNegativePairIsNotRanked) {
  fake_.weights = {{{"10.1.0.5", "10.1.0.9"}, ORCA_REACH_UNDECIDED}, {{"fd00:1::5", "fd00:1::9"}, -7}};
  const auto m = run(false);
  for (const auto& [l, r] : {std::pair{"10.1.0.5", "10.1.0.9"}, std::pair{"fd00:1::5", "fd00:1::9"}}) {
    const PairVerdict* v = find(m, l, r);
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->weight, 0) << l << " -> " << r;
    EXPECT_EQ(v->reason, "not ranked by the reachable component") << l << " -> " << r;
  }
  const PairVerdict* ranked = find(m, "192.168.122.1", "10.1.0.9");
  ASSERT_NE(ranked, nullptr);
  EXPECT_EQ(ranked->weight, 1);
  EXPECT_EQ(ranked->reason, "fake 192.168.122.1 -> 10.1.0.9");
}

TEST_F(ComputeMatrix, AFailingModuleIsAnError) {
  for (orca_mca_rc rc : {ORCA_MCA_FAILED, ORCA_MCA_DECLINED}) {
    fake_.rc = rc;
    auto m = compute_matrix(fake_.module(), inventory_, selection_, remotes_, false);
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.error().area(), "reachable");
    EXPECT_EQ(m.error().topic(), "compute-failed");
    const std::string text = HelpCatalog("test", {ORCA_TEST_HELP_DIR}).render(m.error());
    EXPECT_TRUE(Contains(text, "the reachable component failed")) << text;
  }
}

TEST_F(ComputeMatrix, TheModuleIsNotCalledWhenTheBaseDecidesEverything) {
  remotes_ = {remote("127.0.0.1", 8, InterfaceKind::Loopback), remote("192.168.122.1", 24)};
  fake_.rc = ORCA_MCA_FAILED;  // would fail if called
  auto m = compute_matrix(fake_.module(), inventory_, selection_, remotes_, false);
  ASSERT_TRUE(m.ok()) << m.error().summary();
  EXPECT_EQ(fake_.calls, 0);
  for (const auto& v : m.value()) EXPECT_EQ(v.weight, 0);
}

TEST_F(ComputeMatrix, NoRemotesOrNothingSelectedGivesAnEmptyMatrix) {
  remotes_.clear();
  EXPECT_TRUE(run(false).empty());
  EXPECT_EQ(fake_.calls, 0);
  SetUp();
  for (auto& d : selection_) d.selected = false;
  EXPECT_TRUE(run(false).empty());
  EXPECT_EQ(fake_.calls, 0);
}

TEST_F(ComputeMatrix, UnselectedEntriesAreNeverPaired) {
  // Deselect eth0's IPv4 address: 10.1.0.9 is then reached only from virbr0.
  selection_[test::kEntryEth0V4].selected = false;
  const auto m = run(false);
  EXPECT_EQ(fake_.asked, (Asked{{"fd00:1::5", "fd00:1::9"}, {"192.168.122.1", "10.1.0.9"}}));
  for (const auto& v : m) EXPECT_NE(v.local, test::kEntryEth0V4);
  EXPECT_EQ(m.size(), 16u);
}

// --- the seed scenario ----------------------------------------------------------
//
// A host with only lo and a libvirt bridge 192.168.122.1/24; the peer
// advertises 192.168.122.1 too (every libvirt host has it). For a peer on
// another host that pair is worthless; for a peer on this host loopback
// must come first.

class SeedScenario : public ::testing::Test {
 protected:
  void SetUp() override {
    inventory_ = test::lo_and_virbr0_inventory();
    selection_ = test::select_all(inventory_);
  }
  net::InterfaceInventory inventory_;
  std::vector<net::InterfaceDecision> selection_;
  FakeModule fake_;
};

TEST_F(SeedScenario, PeerElsewhereGetsNothingFromTheBridge) {
  const std::vector<RemoteAddress> remotes = {remote("192.168.122.1", 24, InterfaceKind::Bridge)};
  for (const orca_reachable_module& module : {fake_.module(), orca_reachable_module{nullptr, &weighted_compute}}) {
    auto m = compute_matrix(module, inventory_, selection_, remotes, false);
    ASSERT_TRUE(m.ok()) << m.error().summary();
    const auto& mv = m.value();
    ASSERT_EQ(mv.size(), 2u);
    for (const auto& v : mv) EXPECT_EQ(v.weight, 0) << inventory_.entries()[v.local].address_text();
    const auto& virbr0 = mv[0].local == 1 ? mv[0] : mv[1];
    ASSERT_EQ(virbr0.local, 1u);
    EXPECT_TRUE(Contains(virbr0.reason, "192.168.122.1"));
    EXPECT_TRUE(Contains(virbr0.reason, "no path to another host"));
  }
  EXPECT_EQ(fake_.calls, 0);
}

TEST_F(SeedScenario, PeerOnThisHostUsesLoopbackFirst) {
  const std::vector<RemoteAddress> remotes = {remote("192.168.122.1", 24, InterfaceKind::Bridge),
                                              remote("127.0.0.1", 8, InterfaceKind::Loopback)};
  fake_.weights = {{{"192.168.122.1", "192.168.122.1"}, 800}};
  for (const orca_reachable_module& module : {fake_.module(), orca_reachable_module{nullptr, &weighted_compute}}) {
    auto m = compute_matrix(module, inventory_, selection_, remotes, true);
    ASSERT_TRUE(m.ok()) << m.error().summary();
    const auto& mv = m.value();
    ASSERT_EQ(mv.size(), 4u);
    const PairVerdict& first = mv.front();
    EXPECT_EQ(first.local, 0u);   // lo 127.0.0.1
    EXPECT_EQ(first.remote, 1u);  // the peer's 127.0.0.1
    EXPECT_EQ(first.weight, kWeightSameHostLoopback);
    // The bridge pair is ranked by the module, below loopback but usable.
    const PairVerdict& second = mv[1];
    EXPECT_EQ(second.local, 1u);
    EXPECT_EQ(second.remote, 0u);
    EXPECT_GT(second.weight, 0);
    EXPECT_LT(second.weight, kWeightSameHostLoopback);
    EXPECT_EQ(mv[2].weight, 0);
    EXPECT_EQ(mv[3].weight, 0);
  }
  EXPECT_EQ(fake_.asked, (Asked{{"192.168.122.1", "192.168.122.1"}}));
}

TEST_F(SeedScenario, PeerOnThisHostWithoutLoopbackAdvertised) {
  const std::vector<RemoteAddress> remotes = {remote("192.168.122.1", 24, InterfaceKind::Bridge)};
  auto m = compute_matrix(fake_.module(), inventory_, selection_, remotes, true);
  ASSERT_TRUE(m.ok()) << m.error().summary();
  const auto& mv = m.value();
  ASSERT_EQ(mv.size(), 2u);
  // Only the bridge pair is usable; lo pairs only with loopback.
  EXPECT_EQ(mv[0].local, 1u);
  EXPECT_EQ(mv[0].weight, 1);
  EXPECT_EQ(mv[1].local, 0u);
  EXPECT_EQ(mv[1].weight, 0);
  EXPECT_EQ(mv[1].reason, "loopback pairs only with loopback");
}

}  // namespace
// --- compute_matrices: several peers in one query ---------------------------------

namespace {

RemoteAddress bridge(const char* text, int prefix) {
  return RemoteAddress{*net::IpAddress::parse(text), prefix, net::InterfaceKind::Bridge};
}

TEST_F(ComputeMatrix, SeveralPeersInOneQueryGiveWhatEachGivesAlone) {
  // The third peer has none; the fourth's virbr0 is a copy of mine
  // (192.168.122.1), so its link-local address is on a host-local
  // bridge; the fifth has the same link-local address without that copy,
  // so its bridge may be a real path. The rule must see each peer alone.
  const std::vector<std::vector<RemoteAddress>> peers = {
      remotes_,
      {remote("10.1.0.7", 24, InterfaceKind::Physical), remote("fd00:1::7", 64)},
      {},
      {bridge("192.168.122.1", 24), bridge("fe80::5054:ff:fe00:1", 64)},
      {bridge("fe80::5054:ff:fe00:1", 64)}};
  fake_.weights[{"10.1.0.5", "10.1.0.7"}] = 70;
  auto together = compute_matrices(fake_.module(), inventory_, selection_, peers, false);
  ASSERT_TRUE(together.ok()) << together.error().summary();
  EXPECT_EQ(fake_.calls, 1);
  ASSERT_EQ(together.value().size(), peers.size());
  for (size_t p = 0; p < peers.size(); ++p) {
    FakeModule alone_module;
    alone_module.weights = fake_.weights;
    auto alone = compute_matrix(alone_module.module(), inventory_, selection_, peers[p], false);
    ASSERT_TRUE(alone.ok()) << alone.error().summary();
    const auto& got = together.value()[p];
    ASSERT_EQ(got.size(), alone.value().size()) << "peer " << p;
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].local, alone.value()[i].local) << "peer " << p << " pair " << i;
      EXPECT_EQ(got[i].remote, alone.value()[i].remote) << "peer " << p << " pair " << i;
      EXPECT_EQ(got[i].weight, alone.value()[i].weight) << "peer " << p << " pair " << i;
      EXPECT_EQ(got[i].reason, alone.value()[i].reason) << "peer " << p << " pair " << i;
    }
  }
  auto reason_toward = [&](size_t p, const char* local) {
    for (const auto& v : together.value()[p]) {
      if (inventory_.entries()[v.local].address.same_address(ip(local)) && v.remote == peers[p].size() - 1) return v.reason;
    }
    return std::string("(no verdict)");
  };
  EXPECT_TRUE(Contains(reason_toward(3, "fd00:1::5"), "host-local bridge")) << reason_toward(3, "fd00:1::5");
  EXPECT_FALSE(Contains(reason_toward(4, "fd00:1::5"), "host-local bridge")) << reason_toward(4, "fd00:1::5");
  // The second peer's weights are its own, not shifted by the first's.
  EXPECT_EQ(together.value()[1].front().weight, 70);
}

}  // namespace
}  // namespace orca::reach

// --- link-local addresses of a peer's host-local bridges ---------------------------

namespace orca::reach {
namespace {

TEST(HostLocalBridges, LinkLocalsOfBridgesCarryingOnlyMyAddressesLeadNowhere) {
  // The peer's virbr0 and docker0 carry 192.168.122.1 and 172.17.0.1, as
  // mine do: their fe80:: addresses are on bridges that end in its host.
  const std::vector<RemoteAddress> remotes = {bridge("192.168.122.1", 24), bridge("fe80::5054:ff:fe00:1", 64),
                                              bridge("172.17.0.1", 16), bridge("fe80::42:acff:fe11:1", 64),
                                              RemoteAddress{*net::IpAddress::parse("fe80::1"), 64, net::InterfaceKind::Veth}};
  const std::vector<bool> mine = {true, false, true, false, false};
  EXPECT_EQ(on_host_local_bridge(remotes, mine, false), (std::vector<bool>{false, true, false, true, false}));
  // Same host: loopback and everything else stays as the base decides.
  EXPECT_EQ(on_host_local_bridge(remotes, mine, true), std::vector<bool>(5, false));
}

TEST(HostLocalBridges, OneBridgeAddressOfItsOwnKeepsTheLinkLocals) {
  // A br0 holding the peer's LAN address is a real path, and so may be
  // its link-local address.
  const std::vector<RemoteAddress> remotes = {bridge("192.168.122.1", 24), bridge("10.1.0.9", 24),
                                              bridge("fe80::1", 64)};
  EXPECT_EQ(on_host_local_bridge(remotes, {true, false, false}, false), std::vector<bool>(3, false));
  // No routable bridge address at all: no evidence either way, kept.
  EXPECT_EQ(on_host_local_bridge({bridge("fe80::1", 64)}, {false}, false), std::vector<bool>(1, false));
}

}  // namespace
}  // namespace orca::reach
