// classify_link: the kind of a link from what the kernel says about it,
// rule by rule in the order the rules apply; kind_name / parse_kind.
//
// The design forbids classifying by interface NAME (interfaces.h: "a
// bridge called eth9 is a bridge, a NIC called virbr0 is physical"): names
// are chosen by users, udev and container tools and say nothing reliable.
// LinkTraits therefore has no name field at all, and
// ClassifyLink.TraitsCarryNoName below stops compiling if one is added.
#include <orca/interfaces.h>

#include "lib/synthetic_inventory.h"

#include <gtest/gtest.h>

#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace orca::net {
namespace {

LinkTraits traits(std::string link_kind = "", bool has_device = false, bool wireless = false,
                  bool bridge_dir = false, bool tun_flags = false, bool loopback_flag = false) {
  LinkTraits t;
  t.loopback_flag = loopback_flag;
  t.link_kind = std::move(link_kind);
  t.has_device = has_device;
  t.wireless = wireless;
  t.bridge_dir = bridge_dir;
  t.tun_flags = tun_flags;
  return t;
}

struct Rule {
  const char* name;  // for the test name
  LinkTraits traits;
  InterfaceKind want;
};

void PrintTo(const Rule& rule, std::ostream* os) { *os << rule.name; }

class ClassifyLinkRule : public ::testing::TestWithParam<Rule> {};

TEST_P(ClassifyLinkRule, GivesTheKind) {
  EXPECT_EQ(classify_link(GetParam().traits), GetParam().want);
}

// Each rule, and each rule against everything that comes after it.
INSTANTIATE_TEST_SUITE_P(
    InOrder, ClassifyLinkRule,
    ::testing::Values(
        // 1. IFF_LOOPBACK beats everything.
        Rule{"loopback_flag", traits("", false, false, false, false, true), InterfaceKind::Loopback},
        Rule{"loopback_beats_all", traits("bridge", true, true, true, true, true), InterfaceKind::Loopback},
        Rule{"loopback_beats_veth", traits("veth", false, false, false, false, true), InterfaceKind::Loopback},
        // 2. The kernel's link kind, each word.
        Rule{"kind_bridge", traits("bridge"), InterfaceKind::Bridge},
        Rule{"kind_veth", traits("veth"), InterfaceKind::Veth},
        Rule{"kind_vlan", traits("vlan"), InterfaceKind::Vlan},
        Rule{"kind_bond", traits("bond"), InterfaceKind::Bond},
        Rule{"kind_tun", traits("tun"), InterfaceKind::TunTap},
        Rule{"kind_dummy", traits("dummy"), InterfaceKind::Dummy},
        // ... and it beats every sysfs trait.
        Rule{"vlan_on_a_device", traits("vlan", true), InterfaceKind::Vlan},
        Rule{"bond_on_a_device", traits("bond", true), InterfaceKind::Bond},
        Rule{"veth_beats_sysfs", traits("veth", true, true, true, true), InterfaceKind::Veth},
        Rule{"bridge_kind_without_bridge_dir", traits("bridge", true), InterfaceKind::Bridge},
        Rule{"dummy_beats_tun_flags", traits("dummy", false, false, false, true), InterfaceKind::Dummy},
        // 3. wireless/ or phy80211/ in sysfs.
        Rule{"wireless", traits("", true, true), InterfaceKind::Wireless},
        Rule{"wireless_beats_tun_bridge", traits("", true, true, true, true), InterfaceKind::Wireless},
        Rule{"wireless_beats_unknown_kind", traits("macvlan", false, true), InterfaceKind::Wireless},
        // 4. tun_flags in sysfs.
        Rule{"tun_flags", traits("", false, false, false, true), InterfaceKind::TunTap},
        Rule{"tun_flags_beat_bridge_dir", traits("", true, false, true, true), InterfaceKind::TunTap},
        // 5. bridge/ in sysfs.
        Rule{"bridge_dir", traits("", false, false, true), InterfaceKind::Bridge},
        Rule{"bridge_dir_beats_device", traits("", true, false, true), InterfaceKind::Bridge},
        // 6. A link kind the rule does not know: some other virtual link.
        Rule{"kind_macvlan", traits("macvlan"), InterfaceKind::OtherVirtual},
        Rule{"kind_vxlan", traits("vxlan"), InterfaceKind::OtherVirtual},
        Rule{"kind_wireguard", traits("wireguard"), InterfaceKind::OtherVirtual},
        Rule{"unknown_kind_beats_device", traits("ipvlan", true), InterfaceKind::OtherVirtual},
        // 7. A bus device behind it: a NIC.
        Rule{"device", traits("", true), InterfaceKind::Physical},
        // 8. Nothing known: some virtual link.
        Rule{"nothing", traits(), InterfaceKind::OtherVirtual}),
    [](const ::testing::TestParamInfo<Rule>& param_info) { return std::string(param_info.param.name); });

TEST(ClassifyLink, TraitsCarryNoName) {
  // Exactly six facts from the kernel and sysfs, none of them a name: a
  // structured binding with six names stops compiling if a member is added.
  LinkTraits t = traits("bridge", false, false, true);
  auto& [loopback_flag, link_kind, has_device, wireless, bridge_dir, tun_flags] = t;
  EXPECT_FALSE(loopback_flag);
  EXPECT_EQ(link_kind, "bridge");
  EXPECT_FALSE(has_device);
  EXPECT_FALSE(wireless);
  EXPECT_TRUE(bridge_dir);
  EXPECT_FALSE(tun_flags);
}

TEST(ClassifyLink, EqualTraitsGiveEqualKindsWhateverTheLinkIsCalled) {
  // What a bridge called "eth9" and one called "virbr0" look like to the
  // kernel: the same traits, so the same kind. And a NIC called "virbr0"
  // or "docker0" has a device and no link kind: physical.
  const LinkTraits bridge_called_eth9 = traits("bridge", false, false, true);
  const LinkTraits bridge_called_virbr0 = traits("bridge", false, false, true);
  EXPECT_EQ(classify_link(bridge_called_eth9), InterfaceKind::Bridge);
  EXPECT_EQ(classify_link(bridge_called_eth9), classify_link(bridge_called_virbr0));
  const LinkTraits nic_called_virbr0 = traits("", true);
  EXPECT_EQ(classify_link(nic_called_virbr0), InterfaceKind::Physical);
  // A bridge seen without sysfs (another namespace's sysfs) is still a
  // bridge by its link kind alone.
  EXPECT_EQ(classify_link(traits("bridge")), InterfaceKind::Bridge);
}

// --- what sysfs may skip ---------------------------------------------------------

// The inventory looks nothing up in sysfs for a link kernel_decides_kind
// accepts. That is sound only if classify_link gives such a link one kind
// whatever sysfs would have said: every combination of the four sysfs
// traits is tried.
TEST(KernelDecidesKind, SysfsCannotChangeWhatItDecides) {
  const std::vector<LinkTraits> decided = {traits("", false, false, false, false, true), traits("bridge"),
                                           traits("veth"), traits("vlan"), traits("bond"), traits("tun"),
                                           traits("dummy"), traits("macvlan", false, false, false, false, true)};
  for (LinkTraits t : decided) {
    ASSERT_TRUE(kernel_decides_kind(t)) << t.link_kind;
    const InterfaceKind want = classify_link(t);
    for (int bits = 0; bits < 16; ++bits) {
      t.has_device = (bits & 1) != 0;
      t.wireless = (bits & 2) != 0;
      t.bridge_dir = (bits & 4) != 0;
      t.tun_flags = (bits & 8) != 0;
      EXPECT_EQ(classify_link(t), want) << "link kind '" << t.link_kind << "', sysfs bits " << bits;
    }
  }
}

// Where the kernel names no kind it is sure of, sysfs is asked: for these
// links some sysfs answer changes the class.
TEST(KernelDecidesKind, LeavesTheRestToSysfs) {
  for (const char* kind : {"", "macvlan", "vxlan", "ipoib", "wireguard"}) {
    LinkTraits t = traits(kind);
    EXPECT_FALSE(kernel_decides_kind(t)) << kind;
    std::set<InterfaceKind> seen;
    for (int bits = 0; bits < 16; ++bits) {
      t.has_device = (bits & 1) != 0;
      t.wireless = (bits & 2) != 0;
      t.bridge_dir = (bits & 4) != 0;
      t.tun_flags = (bits & 8) != 0;
      seen.insert(classify_link(t));
    }
    EXPECT_GT(seen.size(), 1u) << "sysfs changes nothing for link kind '" << kind << "'";
  }
}

// --- kind names -----------------------------------------------------------------

const std::vector<std::pair<InterfaceKind, std::string>>& all_kinds() {
  static const std::vector<std::pair<InterfaceKind, std::string>> kinds = {
      {InterfaceKind::Loopback, "loopback"},   {InterfaceKind::Physical, "physical"},
      {InterfaceKind::Wireless, "wireless"},   {InterfaceKind::Bridge, "bridge"},
      {InterfaceKind::Veth, "veth"},           {InterfaceKind::Vlan, "vlan"},
      {InterfaceKind::Bond, "bond"},           {InterfaceKind::TunTap, "tun/tap"},
      {InterfaceKind::Dummy, "dummy"},         {InterfaceKind::OtherVirtual, "other-virtual"},
      {InterfaceKind::Unknown, "unknown"},
  };
  return kinds;
}

TEST(KindName, EveryKindHasItsName) {
  for (const auto& [kind, name] : all_kinds()) EXPECT_EQ(kind_name(kind), name);
  // Unknown is the last enumerator: the list above covers them all.
  EXPECT_EQ(static_cast<int>(InterfaceKind::Unknown) + 1, static_cast<int>(all_kinds().size()));
}

TEST(KindName, NamesAreDistinct) {
  std::set<std::string> names;
  for (const auto& [kind, name] : all_kinds()) names.insert(std::string(kind_name(kind)));
  EXPECT_EQ(names.size(), all_kinds().size());
}

TEST(KindName, RoundTrip) {
  for (const auto& [kind, name] : all_kinds()) {
    auto parsed = parse_kind(kind_name(kind));
    ASSERT_TRUE(parsed.has_value()) << name;
    EXPECT_EQ(*parsed, kind) << name;
  }
}

TEST(KindName, ParseKindRejectsJunk) {
  for (const char* junk : {"", "Physical", "PHYSICAL", " physical", "physical ", "tun", "tap", "ethernet",
                           "other", "other_virtual", "eth0", "bridge0"}) {
    EXPECT_FALSE(parse_kind(junk).has_value()) << "'" << junk << "'";
  }
}

TEST(KindName, OutOfRangeKindIsUnknown) {
  EXPECT_EQ(kind_name(static_cast<InterfaceKind>(99)), "unknown");
}

}  // namespace
}  // namespace orca::net
