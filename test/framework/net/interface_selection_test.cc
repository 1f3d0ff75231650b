// The interface selection policy on synthetic inventories: the two
// variables set through a real mca::Registry, interface_filter_from() and
// select_interfaces(), every decision with its rule.
#include "help/help.h"
#include <orca/interface_selection.h>
#include <orca/mca_var.h>

#include "lib/expect_text.h"
#include "lib/synthetic_inventory.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace orca::net {
namespace {

using orca::test::Contains;
using orca::test::LacksText;
using namespace orca::test;  // kEntry* and the builders

mca::Source command_line() {
  mca::Source s;
  s.kind = mca::SourceKind::CommandLine;
  return s;
}

mca::Source environment() {
  mca::Source s;
  s.kind = mca::SourceKind::Environment;
  return s;
}

mca::Source param_file(const std::string& file, int line) {
  mca::Source s;
  s.kind = mca::SourceKind::ParamFile;
  s.file = file;
  s.line = line;
  return s;
}

// oob/tcp's names for the lists; liborca declares them under whatever
// component asks (these tests stand in for oob/tcp).
constexpr const char* kIfIncludeVar = "oob_tcp_if_include";
constexpr const char* kIfExcludeVar = "oob_tcp_if_exclude";

// What standard_inventory() describes itself as.
constexpr const char* kStandardDescription =
    "lo (127.0.0.1/8 ::1/128), eth0 (10.1.0.5/24 fd00:1::5/64 2001:db8:1::5/64), virbr0 (192.168.122.1/24), "
    "wlan0 (192.168.1.20/24), eth1 (no address)";

class InterfaceSelection : public ::testing::Test {
 protected:
  void SetUp() override {
    Status st = declare_interface_selection_vars(registry_, "oob", "tcp");
    ASSERT_TRUE(st.ok()) << st.error().summary();
  }

  void set(const char* variable, const std::string& text, const mca::Source& source = command_line()) {
    Status st = registry_.add_setting(mca::Setting{variable, text, source});
    ASSERT_TRUE(st.ok()) << st.error().summary();
  }

  // The filter from the registry, then the decisions; both must succeed.
  std::vector<InterfaceDecision> decide() {
    auto filter = interface_filter_from(registry_, "oob_tcp_");
    if (!filter.ok()) {
      ADD_FAILURE() << "interface_filter_from failed: " << filter.error().summary();
      return {};
    }
    auto decisions = select_interfaces(inventory_, filter.value());
    if (!decisions.ok()) {
      ADD_FAILURE() << "select_interfaces failed: " << decisions.error().summary();
      return {};
    }
    const auto& d = decisions.value();
    EXPECT_EQ(d.size(), inventory_.entries().size());
    for (size_t i = 0; i < d.size(); ++i) {
      EXPECT_EQ(d[i].entry, i) << "decision " << i << " is not about entry " << i;
      EXPECT_FALSE(d[i].rule.empty()) << "decision " << i << " gives no rule";
    }
    return std::move(decisions).value();
  }

  // The error of a selection that must fail, at whichever step fails.
  Message decide_error() {
    auto filter = interface_filter_from(registry_, "oob_tcp_");
    if (!filter.ok()) return filter.error();
    auto decisions = select_interfaces(inventory_, filter.value());
    if (!decisions.ok()) return decisions.error();
    ADD_FAILURE() << "selection succeeded, expected an error";
    return Message("test", "no-error");
  }

  static std::vector<bool> selected(const std::vector<InterfaceDecision>& decisions) {
    std::vector<bool> out;
    for (const auto& d : decisions) out.push_back(d.selected);
    return out;
  }

