// IpAddress and IpPrefix: parsing, canonical text, classification at the
// edges of every range, subnet comparison, ordering and equality.
#include <orca/ip_address.h>

#include "lib/expect_text.h"
#include "lib/synthetic_inventory.h"

#include <gtest/gtest.h>
#include <net/if.h>

#include <array>
#include <cstdint>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace orca::net {
namespace {

using orca::test::Contains;

// The value of a parse that must succeed; a failed parse fails the test
// with the reason instead of crashing on an empty optional.
IpAddress must_parse(const std::string& text) {
  std::string why;
  auto a = IpAddress::parse(text, &why);
  EXPECT_TRUE(a.has_value()) << "'" << text << "' did not parse: " << why;
  return a.value_or(IpAddress());
}

std::string parse_error(const std::string& text) {
  std::string why;
  auto a = IpAddress::parse(text, &why);
  EXPECT_FALSE(a.has_value()) << "'" << text << "' parsed as " << (a ? a->to_string() : "");
  return why;
}

// --- parsing ----------------------------------------------------------------

TEST(IpAddressParse, Ipv4) {
  const IpAddress a = must_parse("10.1.2.3");
  EXPECT_EQ(a.family(), Family::V4);
  EXPECT_EQ(a.af(), AF_INET);
  EXPECT_EQ(a.size(), 4u);
  const std::array<std::uint8_t, 4> want = {10, 1, 2, 3};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(a.bytes()[i], want[i]) << "byte " << i;
  EXPECT_EQ(a.scope_id(), 0u);
  EXPECT_EQ(a.to_string(), "10.1.2.3");
}

TEST(IpAddressParse, Ipv6Full) {
  const IpAddress a = must_parse("2001:0db8:0000:0000:0000:ff00:0042:8329");
  EXPECT_EQ(a.family(), Family::V6);
  EXPECT_EQ(a.af(), AF_INET6);
  EXPECT_EQ(a.size(), 16u);
  EXPECT_EQ(a.bytes()[0], 0x20);
  EXPECT_EQ(a.bytes()[1], 0x01);
  EXPECT_EQ(a.bytes()[10], 0xff);
  EXPECT_EQ(a.bytes()[15], 0x29);
  EXPECT_EQ(a.scope_id(), 0u);
  EXPECT_EQ(a.to_string(), "2001:db8::ff00:42:8329");
}

TEST(IpAddressParse, Ipv6CompressedForms) {
  struct Case {
    const char* text;
    const char* canonical;
  };
  const Case cases[] = {
      {"::1", "::1"},
      {"::", "::"},
      {"0:0:0:0:0:0:0:1", "::1"},
      {"2001:db8:0:0:0:0:0:1", "2001:db8::1"},
      {"2001:DB8::1", "2001:db8::1"},
      {"fe80::", "fe80::"},
      {"fd00:1:0:0:1:0:0:5", "fd00:1::1:0:0:5"},  // the first longest zero run is compressed
      {"1:0:0:2:0:0:0:3", "1:0:0:2::3"},         // the longest zero run is compressed
      {"::ffff:10.0.0.1", "::ffff:10.0.0.1"},     // IPv4-mapped keeps the dotted tail
  };
  for (const auto& c : cases) {
    const IpAddress a = must_parse(c.text);
    EXPECT_EQ(a.family(), Family::V6) << c.text;
    EXPECT_EQ(a.to_string(), c.canonical) << c.text;
    // The canonical text parses back to the same address.
    EXPECT_EQ(must_parse(a.to_string()), a) << c.text;
  }
}

TEST(IpAddressParse, Ipv4CanonicalText) {
  EXPECT_EQ(must_parse("0.0.0.0").to_string(), "0.0.0.0");
  EXPECT_EQ(must_parse("255.255.255.255").to_string(), "255.255.255.255");
  EXPECT_EQ(must_parse("192.168.122.1").to_string(), "192.168.122.1");
  // A default-constructed address is IPv4 0.0.0.0.
  EXPECT_EQ(IpAddress().to_string(), "0.0.0.0");
  EXPECT_EQ(IpAddress().family(), Family::V4);
}

TEST(IpAddressParse, ConstructorFromBytes) {
  const std::uint8_t v4[4] = {192, 0, 2, 7};
  EXPECT_EQ(IpAddress(Family::V4, v4), must_parse("192.0.2.7"));
  const std::uint8_t v6[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9};
  const IpAddress a(Family::V6, v6, 7);
  EXPECT_EQ(a.scope_id(), 7u);
  EXPECT_EQ(a, must_parse("fe80::9%7"));
}

TEST(IpAddressParse, ScopeByIndex) {
  const IpAddress a = must_parse("fe80::1%3");
  EXPECT_EQ(a.family(), Family::V6);
  EXPECT_EQ(a.scope_id(), 3u);
  // The canonical text has no scope.
  EXPECT_EQ(a.to_string(), "fe80::1");
}

TEST(IpAddressParse, ScopeByName) {
  const unsigned lo_index = if_nametoindex("lo");
  if (lo_index == 0) GTEST_SKIP() << "this network namespace has no interface named lo";
  const IpAddress a = must_parse("fe80::1%lo");
  EXPECT_EQ(a.scope_id(), lo_index);
  EXPECT_EQ(a.to_string(), "fe80::1");
  EXPECT_EQ(a, must_parse("fe80::1%" + std::to_string(lo_index)));
}

TEST(IpAddressParse, ScopeNamingNoInterfaceIsRejected) {
  EXPECT_TRUE(Contains(parse_error("fe80::1%no-such-if0"), "not an interface of this host"));
  EXPECT_TRUE(Contains(parse_error("fe80::1%0"), "not an interface of this host"));
}

// The kernel looks an interface name up only to its first ':' (an alias),
// so "lo:<anything>" would be lo: a scope must be a whole plain name
// (found by the interface_filter fuzz target with a control byte in it).
TEST(IpAddressParse, AScopeThatIsNoPlainInterfaceNameIsRejected) {
  const std::string bad_scopes[] = {"fe80::1%lo:x", "fe80::1%lo:%l\x07" "a", "fe80::1%lo\x01",
                                    "fe80::1%" + std::string(16, 'a')};
  for (const std::string& bad : bad_scopes) {
    EXPECT_TRUE(Contains(parse_error(bad), "is not an interface name")) << bad;
  }
}

TEST(IpAddressParse, EmptyScopeIsRejected) {
  EXPECT_TRUE(Contains(parse_error("fe80::1%"), "empty scope"));
}

TEST(IpAddressParse, Ipv4WithScopeIsRejected) {
  EXPECT_TRUE(Contains(parse_error("10.0.0.1%1"), "IPv4 address has no scope"));
  if (if_nametoindex("lo") != 0) {
    EXPECT_TRUE(Contains(parse_error("10.0.0.1%lo"), "IPv4 address has no scope"));
  }
}

// A scope index that does not fit an interface index must not wrap around
// to another interface: 4294967297 is 2^32 + 1, which as a uint32 is 1
// (normally lo), and -1 would become 4294967295.
TEST(IpAddressParse, ScopeIndexOutOfRangeIsRejected) {
  std::string why;
  auto wrapped = IpAddress::parse("fe80::1%4294967297", &why);
  EXPECT_FALSE(wrapped.has_value()) << "parsed with scope " << (wrapped ? wrapped->scope_id() : 0);
  auto negative = IpAddress::parse("fe80::1%-1", &why);
  EXPECT_FALSE(negative.has_value()) << "parsed with scope " << (negative ? negative->scope_id() : 0);
}

TEST(IpAddressParse, JunkIsRejectedWithAReason) {
  const char* junk[] = {"",          "abc",         "1.2.3",     "10.0.0.256", "1.2.3.4.5",  "256.1.1.1",
                        " 10.0.0.1", "10.0.0.1 ",   "10.0.0.1/8", "::g",       "1::2::3",    "12345::",
                        "fe80:::1",  "1:2:3:4:5:6:7:8:9", "localhost"};
  for (const char* text : junk) {
    std::string why;
    auto a = IpAddress::parse(text, &why);
    EXPECT_FALSE(a.has_value()) << "'" << text << "' parsed as " << (a ? a->to_string() : "");
    EXPECT_FALSE(why.empty()) << "no reason for '" << text << "'";
  }
  EXPECT_TRUE(Contains(parse_error("1.2.3"), "not an IPv4 address"));
  EXPECT_TRUE(Contains(parse_error("1::2::3"), "not an IPv6 address"));
}

// Regression (test/fuzz/interface_filter_fuzz, corpus
// regression-nul-in-cidr): inet_pton stops at a NUL, and "10.0.0.0\0junk"
// was accepted as 10.0.0.0, in oob_tcp_if_include and in contact URIs.
TEST(IpAddressParse, EmbeddedNulIsRejected) {
  for (const std::string& text : {std::string("10.0.0.0\0junk", 13), std::string("::1\0", 4),
                                 std::string("fe80::1%lo\0x", 12)}) {
    std::string why;
    EXPECT_FALSE(IpAddress::parse(text, &why).has_value());
    EXPECT_EQ(why, "a NUL byte in the address");
  }
  EXPECT_FALSE(IpPrefix::parse(std::string("10.0.0.0\0/8", 11)).has_value());
}

TEST(IpAddressParse, ReasonIsOptional) {
  EXPECT_FALSE(IpAddress::parse("junk").has_value());
  EXPECT_FALSE(IpAddress::parse("fe80::1%").has_value());
  EXPECT_FALSE(IpAddress::parse("10.0.0.1%1").has_value());
  EXPECT_TRUE(IpAddress::parse("10.0.0.1").has_value());
}

// --- classification -----------------------------------------------------------

struct ClassCase {
  const char* text;
  bool loopback;
  bool link_local;
  bool is_private;
  bool unspecified;
};

void PrintTo(const ClassCase& c, std::ostream* os) { *os << c.text; }

class IpAddressClass : public ::testing::TestWithParam<ClassCase> {};

TEST_P(IpAddressClass, Classifies) {
  const ClassCase& c = GetParam();
  const IpAddress a = must_parse(c.text);
  EXPECT_EQ(a.is_loopback(), c.loopback) << c.text;
  EXPECT_EQ(a.is_link_local(), c.link_local) << c.text;
  EXPECT_EQ(a.is_private(), c.is_private) << c.text;
  EXPECT_EQ(a.is_unspecified(), c.unspecified) << c.text;
}

// Each range with the addresses just outside and just inside both ends.
INSTANTIATE_TEST_SUITE_P(
    Boundaries, IpAddressClass,
    ::testing::Values(
        // loopback 127/8, ::1
        ClassCase{"126.255.255.255", false, false, false, false}, ClassCase{"127.0.0.0", true, false, false, false},
        ClassCase{"127.0.0.1", true, false, false, false}, ClassCase{"127.255.255.255", true, false, false, false},
        ClassCase{"128.0.0.0", false, false, false, false}, ClassCase{"::1", true, false, false, false},
        ClassCase{"::2", false, false, false, false},
        // unspecified
        ClassCase{"0.0.0.0", false, false, false, true}, ClassCase{"0.0.0.1", false, false, false, false},
        ClassCase{"::", false, false, false, true},
        // 10/8
        ClassCase{"9.255.255.255", false, false, false, false}, ClassCase{"10.0.0.0", false, false, true, false},
        ClassCase{"10.255.255.255", false, false, true, false}, ClassCase{"11.0.0.0", false, false, false, false},
        // 172.16/12
        ClassCase{"172.15.255.255", false, false, false, false}, ClassCase{"172.16.0.0", false, false, true, false},
        ClassCase{"172.31.255.255", false, false, true, false}, ClassCase{"172.32.0.0", false, false, false, false},
        // 192.168/16
        ClassCase{"192.167.255.255", false, false, false, false}, ClassCase{"192.168.0.0", false, false, true, false},
        ClassCase{"192.168.255.255", false, false, true, false}, ClassCase{"192.169.0.0", false, false, false, false},
        // 100.64/10 shared address space
        ClassCase{"100.63.255.255", false, false, false, false}, ClassCase{"100.64.0.0", false, false, true, false},
        ClassCase{"100.127.255.255", false, false, true, false}, ClassCase{"100.128.0.0", false, false, false, false},
        // 169.254/16 link-local, not private
        ClassCase{"169.253.255.255", false, false, false, false}, ClassCase{"169.254.0.0", false, true, false, false},
        ClassCase{"169.254.255.255", false, true, false, false}, ClassCase{"169.255.0.0", false, false, false, false},
        // public
        ClassCase{"192.0.2.1", false, false, false, false}, ClassCase{"8.8.8.8", false, false, false, false},
        ClassCase{"2001:db8::1", false, false, false, false},
        // fc00::/7 unique-local
        ClassCase{"fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false, false, false, false},
        ClassCase{"fc00::", false, false, true, false}, ClassCase{"fd00::", false, false, true, false},
        ClassCase{"fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false, false, true, false},
        ClassCase{"fe00::", false, false, false, false},
        // fe80::/10 link-local
        ClassCase{"fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false, false, false, false},
        ClassCase{"fe80::", false, true, false, false}, ClassCase{"fe80::1%1", false, true, false, false},
        ClassCase{"febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false, true, false, false},
        ClassCase{"fec0::", false, false, false, false}),
    [](const ::testing::TestParamInfo<ClassCase>& param_info) {
      std::string name;
      for (const char* p = param_info.param.text; *p != '\0'; ++p) {
        const char ch = *p;
        name += ((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')) ? ch : '_';
      }
      return name + "_" + std::to_string(param_info.index);
    });

// --- same_subnet --------------------------------------------------------------

TEST(SameSubnet, PrefixZeroMatchesAnyAddressOfTheFamily) {
  EXPECT_TRUE(same_subnet(must_parse("10.0.0.1"), must_parse("200.1.1.1"), 0));
  EXPECT_TRUE(same_subnet(must_parse("2001:db8::1"), must_parse("fe80::1"), 0));
  EXPECT_FALSE(same_subnet(must_parse("10.0.0.1"), must_parse("::ffff:10.0.0.1"), 0));
}

TEST(SameSubnet, HostPrefixes) {
  EXPECT_TRUE(same_subnet(must_parse("10.0.0.1"), must_parse("10.0.0.1"), 32));
  EXPECT_FALSE(same_subnet(must_parse("10.0.0.1"), must_parse("10.0.0.0"), 32));
  EXPECT_TRUE(same_subnet(must_parse("2001:db8::1"), must_parse("2001:db8::1"), 128));
  EXPECT_FALSE(same_subnet(must_parse("2001:db8::1"), must_parse("2001:db8::"), 128));
  // A /31 differs from /32 only in the last bit.
  EXPECT_TRUE(same_subnet(must_parse("10.0.0.0"), must_parse("10.0.0.1"), 31));
  EXPECT_FALSE(same_subnet(must_parse("10.0.0.1"), must_parse("10.0.0.2"), 31));
}

TEST(SameSubnet, NonByteAlignedIpv4) {
  const IpAddress base = must_parse("10.1.16.0");
  EXPECT_TRUE(same_subnet(base, must_parse("10.1.16.1"), 20));
  EXPECT_TRUE(same_subnet(base, must_parse("10.1.31.255"), 20));
  EXPECT_FALSE(same_subnet(base, must_parse("10.1.15.255"), 20));
  EXPECT_FALSE(same_subnet(base, must_parse("10.1.32.0"), 20));
  // /1 splits the space in two halves.
  EXPECT_TRUE(same_subnet(must_parse("0.0.0.1"), must_parse("127.255.255.255"), 1));
  EXPECT_FALSE(same_subnet(must_parse("127.255.255.255"), must_parse("128.0.0.0"), 1));
}

TEST(SameSubnet, NonByteAlignedIpv6) {
  // /65: the first bit of byte 8 decides.
  const IpAddress base = must_parse("2001:db8::1");
  EXPECT_TRUE(same_subnet(base, must_parse("2001:db8::7fff:ffff:ffff:ffff"), 65));
  EXPECT_FALSE(same_subnet(base, must_parse("2001:db8::8000:0:0:0"), 65));
  // /64 includes both of them.
  EXPECT_TRUE(same_subnet(base, must_parse("2001:db8::8000:0:0:0"), 64));
  // /10 as in fe80::/10.
  EXPECT_TRUE(same_subnet(must_parse("fe80::"), must_parse("febf::1"), 10));
  EXPECT_FALSE(same_subnet(must_parse("fe80::"), must_parse("fec0::"), 10));
}

TEST(SameSubnet, FamilyMismatchIsNeverTheSameSubnet) {
  for (int len : {0, 8, 32}) {
    EXPECT_FALSE(same_subnet(must_parse("10.0.0.1"), must_parse("::ffff:10.0.0.1"), len)) << len;
    EXPECT_FALSE(same_subnet(must_parse("::"), must_parse("0.0.0.0"), len)) << len;
  }
}

TEST(SameSubnet, NegativeAndOversizedPrefixes) {
  EXPECT_FALSE(same_subnet(must_parse("10.0.0.1"), must_parse("10.0.0.1"), -1));
  // Beyond the address size every bit is compared.
  EXPECT_TRUE(same_subnet(must_parse("10.0.0.1"), must_parse("10.0.0.1"), 64));
  EXPECT_FALSE(same_subnet(must_parse("10.0.0.1"), must_parse("10.0.0.2"), 64));
}

// --- IpPrefix -----------------------------------------------------------------

TEST(IpPrefixParse, Ipv4AllLengths) {
  for (int len = 0; len <= 32; ++len) {
    const std::string text = "10.20.30.40/" + std::to_string(len);
    std::string why;
    auto p = IpPrefix::parse(text, &why);
    ASSERT_TRUE(p.has_value()) << text << ": " << why;
    EXPECT_EQ(p->length(), len);
    EXPECT_EQ(p->address(), must_parse("10.20.30.40"));
    EXPECT_EQ(p->to_string(), text);
  }
}

TEST(IpPrefixParse, Ipv6AllLengths) {
  for (int len = 0; len <= 128; ++len) {
    const std::string text = "fd00:1::5/" + std::to_string(len);
    std::string why;
    auto p = IpPrefix::parse(text, &why);
    ASSERT_TRUE(p.has_value()) << text << ": " << why;
    EXPECT_EQ(p->length(), len);
    EXPECT_EQ(p->address().family(), Family::V6);
    EXPECT_EQ(p->to_string(), text);
  }
}

TEST(IpPrefixParse, LengthOutOfRange) {
  struct Case {
    const char* text;
    const char* range;
  };
  for (const Case& c : {Case{"10.0.0.0/33", "0..32"}, Case{"10.0.0.0/-1", "0..32"}, Case{"10.0.0.0/1000", "0..32"},
                        Case{"10.0.0.0/99999999999999999999", "0..32"}, Case{"fd00::/129", "0..128"},
                        Case{"fd00::/-1", "0..128"}}) {
    std::string why;
    EXPECT_FALSE(IpPrefix::parse(c.text, &why).has_value()) << c.text;
    EXPECT_TRUE(Contains(why, c.range)) << c.text;
  }
}

TEST(IpPrefixParse, NonNumericLength) {
  for (const char* text : {"10.0.0.0/", "10.0.0.0/abc", "10.0.0.0/8abc", "10.0.0.0/8.0", "fd00::/x", "fd00::/64/64"}) {
    std::string why;
    EXPECT_FALSE(IpPrefix::parse(text, &why).has_value()) << text;
    EXPECT_TRUE(Contains(why, "prefix length")) << text;
  }
}

TEST(IpPrefixParse, BadAddressPart) {
  for (const char* text : {"/8", "10.0.0/8", "10.0.0.256/8", "fe80::zz/64", "eth0/24"}) {
    std::string why;
    EXPECT_FALSE(IpPrefix::parse(text, &why).has_value()) << text;
    EXPECT_TRUE(Contains(why, "not an IPv")) << text << ": " << why;
  }
}

TEST(IpPrefixParse, BareAddressIsAHostPrefix) {
  auto v4 = IpPrefix::parse("10.1.2.3");
  ASSERT_TRUE(v4.has_value());
  EXPECT_EQ(v4->length(), 32);
  EXPECT_EQ(v4->to_string(), "10.1.2.3/32");
  EXPECT_TRUE(v4->contains(must_parse("10.1.2.3")));
  EXPECT_FALSE(v4->contains(must_parse("10.1.2.4")));

  auto v6 = IpPrefix::parse("fd00::1");
  ASSERT_TRUE(v6.has_value());
  EXPECT_EQ(v6->length(), 128);
  EXPECT_TRUE(v6->contains(must_parse("fd00::1")));
  EXPECT_FALSE(v6->contains(must_parse("fd00::2")));
}

TEST(IpPrefixContains, Ipv4) {
  auto p = IpPrefix::parse("172.16.0.0/12");
  ASSERT_TRUE(p.has_value());
  EXPECT_TRUE(p->contains(must_parse("172.16.0.0")));
  EXPECT_TRUE(p->contains(must_parse("172.31.255.255")));
  EXPECT_FALSE(p->contains(must_parse("172.15.255.255")));
  EXPECT_FALSE(p->contains(must_parse("172.32.0.0")));
  EXPECT_FALSE(p->contains(must_parse("::ffff:172.16.0.1")));
}

TEST(IpPrefixContains, HostBitsInThePrefixAreIgnored) {
  auto p = IpPrefix::parse("10.1.2.3/8");
  ASSERT_TRUE(p.has_value());
  EXPECT_TRUE(p->contains(must_parse("10.0.0.0")));
  EXPECT_TRUE(p->contains(must_parse("10.255.255.255")));
  EXPECT_FALSE(p->contains(must_parse("11.1.2.3")));
}

TEST(IpPrefixContains, Ipv6) {
  auto p = IpPrefix::parse("fd00::/8");
  ASSERT_TRUE(p.has_value());
  EXPECT_TRUE(p->contains(must_parse("fd12:3456::1")));
  EXPECT_FALSE(p->contains(must_parse("fc00::1")));
  EXPECT_FALSE(p->contains(must_parse("10.0.0.1")));
  auto ll = IpPrefix::parse("fe80::/10");
  ASSERT_TRUE(ll.has_value());
  EXPECT_TRUE(ll->contains(must_parse("febf::1")));
  EXPECT_FALSE(ll->contains(must_parse("fec0::1")));
}

TEST(IpPrefixContains, ZeroLengthContainsItsWholeFamily) {
  auto any4 = IpPrefix::parse("0.0.0.0/0");
  ASSERT_TRUE(any4.has_value());
  EXPECT_TRUE(any4->contains(must_parse("255.255.255.255")));
  EXPECT_TRUE(any4->contains(must_parse("10.0.0.1")));
  EXPECT_FALSE(any4->contains(must_parse("::1")));
  auto any6 = IpPrefix::parse("::/0");
  ASSERT_TRUE(any6.has_value());
  EXPECT_TRUE(any6->contains(must_parse("2001:db8::1")));
  EXPECT_FALSE(any6->contains(must_parse("10.0.0.1")));
}

// --- ordering and equality ----------------------------------------------------

TEST(IpAddressCompare, ScopeMattersForEqualityNotForSameAddress) {
  const IpAddress a1 = must_parse("fe80::1%1");
  const IpAddress a2 = must_parse("fe80::1%2");
  EXPECT_NE(a1, a2);
  EXPECT_TRUE(a1.same_address(a2));
  EXPECT_EQ(a1, must_parse("fe80::1%1"));
  EXPECT_FALSE(a1.same_address(must_parse("fe80::2%1")));
}

TEST(IpAddressCompare, FamilyMattersForSameAddress) {
  // 0.0.0.0 and :: have the same (zero) bytes but are different addresses.
  EXPECT_FALSE(must_parse("0.0.0.0").same_address(must_parse("::")));
  EXPECT_NE(must_parse("0.0.0.0"), must_parse("::"));
  EXPECT_FALSE(must_parse("10.0.0.1").same_address(must_parse("::ffff:10.0.0.1")));
}

TEST(IpAddressCompare, SetScopeId) {
  IpAddress a = must_parse("fe80::1");
  EXPECT_EQ(a.scope_id(), 0u);
  a.set_scope_id(4);
  EXPECT_EQ(a.scope_id(), 4u);
  EXPECT_EQ(a, must_parse("fe80::1%4"));
}

TEST(IpAddressCompare, OrderIsNumericFamilyThenBytesThenScope) {
  // Numerically, not as text: "9..." sorts after "10..." as text.
  EXPECT_LT(must_parse("9.255.255.255"), must_parse("10.0.0.0"));
  EXPECT_LT(must_parse("10.0.0.1"), must_parse("10.0.0.2"));
  EXPECT_GT(must_parse("10.0.1.0"), must_parse("10.0.0.255"));
  // Every IPv4 address sorts before every IPv6 address.
  EXPECT_LT(must_parse("255.255.255.255"), must_parse("::"));
  // The scope breaks ties between equal bytes.
  EXPECT_LT(must_parse("fe80::1%1"), must_parse("fe80::1%2"));
  EXPECT_LT(must_parse("fe80::1%9"), must_parse("fe80::2%1"));
  EXPECT_EQ(must_parse("fd00::1") <=> must_parse("fd00::1"), std::strong_ordering::equal);
}

TEST(IpAddressCompare, UsableAsAKey) {
  std::set<IpAddress> set = {must_parse("10.0.0.2"), must_parse("10.0.0.1"), must_parse("10.0.0.2"),
                             must_parse("fe80::1%1"), must_parse("fe80::1%2")};
  ASSERT_EQ(set.size(), 4u);
  std::vector<std::string> order;
  for (const auto& a : set) order.push_back(a.to_string() + "%" + std::to_string(a.scope_id()));
  EXPECT_EQ(order, (std::vector<std::string>{"10.0.0.1%0", "10.0.0.2%0", "fe80::1%1", "fe80::1%2"}));
  std::map<IpAddress, int> map;
  map[must_parse("192.0.2.1")] = 1;
  map[must_parse("192.0.2.1")] = 2;
  EXPECT_EQ(map.size(), 1u);
  EXPECT_EQ(map[must_parse("192.0.2.1")], 2);
}

}  // namespace
}  // namespace orca::net
