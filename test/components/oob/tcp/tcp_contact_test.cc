// oob/tcp contact part: encoding and parsing of "tcp=<endpoint>,...",
// socket_text, every parse error with its reason, and a seeded mutation
// loop that must never crash and only ever fail with oob/bad-uri.
#include "oob/tcp/tcp_contact.h"

#include "lib/expect_text.h"
#include "lib/result_assertions.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace orca::oob::tcp {
namespace {

using net::Family;
using net::InterfaceKind;
using net::IpAddress;
using orca::test::Contains;
using orca::test::FailedWith;
using orca::test::Succeeded;

IpAddress addr(const std::string& text) {
  std::string why;
  auto a = IpAddress::parse(text, &why);
  EXPECT_TRUE(a.has_value()) << text << ": " << why;
  return a.value_or(IpAddress());
}

Endpoint endpoint(const std::string& address, int prefix, InterfaceKind kind, std::uint16_t port) {
  Endpoint e;
  e.address = addr(address);
  e.prefix_length = prefix;
  e.kind = kind;
  e.port = port;
  return e;
}

// Every field, including the scope (IpAddress::operator== compares it).
void expect_same(const std::vector<Endpoint>& got, const std::vector<Endpoint>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("endpoint " + std::to_string(i));
    EXPECT_EQ(got[i].address.to_string(), want[i].address.to_string());
    EXPECT_TRUE(got[i].address == want[i].address);
    EXPECT_EQ(got[i].address.family(), want[i].address.family());
    EXPECT_EQ(got[i].address.scope_id(), want[i].address.scope_id());
    EXPECT_EQ(got[i].prefix_length, want[i].prefix_length);
    EXPECT_EQ(got[i].kind, want[i].kind);
    EXPECT_EQ(got[i].port, want[i].port);
  }
}

// The part after "tcp=" of an encoded contact.
std::string part_of(const std::string& encoded) {
  EXPECT_EQ(encoded.substr(0, 4), "tcp=");
  return encoded.substr(4);
}

// The reason of a parse that must fail with oob/bad-uri.
std::string why_rejected(const std::string& part) {
  auto r = parse_contact(part);
  EXPECT_TRUE(FailedWith(r, "oob", "bad-uri")) << "part: " << part;
  return r.ok() ? std::string() : r.error().arg("why");
}

// --- encoding and round trips ---------------------------------------------

TEST(TcpContactEncode, Ipv4Text) {
  EXPECT_EQ(encode_contact({endpoint("10.0.0.1", 24, InterfaceKind::Physical, 5000)}),
            "tcp=10.0.0.1/24/physical/5000");
}

TEST(TcpContactEncode, Ipv6IsBracketedAndLinkLocalKeepsItsNumericScope) {
  EXPECT_EQ(encode_contact({endpoint("fd00::1", 64, InterfaceKind::Veth, 5001),
                            endpoint("fe80::1%2", 64, InterfaceKind::Veth, 5002)}),
            "tcp=[fd00::1]/64/veth/5001,[fe80::1%2]/64/veth/5002");
}

TEST(TcpContactEncode, NoEndpointsIsJustThePrefix) { EXPECT_EQ(encode_contact({}), "tcp="); }

TEST(TcpContactRoundTrip, Ipv4) {
  const std::vector<Endpoint> want = {endpoint("192.168.1.20", 16, InterfaceKind::Wireless, 65535)};
  auto r = parse_contact(part_of(encode_contact(want)));
  ASSERT_TRUE(Succeeded(r));
  expect_same(r.value(), want);
}

TEST(TcpContactRoundTrip, Ipv6Bracketed) {
  const std::vector<Endpoint> want = {endpoint("2001:db8::42", 128, InterfaceKind::Bond, 1)};
  const std::string encoded = encode_contact(want);
  EXPECT_EQ(encoded, "tcp=[2001:db8::42]/128/bond/1");
  auto r = parse_contact(part_of(encoded));
  ASSERT_TRUE(Succeeded(r));
  expect_same(r.value(), want);
  EXPECT_EQ(r.value()[0].address.family(), Family::V6);
}

TEST(TcpContactRoundTrip, Ipv6LinkLocalWithNumericScope) {
  const std::vector<Endpoint> want = {endpoint("fe80::1%7", 64, InterfaceKind::Bridge, 5002)};
  ASSERT_EQ(want[0].address.scope_id(), 7u);
  auto r = parse_contact(part_of(encode_contact(want)));
  ASSERT_TRUE(Succeeded(r));
  expect_same(r.value(), want);
  EXPECT_EQ(r.value()[0].address.scope_id(), 7u);
  EXPECT_TRUE(r.value()[0].address.is_link_local());
}

