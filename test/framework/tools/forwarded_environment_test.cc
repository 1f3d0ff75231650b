// The environment orcarun forwards: requests resolved against a given
// environment, in order, a later one winning; an unset name refused; the
// per-variable and total bounds counted as execve counts (NUL included).
#include "orcarun/forwarded_environment.h"

#include "help/help.h"

#include <gtest/gtest.h>

#ifndef ORCA_TEST_HELP_DIR
#error "ORCA_TEST_HELP_DIR must name the directory of Orca's help-*.txt files"
#endif

namespace orca::orcarun {
namespace {

using K = ForwardRequest::Kind;

ForwardRequest value(std::string name, std::string v) {
  return {.kind = K::Value, .name = name, .value = std::move(v), .option = "-x " + name + "=..."};
}
ForwardRequest from_env(std::string name) { return {.kind = K::FromEnvironment, .name = name, .option = "-x " + name}; }
ForwardRequest prefix(std::string p) { return {.kind = K::Prefix, .name = p, .option = "-x " + p + "*"}; }

const std::vector<std::string> kEnvironment = {
    "HOME=/home/me", "OMP_NUM_THREADS=4", "PATH=/bin", "OMP_PLACES=cores", "NOEQUALS", "=nameless",
    "HOME=/second/home",  // a repeated name: getenv reads the first
    "EMPTY=", "TRICKY=a=b\nc 'd' \"e\"",
};

Result<ForwardedEnvironment> resolve(const std::vector<ForwardRequest>& requests, ForwardBounds bounds = {}) {
  return resolve_forwarding(requests, kEnvironment, bounds);
}

TEST(ForwardedEnvironment, NothingAskedNothingForwarded) {
  auto r = resolve({});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->variables.empty());
  EXPECT_TRUE(r->warnings.empty());
}

TEST(ForwardedEnvironment, ValuesNamesAndPrefixesInOrder) {
  auto r = resolve({value("A", "x y\n'q'=z"), from_env("HOME"), prefix("OMP_"), from_env("EMPTY"), from_env("TRICKY")});
  ASSERT_TRUE(r.ok()) << r.error().summary();
  EXPECT_EQ(r->variables, (std::vector<std::string>{"A=x y\n'q'=z", "HOME=/home/me", "OMP_NUM_THREADS=4",
                                                    "OMP_PLACES=cores", "EMPTY=", "TRICKY=a=b\nc 'd' \"e\""}));
  EXPECT_TRUE(r->warnings.empty());
}

TEST(ForwardedEnvironment, ALaterRequestReplacesTheValueInPlace) {
  auto r = resolve({from_env("PATH"), value("A", "1"), value("PATH", "/mine"), prefix("OMP_"), value("OMP_PLACES", "")});
  ASSERT_TRUE(r.ok()) << r.error().summary();
  EXPECT_EQ(r->variables, (std::vector<std::string>{"PATH=/mine", "A=1", "OMP_NUM_THREADS=4", "OMP_PLACES="}));
}

TEST(ForwardedEnvironment, AnEmptyPrefixForwardsEveryNamedEntryOnce) {
  auto r = resolve({prefix("")});
  ASSERT_TRUE(r.ok()) << r.error().summary();
  EXPECT_EQ(r->variables, (std::vector<std::string>{"HOME=/home/me", "OMP_NUM_THREADS=4", "PATH=/bin", "OMP_PLACES=cores",
                                                    "EMPTY=", "TRICKY=a=b\nc 'd' \"e\""}));
}

TEST(ForwardedEnvironment, APrefixThatMatchesNothingIsAWarningNotAnError) {
  auto r = resolve({prefix("NOSUCH_"), value("A", "1")});
  ASSERT_TRUE(r.ok()) << r.error().summary();
  EXPECT_EQ(r->variables, std::vector<std::string>{"A=1"});
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_EQ(r->warnings[0].topic(), "forwarded-prefix-unmatched");
  EXPECT_EQ(r->warnings[0].arg("prefix"), "NOSUCH_");
  EXPECT_EQ(r->warnings[0].arg("option"), "-x NOSUCH_*");
}

TEST(ForwardedEnvironment, AnUnsetNameIsRefusedByName) {
  // Neither an entry without '=' nor one with an empty name is a variable.
  for (const std::string name : {"UNSET", "NOEQUALS", ""}) {
    auto r = resolve({value("A", "1"), from_env(name)});
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_EQ(r.error().topic(), "forwarded-variable-unset");
    EXPECT_EQ(r.error().arg("name"), name);
    EXPECT_EQ(r.error().arg("option"), "-x " + name);
  }
}

TEST(ForwardedEnvironment, OneVariableIsBoundedWithItsNul) {
  // 128 KiB with the NUL: the longest string execve takes.
  const std::string at_limit(128 * 1024 - 1 - 2, 'v');  // "B=" + value + NUL
  auto ok = resolve({value("B", at_limit)});
  ASSERT_TRUE(ok.ok()) << ok.error().summary();
  EXPECT_EQ(ok->variables.front().size() + 1, 128u * 1024);

  auto r = resolve({value("A", "1"), value("B", at_limit + "v")});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().topic(), "forwarded-variable-too-large");
  EXPECT_EQ(r.error().arg("name"), "B");
  EXPECT_EQ(r.error().arg("option"), "-x B=...");
  EXPECT_EQ(r.error().arg("size"), std::to_string(128 * 1024 + 1));
  EXPECT_EQ(r.error().arg("limit"), std::to_string(128 * 1024));
  EXPECT_EQ(r.error().arg("limit_kib"), "128 KiB");
}