  mca::Registry registry_;
  InterfaceInventory inventory_ = standard_inventory();
};

// --- no lists -----------------------------------------------------------------

TEST_F(InterfaceSelection, NoListsGiveNoFilter) {
  auto filter = interface_filter_from(registry_, "oob_tcp_");
  ASSERT_TRUE(filter.ok()) << filter.error().summary();
  EXPECT_EQ(filter->mode, InterfaceFilter::Mode::None);
  EXPECT_TRUE(filter->entries.empty());
}

TEST_F(InterfaceSelection, NoListsSelectEveryUpEntry) {
  const auto d = decide();
  ASSERT_EQ(d.size(), kStandardEntries);
  EXPECT_EQ(selected(d), (std::vector<bool>{true, true, true, true, false, true, false}));

  EXPECT_EQ(d[kEntryLo4].rule, "loopback, used only for peers on this host");
  EXPECT_EQ(d[kEntryLo6].rule, "loopback, used only for peers on this host");
  EXPECT_EQ(d[kEntryEth0V4].rule, "up with an address; no oob_tcp_if_include/oob_tcp_if_exclude set");
  EXPECT_TRUE(LacksText(d[kEntryEth0V6].rule, "carrier"));
  // The bridge has no carrier: still selected, and the rule says so.
  EXPECT_TRUE(Contains(d[kEntryVirbr0].rule, "up with an address"));
  EXPECT_TRUE(Contains(d[kEntryVirbr0].rule, "no carrier"));
}

TEST_F(InterfaceSelection, DownAndTentativeAreNotSelected) {
  const auto d = decide();
  ASSERT_EQ(d.size(), kStandardEntries);
  EXPECT_FALSE(d[kEntryWlan0].selected);
  EXPECT_EQ(d[kEntryWlan0].rule, "interface is down");
  EXPECT_FALSE(d[kEntryEth0Tentative].selected);
  EXPECT_TRUE(Contains(d[kEntryEth0Tentative].rule, "duplicate address detection"));
}

TEST_F(InterfaceSelection, DecisionsFollowTheInventoryOrder) {
  // The same links with the entries in another order: decision i is still
  // about entry i.
  const LinkInfo lo = make_link({"lo", 1, InterfaceKind::Loopback, true, true, std::nullopt});
  const LinkInfo eth0 = make_link({"eth0", 2, InterfaceKind::Physical, true, true, std::nullopt});
  const LinkInfo virbr0 = make_link({"virbr0", 3, InterfaceKind::Bridge, true, false, std::nullopt});
  inventory_ = InterfaceInventory({lo, eth0, virbr0}, {make_entry(virbr0, "192.168.122.1", 24),
                                                       make_entry(eth0, "10.1.0.5", 24),
                                                       make_entry(lo, "127.0.0.1", 8)});
  set(kIfExcludeVar, "eth0");
  const auto d = decide();
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(selected(d), (std::vector<bool>{true, false, true}));
  EXPECT_TRUE(Contains(d[0].rule, "no carrier"));
  EXPECT_TRUE(Contains(d[1].rule, "excluded by oob_tcp_if_exclude entry 'eth0'"));
  EXPECT_TRUE(Contains(d[2].rule, "loopback"));
}

TEST_F(InterfaceSelection, EmptyInventoryGivesNoDecisions) {
  inventory_ = InterfaceInventory();
  EXPECT_TRUE(decide().empty());
  EXPECT_EQ(inventory_.describe(), "(no interfaces)");
}

// --- include ------------------------------------------------------------------

TEST_F(InterfaceSelection, IncludeByName) {
  set(kIfIncludeVar, "eth0");
  auto filter = interface_filter_from(registry_, "oob_tcp_");
  ASSERT_TRUE(filter.ok()) << filter.error().summary();
  EXPECT_EQ(filter->mode, InterfaceFilter::Mode::Include);
  EXPECT_EQ(filter->variable, "oob_tcp_if_include");
  EXPECT_EQ(filter->source, "command line");
  ASSERT_EQ(filter->entries.size(), 1u);
  EXPECT_EQ(filter->entries[0].text, "eth0");
  EXPECT_FALSE(filter->entries[0].is_prefix);

  const auto d = decide();
  ASSERT_EQ(d.size(), kStandardEntries);
  EXPECT_EQ(selected(d), (std::vector<bool>{true, true, true, true, false, false, false}));
  EXPECT_EQ(d[kEntryEth0V4].rule, "included by oob_tcp_if_include entry 'eth0'");
  EXPECT_EQ(d[kEntryEth0V6].rule, "included by oob_tcp_if_include entry 'eth0'");
  EXPECT_EQ(d[kEntryVirbr0].rule, "not in oob_tcp_if_include (command line)");
  // A named interface is still not used while down or tentative.
  EXPECT_TRUE(Contains(d[kEntryEth0Tentative].rule, "duplicate address detection"));
  EXPECT_EQ(d[kEntryWlan0].rule, "interface is down");
}

TEST_F(InterfaceSelection, IncludeByIpv4Cidr) {
  set(kIfIncludeVar, "10.1.0.0/16");
  const auto d = decide();
  ASSERT_EQ(d.size(), kStandardEntries);
  EXPECT_EQ(selected(d), (std::vector<bool>{true, true, true, false, false, false, false}));
  EXPECT_EQ(d[kEntryEth0V4].rule, "included by oob_tcp_if_include entry '10.1.0.0/16'");
  // The list selects addresses, not whole interfaces.
  EXPECT_EQ(d[kEntryEth0V6].rule, "not in oob_tcp_if_include (command line)");
}

TEST_F(InterfaceSelection, IncludeByIpv6Cidr) {
  set(kIfIncludeVar, "fd00:1::/64");
  const auto d = decide();
  ASSERT_EQ(d.size(), kStandardEntries);
  EXPECT_EQ(selected(d), (std::vector<bool>{true, true, false, true, false, false, false}));
  EXPECT_EQ(d[kEntryEth0V6].rule, "included by oob_tcp_if_include entry 'fd00:1::/64'");
  EXPECT_EQ(d[kEntryEth0V4].rule, "not in oob_tcp_if_include (command line)");
}

TEST_F(InterfaceSelection, IncludeByBareAddress) {
  set(kIfIncludeVar, "192.168.122.1");
  const auto d = decide();
  ASSERT_EQ(d.size(), kStandardEntries);
  EXPECT_EQ(selected(d), (std::vector<bool>{true, true, false, false, false, true, false}));
  EXPECT_TRUE(Contains(d[kEntryVirbr0].rule, "included by oob_tcp_if_include entry '192.168.122.1'"));
  EXPECT_TRUE(Contains(d[kEntryVirbr0].rule, "no carrier"));
}

TEST_F(InterfaceSelection, IncludeWithoutLoKeepsLoopback) {
  set(kIfIncludeVar, "eth0", param_file("/etc/orca/mca-params.conf", 7));
  const auto d = decide();
  ASSERT_EQ(d.size(), kStandardEntries);
  for (size_t i : {kEntryLo4, kEntryLo6}) {
    EXPECT_TRUE(d[i].selected);
    EXPECT_TRUE(Contains(d[i].rule, "loopback, kept for peers on this host"));
    EXPECT_TRUE(Contains(d[i].rule, "oob_tcp_if_include does not name it"));
    EXPECT_TRUE(Contains(d[i].rule, "oob_tcp_if_exclude"));
  }
  EXPECT_EQ(d[kEntryVirbr0].rule, "not in oob_tcp_if_include (param file /etc/orca/mca-params.conf:7)");
}

TEST_F(InterfaceSelection, IncludeNamingLo) {
  set(kIfIncludeVar, "lo,eth0");
  const auto d = decide();
  ASSERT_EQ(d.size(), kStandardEntries);
  EXPECT_EQ(selected(d), (std::vector<bool>{true, true, true, true, false, false, false}));
  EXPECT_EQ(d[kEntryLo4].rule, "loopback, used only for peers on this host");
  EXPECT_EQ(d[kEntryLo6].rule, "loopback, used only for peers on this host");
}

TEST_F(InterfaceSelection, IncludeOfTheNoCarrierBridge) {
  set(kIfIncludeVar, "virbr0");
  const auto d = decide();
  ASSERT_EQ(d.size(), kStandardEntries);
  EXPECT_EQ(selected(d), (std::vector<bool>{true, true, false, false, false, true, false}));
  EXPECT_EQ(d[kEntryVirbr0].rule, "included by oob_tcp_if_include entry 'virbr0' (no carrier: nothing may be attached)");
}

TEST_F(InterfaceSelection, FirstMatchingEntryIsNamed) {
  set(kIfIncludeVar, "10.0.0.0/8,eth0");
  const auto d = decide();
  ASSERT_EQ(d.size(), kStandardEntries);
  EXPECT_EQ(d[kEntryEth0V4].rule, "included by oob_tcp_if_include entry '10.0.0.0/8'");
  EXPECT_EQ(d[kEntryEth0V6].rule, "included by oob_tcp_if_include entry 'eth0'");
}

// --- exclude ------------------------------------------------------------------

TEST_F(InterfaceSelection, ExcludeByName) {
  set(kIfExcludeVar, "virbr0", environment());
  auto filter = interface_filter_from(registry_, "oob_tcp_");
  ASSERT_TRUE(filter.ok()) << filter.error().summary();
  EXPECT_EQ(filter->mode, InterfaceFilter::Mode::Exclude);
  EXPECT_EQ(filter->variable, "oob_tcp_if_exclude");
  EXPECT_EQ(filter->source, "environment");

  const auto d = decide();
  ASSERT_EQ(d.size(), kStandardEntries);
  EXPECT_EQ(selected(d), (std::vector<bool>{true, true, true, true, false, false, false}));
  EXPECT_EQ(d[kEntryVirbr0].rule, "excluded by oob_tcp_if_exclude entry 'virbr0' (environment)");
  EXPECT_EQ(d[kEntryEth0V4].rule, "up with an address; no oob_tcp_if_include/oob_tcp_if_exclude set");
}

TEST_F(InterfaceSelection, ExcludeByCidr) {
  set(kIfExcludeVar, "192.168.0.0/16");
  const auto d = decide();
  ASSERT_EQ(d.size(), kStandardEntries);
  EXPECT_EQ(selected(d), (std::vector<bool>{true, true, true, true, false, false, false}));
  EXPECT_EQ(d[kEntryVirbr0].rule, "excluded by oob_tcp_if_exclude entry '192.168.0.0/16' (command line)");
  // The exclusion is named even where the entry would not be used anyway.
  EXPECT_EQ(d[kEntryWlan0].rule, "excluded by oob_tcp_if_exclude entry '192.168.0.0/16' (command line)");
}

TEST_F(InterfaceSelection, ExcludeByIpv6Cidr) {
  set(kIfExcludeVar, "fd00::/8");
  const auto d = decide();
  ASSERT_EQ(d.size(), kStandardEntries);
  EXPECT_EQ(selected(d), (std::vector<bool>{true, true, true, false, false, true, false}));
  EXPECT_TRUE(Contains(d[kEntryEth0V6].rule, "excluded by oob_tcp_if_exclude entry 'fd00::/8'"));
}

TEST_F(InterfaceSelection, ExcludingLoRemovesLoopback) {
  set(kIfExcludeVar, "lo");
  const auto d = decide();
  ASSERT_EQ(d.size(), kStandardEntries);
  EXPECT_EQ(selected(d), (std::vector<bool>{false, false, true, true, false, true, false}));
  EXPECT_EQ(d[kEntryLo4].rule, "excluded by oob_tcp_if_exclude entry 'lo' (command line)");
  EXPECT_EQ(d[kEntryLo6].rule, "excluded by oob_tcp_if_exclude entry 'lo' (command line)");
}

TEST_F(InterfaceSelection, ExcludingTheIpv4LoopbackCidrKeepsIpv6Loopback) {
  set(kIfExcludeVar, "127.0.0.0/8");
  const auto d = decide();
  ASSERT_EQ(d.size(), kStandardEntries);
  EXPECT_FALSE(d[kEntryLo4].selected);
  EXPECT_TRUE(d[kEntryLo6].selected);
}

// --- errors -------------------------------------------------------------------

TEST_F(InterfaceSelection, BothSetIsAnError) {
  set(kIfIncludeVar, "eth0,lo");
  set(kIfExcludeVar, "virbr0", param_file("/etc/orca/mca-params.conf", 3));
  const Message m = decide_error();
  EXPECT_EQ(m.area(), "net");
  EXPECT_EQ(m.topic(), "if-both-set");
  EXPECT_EQ(m.arg("include"), "eth0,lo");
  EXPECT_EQ(m.arg("include_source"), "command line");
  EXPECT_EQ(m.arg("exclude"), "virbr0");
  EXPECT_EQ(m.arg("exclude_source"), "param file /etc/orca/mca-params.conf:3");
}

TEST_F(InterfaceSelection, AnEmptyListIsNotSet) {
  set(kIfIncludeVar, "");
  set(kIfExcludeVar, "virbr0");
  auto filter = interface_filter_from(registry_, "oob_tcp_");
  ASSERT_TRUE(filter.ok()) << filter.error().summary();
  EXPECT_EQ(filter->mode, InterfaceFilter::Mode::Exclude);
}

TEST_F(InterfaceSelection, UndeclaredVariablesAreAnError) {
  mca::Registry empty;
  auto filter = interface_filter_from(empty, "oob_tcp_");
  ASSERT_FALSE(filter.ok());
  EXPECT_EQ(filter.error().area(), "mca-var");
  EXPECT_EQ(filter.error().arg("name"), "oob_tcp_if_include");
}

TEST_F(InterfaceSelection, DeclaringTwiceFails) {
  EXPECT_FALSE(declare_interface_selection_vars(registry_, "oob", "tcp").ok());
  const mca::Variable* inc = registry_.find(kIfIncludeVar);
  const mca::Variable* exc = registry_.find(kIfExcludeVar);
  ASSERT_NE(inc, nullptr);
  ASSERT_NE(exc, nullptr);
  EXPECT_EQ(inc->spec().type, mca::VarType::StringList);
  EXPECT_EQ(exc->spec().type, mca::VarType::StringList);
  EXPECT_TRUE(inc->as_list().empty());
  EXPECT_TRUE(exc->as_list().empty());
}

struct BadEntry {
  const char* label;
  const char* list;   // what the user set
  const char* entry;  // the entry the message names
  const char* why;    // part of the reason
};

void PrintTo(const BadEntry& b, std::ostream* os) { *os << b.list; }

class BadEntries : public InterfaceSelection, public ::testing::WithParamInterface<std::tuple<BadEntry, bool>> {};

TEST_P(BadEntries, NameTheVariableSourceAndEntry) {
  const auto& [bad, include] = GetParam();
  const char* variable = include ? kIfIncludeVar : kIfExcludeVar;
  set(variable, bad.list, param_file("/home/u/.orca/mca-params.conf", 12));
  const Message m = decide_error();
  EXPECT_EQ(m.area(), "net");
  EXPECT_EQ(m.topic(), "if-bad-entry");
  EXPECT_EQ(m.arg("variable"), variable);
  EXPECT_EQ(m.arg("source"), "param file /home/u/.orca/mca-params.conf:12");
  EXPECT_EQ(m.arg("entry"), bad.entry);
  EXPECT_TRUE(Contains(m.arg("why"), bad.why));
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, BadEntries,
    ::testing::Combine(
        ::testing::Values(BadEntry{"prefix_33", "10.0.0.0/33", "10.0.0.0/33", "0..32"},
                          BadEntry{"octet_256", "10.0.0.256", "10.0.0.256", "not an IPv4 address"},
                          BadEntry{"bad_hex", "fe80::zz/64", "fe80::zz/64", "not an IPv6 address"},
                          BadEntry{"space_in_name", "eth 0", "eth 0", "neither an interface name"},
                          BadEntry{"three_octets", "1.2.3", "1.2.3", "not an IPv4 address"},
                          BadEntry{"v6_prefix_129", "fd00::/129", "fd00::/129", "0..128"},
                          BadEntry{"name_too_long", "averyveryverylongname", "averyveryverylongname",
                                   "neither an interface name"},
                          BadEntry{"after_a_good_one", "eth0,10.0.0.0/33", "10.0.0.0/33", "0..32"}),
        ::testing::Bool()),
    [](const ::testing::TestParamInfo<std::tuple<BadEntry, bool>>& param_info) {
      return std::string(std::get<0>(param_info.param).label) +
             (std::get<1>(param_info.param) ? "_include" : "_exclude");
    });

TEST_F(InterfaceSelection, ParseFilterEntriesDirectly) {
  auto parsed = parse_filter_entries({"eth0", "10.0.0.0/8", "fd00::1"}, "v", "s");
  ASSERT_TRUE(parsed.ok()) << parsed.error().summary();
  const auto* entries = &parsed.value();
  ASSERT_EQ(entries->size(), 3u);
  EXPECT_FALSE((*entries)[0].is_prefix);
  EXPECT_TRUE((*entries)[1].is_prefix);
  EXPECT_EQ((*entries)[1].prefix.length(), 8);
  EXPECT_TRUE((*entries)[2].is_prefix);
  EXPECT_EQ((*entries)[2].prefix.length(), 128);
  EXPECT_EQ((*entries)[2].text, "fd00::1");

  const auto& all = inventory_.entries();
  EXPECT_TRUE((*entries)[0].matches(all[kEntryEth0V6]));
  EXPECT_FALSE((*entries)[0].matches(all[kEntryVirbr0]));
  EXPECT_TRUE((*entries)[1].matches(all[kEntryEth0V4]));
  EXPECT_FALSE((*entries)[1].matches(all[kEntryEth0V6]));
  EXPECT_FALSE((*entries)[2].matches(all[kEntryEth0V6]));  // fd00:1::5 is not fd00::1
}

// --- entries that match nothing -------------------------------------------------

TEST_F(InterfaceSelection, DescribeListsEveryInterfaceAndAddress) {
  EXPECT_EQ(inventory_.describe(), kStandardDescription);
}

TEST_F(InterfaceSelection, IncludeOfAnUnknownNameMatchesNothing) {
  set(kIfIncludeVar, "eth0,eth7", environment());
  const Message m = decide_error();
  EXPECT_EQ(m.area(), "net");
  EXPECT_EQ(m.topic(), "if-no-match");
  EXPECT_EQ(m.arg("variable"), "oob_tcp_if_include");
  EXPECT_EQ(m.arg("source"), "environment");
  EXPECT_EQ(m.arg("entry"), "eth7");
  EXPECT_EQ(m.arg("interfaces"), inventory_.describe());
  for (const auto& link : inventory_.links()) EXPECT_TRUE(Contains(m.arg("interfaces"), link.name));
  for (const auto& e : inventory_.entries()) EXPECT_TRUE(Contains(m.arg("interfaces"), e.address_text()));
}

TEST_F(InterfaceSelection, ExcludeOfAnUnmatchedCidrMatchesNothing) {
  set(kIfExcludeVar, "172.16.0.0/12");
  const Message m = decide_error();
  EXPECT_EQ(m.topic(), "if-no-match");
  EXPECT_EQ(m.arg("variable"), "oob_tcp_if_exclude");
  EXPECT_EQ(m.arg("source"), "command line");
  EXPECT_EQ(m.arg("entry"), "172.16.0.0/12");
  EXPECT_EQ(m.arg("interfaces"), kStandardDescription);
}

TEST_F(InterfaceSelection, ACidrOfTheWrongFamilyMatchesNothing) {
  // 10.1.0.5 is in the inventory, but not as IPv6.
  set(kIfIncludeVar, "::ffff:10.1.0.0/120");
  const Message m = decide_error();
  EXPECT_EQ(m.topic(), "if-no-match");
  EXPECT_EQ(m.arg("entry"), "::ffff:10.1.0.0/120");
}

TEST_F(InterfaceSelection, ALinkWithoutAddressesCountsAsAMatch) {
  set(kIfIncludeVar, "eth1");
  const auto d = decide();
  ASSERT_EQ(d.size(), kStandardEntries);
  // eth1 has no address: only loopback is left.
  EXPECT_EQ(selected(d), (std::vector<bool>{true, true, false, false, false, false, false}));
}

TEST_F(InterfaceSelection, ExcludeOfALinkWithoutAddressesChangesNothing) {
  set(kIfExcludeVar, "eth1");
  const auto d = decide();
  ASSERT_EQ(d.size(), kStandardEntries);
  EXPECT_EQ(selected(d), (std::vector<bool>{true, true, true, true, false, true, false}));
}

TEST_F(InterfaceSelection, AnAddressOfADownOrTentativeEntryCountsAsAMatch) {
  set(kIfIncludeVar, "2001:db8:1::/64,wlan0");
  const auto d = decide();
  ASSERT_EQ(d.size(), kStandardEntries);
  EXPECT_EQ(selected(d), (std::vector<bool>{true, true, false, false, false, false, false}));
  EXPECT_TRUE(Contains(d[kEntryEth0Tentative].rule, "duplicate address detection"));
  EXPECT_EQ(d[kEntryWlan0].rule, "interface is down");
}

// --- the messages render ------------------------------------------------------------

// Every error of the policy has its help text, and the text's placeholders
// are all filled from the message's arguments.
TEST_F(InterfaceSelection, ErrorsRenderWithEveryPlaceholderFilled) {
  const HelpCatalog catalog("test", {ORCA_TEST_HELP_DIR});
  std::vector<Message> errors;
  {
    mca::Registry r;
    ASSERT_TRUE(declare_interface_selection_vars(r, "oob", "tcp").ok());
    ASSERT_TRUE(r.add_setting({kIfIncludeVar, "eth0", command_line()}).ok());
    ASSERT_TRUE(r.add_setting({kIfExcludeVar, "lo", environment()}).ok());
    auto f = interface_filter_from(r, "oob_tcp_");
    ASSERT_FALSE(f.ok());
    errors.push_back(f.error());
  }
  {
    auto entries = parse_filter_entries({"eth 0"}, kIfIncludeVar, "command line");
    ASSERT_FALSE(entries.ok());
    errors.push_back(entries.error());
  }
  {
    InterfaceFilter filter;
    filter.mode = InterfaceFilter::Mode::Include;
    filter.variable = kIfIncludeVar;
    filter.source = "command line";
    auto entries = parse_filter_entries({"eth7"}, kIfIncludeVar, "command line");
    ASSERT_TRUE(entries.ok());
    filter.entries = entries.value();
    auto d = select_interfaces(inventory_, filter);
    ASSERT_FALSE(d.ok());
    errors.push_back(d.error());
  }
  {
    mca::Registry undeclared;
    auto f = interface_filter_from(undeclared, "oob_tcp_");
    ASSERT_FALSE(f.ok());
    errors.push_back(f.error());
  }
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_EQ(errors[0].topic(), "if-both-set");
  EXPECT_EQ(errors[1].topic(), "if-bad-entry");
  EXPECT_EQ(errors[2].topic(), "if-no-match");
  for (const Message& m : errors) {
    const std::string text = catalog.render(m);
    EXPECT_TRUE(LacksText(text, "not found in")) << m.summary();
    EXPECT_TRUE(LacksText(text, "{")) << m.summary();
    for (const auto& [key, value] : m.args()) EXPECT_TRUE(Contains(text, value)) << m.summary() << " " << key;
  }
  EXPECT_TRUE(Contains(catalog.render(errors[2]), kStandardDescription));
}

}  // namespace
TEST(InterfaceSelectionOwner, ASecondComponentGetsTheSameServiceUnderItsOwnNames) {
  // An out-of-tree "oob/ib" declares the same two lists; its messages and
  // rules name its variables, never oob/tcp's, and the two do not mix.
  mca::Registry r;
  ASSERT_TRUE(declare_interface_selection_vars(r, "oob", "tcp").ok());
  ASSERT_TRUE(declare_interface_selection_vars(r, "oob", "ib").ok());
  EXPECT_EQ(interface_selecting_prefixes(r), (std::vector<std::string>{"oob_tcp_", "oob_ib_"}));
  ASSERT_TRUE(r.add_setting({"oob_ib_if_include", "eth7", command_line()}).ok());
  auto ib = interface_filter_from(r, "oob_ib_");
  ASSERT_TRUE(ib.ok());
  auto decided = select_interfaces(standard_inventory(), ib.value());
  ASSERT_FALSE(decided.ok());
  EXPECT_TRUE(Contains(decided.error().arg("variable"), "oob_ib_if_include"));
  auto tcp = interface_filter_from(r, "oob_tcp_");
  ASSERT_TRUE(tcp.ok());
  auto tcp_decided = select_interfaces(standard_inventory(), tcp.value());
  ASSERT_TRUE(tcp_decided.ok());
  EXPECT_TRUE(Contains(tcp_decided.value()[kEntryEth0V4].rule, "no oob_tcp_if_include/oob_tcp_if_exclude set"));
  ASSERT_TRUE(r.add_setting({"oob_ib_if_exclude", "lo", command_line()}).ok());
  auto both = interface_filter_from(r, "oob_ib_");
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.error().arg("include_variable"), "oob_ib_if_include");
  EXPECT_EQ(both.error().arg("exclude_variable"), "oob_ib_if_exclude");
  EXPECT_FALSE(interface_filter_from(r, "oob_usock_").ok()) << "a component that declared no lists";
}

