// oob/tcp port range lists ("a-b,c"): what parses, every rejected form
// with the variable and entry named, and ports_of.
#include "oob/tcp/port_ranges.h"

#include "lib/expect_text.h"
#include "lib/result_assertions.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace orca::oob::tcp {
namespace {

using orca::test::Contains;
using orca::test::FailedWith;
using orca::test::Succeeded;

const std::string kVar = "oob_tcp_static_ipv4_ports";

std::vector<PortRange> must_parse(const std::string& text) {
  auto r = parse_port_ranges(text, kVar);
  EXPECT_TRUE(Succeeded(r)) << "'" << text << "'";
  return r.ok() ? r.value() : std::vector<PortRange>{};
}

void expect_ranges(const std::vector<PortRange>& got, const std::vector<std::pair<int, int>>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].first, want[i].first) << "range " << i;
    EXPECT_EQ(got[i].last, want[i].second) << "range " << i;
  }
}

// The rejection of `text`: its message names the variable and the entry.
void expect_rejected(const std::string& text, const std::string& entry, const std::string& why) {
  SCOPED_TRACE("'" + text + "'");
  auto r = parse_port_ranges(text, kVar);
  ASSERT_TRUE(FailedWith(r, "oob", "bad-port-range"));
  EXPECT_EQ(r.error().arg("variable"), kVar);
  EXPECT_EQ(r.error().arg("entry"), entry);
  EXPECT_TRUE(Contains(r.error().arg("why"), why));
}

const char kNotAPort[] = "not a port 1..65535";
const char kNotARange[] = "not a range a-b of ports 1..65535";

TEST(PortRanges, EmptyIsNoRange) { expect_ranges(must_parse(""), {}); }

TEST(PortRanges, SinglePort) { expect_ranges(must_parse("5000"), {{5000, 5000}}); }

TEST(PortRanges, Range) { expect_ranges(must_parse("5000-5010"), {{5000, 5010}}); }

TEST(PortRanges, RangeAndPort) { expect_ranges(must_parse("5000-5002,6000"), {{5000, 5002}, {6000, 6000}}); }

TEST(PortRanges, Extremes) {
  expect_ranges(must_parse("1,65535,1-65535,7-7"), {{1, 1}, {65535, 65535}, {1, 65535}, {7, 7}});
}

TEST(PortRanges, OrderAndOverlapAreKept) {
  expect_ranges(must_parse("6000,5000-5005,5003"), {{6000, 6000}, {5000, 5005}, {5003, 5003}});
}

// Spaces are not trimmed: an entry with a space anywhere is rejected, and
// the entry in the message is the text as given, space included.
TEST(PortRanges, WhitespaceIsRejected) {
  expect_rejected(" 5000", " 5000", kNotAPort);
  expect_rejected("5000 ", "5000 ", kNotAPort);
  expect_rejected("5000, 6000", " 6000", kNotAPort);
  expect_rejected("5000 -5010", "5000 -5010", kNotARange);
  expect_rejected("5000- 5010", "5000- 5010", kNotARange);
  expect_rejected(" ", " ", kNotAPort);
  expect_rejected("5000,\t6000", "\t6000", kNotAPort);
}

TEST(PortRanges, Zero) {
  expect_rejected("0", "0", kNotAPort);
  expect_rejected("0-10", "0-10", kNotARange);
}

TEST(PortRanges, TooLarge) {
  expect_rejected("65536", "65536", kNotAPort);
  expect_rejected("5000-65536", "5000-65536", kNotARange);
  expect_rejected("99999999999999999999", "99999999999999999999", kNotAPort);
}

TEST(PortRanges, NotNumbers) {
  expect_rejected("a-b", "a-b", kNotARange);
  expect_rejected("http", "http", kNotAPort);
  expect_rejected("50a", "50a", kNotAPort);
  expect_rejected("+5000", "+5000", kNotAPort);
}

TEST(PortRanges, Backwards) { expect_rejected("10-5", "10-5", "the range ends before it starts"); }

TEST(PortRanges, MissingEnds) {
  expect_rejected("-5", "-5", kNotARange);
  expect_rejected("5-", "5-", kNotARange);
  expect_rejected("-", "-", kNotARange);
  expect_rejected("5-6-7", "5-6-7", kNotARange);
}

TEST(PortRanges, EmptyEntries) {
  expect_rejected(",", "", kNotAPort);
  expect_rejected("5000,", "", kNotAPort);
  expect_rejected(",5000", "", kNotAPort);
  expect_rejected("5000,,6000", "", kNotAPort);
}

TEST(PortRanges, TheFirstBadEntryIsNamed) { expect_rejected("5000,6000-6001,x,0", "x", kNotAPort); }

TEST(PortRanges, TheVariableIsTheOneGiven) {
  auto r = parse_port_ranges("7-3", "oob_tcp_dynamic_ipv6_ports");
  ASSERT_TRUE(FailedWith(r, "oob", "bad-port-range"));
  EXPECT_EQ(r.error().arg("variable"), "oob_tcp_dynamic_ipv6_ports");
  EXPECT_EQ(r.error().arg("entry"), "7-3");
}

// --- ports_of ------------------------------------------------------------

TEST(PortsOf, NoRangesNoPorts) { EXPECT_TRUE(ports_of({}).empty()); }

TEST(PortsOf, ExpandsInOrder) {
  EXPECT_EQ(ports_of(must_parse("5000-5002,6000")), (std::vector<std::uint16_t>{5000, 5001, 5002, 6000}));
}

TEST(PortsOf, DedupsAndKeepsFirstOccurrenceOrder) {
  EXPECT_EQ(ports_of(must_parse("5002-5004,5000-5003,5004,4999")),
            (std::vector<std::uint16_t>{5002, 5003, 5004, 5000, 5001, 4999}));
}

TEST(PortsOf, UpToTheLastPortWithoutWrapping) {
  EXPECT_EQ(ports_of(must_parse("65534-65535")), (std::vector<std::uint16_t>{65534, 65535}));
  const auto all = ports_of(must_parse("1-65535,1-65535"));
  ASSERT_EQ(all.size(), 65535u);
  EXPECT_EQ(all.front(), 1);
  EXPECT_EQ(all.back(), 65535);
}

}  // namespace
}  // namespace orca::oob::tcp
