// parse_value: the accepted spellings of every VarType, declared ranges, and
// the shape of the "bad-value" error that names the variable, the source
// and what is valid.
#include <orca/mca_var.h>

#include <gtest/gtest.h>

#include "lib/mca_var_util.h"
#include "lib/result_assertions.h"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace orca::mca {
namespace {

using test::FailedWith;
using test::make_source;
using test::make_spec;
using test::Succeeded;

// Parses `text` for a variable of `type` from a command-line source.
Result<Value> parse(VarType type, const std::string& text) {
  return parse_value(make_spec("test", "parse", "var", type), text, make_source(SourceKind::CommandLine));
}

// The "why" of a failed parse, or "(parsed)" when it did not fail.
std::string why(VarType type, const std::string& text) {
  Result<Value> r = parse(type, text);
  return r ? "(parsed)" : r.error().arg("why");
}

// A readable test name from any text: letters and digits kept, others hex.
std::string name_of(const std::string& text) {
  if (text.empty()) return "empty";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c)) {
      out += static_cast<char>(c);
    } else {
      static const char* hex = "0123456789abcdef";
      out += '_';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// ---------------------------------------------------------------- bool

struct BoolCase {
  std::string text;
  bool value;
};

class BoolSpelling : public ::testing::TestWithParam<BoolCase> {};

TEST_P(BoolSpelling, ParsesToItsValue) {
  Result<Value> r = parse(VarType::Bool, GetParam().text);
  ASSERT_TRUE(Succeeded(r));
  ASSERT_TRUE(std::holds_alternative<bool>(r.value()));
  EXPECT_EQ(std::get<bool>(r.value()), GetParam().value);
}

INSTANTIATE_TEST_SUITE_P(
    AllSpellings, BoolSpelling,
    ::testing::Values(BoolCase{"1", true}, BoolCase{"0", false}, BoolCase{"true", true},
                      BoolCase{"false", false}, BoolCase{"yes", true}, BoolCase{"no", false},
                      BoolCase{"on", true}, BoolCase{"off", false}, BoolCase{"TRUE", true},
                      BoolCase{"False", false}, BoolCase{"YeS", true}, BoolCase{"NO", false},
                      BoolCase{"On", true}, BoolCase{"oFF", false}),
    [](const ::testing::TestParamInfo<BoolCase>& p) { return name_of(p.param.text); });

class BoolRejected : public ::testing::TestWithParam<std::string> {};

TEST_P(BoolRejected, IsNotABoolean) { EXPECT_EQ(why(VarType::Bool, GetParam()), "not a boolean"); }

INSTANTIATE_TEST_SUITE_P(Junk, BoolRejected,
                         ::testing::Values("", "2", "-1", "y", "t", "enable", "truee", " true", "true ", "1.0"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return name_of(p.param); });

// ---------------------------------------------------------------- int

TEST(ParseInt, AcceptsDecimalNegativeAndHex) {
  const std::vector<std::pair<std::string, std::int64_t>> cases = {
      {"0", 0}, {"42", 42}, {"-3", -3}, {"+7", 7}, {"0x1f", 31}, {"0X1F", 31}, {"-0x10", -16},
      {"9223372036854775807", std::numeric_limits<std::int64_t>::max()},
      {"-9223372036854775808", std::numeric_limits<std::int64_t>::min()},
  };
  for (const auto& [text, expected] : cases) {
    SCOPED_TRACE(text);
    Result<Value> r = parse(VarType::Int, text);
    ASSERT_TRUE(Succeeded(r));
    ASSERT_TRUE(std::holds_alternative<std::int64_t>(r.value()));
    EXPECT_EQ(std::get<std::int64_t>(r.value()), expected);
  }
}

TEST(ParseInt, OverflowIsOutOfRange) {
  EXPECT_EQ(why(VarType::Int, "9223372036854775808"), "out of the 64-bit range");
  EXPECT_EQ(why(VarType::Int, "-9223372036854775809"), "out of the 64-bit range");
  EXPECT_EQ(why(VarType::Int, "99999999999999999999999"), "out of the 64-bit range");
}

TEST(ParseInt, RejectsJunkAndSurroundingSpace) {
  for (const std::string text : {"", "abc", "12abc", "1.5", "1e3", "0x", " 5", "\t5", "5 ", "--5", "5-"}) {
    SCOPED_TRACE("'" + text + "'");
    EXPECT_EQ(why(VarType::Int, text), "not a whole number");
  }
}

// Regression (test/fuzz/param_file_fuzz, corpus regression-nul-in-number):
// the C parsers stop at a NUL, and "64\0junk" from a binary param file
// was read as 64.
TEST(ParseNumbers, EmbeddedNulIsJunk) {
  const std::string text("64\0junk", 7);
  EXPECT_EQ(why(VarType::Int, text), "not a whole number");
  EXPECT_EQ(why(VarType::Unsigned, text), "not a non-negative whole number");
  EXPECT_EQ(why(VarType::Size, text), "not a byte count");
  EXPECT_EQ(why(VarType::Double, text), "not a number");
  EXPECT_EQ(why(VarType::Size, std::string("1\0k", 3)), "not a byte count");
}

// Regression: strtoll with base 0 once read a leading 0 as octal.
TEST(ParseInt, LeadingZeroIsStillDecimal) {
  Result<Value> ten = parse(VarType::Int, "010");
  ASSERT_TRUE(Succeeded(ten));
  EXPECT_EQ(std::get<std::int64_t>(ten.value()), 10);
  Result<Value> eight = parse(VarType::Int, "08");
  ASSERT_TRUE(Succeeded(eight));
  EXPECT_EQ(std::get<std::int64_t>(eight.value()), 8);
}

// ---------------------------------------------------------------- unsigned

TEST(ParseUnsigned, AcceptsDecimalAndHex) {
  const std::vector<std::pair<std::string, std::uint64_t>> cases = {
      {"0", 0}, {"42", 42}, {"0xff", 255},
      {"18446744073709551615", std::numeric_limits<std::uint64_t>::max()},
  };
  for (const auto& [text, expected] : cases) {
    SCOPED_TRACE(text);
    Result<Value> r = parse(VarType::Unsigned, text);
    ASSERT_TRUE(Succeeded(r));
    ASSERT_TRUE(std::holds_alternative<std::uint64_t>(r.value()));
    EXPECT_EQ(std::get<std::uint64_t>(r.value()), expected);
  }
}

TEST(ParseUnsigned, RejectsNegativeOverflowAndJunk) {
  // strtoull would silently wrap "-1" to 2^64-1; it must be an error.
  for (const std::string text : {"-1", "-0", "+1", "18446744073709551616", "", " 1", "1 ", "x", "1.0"}) {
    SCOPED_TRACE("'" + text + "'");
    EXPECT_EQ(why(VarType::Unsigned, text), "not a non-negative whole number");
  }
}

TEST(ParseUnsigned, LeadingZeroIsStillDecimal) {
  // Same regression as ParseInt.LeadingZeroIsStillDecimal.
  Result<Value> r = parse(VarType::Unsigned, "010");
  ASSERT_TRUE(Succeeded(r));
  EXPECT_EQ(std::get<std::uint64_t>(r.value()), 10u);
}

// ---------------------------------------------------------------- size

TEST(ParseSize, AcceptsBytesAndBinarySuffixes) {
  const std::vector<std::pair<std::string, std::uint64_t>> cases = {
      {"0", 0},
      {"4096", 4096},
      {"64k", 64 * 1024},
      {"64K", 64 * 1024},
      {"4M", 4ull << 20},
      {"4m", 4ull << 20},
      {"1G", 1ull << 30},
      {"1T", 1ull << 40},
      {"0x10k", 16 * 1024},
      {"16777215T", 16777215ull << 40},  // the largest multiple of 1T that fits
      {"18446744073709551615", std::numeric_limits<std::uint64_t>::max()},
  };
  for (const auto& [text, expected] : cases) {
    SCOPED_TRACE(text);
    Result<Value> r = parse(VarType::Size, text);
    ASSERT_TRUE(Succeeded(r));
    ASSERT_TRUE(std::holds_alternative<std::uint64_t>(r.value()));
    EXPECT_EQ(std::get<std::uint64_t>(r.value()), expected);
  }
}

TEST(ParseSize, OverflowIsAnError) {
  EXPECT_EQ(why(VarType::Size, "16777216T"), "too large");  // 2^64
  EXPECT_EQ(why(VarType::Size, "17179869184G"), "too large");
  EXPECT_EQ(why(VarType::Size, "18446744073709551616"), "not a byte count");
}

TEST(ParseSize, RejectsBareSuffixNegativeAndJunk) {
  for (const std::string text : {"k", "M", "", "-1", "-1k", "4 k", "4KB", "4KiB", "1.5M", "k4", " 4k", "4P"}) {
    SCOPED_TRACE("'" + text + "'");
    EXPECT_EQ(why(VarType::Size, text), "not a byte count");
  }
}

// ---------------------------------------------------------------- double

TEST(ParseDouble, AcceptsFiniteNumbers) {
  const std::vector<std::pair<std::string, double>> cases = {
      {"0.25", 0.25}, {"3", 3.0}, {"-1.5e3", -1500.0}, {"1e308", 1e308}, {".5", 0.5}, {"-0", -0.0},
  };
  for (const auto& [text, expected] : cases) {
    SCOPED_TRACE(text);
    Result<Value> r = parse(VarType::Double, text);
    ASSERT_TRUE(Succeeded(r));
    ASSERT_TRUE(std::holds_alternative<double>(r.value()));
    EXPECT_DOUBLE_EQ(std::get<double>(r.value()), expected);
  }
}

TEST(ParseDouble, RejectsInfinityAndNan) {
  for (const std::string text : {"inf", "-inf", "INF", "infinity", "nan", "NaN", "-nan", "1e999", "-1e999"}) {
    SCOPED_TRACE(text);
    EXPECT_EQ(why(VarType::Double, text), "not finite");
  }
}

TEST(ParseDouble, RejectsJunk) {
  for (const std::string text : {"", "abc", "1.5x", "1,5", " 1.5", "1.5 ", "e3", "."}) {
    SCOPED_TRACE("'" + text + "'");
    EXPECT_EQ(why(VarType::Double, text), "not a number");
  }
}

// Regression: ERANGE on a subnormal result was once taken for "not finite".
TEST(ParseDouble, AcceptsSubnormalNumbers) {
  Result<Value> r = parse(VarType::Double, "1e-310");
  ASSERT_TRUE(Succeeded(r));
  EXPECT_GT(std::get<double>(r.value()), 0.0);
  EXPECT_TRUE(std::isfinite(std::get<double>(r.value())));
}

// ---------------------------------------------------------------- string

TEST(ParseString, KeepsTextVerbatim) {
  for (const std::string text : {"", "plain", "  spaced  ", "a,b", "with = sign", "#hash"}) {
    SCOPED_TRACE("'" + text + "'");
    Result<Value> r = parse(VarType::String, text);
    ASSERT_TRUE(Succeeded(r));
    ASSERT_TRUE(std::holds_alternative<std::string>(r.value()));
    EXPECT_EQ(std::get<std::string>(r.value()), text);
  }
}

// ---------------------------------------------------------------- enum

VarSpec enum_spec() {
  VarSpec s = make_spec("test", "parse", "mode", VarType::Enum, "none");
  s.enum_words = {"none", "Lazy", "eager"};
  return s;
}

TEST(ParseEnum, MatchesCaseInsensitivelyAndReturnsTheCanonicalWord) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"none", "none"}, {"NONE", "none"}, {"lazy", "Lazy"}, {"LAZY", "Lazy"},
      {"Lazy", "Lazy"}, {"EaGeR", "eager"},
  };
  for (const auto& [text, canonical] : cases) {
    SCOPED_TRACE(text);
    Result<Value> r = parse_value(enum_spec(), text, Source{});
    ASSERT_TRUE(Succeeded(r));
    ASSERT_TRUE(std::holds_alternative<std::string>(r.value()));
    EXPECT_EQ(std::get<std::string>(r.value()), canonical);
  }
}

