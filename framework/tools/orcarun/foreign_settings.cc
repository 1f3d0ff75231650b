// split_foreign_settings, orca_words and first_word (foreign_settings.h).
#include "foreign_settings.h"

namespace orca::orcarun {

std::string first_word(const std::string& name) { return name.substr(0, name.find('_')); }

ForeignSettings split_foreign_settings(const std::vector<mca::Setting>& settings,
                                       const std::function<bool(const std::string& name)>& claimed,
                                       const std::set<std::string>& orca_words) {
  ForeignSettings out;
  std::set<std::string> seen;
  // Last one first: the winner of a name given twice is its last setting.
  for (auto it = settings.rbegin(); it != settings.rend(); ++it) {
    const mca::Setting& s = *it;
    if (s.source.kind != mca::SourceKind::CommandLine || claimed(s.name) || !seen.insert(s.name).second) continue;
    if (orca_words.count(first_word(s.name)) != 0) {
      out.mistyped.insert(out.mistyped.begin(), s.name);
    } else {
      out.environment.insert(out.environment.begin(), "OMPI_MCA_" + s.name + "=" + s.text);
      out.passed.insert(out.passed.begin(), s.name);
    }
  }
  return out;
}

std::set<std::string> orca_words(const mca::Registry& registry) {
  std::set<std::string> words;
  for (const mca::Variable* v : registry.variables()) words.insert(first_word(v->name()));
  return words;
}

}  // namespace orca::orcarun
