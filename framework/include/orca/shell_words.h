/*
 * A line of words as a POSIX shell splits it, with no expansion of any
 * kind: for settings that hold a command (plm_rsh_agent, plm_rsh_args)
 * and for lines of an app file.
 *
 *   - blanks (space, tab, CR, newline) separate words;
 *   - '...' keeps everything inside as it is;
 *   - "..." too, except that a backslash takes the next character as is;
 *   - outside quotes, a backslash takes the next character as is;
 *   - quotes join what touches them: a'b c'd is one word, "ab cd";
 *   - with hash_comments, a '#' that begins a word ends the line.
 *
 * A text that ends inside a quote gives that quote character and no words.
 */
#ifndef ORCA_SHELL_WORDS_H
#define ORCA_SHELL_WORDS_H

#include <orca/export.h>

#include <string>
#include <string_view>
#include <vector>

namespace orca {

struct ORCA_EXPORT ShellWords {
  std::vector<std::string> words;
  char unclosed_quote = 0;  // '\'' or '"' when the text ends inside it (words then empty)
};

ORCA_EXPORT ShellWords split_shell_words(std::string_view text, bool hash_comments);

}  // namespace orca

#endif  // ORCA_SHELL_WORDS_H