TEST(ParseEnum, UnknownWordListsTheWords) {
  for (const std::string text : {"sometimes", "", " lazy", "laz", "none,eager"}) {
    SCOPED_TRACE("'" + text + "'");
    Result<Value> r = parse_value(enum_spec(), text, Source{});
    ASSERT_TRUE(FailedWith(r, "mca-var", "bad-value"));
    EXPECT_EQ(r.error().arg("why"), "not one of its words");
    EXPECT_EQ(r.error().arg("valid"), "one of none, Lazy, eager");
    EXPECT_EQ(r.error().arg("value"), text);
  }
}

// ---------------------------------------------------------------- string list

TEST(ParseStringList, SplitsOnCommasAndTrimsItems) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"a,b,c", {"a", "b", "c"}},
      {" a , b ,\tc ", {"a", "b", "c"}},
      {"single", {"single"}},
      {"two words,x", {"two words", "x"}},
      {"", {}},
      {"   ", {}},
  };
  for (const auto& [text, items] : cases) {
    SCOPED_TRACE("'" + text + "'");
    Result<Value> r = parse(VarType::StringList, text);
    ASSERT_TRUE(Succeeded(r));
    ASSERT_TRUE(std::holds_alternative<std::vector<std::string>>(r.value()));
    EXPECT_EQ(std::get<std::vector<std::string>>(r.value()), items);
  }
}

