// plm/rsh's command building (components/plm/rsh/rsh_command.cc): the
// agent setting split into words the way a user writes it, the remote
// command quoted so that a real /bin/sh hands the daemon exactly the words
// it was given (checked by running sh, not by comparing quoting styles),
// and a host that would read as an agent option refused.
#include "plm/rsh/rsh_command.h"

#include "lib/result_assertions.h"

#include <gtest/gtest.h>

#include <stdio.h>
#include <sys/wait.h>

#include <optional>
#include <string>
#include <vector>

namespace orca::plm::rsh {
namespace {

using test::FailedWith;
using test::Succeeded;
using Words = std::vector<std::string>;

Words split(std::string_view text) {
  auto r = split_agent(text);
  EXPECT_TRUE(Succeeded(r)) << "splitting [" << text << "]";
  return r ? r.value() : Words{};
}

TEST(SplitAgent, WhitespaceSeparatesWords) {
  EXPECT_EQ(split("ssh -x -o BatchMode=yes"), (Words{"ssh", "-x", "-o", "BatchMode=yes"}));
  EXPECT_EQ(split("  ssh\t-x \n -p  22  "), (Words{"ssh", "-x", "-p", "22"}));
}

TEST(SplitAgent, QuotesGroupWords) {
  EXPECT_EQ(split("ssh -o 'ProxyCommand=nc %h 22'"), (Words{"ssh", "-o", "ProxyCommand=nc %h 22"}));
  EXPECT_EQ(split("ssh -o \"ProxyCommand=nc %h 22\""), (Words{"ssh", "-o", "ProxyCommand=nc %h 22"}));
  // Quoted parts join the unquoted text around them into one word.
  EXPECT_EQ(split("a'b c'd \"e f\"g"), (Words{"ab cd", "e fg"}));
  // One kind of quote is plain text inside the other.
  EXPECT_EQ(split(R"('say "hi"' "it's")"), (Words{"say \"hi\"", "it's"}));
}

TEST(SplitAgent, AnEmptyQuotedWordIsAWord) {
  EXPECT_EQ(split("agent '' x \"\""), (Words{"agent", "", "x", ""}));
}

TEST(SplitAgent, BackslashEscapesOutsideAndInsideDoubleQuotes) {
  EXPECT_EQ(split(R"(my\ agent -o a\'b)"), (Words{"my agent", "-o", "a'b"}));
  EXPECT_EQ(split(R"("a \"quoted\" word")"), (Words{"a \"quoted\" word"}));
  EXPECT_EQ(split(R"("back\\slash")"), (Words{"back\\slash"}));
}

TEST(SplitAgent, BackslashIsPlainInsideSingleQuotes) {
  EXPECT_EQ(split(R"('a\b' 'c\')"), (Words{"a\\b", "c\\"}));
}

TEST(SplitAgent, AnUnclosedQuoteIsAnError) {
  for (const char* text : {"ssh -o 'ProxyCommand=nc", "ssh \"-x", "ssh 'a'b'"}) {
    auto r = split_agent(text);
    ASSERT_TRUE(FailedWith(r, "plm", "rsh-agent")) << text;
    EXPECT_NE(r.error().arg("why").find("unclosed"), std::string::npos) << r.error().summary();
  }
  auto single = split_agent("ssh 'x");
  ASSERT_FALSE(single);
  EXPECT_NE(single.error().arg("why").find("unclosed ' quote"), std::string::npos) << single.error().summary();
  auto dbl = split_agent("ssh \"x");
  ASSERT_FALSE(dbl);
  EXPECT_NE(dbl.error().arg("why").find("unclosed \" quote"), std::string::npos) << dbl.error().summary();
}

TEST(SplitAgent, AnEmptySettingIsAnError) {
  for (const char* text : {"", "   ", "\t\n"}) {
    auto r = split_agent(text);
    ASSERT_TRUE(FailedWith(r, "plm", "rsh-agent")) << "[" << text << "]";
    EXPECT_NE(r.error().arg("why").find("empty"), std::string::npos) << r.error().summary();
  }
}

TEST(ShellWord, SafeWordsAreUnchanged) {
  for (const char* w : {"orcad", "/opt/orca-1.0/bin/orcad", "--mca", "plm_base_verbose=5", "a,b:c", "x+y@h%1",
                        "0.1_2"}) {
    EXPECT_EQ(shell_word(w), w);
  }
}

TEST(ShellWord, OtherWordsAreSingleQuoted) {
  EXPECT_EQ(shell_word("a b"), "'a b'");
  EXPECT_EQ(shell_word(""), "''");
  EXPECT_EQ(shell_word("$HOME"), "'$HOME'");
  EXPECT_EQ(shell_word("it's"), "'it'\\''s'");
}

/* What `sh -c "printf '%s\n' WORDS..."` prints, one line per argument
 * printf received: printf, not echo, because dash's echo rewrites
 * backslashes and would hide a quoting mistake or invent one. */
std::optional<std::string> run_sh(const std::string& command) {
  FILE* p = ::popen(command.c_str(), "r");
  if (p == nullptr) return std::nullopt;
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = ::pclose(p);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return out;
}

// Strings a shell would otherwise expand, split, glob, redirect or run.
const std::vector<std::string> kNasty = {
    "a b",           "it's",       "\"double\"",        "$HOME",        "${PATH}",     "$(touch /nonexistent/x)",
    "`id`",          "a\\b\\\\c",  "*",                 "~",            "~root",       "semi;colon",
    "a|b&c>d<e",     "#hash",      "!bang",             "tab\there",    "new\nline",   "-n",
    "'",             "''",         "\\'",               "{a,b}",        "[ab]",        "é ü 漢字",
    "trailing\\",    " lead",      "x=y z",             "%s %d",        "\x01\x7f",
};

TEST(ShellWord, ShHandsEachNastyWordBackExactly) {
  for (const auto& w : kNasty) {
    auto out = run_sh("printf '%s' " + shell_word(w));
    ASSERT_TRUE(out.has_value()) << "sh failed on " << shell_word(w);
    EXPECT_EQ(*out, w) << "quoted as " << shell_word(w);
  }
}

TEST(ShellWord, EveryByteSurvivesSh) {
  // Every byte but NUL (which no argv word can hold), in one word.
  std::string all;
  for (int c = 1; c < 256; ++c) all += static_cast<char>(c);
  auto out = run_sh("printf '%s' " + shell_word(all));
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(*out, all);
}

TEST(AgentCommand, AgentHostThenTheQuotedCommand) {
  auto r = agent_command({"ssh", "-x"}, "node7", {"/opt/orca/bin/orcad", "--mca", "x y", "plain"});
  ASSERT_TRUE(Succeeded(r));
  EXPECT_EQ(r.value(), (Words{"ssh", "-x", "node7", "/opt/orca/bin/orcad", "--mca", "'x y'", "plain"}));
}

TEST(AgentCommand, TheAgentWordsAreLocalArgvAndStayUnquoted) {
  auto r = agent_command({"my agent", "-o", "ProxyCommand=nc %h 22"}, "h", {"orcad"});
  ASSERT_TRUE(Succeeded(r));
  EXPECT_EQ(r.value(), (Words{"my agent", "-o", "ProxyCommand=nc %h 22", "h", "orcad"}));
}

TEST(AgentCommand, TheRemoteShellSeesTheOriginalWords) {
  // ssh joins the words after the host with spaces into one line for the
  // remote shell; running that line through sh must give back the words.
  Words command = {"printf", "%s\n"};
  command.insert(command.end(), kNasty.begin(), kNasty.end());
  auto r = agent_command({"ssh"}, "h", command);
  ASSERT_TRUE(Succeeded(r));
  std::string line;
  for (size_t i = 2; i < r->size(); ++i) line += (i > 2 ? " " : "") + r.value()[i];
  auto out = run_sh(line);
  ASSERT_TRUE(out.has_value()) << line;
  std::string expected;
  for (const auto& w : kNasty) expected += w + "\n";
  EXPECT_EQ(*out, expected) << line;
}

TEST(AgentCommand, AHostStartingWithDashIsRefused) {
  for (const char* host : {"-oProxyCommand=touch /tmp/pwned", "-", "--help"}) {
    auto r = agent_command({"ssh"}, host, {"orcad"});
    ASSERT_TRUE(FailedWith(r, "plm", "rsh-agent")) << host;
    EXPECT_NE(r.error().arg("why").find(host), std::string::npos) << r.error().summary();
  }
  // A dash elsewhere is an ordinary host name.
  EXPECT_TRUE(Succeeded(agent_command({"ssh"}, "node-1", {"orcad"})));
}

TEST(AgentCommand, AnEmptyHostIsRefused) {
  auto r = agent_command({"ssh"}, "", {"orcad"});
  ASSERT_TRUE(FailedWith(r, "plm", "rsh-agent"));
  EXPECT_NE(r.error().arg("why").find("empty"), std::string::npos) << r.error().summary();
}

// Open MPI's plm_rsh_args (horovodrun: "-p 2222") come after the agent's words.
TEST(AgentWords, TheArgsFollowTheAgentsOwnWords) {
  auto w = agent_words("ssh -x", "-p 2222 -o 'User=a b'");
  ASSERT_TRUE(Succeeded(w));
  EXPECT_EQ(w.value(), (Words{"ssh", "-x", "-p", "2222", "-o", "User=a b"}));
  auto none = agent_words("ssh", "  ");
  ASSERT_TRUE(Succeeded(none));
  EXPECT_EQ(none.value(), (Words{"ssh"}));
  auto unclosed = agent_words("ssh", "-o 'x");
  ASSERT_TRUE(FailedWith(unclosed, "plm", "rsh-agent"));
  EXPECT_NE(unclosed.error().arg("why").find("plm_rsh_args has an unclosed"), std::string::npos);
  EXPECT_TRUE(FailedWith(agent_words("", "-p 1"), "plm", "rsh-agent"));
}

}  // namespace
}  // namespace orca::plm::rsh