TEST(ForwardedEnvironment, TheBoundsCountWhatARankGetsAfterReplacement) {
  // A too-long value replaced by a short one is no longer forwarded.
  const std::string big(200 * 1024, 'v');
  auto r = resolve({value("B", big), value("B", "small")});
  ASSERT_TRUE(r.ok()) << r.error().summary();
  EXPECT_EQ(r->variables, std::vector<std::string>{"B=small"});
}

TEST(ForwardedEnvironment, TheTotalIsBounded) {
  // Eight variables of 128 KiB each (with their NULs) fill 1 MiB exactly.
  const std::string part(128 * 1024 - 1 - 3, 'v');  // "Vn=" + value + NUL
  std::vector<ForwardRequest> requests;
  for (int i = 0; i < 8; ++i) requests.push_back(value("V" + std::to_string(i), part));
  auto ok = resolve(requests);
  ASSERT_TRUE(ok.ok()) << ok.error().summary();
  EXPECT_EQ(ok->variables.size(), 8u);

  requests.push_back(value("X", ""));  // three more bytes
  auto r = resolve(requests);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().topic(), "forwarded-environment-too-large");
  EXPECT_EQ(r.error().arg("count"), "9");
  EXPECT_EQ(r.error().arg("size"), std::to_string(1024 * 1024 + 3));
  EXPECT_EQ(r.error().arg("limit"), std::to_string(1024 * 1024));
  EXPECT_EQ(r.error().arg("limit_kib"), "1024 KiB");
}

TEST(ForwardedEnvironment, BoundsAreParameters) {
  auto r = resolve({value("A", "12"), from_env("PATH")}, {.per_variable = 16, .total = 14});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().topic(), "forwarded-environment-too-large");  // 5 + 10 bytes
  EXPECT_TRUE(resolve({value("A", "12"), from_env("PATH")}, {.per_variable = 16, .total = 15}).ok());
  auto one = resolve({from_env("HOME")}, {.per_variable = 13, .total = 100});  // "HOME=/home/me" and NUL: 14
  ASSERT_FALSE(one.ok());
  EXPECT_EQ(one.error().topic(), "forwarded-variable-too-large");
}

// Every message renders from help-orcarun.txt with each placeholder filled,
// naming the variable and the option.
TEST(ForwardedEnvironment, EveryMessageRendersWhole) {
  HelpCatalog help("orcarun", {ORCA_TEST_HELP_DIR});
  std::vector<Message> messages;
  messages.push_back(resolve({from_env("UNSET")}).error());
  messages.push_back(resolve({value("BIG", std::string(200, 'v'))}, {.per_variable = 100, .total = 1000}).error());
  messages.push_back(resolve({value("A", "1"), value("B", "2")}, {.per_variable = 100, .total = 6}).error());
  messages.push_back(resolve({prefix("NOSUCH_")})->warnings.at(0));
  const std::vector<std::vector<std::string>> wanted = {
      {"-x UNSET forwards UNSET from orcarun's environment", "-x UNSET=VALUE"},
      {"the variable BIG (-x BIG=...) is 205 bytes", "more than a\nrank may be given (100 bytes,"},
      {"the 2 variables", "are\n8 bytes in all, more than 6 bytes"},
      {"warning: -x NOSUCH_* forwards nothing", "starts with \"NOSUCH_\"."}};
  for (size_t i = 0; i < messages.size(); ++i) {
    const std::string text = help.render(messages[i]);
    SCOPED_TRACE(text);
    EXPECT_EQ(text.find("not found in:"), std::string::npos);
    EXPECT_EQ(text.find('{'), std::string::npos);
    for (const std::string& part : wanted[i]) EXPECT_NE(text.find(part), std::string::npos) << part;
  }
}

}  // namespace
}  // namespace orca::orcarun