TEST(ParseStringList, EmptyItemIsAnError) {
  for (const std::string text : {"a,,b", "a,", ",a", " , ", ","}) {
    SCOPED_TRACE("'" + text + "'");
    EXPECT_EQ(why(VarType::StringList, text), "an empty item in the list");
  }
}

// ---------------------------------------------------------------- error shape

struct BadValueCase {
  VarType type;
  std::string text;
};

class BadValueMessage : public ::testing::TestWithParam<BadValueCase> {};

TEST_P(BadValueMessage, NamesVariableValueSourceWhyAndValid) {
  VarSpec spec = make_spec("oob", "tcp", "knob", GetParam().type);
  spec.enum_words = {"red", "green"};
  const Source source = make_source(SourceKind::ParamFile, "/etc/orca-mca-params.conf", 7, 0);

  Result<Value> r = parse_value(spec, GetParam().text, source);
  ASSERT_TRUE(FailedWith(r, "mca-var", "bad-value"));
  const Message& m = r.error();
  EXPECT_EQ(m.arg("name"), "oob_tcp_knob");
  EXPECT_EQ(m.arg("value"), GetParam().text);
  EXPECT_EQ(m.arg("source"), "param file /etc/orca-mca-params.conf:7");
  EXPECT_EQ(m.arg("source"), source.describe());
  EXPECT_FALSE(m.arg("why").empty());
  EXPECT_EQ(m.arg("valid"), valid_values(spec));
  EXPECT_FALSE(m.arg("valid").empty());
  // Exactly the placeholders of help-mca-var.txt [bad-value], in order.
  std::vector<std::string> keys;
  for (const auto& [k, v] : m.args()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"name", "value", "source", "why", "valid"}));
}

