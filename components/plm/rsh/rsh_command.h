// The words of an agent call: the agent setting split into words, and
// AGENT HOST COMMAND... with the command quoted for the remote shell.
#ifndef ORCA_COMPONENTS_PLM_RSH_COMMAND_H
#define ORCA_COMPONENTS_PLM_RSH_COMMAND_H

#include <orca/result.h>

#include <string>
#include <string_view>
#include <vector>

namespace orca::plm::rsh {

/* Splits plm_rsh_agent into words: whitespace separates, single and
 * double quotes group ("ssh -o 'ProxyCommand=nc %h 22'"), a backslash
 * escapes the next character. Errors (why): empty, an unclosed quote. */
Result<std::vector<std::string>> split_agent(std::string_view text);

/* plm_rsh_agent's words, then plm_rsh_args's (Open MPI's variable, where
 * horovodrun puts "-p PORT"; empty: none), each split as split_agent
 * does. Errors (why): the agent empty, an unclosed quote in either
 * (naming it). */
Result<std::vector<std::string>> agent_words(std::string_view agent, std::string_view args);

/* `word` as the remote shell must see it: unchanged when it holds only
 * characters no shell treats specially, otherwise in single quotes. */
std::string shell_word(const std::string& word);

/* agent words, host, then each command word through shell_word (ssh hands
 * the remote shell one line). Errors (why): a host that would read as an
 * option (starts with '-') or is empty. */
Result<std::vector<std::string>> agent_command(const std::vector<std::string>& agent, const std::string& host,
                                               const std::vector<std::string>& command);

}  // namespace orca::plm::rsh

#endif
