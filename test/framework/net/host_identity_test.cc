// HostIdentity (boot id + network namespace) and InterfaceInventory::scan()
// on the machine that runs the tests. Reading only: nothing is configured
// and no packet is sent.
#include <orca/interfaces.h>

#include "lib/synthetic_inventory.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <map>
#include <string>

namespace orca::net {
namespace {

// --- HostIdentity -------------------------------------------------------------

TEST(HostIdentity, CurrentReadsTheBootIdAndTheNetworkNamespace) {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string boot_id;
  if (!(in >> boot_id)) GTEST_SKIP() << "/proc/sys/kernel/random/boot_id is not readable here";
  struct stat st {};
  ASSERT_EQ(::stat("/proc/self/ns/net", &st), 0) << "/proc/self/ns/net is not readable here";

  auto id = HostIdentity::current();
  ASSERT_TRUE(id.ok()) << id.error().summary();
  EXPECT_EQ(id->boot_id, boot_id);
  EXPECT_EQ(id->netns_inode, static_cast<std::uint64_t>(st.st_ino));
  EXPECT_EQ(id->netns_device, static_cast<std::uint64_t>(st.st_dev));
  EXPECT_NE(id->netns_inode, 0u);
  // A boot id is a UUID: 36 characters with dashes.
  EXPECT_EQ(id->boot_id.size(), 36u);
  EXPECT_NE(id->boot_id.find('-'), std::string::npos);
}

TEST(HostIdentity, CurrentIsStable) {
  auto a = HostIdentity::current();
  auto b = HostIdentity::current();
  ASSERT_TRUE(a.ok()) << a.error().summary();
  ASSERT_TRUE(b.ok()) << b.error().summary();
  EXPECT_EQ(a.value(), b.value());
}

TEST(HostIdentity, ToStringForm) {
  const HostIdentity id{"5a36ae13-6035-476d-89da-553d70203835", 4, 4026531840};
  EXPECT_EQ(id.to_string(), "5a36ae13-6035-476d-89da-553d70203835-4-4026531840");
}

TEST(HostIdentity, RoundTripWithDashesInTheBootId) {
  for (const HostIdentity& id : {HostIdentity{"5a36ae13-6035-476d-89da-553d70203835", 4, 4026531840},
                                 HostIdentity{"a-b", 0, 0}, HostIdentity{"x", 18446744073709551615ull, 1}}) {
    auto back = HostIdentity::parse(id.to_string());
    ASSERT_TRUE(back.has_value()) << id.to_string();
    EXPECT_EQ(back->boot_id, id.boot_id);
    EXPECT_EQ(back->netns_device, id.netns_device);
    EXPECT_EQ(back->netns_inode, id.netns_inode);
    EXPECT_EQ(*back, id);
  }
}

TEST(HostIdentity, RoundTripOfThisProcess) {
  auto id = HostIdentity::current();
  ASSERT_TRUE(id.ok()) << id.error().summary();
  auto back = HostIdentity::parse(id->to_string());
  ASSERT_TRUE(back.has_value()) << id->to_string();
  EXPECT_EQ(*back, id.value());
}

TEST(HostIdentity, ParseRejectsJunkAndMissingParts) {
  for (const char* text : {"", "junk", "-", "--", "boot", "boot-1", "-1-2", "boot-1-", "boot--2", "boot-1-2-"}) {
    EXPECT_FALSE(HostIdentity::parse(text).has_value()) << "'" << text << "'";
  }
}

TEST(HostIdentity, ParseRejectsNonNumericParts) {
  for (const char* text : {"boot-x-2", "boot-1-y", "boot-1x-2", "boot-1-2x", "boot-0x10-2", "boot-1-2.5",
                           "boot-1-99999999999999999999999"}) {
    EXPECT_FALSE(HostIdentity::parse(text).has_value()) << "'" << text << "'";
  }
}

TEST(HostIdentity, Equality) {
  const HostIdentity a{"5a36ae13-6035-476d-89da-553d70203835", 4, 4026531840};
  HostIdentity b = a;
  EXPECT_EQ(a, b);
  b.boot_id = "5a36ae13-6035-476d-89da-553d70203836";
  EXPECT_NE(a, b);
  b = a;
  b.netns_device = 5;
  EXPECT_NE(a, b);
  b = a;
  b.netns_inode = 4026531841;
  EXPECT_NE(a, b);
}

// --- InterfaceInventory::scan ---------------------------------------------------

// The machine's inventory, or a skip when this sandbox forbids netlink.
class RealInventory : public ::testing::Test {
 protected:
  void SetUp() override {
    auto scanned = InterfaceInventory::scan();
    if (!scanned.ok()) {
      if (scanned.error().topic() == "netlink-failed")
        GTEST_SKIP() << "netlink is not permitted here, cannot scan interfaces: " << scanned.error().summary();
      FAIL() << "InterfaceInventory::scan() failed: " << scanned.error().summary();
    }
    inventory_ = std::move(scanned).value();
  }
  InterfaceInventory inventory_;
};

TEST_F(RealInventory, HasLoopbackWith127001) {
  bool found = false;
  for (const auto& e : inventory_.entries()) {
    if (e.address == test::ip("127.0.0.1")) {
      found = true;
      EXPECT_EQ(e.link.kind, InterfaceKind::Loopback) << e.link.name;
      EXPECT_TRUE(e.link.loopback) << e.link.name;
      EXPECT_EQ(e.prefix_length, 8) << e.link.name;
      EXPECT_EQ(e.address_text(), "127.0.0.1/8");
    }
  }
  EXPECT_TRUE(found) << "no 127.0.0.1 among: " << inventory_.describe();
  bool loopback_link = false;
  for (const auto& link : inventory_.links()) loopback_link |= link.kind == InterfaceKind::Loopback;
  EXPECT_TRUE(loopback_link) << inventory_.describe();
}

TEST_F(RealInventory, EntriesHaveIndexesAndNames) {
  ASSERT_FALSE(inventory_.links().empty());
  ASSERT_FALSE(inventory_.entries().empty());
  for (const auto& link : inventory_.links()) {
    EXPECT_GT(link.index, 0) << link.name;
    EXPECT_FALSE(link.name.empty()) << "link " << link.index;
  }
  for (const auto& e : inventory_.entries()) {
    EXPECT_GT(e.link.index, 0) << e.link.name;
    EXPECT_FALSE(e.link.name.empty()) << e.address_text();
    EXPECT_FALSE(e.address.is_unspecified()) << e.link.name;
    EXPECT_GE(e.prefix_length, 0);
    EXPECT_LE(e.prefix_length, e.address.family() == Family::V4 ? 32 : 128) << e.address_text();
  }
}

TEST_F(RealInventory, EntriesBelongToListedLinksInLinkOrder) {
  std::map<int, size_t> position;
  for (size_t i = 0; i < inventory_.links().size(); ++i) {
    const LinkInfo& link = inventory_.links()[i];
    EXPECT_TRUE(position.emplace(link.index, i).second) << "link index " << link.index << " listed twice";
  }
  size_t last = 0;
  for (const auto& e : inventory_.entries()) {
    auto it = position.find(e.link.index);
    ASSERT_NE(it, position.end()) << e.link.name << " " << e.address_text() << " has no link";
    const LinkInfo& link = inventory_.links()[it->second];
    EXPECT_EQ(e.link.name, link.name);
    EXPECT_EQ(e.link.kind, link.kind) << link.name;
    EXPECT_GE(it->second, last) << e.link.name << " " << e.address_text() << " is out of link order";
    last = it->second;
  }
}

TEST_F(RealInventory, Ipv6LinkLocalAddressesCarryTheirLinkAsScope) {
  for (const auto& e : inventory_.entries()) {
    if (e.address.family() != Family::V6) continue;
    if (e.address.is_link_local()) {
      EXPECT_EQ(e.address.scope_id(), static_cast<std::uint32_t>(e.link.index)) << e.address_text();
    } else {
      EXPECT_EQ(e.address.scope_id(), 0u) << e.address_text();
    }
  }
}

TEST_F(RealInventory, Owns) {
  EXPECT_TRUE(inventory_.owns(test::ip("127.0.0.1"))) << inventory_.describe();
  // TEST-NET-1: 192.0.2.123 is nobody's address here (checked below).
  for (const auto& e : inventory_.entries())
    ASSERT_FALSE(e.address.same_address(test::ip("192.0.2.123"))) << "this machine really has 192.0.2.123";
  EXPECT_FALSE(inventory_.owns(test::ip("192.0.2.123"))) << inventory_.describe();
  // Every entry's address is owned, whatever its scope.
  for (const auto& e : inventory_.entries()) {
    EXPECT_TRUE(inventory_.owns(e.address)) << e.address_text();
    IpAddress other_scope = e.address;
    other_scope.set_scope_id(e.address.scope_id() + 1000);
    EXPECT_TRUE(inventory_.owns(other_scope)) << e.address_text();
  }
}

TEST_F(RealInventory, DescribeNamesEveryLink) {
  const std::string text = inventory_.describe();
  for (const auto& link : inventory_.links()) EXPECT_NE(text.find(link.name), std::string::npos) << link.name;
  for (const auto& e : inventory_.entries())
    EXPECT_NE(text.find(e.address_text()), std::string::npos) << e.address_text();
}

}  // namespace
}  // namespace orca::net
