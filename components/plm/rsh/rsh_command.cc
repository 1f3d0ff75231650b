// Splitting the agent setting and quoting the remote command.
#include "rsh_command.h"

#include <orca/shell_words.h>

namespace orca::plm::rsh {
namespace {
Message bad(std::string why) { return Message("plm", "rsh-agent", {{"why", std::move(why)}}); }

// The words of setting `name`'s `text`, as split_agent says; none for blanks.
Result<std::vector<std::string>> split_words(std::string_view text, const char* name) {
  ShellWords split = split_shell_words(text, false);
  if (split.unclosed_quote != 0) {
    return bad(std::string(name) + " has an unclosed " + std::string(1, split.unclosed_quote) + " quote");
  }
  return std::move(split.words);
}
}  // namespace

Result<std::vector<std::string>> split_agent(std::string_view text) {
  auto words = split_words(text, "plm_rsh_agent");
  if (words && words.value().empty()) return bad("plm_rsh_agent is empty");
  return words;
}

Result<std::vector<std::string>> agent_words(std::string_view agent, std::string_view args) {
  auto words = split_agent(agent);
  if (!words) return words;
  auto more = split_words(args, "plm_rsh_args");
  if (!more) return more;
  words.value().insert(words.value().end(), more.value().begin(), more.value().end());
  return words;
}

std::string shell_word(const std::string& word) {
  bool plain = !word.empty();
  for (unsigned char c : word) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '/' ||
                      c == '.' || c == '_' || c == '-' || c == '=' || c == ':' || c == ',' || c == '+' || c == '@' ||
                      c == '%';
    if (!safe) plain = false;
  }
  if (plain) return word;
  std::string out = "'";
  for (char c : word) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

Result<std::vector<std::string>> agent_command(const std::vector<std::string>& agent, const std::string& host,
                                               const std::vector<std::string>& command) {
  if (host.empty()) return bad("the host name is empty");
  if (host[0] == '-') return bad("the host name \"" + host + "\" starts with '-' and would read as an agent option");
  std::vector<std::string> out = agent;
  out.push_back(host);
  for (const auto& w : command) out.push_back(shell_word(w));
  return out;
}

}  // namespace orca::plm::rsh
