// split_shell_words (framework/launch/shell_words.cc): the words a shell
// would pass for a line, with no expansion, for plm_rsh_agent and app files.
#include <orca/shell_words.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace orca {
namespace {

using Words = std::vector<std::string>;

Words words(std::string_view text, bool comments = false) {
  ShellWords s = split_shell_words(text, comments);
  EXPECT_EQ(s.unclosed_quote, 0) << text;
  return s.words;
}

TEST(ShellWords, BlanksOfEveryKindSeparateAndRunsCountOnce) {
  EXPECT_EQ(words("  ssh \t -x\r\n-p  22 "), (Words{"ssh", "-x", "-p", "22"}));
  EXPECT_EQ(words(""), Words{});
  EXPECT_EQ(words(" \t "), Words{});
}

TEST(ShellWords, QuotesGroupAndJoinWhatTouchesThem) {
  EXPECT_EQ(words("ssh -o 'ProxyCommand=nc %h 22'"), (Words{"ssh", "-o", "ProxyCommand=nc %h 22"}));
  EXPECT_EQ(words("a'b c'd \"e f\"g"), (Words{"ab cd", "e fg"}));
  EXPECT_EQ(words("'' \"\""), (Words{"", ""})) << "an empty quoted word is still a word";
  EXPECT_EQ(words("'it\"s' \"it's\""), (Words{"it\"s", "it's"}));
}

TEST(ShellWords, BackslashTakesTheNextCharacterOutsideSingleQuotes) {
  EXPECT_EQ(words(R"(a\ b c\'d)"), (Words{"a b", "c'd"}));
  EXPECT_EQ(words(R"("a\"b" 'c\d')"), (Words{"a\"b", "c\\d"}));
  EXPECT_EQ(words(R"(end\)"), (Words{"end\\"})) << "a last lone backslash stays";
}

TEST(ShellWords, HashStartsACommentOnlyWhereAskedAndOnlyAtAWordsStart) {
  EXPECT_EQ(words("-n 2 ./a # the solver", true), (Words{"-n", "2", "./a"}));
  EXPECT_EQ(words("-n 2 ./a # the solver", false), (Words{"-n", "2", "./a", "#", "the", "solver"}));
  EXPECT_EQ(words("a#b '#c' \\#d", true), (Words{"a#b", "#c", "#d"}));
  EXPECT_EQ(words("# all comment", true), Words{});
}

TEST(ShellWords, AnUnclosedQuoteIsNamedAndGivesNoWords) {
  const ShellWords single = split_shell_words("ssh -o 'x", false);
  EXPECT_EQ(single.unclosed_quote, '\'');
  EXPECT_TRUE(single.words.empty());
  EXPECT_EQ(split_shell_words("a \"b\\\"", false).unclosed_quote, '"');
  EXPECT_EQ(split_shell_words("# 'x", true).unclosed_quote, 0) << "a quote in a comment opens nothing";
}

}  // namespace
}  // namespace orca