INSTANTIATE_TEST_SUITE_P(EveryFailingType, BadValueMessage,
                         ::testing::Values(BadValueCase{VarType::Bool, "maybe"}, BadValueCase{VarType::Int, "x1"},
                                           BadValueCase{VarType::Unsigned, "-4"},
                                           BadValueCase{VarType::Size, "4Q"},
                                           BadValueCase{VarType::Double, "nan"},
                                           BadValueCase{VarType::Enum, "blue"},
                                           BadValueCase{VarType::StringList, "a,,b"}),
                         [](const ::testing::TestParamInfo<BadValueCase>& p) {
                           std::string n(type_name(p.param.type));
                           for (auto& c : n) c = c == ' ' ? '_' : c;
                           return n;
                         });

TEST(BadValueSource, IsDescribedForEveryKind) {
  const VarSpec spec = make_spec("test", "parse", "var", VarType::Int);
  const std::vector<std::pair<Source, std::string>> cases = {
      {Source{}, "default"},
      {make_source(SourceKind::ParamFile, "/a.conf", 3), "param file /a.conf:3"},
      {make_source(SourceKind::TuneFile, "/t.conf", 1), "tune file /t.conf:1"},
      {make_source(SourceKind::Environment), "environment"},
      {make_source(SourceKind::CommandLine), "command line"},
      {make_source(SourceKind::OverrideFile, "/o.conf", 12), "override file /o.conf:12"},
  };
  for (const auto& [source, described] : cases) {
    SCOPED_TRACE(described);
    Result<Value> r = parse_value(spec, "junk", source);
    ASSERT_TRUE(FailedWith(r, "mca-var", "bad-value"));
    EXPECT_EQ(r.error().arg("source"), described);
  }
}