// The lists as a module hands them over, with no registry: the same rules.
TEST(InterfaceFilterOf, ListsAsAModuleHandsThemOver) {
  const InterfaceList none_in{"oob_ib_if_include", "default", {}};
  const InterfaceList none_out{"oob_ib_if_exclude", "default", {}};
  auto none = interface_filter_of(none_in, none_out);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->mode, InterfaceFilter::Mode::None);
  EXPECT_EQ(none->include_variable, "oob_ib_if_include");
  EXPECT_EQ(none->exclude_variable, "oob_ib_if_exclude");

  auto include = interface_filter_of({"oob_ib_if_include", "command line", {"ib0", "10.9.0.0/16"}}, none_out);
  ASSERT_TRUE(include.ok());
  EXPECT_EQ(include->mode, InterfaceFilter::Mode::Include);
  EXPECT_EQ(include->variable, "oob_ib_if_include");
  EXPECT_EQ(include->source, "command line");
  ASSERT_EQ(include->entries.size(), 2u);
  EXPECT_FALSE(include->entries[0].is_prefix);
  EXPECT_TRUE(include->entries[1].is_prefix);

  auto exclude = interface_filter_of(none_in, {"oob_ib_if_exclude", "environment", {"lo"}});
  ASSERT_TRUE(exclude.ok());
  EXPECT_EQ(exclude->mode, InterfaceFilter::Mode::Exclude);
  EXPECT_EQ(exclude->source, "environment");
}

