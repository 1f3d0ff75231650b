// Small text helpers shared by the MCA parsers (not part of the public API).
#ifndef ORCA_MCA_VAR_TEXT_H
#define ORCA_MCA_VAR_TEXT_H

#include <orca/export.h>

#include <string>
#include <string_view>
#include <vector>

namespace orca::mca {

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view trim(std::string_view s);
/* Exported: orcarun lowers the words of its options with it too. */
ORCA_EXPORT std::string lower(std::string_view s);
std::vector<std::string> split(std::string_view s, char sep);
std::string join(const std::vector<std::string>& items, std::string_view sep);
/* Levenshtein distance, for "did you mean" suggestions (exported: orcarun
 * suggests its options with it too). */
ORCA_EXPORT size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace orca::mca

#endif