// ---------------------------------------------------------------- ranges

VarSpec ranged(VarType type, std::string min, std::string max, std::string def = "") {
  VarSpec s = make_spec("oob", "tcp", "knob", type, std::move(def));
  s.min_text = std::move(min);
  s.max_text = std::move(max);
  return s;
}

struct InRange {
  VarType type;
  std::string min, max;
  std::vector<std::string> inside, outside;
};

// Bounds are inclusive and parsed by the type's own rule ("1k" for a size);
// a value outside them is refused as "out of range" with the range shown.
TEST(ParseRange, AcceptsInsideAndRefusesOutsideForEveryNumericType) {
  const std::vector<InRange> cases = {
      {VarType::Int, "1", "3600000", {"1", "3600000", "0x10", "+5"}, {"0", "-1", "3600001", "9223372036854775807",
                                                                     "-9223372036854775808"}},
      {VarType::Int, "-1000", "1000", {"-1000", "0", "1000"}, {"-1001", "1001"}},
      {VarType::Unsigned, "1", "65536", {"1", "65536"}, {"0", "65537", "18446744073709551615"}},
      {VarType::Size, "1k", "1G", {"1k", "1024", "64M", "1G", "1073741824"},
       {"1023", "0", "1025M", "1073741825", "18446744073709551615", "16777215T"}},
      {VarType::Double, "0", "1", {"0", "0.5", "1", "-0"}, {"-0.0001", "1.0001", "1e300"}},
  };
  for (const auto& c : cases) {
    const VarSpec spec = ranged(c.type, c.min, c.max);
    for (const auto& text : c.inside) {
      SCOPED_TRACE(std::string(type_name(c.type)) + " " + text + " in " + c.min + ".." + c.max);
      EXPECT_TRUE(Succeeded(parse_value(spec, text, make_source(SourceKind::CommandLine))));
    }
    for (const auto& text : c.outside) {
      SCOPED_TRACE(std::string(type_name(c.type)) + " " + text + " outside " + c.min + ".." + c.max);
      Result<Value> r = parse_value(spec, text, make_source(SourceKind::Environment));
      ASSERT_TRUE(FailedWith(r, "mca-var", "bad-value"));
      EXPECT_EQ(r.error().arg("why"), "out of range");
      EXPECT_EQ(r.error().arg("name"), "oob_tcp_knob");
      EXPECT_EQ(r.error().arg("value"), text);
      EXPECT_EQ(r.error().arg("source"), "environment");
      EXPECT_NE(r.error().arg("valid").find("from " + c.min + " to " + c.max), std::string::npos)
          << r.error().arg("valid");
    }
  }
}

TEST(ParseRange, OneSidedRanges) {
  VarSpec at_least = ranged(VarType::Int, "0", "");
  EXPECT_TRUE(Succeeded(parse_value(at_least, "9223372036854775807", Source{})));
  EXPECT_EQ(parse_value(at_least, "-1", Source{}).error().arg("why"), "out of range");
  VarSpec at_most = ranged(VarType::Int, "", "10");
  EXPECT_TRUE(Succeeded(parse_value(at_most, "-9223372036854775808", Source{})));
  EXPECT_EQ(parse_value(at_most, "11", Source{}).error().arg("why"), "out of range");
}

// A value that is not of the type at all keeps its own reason.
TEST(ParseRange, JunkIsStillJunk) {
  EXPECT_EQ(parse_value(ranged(VarType::Int, "0", "10"), "ten", Source{}).error().arg("why"), "not a whole number");
  EXPECT_EQ(parse_value(ranged(VarType::Size, "1k", "1G"), "4Q", Source{}).error().arg("why"), "not a byte count");
}

