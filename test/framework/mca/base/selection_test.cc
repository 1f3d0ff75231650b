// parse_selection and Selection::allows: the `<framework>` variable.
#include <orca/mca_framework.h>
#include <orca/mca_var.h>

#include "lib/expect_text.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace orca::mca {
namespace {

using ::orca::test::Contains;

const std::vector<std::string> kAvailable = {"tcp", "ud", "shm"};

Source command_line() { return Source{SourceKind::CommandLine, "", 0, 0}; }

Result<Selection> parse(std::string_view text, const std::vector<std::string>& available = kAvailable) {
  return parse_selection("oob", text, available, command_line());
}

TEST(ParseSelection, EmptyAllowsEverything) {
  for (const char* text : {"", "   ", "\t"}) {
    Result<Selection> sel = parse(text);
    ASSERT_TRUE(sel.ok()) << "\"" << text << "\": " << sel.error().summary();
    EXPECT_FALSE(sel->exclude);
    EXPECT_TRUE(sel->names.empty());
    for (const auto& c : kAvailable) EXPECT_TRUE(sel->allows(c)) << c;
    EXPECT_TRUE(sel->allows("anything"));
  }
}

TEST(ParseSelection, AListIncludesOnlyThose) {
  Result<Selection> sel = parse("tcp,shm");
  ASSERT_TRUE(sel.ok()) << sel.error().summary();
  EXPECT_FALSE(sel->exclude);
  EXPECT_EQ(sel->names, (std::vector<std::string>{"tcp", "shm"}));
  EXPECT_TRUE(sel->allows("tcp"));
  EXPECT_TRUE(sel->allows("shm"));
  EXPECT_FALSE(sel->allows("ud"));
  EXPECT_FALSE(sel->allows("tc"));  // whole names only
}

TEST(ParseSelection, ACaretExcludesThose) {
  Result<Selection> sel = parse("^tcp,shm");
  ASSERT_TRUE(sel.ok()) << sel.error().summary();
  EXPECT_TRUE(sel->exclude);
  EXPECT_EQ(sel->names, (std::vector<std::string>{"tcp", "shm"}));
  EXPECT_FALSE(sel->allows("tcp"));
  EXPECT_FALSE(sel->allows("shm"));
  EXPECT_TRUE(sel->allows("ud"));
}

TEST(ParseSelection, SpacesAroundEntriesAndTheWholeValueAreTrimmed) {
  Result<Selection> sel = parse("  ^ tcp ,\tshm  ");
  ASSERT_TRUE(sel.ok()) << sel.error().summary();
  EXPECT_TRUE(sel->exclude);
  EXPECT_EQ(sel->names, (std::vector<std::string>{"tcp", "shm"}));
  EXPECT_TRUE(sel->allows("ud"));

  Result<Selection> inc = parse(" ud , tcp ");
  ASSERT_TRUE(inc.ok()) << inc.error().summary();
  EXPECT_FALSE(inc->exclude);
  EXPECT_EQ(inc->names, (std::vector<std::string>{"ud", "tcp"}));
}

TEST(ParseSelection, ACaretAnywhereButFirstIsAnError) {
  for (const char* text : {"tcp,^shm", "^tcp,^shm", "^^tcp", "tcp^"}) {
    Result<Selection> sel = parse(text);
    ASSERT_FALSE(sel.ok()) << text;
    EXPECT_EQ(sel.error().area(), "mca-base") << text;
    EXPECT_EQ(sel.error().topic(), "bad-selection") << text;
    EXPECT_TRUE(Contains(sel.error().arg("why"), "'^'")) << text;
  }
}

TEST(ParseSelection, AnEmptyEntryIsAnError) {
  for (const char* text : {"tcp,,shm", "^", "tcp,", ",tcp", "^,tcp", " , "}) {
    Result<Selection> sel = parse(text);
    ASSERT_FALSE(sel.ok()) << "\"" << text << "\" was accepted";
    EXPECT_EQ(sel.error().topic(), "bad-selection") << text;
    EXPECT_TRUE(Contains(sel.error().arg("why"), "empty entry")) << text;
  }
}

TEST(ParseSelection, AnUnknownComponentIsAnErrorListingTheAvailableOnes) {
  Result<Selection> sel = parse("tcp,nosuch");
  ASSERT_FALSE(sel.ok());
  const Message& m = sel.error();
  EXPECT_EQ(m.area(), "mca-base");
  EXPECT_EQ(m.topic(), "bad-selection");
  EXPECT_EQ(m.arg("framework"), "oob");
  EXPECT_EQ(m.arg("value"), "tcp,nosuch");
  EXPECT_EQ(m.arg("source"), "command line");
  EXPECT_TRUE(Contains(m.arg("why"), "'nosuch'"));
  EXPECT_EQ(m.arg("available"), "tcp, ud, shm");
}

TEST(ParseSelection, AnUnknownExcludedComponentIsAnErrorToo) {
  Result<Selection> sel = parse("^nosuch");
  ASSERT_FALSE(sel.ok());
  EXPECT_TRUE(Contains(sel.error().arg("why"), "'nosuch'"));
}

TEST(ParseSelection, NamesAreCaseSensitive) {
  Result<Selection> sel = parse("TCP");
  ASSERT_FALSE(sel.ok());
  EXPECT_TRUE(Contains(sel.error().arg("why"), "'TCP'"));
}

TEST(ParseSelection, WithNoComponentsAnyNameIsUnknown) {
  Result<Selection> sel = parse("tcp", {});
  ASSERT_FALSE(sel.ok());
  EXPECT_EQ(sel.error().arg("available"), "(none found)");
  // ...but the empty value is still fine.
  EXPECT_TRUE(parse("", {}).ok());
}

TEST(ParseSelection, TheErrorNamesWhereTheValueCameFrom) {
  Source file{SourceKind::ParamFile, "/etc/orca.conf", 7, 0};
  Result<Selection> sel = parse_selection("oob", "nosuch", kAvailable, file);
  ASSERT_FALSE(sel.ok());
  EXPECT_EQ(sel.error().arg("source"), "param file /etc/orca.conf:7");
}

TEST(Selection, DefaultAllowsEverything) {
  Selection sel;
  EXPECT_TRUE(sel.allows("tcp"));
  EXPECT_TRUE(sel.allows(""));
  // Excluding nothing also allows everything.
  sel.exclude = true;
  EXPECT_TRUE(sel.allows("tcp"));
}

TEST(Selection, AllowsFollowsIncludeAndExclude) {
  Selection inc{false, {"a", "b"}};
  EXPECT_TRUE(inc.allows("a"));
  EXPECT_TRUE(inc.allows("b"));
  EXPECT_FALSE(inc.allows("c"));
  EXPECT_FALSE(inc.allows("ab"));

  Selection exc{true, {"a", "b"}};
  EXPECT_FALSE(exc.allows("a"));
  EXPECT_FALSE(exc.allows("b"));
  EXPECT_TRUE(exc.allows("c"));
  EXPECT_TRUE(exc.allows("ab"));
}

}  // namespace
}  // namespace orca::mca