TEST(InterfaceFilterOf, BothSetNamesBothListsAsWrittenAndWhereTheyCameFrom) {
  auto both = interface_filter_of({"oob_ib_if_include", "command line", {"ib0", "ib1"}},
                                  {"oob_ib_if_exclude", "param file /etc/orca/mca-params.conf:3", {"lo"}});
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.error().topic(), "if-both-set");
  EXPECT_EQ(both.error().arg("include"), "ib0,ib1");
  EXPECT_EQ(both.error().arg("include_source"), "command line");
  EXPECT_EQ(both.error().arg("exclude"), "lo");
  EXPECT_EQ(both.error().arg("exclude_source"), "param file /etc/orca/mca-params.conf:3");
}

TEST(InterfaceFilterOf, AMalformedEntryNamesItsVariableAndSource) {
  auto bad = interface_filter_of({"oob_ib_if_include", "environment", {"10.0.0.0/40"}},
                                 {"oob_ib_if_exclude", "default", {}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().topic(), "if-bad-entry");
  EXPECT_EQ(bad.error().arg("variable"), "oob_ib_if_include");
  EXPECT_EQ(bad.error().arg("source"), "environment");
  EXPECT_EQ(bad.error().arg("entry"), "10.0.0.0/40");
}

}  // namespace orca::net
