// HelpCatalog: placeholders, topic files, the fallback when a text is
// missing, show-once, and that every topic the code refers to exists.
#include "help/help.h"
#include <orca/message.h>

#include <gtest/gtest.h>

#include "lib/descriptors_exhausted.h"
#include "lib/expect_text.h"
#include "lib/temp_dir.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#ifndef ORCA_TEST_HELP_DIR
#error "ORCA_TEST_HELP_DIR must name the directory of Orca's help-*.txt files"
#endif

namespace orca {
namespace {

using test::Contains;
using test::LacksText;
using test::TempDir;

// ---------------------------------------------------------------- fill_placeholders

TEST(FillPlaceholders, ReplacesEveryKnownKey) {
  EXPECT_EQ(fill_placeholders("{a} and {b}, {a} again", {{"a", "x"}, {"b", "y"}}), "x and y, x again");
  EXPECT_EQ(fill_placeholders("no placeholders", {{"a", "x"}}), "no placeholders");
  EXPECT_EQ(fill_placeholders("", {{"a", "x"}}), "");
  EXPECT_EQ(fill_placeholders("{a}{a}", {{"a", ""}}), "");
  EXPECT_EQ(fill_placeholders("ORCA_MCA_{name}=1", {{"name", "mca_base_verbose"}}), "ORCA_MCA_mca_base_verbose=1");
}

TEST(FillPlaceholders, ControlBytesInValuesAreEscaped) {
  // An interface name or a peer's refusal text with control bytes must
  // not reach a terminal raw ("lo^A^?" hid what followed it).
  EXPECT_EQ(fill_placeholders("no interface {name} here", {{"name", std::string("lo\x01\x7f\x1b[2J")}}),
            "no interface lo\\x01\\x7f\\x1b[2J here");
  EXPECT_EQ(fill_placeholders("{list}", {{"list", "\n  eth0\tup"}}), "\n  eth0\tup");  // layout stays
  EXPECT_EQ(printable("caf\xc3\xa9"), "caf\xc3\xa9");                             // UTF-8 stays
  EXPECT_EQ(Message("a", "b", {{"k", std::string("x\0y", 3)}}).summary(), "a/b: k=x\\x00y");
}

TEST(FillPlaceholders, LeavesUnknownAndUnclosedPlaceholders) {
  EXPECT_EQ(fill_placeholders("{unknown} {a}", {{"a", "x"}}), "{unknown} x");
  EXPECT_EQ(fill_placeholders("open { brace {a}", {{"a", "x"}}), "open { brace x");
  EXPECT_EQ(fill_placeholders("trailing {a", {{"a", "x"}}), "trailing {a");
  EXPECT_EQ(fill_placeholders("{}", {{"a", "x"}}), "{}");
  EXPECT_EQ(fill_placeholders("{{a}}", {{"a", "x"}}), "{x}");
  EXPECT_EQ(fill_placeholders("{a}", {}), "{a}");
}

TEST(FillPlaceholders, FirstValueOfARepeatedKeyWins) {
  EXPECT_EQ(fill_placeholders("{a}", {{"a", "first"}, {"a", "second"}}), "first");
}

TEST(FillPlaceholders, ValuesAreNotExpandedAgain) {
  EXPECT_EQ(fill_placeholders("{a}", {{"a", "{b}"}, {"b", "no"}}), "{b}");
}

// ---------------------------------------------------------------- rendering from files

constexpr const char* kDemoHelp =
    "# help-demo.txt: topics of the tests.\n"
    "text before the first topic is a comment too\n"
    "[greet]\n"
    "hello {who}.\n"
    "# a comment inside a topic is dropped\n"
    "  indented second line for {who}\n"
    "\n"
    "\n"
    "[single]\n"
    "just one line\n"
    "[empty]\n"
    "[last]\n"
    "the end   \n";

TEST(HelpCatalogRender, MultiLineTopicWithPlaceholders) {
  TempDir dir;
  dir.write("help-demo.txt", kDemoHelp);
  HelpCatalog help("prog", {dir.path().string()});
  EXPECT_EQ(help.render(Message("demo", "greet", {{"who", "you"}})),
            "prog: hello you.\n  indented second line for you");
}

TEST(HelpCatalogRender, TopicBoundariesAndTrailingSpace) {
  TempDir dir;
  dir.write("help-demo.txt", kDemoHelp);
  HelpCatalog help("prog", {dir.path().string()});
  EXPECT_EQ(help.render(Message("demo", "single")), "prog: just one line");
  EXPECT_EQ(help.render(Message("demo", "empty")), "prog: ");
  EXPECT_EQ(help.render(Message("demo", "last")), "prog: the end");
}

TEST(HelpCatalogRender, SearchesDirectoriesInOrder) {
  TempDir first, second;
  first.write("help-a.txt", "[t]\nfrom first\n");
  second.write("help-a.txt", "[t]\nfrom second\n[u]\nonly in second\n");
  second.write("help-b.txt", "[t]\nb from second\n");
  HelpCatalog help("prog", {first.path().string(), second.path().string()});
  EXPECT_EQ(help.render(Message("a", "t")), "prog: from first");
  EXPECT_EQ(help.render(Message("b", "t")), "prog: b from second");
  // The first file of an area is the one used, even without the topic.
  EXPECT_TRUE(Contains(help.render(Message("a", "u")), "not found"));
}

TEST(HelpCatalogRender, MissingFileFallsBackToTheSummary) {
  TempDir dir;
  HelpCatalog help("prog", {dir.path().string(), "/second/dir"});
  const std::string text = help.render(Message("nosuch", "topic", {{"name", "x"}, {"why", "y"}}));
  EXPECT_TRUE(Contains(text, "prog: nosuch/topic: name=x; why=y"));
  EXPECT_TRUE(Contains(text, "help-nosuch.txt [topic] not found in: " + dir.path().string() + ", /second/dir"));
  EXPECT_TRUE(Contains(text, "mca_base_help_path"));
}

TEST(HelpCatalogRender, AFileThatCannotBeOpenedSaysWhyNotMissing) {
  // A process out of descriptors reports that as it fails: its help file
  // is there, and "not found, set mca_base_help_path" would send the user
  // the wrong way.
  TempDir dir;
  dir.write("help-demo.txt", kDemoHelp);
  HelpCatalog help("prog", {dir.path().string()});
  std::string text;
  {
    const test::DescriptorsExhausted none_left;
    text = help.render(Message("demo", "greet", {{"who", "you"}}));
  }
  EXPECT_TRUE(Contains(text, "prog: demo/greet: who=you"));
  EXPECT_TRUE(Contains(text, "help-demo.txt cannot be read: Too many open files"));
  EXPECT_TRUE(LacksText(text, "not found"));
  // Descriptors back, the text is read; once read, it needs none.
  EXPECT_EQ(help.render(Message("demo", "single")), "prog: just one line");
  HelpCatalog preloaded("prog", {dir.path().string()});
  preloaded.preload("demo");
  std::string read_before;
  {
    const test::DescriptorsExhausted none_left;
    read_before = preloaded.render(Message("demo", "greet", {{"who", "you"}}));
  }
  EXPECT_EQ(read_before, "prog: hello you.\n  indented second line for you");
}

TEST(HelpCatalogRender, MissingTopicFallsBackToTheSummary) {
  TempDir dir;
  dir.write("help-demo.txt", kDemoHelp);
  HelpCatalog help("prog", {dir.path().string()});
  const std::string text = help.render(Message("demo", "nope", {{"k", "v"}}));
  EXPECT_TRUE(Contains(text, "prog: demo/nope: k=v"));
  EXPECT_TRUE(Contains(text, "help-demo.txt [nope] not found"));
  EXPECT_TRUE(Contains(text, "mca_base_help_path"));
}

TEST(HelpCatalogRender, NoDirectories) {
  HelpCatalog help("prog", {});
  const std::string text = help.render(Message("demo", "greet"));
  EXPECT_TRUE(Contains(text, "not found in: (no directory)"));
  EXPECT_TRUE(Contains(text, "mca_base_help_path"));
}

TEST(HelpCatalogRender, SetDirsSwitchesFiles) {
  TempDir one, two;
  one.write("help-demo.txt", "[t]\none\n");
  two.write("help-demo.txt", "[t]\ntwo\n");
  HelpCatalog help("prog", {one.path().string()});
  EXPECT_EQ(help.render(Message("demo", "t")), "prog: one");
  help.set_dirs({two.path().string()});
  EXPECT_EQ(help.dirs(), std::vector<std::string>{two.path().string()});
  EXPECT_EQ(help.render(Message("demo", "t")), "prog: two");
}

// ---------------------------------------------------------------- show

TEST(HelpCatalogShow, ShowsATopicOnce) {
  TempDir dir;
  dir.write("help-demo.txt", kDemoHelp);
  HelpCatalog help("prog", {dir.path().string()});
  std::ostringstream out;
  EXPECT_TRUE(help.show(Message("demo", "greet", {{"who", "a"}}), out));
  EXPECT_EQ(out.str(), "prog: hello a.\n  indented second line for a\n");
  // The same topic with other values is not shown again.
  EXPECT_FALSE(help.show(Message("demo", "greet", {{"who", "b"}}), out));
  EXPECT_FALSE(help.show(Message("demo", "greet", {{"who", "a"}}), out));
  EXPECT_TRUE(LacksText(out.str(), "hello b"));
  // Another topic is.
  EXPECT_TRUE(help.show(Message("demo", "single"), out));
  EXPECT_EQ(out.str(), "prog: hello a.\n  indented second line for a\nprog: just one line\n");
}

TEST(HelpCatalogShow, AlwaysShowsAgain) {
  TempDir dir;
  dir.write("help-demo.txt", kDemoHelp);
  HelpCatalog help("prog", {dir.path().string()});
  std::ostringstream out;
  EXPECT_TRUE(help.show(Message("demo", "single"), out, true));
  EXPECT_TRUE(help.show(Message("demo", "single"), out, true));
  EXPECT_EQ(out.str(), "prog: just one line\nprog: just one line\n");
  // Shown with always, it still counts as shown.
  EXPECT_FALSE(help.show(Message("demo", "single"), out));
}

TEST(HelpCatalogShow, SameTopicNameInAnotherAreaIsAnotherTopic) {
  TempDir dir;
  dir.write("help-a.txt", "[t]\nfrom a\n");
  dir.write("help-b.txt", "[t]\nfrom b\n");
  HelpCatalog help("prog", {dir.path().string()});
  std::ostringstream out;
  EXPECT_TRUE(help.show(Message("a", "t"), out));
  EXPECT_TRUE(help.show(Message("b", "t"), out));
  EXPECT_EQ(out.str(), "prog: from a\nprog: from b\n");
}

TEST(HelpCatalogShow, MissingTextIsStillShown) {
  HelpCatalog help("prog", {});
  std::ostringstream out;
  EXPECT_TRUE(help.show(Message("gone", "away", {{"k", "v"}}), out));
  EXPECT_TRUE(Contains(out.str(), "gone/away: k=v"));
}

// ---------------------------------------------------------------- the installed texts

// The source tree: $ORCA_TEST_SRCDIR (set by make check), else two levels
// above the help directory.
std::filesystem::path source_tree() {
  if (const char* s = std::getenv("ORCA_TEST_SRCDIR"); s != nullptr && *s != '\0') return s;
  return std::filesystem::path(ORCA_TEST_HELP_DIR).parent_path().parent_path();
}

using Reference = std::pair<std::string, std::string>;  // area, topic

// Every Message("area", "topic" ... in the C++ sources under `dir`, also
// through emplace_back("area", "topic" into a vector<Message>.
std::set<Reference> message_references(const std::filesystem::path& dir) {
  static const std::regex pattern(R"re((?:\bMessage|\bemplace_back)\s*\(\s*"([a-z0-9-]+)"\s*,\s*"([a-z0-9-]+)")re");
  std::set<Reference> out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".cc" && ext != ".h" && ext != ".c")) continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    for (std::sregex_iterator it(s.begin(), s.end(), pattern), end; it != end; ++it) {
      out.emplace((*it)[1], (*it)[2]);
    }
  }
  return out;
}