TEST(ValidValues, ShowTheRange) {
  EXPECT_EQ(valid_values(ranged(VarType::Int, "1", "3600000")), "a whole number from 1 to 3600000");
  EXPECT_EQ(valid_values(ranged(VarType::Int, "0", "")), "a whole number of at least 0");
  EXPECT_EQ(valid_values(ranged(VarType::Int, "", "7")), "a whole number of at most 7");
  EXPECT_EQ(valid_values(ranged(VarType::Unsigned, "1", "65536")), "a whole number from 1 to 65536");
  EXPECT_EQ(valid_values(ranged(VarType::Unsigned, "", "9")), "a non-negative whole number of at most 9");
  EXPECT_EQ(valid_values(ranged(VarType::Size, "1k", "1G")),
            "a byte count from 1k to 1G with an optional suffix k, M, G or T (powers of 1024)");
  EXPECT_EQ(valid_values(ranged(VarType::Double, "0", "1")), "a number from 0 to 1");
  // Unbounded: as before.
  EXPECT_EQ(valid_values(make_spec("t", "v", "i", VarType::Int)), "a whole number, e.g. -3 or 42");
  EXPECT_EQ(valid_values(make_spec("t", "v", "s", VarType::Size)),
            "a byte count with an optional suffix k, M, G or T (powers of 1024), e.g. 4096, 64k, 4M");
}

struct BadRange {
  std::string label;
  VarType type;
  std::string min, max;
  std::string why;
};

class MalformedRange : public ::testing::TestWithParam<BadRange> {};

TEST_P(MalformedRange, IsABadDeclaration) {
  const BadRange& c = GetParam();
  const VarSpec spec = ranged(c.type, c.min, c.max);
  Status st = check_range(spec);
  ASSERT_TRUE(FailedWith(st, "mca-var", "bad-declaration"));
  EXPECT_EQ(st.error().arg("name"), "oob_tcp_knob");
  EXPECT_EQ(st.error().arg("why"), c.why);
  // parse_value cannot judge against a range that is not one.
  EXPECT_TRUE(FailedWith(parse_value(spec, "1", Source{}), "mca-var", "bad-declaration"));
}

INSTANTIATE_TEST_SUITE_P(
    Ranges, MalformedRange,
    ::testing::Values(
        BadRange{"MinAboveMax", VarType::Int, "10", "1", "its minimum '10' is above its maximum '1'"},
        BadRange{"SizeMinAboveMax", VarType::Size, "1G", "1M", "its minimum '1G' is above its maximum '1M'"},
        BadRange{"UnparsableMin", VarType::Int, "one", "10", "its minimum 'one' is invalid: not a whole number"},
        BadRange{"UnparsableMax", VarType::Size, "1k", "lots", "its maximum 'lots' is invalid: not a byte count"},
        BadRange{"NegativeUnsigned", VarType::Unsigned, "-1", "",
                 "its minimum '-1' is invalid: not a non-negative whole number"},
        BadRange{"InfiniteDouble", VarType::Double, "", "inf", "its maximum 'inf' is invalid: not finite"},
        BadRange{"OnAString", VarType::String, "a", "z",
                 "a range applies only to int, unsigned, size and double variables, not to a string"},
        BadRange{"OnABool", VarType::Bool, "", "1",
                 "a range applies only to int, unsigned, size and double variables, not to a bool"},
        BadRange{"OnAList", VarType::StringList, "1", "",
                 "a range applies only to int, unsigned, size and double variables, not to a string list"}),
    [](const ::testing::TestParamInfo<BadRange>& p) { return p.param.label; });

TEST(CheckRange, WellFormedRangesAndNone) {
  EXPECT_TRUE(Succeeded(check_range(make_spec("t", "v", "s", VarType::String))));
  EXPECT_TRUE(Succeeded(check_range(ranged(VarType::Int, "5", "5"))));
  EXPECT_TRUE(Succeeded(check_range(ranged(VarType::Size, "64k", "64G"))));
  EXPECT_TRUE(Succeeded(check_range(ranged(VarType::Double, "-1.5", "2.5e3"))));
  EXPECT_TRUE(Succeeded(check_range(ranged(VarType::Unsigned, "", "10"))));
}

TEST(TypeName, NamesEveryType) {
  EXPECT_EQ(type_name(VarType::Bool), "bool");
  EXPECT_EQ(type_name(VarType::Int), "int");
  EXPECT_EQ(type_name(VarType::Unsigned), "unsigned");
  EXPECT_EQ(type_name(VarType::Size), "size");
  EXPECT_EQ(type_name(VarType::Double), "double");
  EXPECT_EQ(type_name(VarType::String), "string");
  EXPECT_EQ(type_name(VarType::Enum), "enum");
  EXPECT_EQ(type_name(VarType::StringList), "string list");
}

}  // namespace
}  // namespace orca::mca
