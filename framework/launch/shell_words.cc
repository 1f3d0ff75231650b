// split_shell_words: a command line's words as a shell splits them, no expansion.
#include <orca/shell_words.h>

namespace orca {

ShellWords split_shell_words(std::string_view text, bool hash_comments) {
  ShellWords out;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && quote == '"' && i + 1 < text.size()) {
        word += text[++i];
      } else {
        word += c;
      }
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < text.size()) {
      word += text[++i];
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      if (in_word) out.words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else if (c == '#' && hash_comments && !in_word) {
      break;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (quote != 0) return ShellWords{{}, quote};
  if (in_word) out.words.push_back(std::move(word));
  return out;
}

}  // namespace orca