TEST(InstalledHelpTexts, EveryTopicReferencedInTheCodeExists) {
  const std::filesystem::path root = source_tree();
  ASSERT_TRUE(std::filesystem::is_directory(root / "framework")) << root;
  // The tools live under framework/ (framework/tools/), so this scan sees them.
  ASSERT_TRUE(std::filesystem::is_directory(root / "framework" / "tools")) << root;

  std::set<Reference> refs = message_references(root / "framework");
  if (std::filesystem::is_directory(root / "components")) {
    for (const auto& r : message_references(root / "components")) refs.insert(r);
  }
  // Topics chosen at run time, which the pattern cannot see.
  refs.emplace("mca-var", "unknown-var");
  refs.emplace("mca-var", "unknown-var-suggest");

  // Guard against a scan that silently finds nothing.
  EXPECT_GE(refs.size(), 15u);
  for (const Reference& r : {Reference{"mca-var", "bad-value"}, Reference{"mca-var", "deprecated-synonym"},
                             Reference{"mca-base", "bad-selection"}, Reference{"orca-info", "unknown-option"}}) {
    EXPECT_EQ(refs.count(r), 1u) << "the scan missed " << r.first << "/" << r.second;
  }

  HelpCatalog help("orca_test", {ORCA_TEST_HELP_DIR});
  for (const auto& [area, topic] : refs) {
    SCOPED_TRACE(area + "/" + topic);
    const std::string text = help.render(Message(area, topic));
    EXPECT_TRUE(LacksText(text, "not found in:"));
    EXPECT_GT(text.size(), std::string("orca_test: ").size());
  }
}

TEST(InstalledHelpTexts, BadValueRendersEveryPlaceholder) {
  HelpCatalog help("orca_info", {ORCA_TEST_HELP_DIR});
  const std::string text = help.render(Message("mca-var", "bad-value",
                                               {{"name", "mca_base_verbose"},
                                                {"value", "loud"},
                                                {"source", "environment"},
                                                {"why", "not a whole number"},
                                                {"valid", "a whole number, e.g. -3 or 42"}}));
  EXPECT_TRUE(Contains(text, "orca_info: the value \"loud\" of MCA variable mca_base_verbose is invalid: "
                             "not a whole number."));
  EXPECT_TRUE(Contains(text, "It came from: environment"));
  EXPECT_TRUE(Contains(text, "Valid values: a whole number, e.g. -3 or 42"));
  EXPECT_TRUE(Contains(text, "--mca mca_base_verbose <valid value>"));
  EXPECT_TRUE(LacksText(text, "{"));
}

}  // namespace
}  // namespace orca