TEST(TcpContactRoundTrip, EdgePrefixLengths) {
  const std::vector<Endpoint> want = {
      endpoint("0.0.0.0", 0, InterfaceKind::Physical, 1),
      endpoint("255.255.255.255", 32, InterfaceKind::Physical, 2),
      endpoint("::", 0, InterfaceKind::Physical, 3),
      endpoint("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 128, InterfaceKind::Physical, 4),
  };
  auto r = parse_contact(part_of(encode_contact(want)));
  ASSERT_TRUE(Succeeded(r));
  expect_same(r.value(), want);
}

// Every kind the interfaces framework can name must survive the trip: the
// connecting side ranks addresses by kind.
TEST(TcpContactRoundTrip, EveryInterfaceKind) {
  const InterfaceKind kinds[] = {
      InterfaceKind::Loopback, InterfaceKind::Physical, InterfaceKind::Wireless, InterfaceKind::Bridge,
      InterfaceKind::Veth,     InterfaceKind::Vlan,     InterfaceKind::Bond,     InterfaceKind::TunTap,
      InterfaceKind::Dummy,    InterfaceKind::OtherVirtual, InterfaceKind::Unknown,
  };
  for (InterfaceKind k : kinds) {
    SCOPED_TRACE(std::string(net::kind_name(k)));
    for (const char* a : {"10.1.2.3", "fd00::9"}) {
      const std::vector<Endpoint> want = {endpoint(a, 8, k, 4242)};
      const std::string encoded = encode_contact(want);
      EXPECT_TRUE(Contains(encoded, "/" + std::string(net::kind_name(k)) + "/4242"));
      auto r = parse_contact(part_of(encoded));
      EXPECT_TRUE(Succeeded(r)) << "encoded as " << encoded;
      if (r.ok()) expect_same(r.value(), want);
    }
  }
}

TEST(TcpContactRoundTrip, SeveralEndpointsKeepTheirOrder) {
  const std::vector<Endpoint> want = {
      endpoint("10.0.0.1", 24, InterfaceKind::Physical, 5000),
      endpoint("fd00::1", 64, InterfaceKind::Veth, 5001),
      endpoint("fe80::1%2", 64, InterfaceKind::Veth, 5002),
      endpoint("127.0.0.1", 8, InterfaceKind::Loopback, 5003),
      endpoint("::1", 128, InterfaceKind::Loopback, 5004),
  };
  auto r = parse_contact(part_of(encode_contact(want)));
  ASSERT_TRUE(Succeeded(r));
  expect_same(r.value(), want);
}

TEST(TcpContactParse, TheDocumentedExample) {
  auto r = parse_contact("10.0.0.1/24/physical/5000,[fd00::1]/64/veth/5001,[fe80::1%2]/64/veth/5002");
  ASSERT_TRUE(Succeeded(r));
  expect_same(r.value(), {endpoint("10.0.0.1", 24, InterfaceKind::Physical, 5000),
                          endpoint("fd00::1", 64, InterfaceKind::Veth, 5001),
                          endpoint("fe80::1%2", 64, InterfaceKind::Veth, 5002)});
}

TEST(TcpContactParse, ExactlyTheMaximumNumberOfEndpoints) {
  std::string part;
  for (int i = 0; i < 4096; ++i) {
    if (i) part += ',';
    part += "10.0." + std::to_string(i / 256) + "." + std::to_string(i % 256) + "/16/physical/" +
            std::to_string(1000 + i);
  }
  auto r = parse_contact(part);
  ASSERT_TRUE(Succeeded(r));
  ASSERT_EQ(r.value().size(), 4096u);
  EXPECT_EQ(r.value()[4095].address.to_string(), "10.0.15.255");
  EXPECT_EQ(r.value()[4095].port, 5095);
}

// --- socket_text -----------------------------------------------------------

TEST(TcpContactSocketText, Ipv4) {
  EXPECT_EQ(endpoint("10.0.0.1", 24, InterfaceKind::Physical, 5000).socket_text(), "10.0.0.1:5000");
}

TEST(TcpContactSocketText, Ipv6IsBracketed) {
  EXPECT_EQ(endpoint("fd00::1", 64, InterfaceKind::Veth, 5001).socket_text(), "[fd00::1]:5001");
}

TEST(TcpContactSocketText, LinkLocalLeavesOutTheScope) {
  EXPECT_EQ(endpoint("fe80::1%2", 64, InterfaceKind::Veth, 65535).socket_text(), "[fe80::1]:65535");
}

// --- parse errors ----------------------------------------------------------

TEST(TcpContactParseError, Empty) {
  auto r = parse_contact("");
  ASSERT_TRUE(FailedWith(r, "oob", "bad-uri"));
  EXPECT_EQ(r.error().arg("why"), "no address");
  EXPECT_EQ(r.error().arg("uri"), "tcp=");
}

TEST(TcpContactParseError, MissingClosingBracket) {
  EXPECT_EQ(why_rejected("[fd00::1/64/veth/5001"), "an IPv6 address without ']'");
}

TEST(TcpContactParseError, TheUriArgumentNamesTheBadItem) {
  auto r = parse_contact("10.0.0.1/24/physical/5000,10.0.0.2/24/bogus/5001");
  ASSERT_TRUE(FailedWith(r, "oob", "bad-uri"));
  EXPECT_EQ(r.error().arg("uri"), "tcp=...10.0.0.2/24/bogus/5001");
  EXPECT_EQ(r.error().arg("why"), "unknown interface kind");
}

TEST(TcpContactParseError, MissingParts) {
  EXPECT_EQ(why_rejected("10.0.0.1"), "no /prefix/kind/port after the address");
  EXPECT_EQ(why_rejected("[fd00::1]"), "no /prefix/kind/port after the address");
  EXPECT_EQ(why_rejected("[fd00::1]64/veth/5001"), "no /prefix/kind/port after the address");
  EXPECT_EQ(why_rejected("10.0.0.1/24"), "expected <address>/<prefix>/<kind>/<port>");
  EXPECT_EQ(why_rejected("10.0.0.1/24/physical"), "expected <address>/<prefix>/<kind>/<port>");
  EXPECT_EQ(why_rejected("[fd00::1]/64/veth"), "expected <address>/<prefix>/<kind>/<port>");
}

TEST(TcpContactParseError, BadAddress) {
  EXPECT_EQ(why_rejected("10.0.0.256/24/physical/5000"), "not an IPv4 address (a.b.c.d)");
  EXPECT_EQ(why_rejected("10.0.0/24/physical/5000"), "not an IPv4 address (a.b.c.d)");
  EXPECT_EQ(why_rejected("[fd00:::1]/64/veth/5000"), "not an IPv6 address");
  EXPECT_EQ(why_rejected("[]/64/veth/5000"), "not an IPv4 address (a.b.c.d)");
  EXPECT_EQ(why_rejected("/24/physical/5000"), "not an IPv4 address (a.b.c.d)");
  EXPECT_EQ(why_rejected("10.0.0.1%2/24/physical/5000"), "an IPv4 address has no scope");
  EXPECT_EQ(why_rejected("[fe80::1%]/64/veth/5000"), "an empty scope after '%'");
  EXPECT_EQ(why_rejected("[fe80::1%0]/64/veth/5000"), "the scope after '%' is not an interface of this host");
}

TEST(TcpContactParseError, PrefixOutOfRangeV4) {
  EXPECT_EQ(why_rejected("10.0.0.1/33/physical/5000"), "the prefix length is not 0..32");
  EXPECT_EQ(why_rejected("10.0.0.1/-1/physical/5000"), "the prefix length is not 0..32");
  EXPECT_EQ(why_rejected("10.0.0.1//physical/5000"), "the prefix length is not 0..32");
  EXPECT_EQ(why_rejected("10.0.0.1/x/physical/5000"), "the prefix length is not 0..32");
  EXPECT_EQ(why_rejected("10.0.0.1/99999999999/physical/5000"), "the prefix length is not 0..32");
}

TEST(TcpContactParseError, PrefixOutOfRangeV6) {
  EXPECT_EQ(why_rejected("[fd00::1]/129/veth/5000"), "the prefix length is not 0..128");
  EXPECT_EQ(why_rejected("[fd00::1]/+64/veth/5000"), "the prefix length is not 0..128");
  EXPECT_EQ(why_rejected("[fd00::1]/ 64/veth/5000"), "the prefix length is not 0..128");
}

TEST(TcpContactParseError, UnknownKind) {
  EXPECT_EQ(why_rejected("10.0.0.1/24/ethernet/5000"), "unknown interface kind");
  EXPECT_EQ(why_rejected("10.0.0.1/24/Physical/5000"), "unknown interface kind");
  EXPECT_EQ(why_rejected("10.0.0.1/24//5000"), "unknown interface kind");
}

TEST(TcpContactParseError, BadPorts) {
  EXPECT_EQ(why_rejected("10.0.0.1/24/physical/0"), "the port is not 1..65535");
  EXPECT_EQ(why_rejected("10.0.0.1/24/physical/65536"), "the port is not 1..65535");
  EXPECT_EQ(why_rejected("10.0.0.1/24/physical/http"), "the port is not 1..65535");
  EXPECT_EQ(why_rejected("10.0.0.1/24/physical/-1"), "the port is not 1..65535");
  EXPECT_EQ(why_rejected("10.0.0.1/24/physical/"), "the port is not 1..65535");
  EXPECT_EQ(why_rejected("10.0.0.1/24/physical/50x"), "the port is not 1..65535");
}

TEST(TcpContactParseError, ExtraPartIsRejected) {
  // Which part the reason blames depends on how the kind is delimited;
  // only the rejection matters.
  EXPECT_FALSE(why_rejected("10.0.0.1/24/physical/5000/extra").empty());
  EXPECT_FALSE(why_rejected("10.0.0.1/24/physical/5000/6000").empty());
}

TEST(TcpContactParseError, EmptyItemBetweenCommas) {
  EXPECT_EQ(why_rejected("10.0.0.1/24/physical/5000,,10.0.0.2/24/physical/5001"),
            "no /prefix/kind/port after the address");
  EXPECT_EQ(why_rejected(",10.0.0.1/24/physical/5000"), "no /prefix/kind/port after the address");
  EXPECT_EQ(why_rejected(","), "no /prefix/kind/port after the address");
}

TEST(TcpContactParseError, TrailingComma) {
  EXPECT_EQ(why_rejected("10.0.0.1/24/physical/5000,"), "no /prefix/kind/port after the address");
}

TEST(TcpContactParseError, TooManyEndpoints) {
  std::string part;
  for (int i = 0; i < 5000; ++i) {
    if (i) part += ',';
    part += "10.0.0.1/24/physical/5000";
  }
  auto r = parse_contact(part);
  ASSERT_TRUE(FailedWith(r, "oob", "bad-uri"));
  EXPECT_EQ(r.error().arg("why"), "too many addresses");

  // One more than the maximum is enough.
  std::string just_over;
  for (int i = 0; i < 4097; ++i) just_over += (i ? "," : "") + std::string("10.0.0.1/24/physical/5000");
  EXPECT_EQ(why_rejected(just_over), "too many addresses");
}

TEST(TcpContactParseError, LongItemIsCutInTheMessage) {
  const std::string item = "10.0.0.1/24/" + std::string(500, 'k') + "/5000";
  auto r = parse_contact(item);
  ASSERT_TRUE(FailedWith(r, "oob", "bad-uri"));
  EXPECT_EQ(r.error().arg("uri"), "tcp=..." + item.substr(0, 100));
}

// --- mutation --------------------------------------------------------------

TEST(TcpContactFuzz, RandomMutationsParseOrFailWithBadUri) {
  const std::vector<std::string> seeds = {
      "10.0.0.1/24/physical/5000",
      "[fd00::1]/64/veth/5001",
      "[fe80::1%2]/64/veth/5002",
      "10.0.0.1/24/physical/5000,[fd00::1]/64/veth/5001,[fe80::1%2]/64/veth/5002",
      "127.0.0.1/8/loopback/1,::1/128/loopback/65535",
      "192.168.0.7/16/other-virtual/40000,[2001:db8::1]/48/bridge/2",
  };
  // Characters that matter to the grammar, plus anything at all.
  const std::string interesting = "[]/%,:.-+0123456789abcdefx ";
  std::mt19937 rng(20240611u);
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  auto random_char = [&]() -> char {
    if (pick(4) == 0) return static_cast<char>(pick(256));
    return interesting[pick(interesting.size())];
  };

  int parsed = 0, rejected = 0;
  for (int iteration = 0; iteration < 20000; ++iteration) {
    std::string text = seeds[pick(seeds.size())];
    const size_t edits = 1 + pick(4);
    for (size_t k = 0; k < edits; ++k) {
      switch (pick(3)) {
        case 0:  // flip
          if (!text.empty()) text[pick(text.size())] = random_char();
          break;
        case 1:  // insert
          text.insert(text.begin() + static_cast<long>(pick(text.size() + 1)), random_char());
          break;
        default:  // delete
          if (!text.empty()) text.erase(pick(text.size()), 1);
          break;
      }
    }
    auto r = parse_contact(text);
    if (r.ok()) {
      ++parsed;
      // Whatever was accepted is within the grammar's limits and survives
      // another round trip unchanged.
      for (const Endpoint& e : r.value()) {
        ASSERT_NE(e.port, 0) << text;
        ASSERT_GE(e.prefix_length, 0) << text;
        ASSERT_LE(e.prefix_length, e.address.family() == Family::V4 ? 32 : 128) << text;
      }
      auto again = parse_contact(part_of(encode_contact(r.value())));
      ASSERT_TRUE(Succeeded(again)) << "re-encoded from " << text;
      ASSERT_EQ(again.value().size(), r.value().size());
    } else {
      ++rejected;
      ASSERT_EQ(r.error().area(), "oob") << text;
      ASSERT_EQ(r.error().topic(), "bad-uri") << text;
      ASSERT_FALSE(r.error().arg("why").empty()) << text;
    }
  }
  // The loop explored both sides.
  EXPECT_GT(parsed, 100);
  EXPECT_GT(rejected, 1000);
}

}  // namespace
}  // namespace orca::oob::tcp
