// Builders for MCA variable declarations, sources and settings, shared by
// the tests of the variable system and the runtime.
#ifndef ORCA_TEST_LIB_MCA_VAR_UTIL_H
#define ORCA_TEST_LIB_MCA_VAR_UTIL_H

#include <orca/mca_var.h>

#include <array>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>

namespace orca::mca {

/* Readable SourceKind values in GoogleTest failure output. */
inline void PrintTo(SourceKind kind, std::ostream* os) {
  static constexpr const char* kNames[] = {"Default", "ParamFile", "TuneFile",
                                           "Environment", "CommandLine", "OverrideFile"};
  *os << kNames[static_cast<int>(kind)];
}

}  // namespace orca::mca

namespace orca::test {

/* Every SourceKind, lowest precedence first. */
inline constexpr std::array<mca::SourceKind, 6> kAllSourceKinds = {
    mca::SourceKind::Default,     mca::SourceKind::ParamFile,   mca::SourceKind::TuneFile,
    mca::SourceKind::Environment, mca::SourceKind::CommandLine, mca::SourceKind::OverrideFile};

/* "ParamFile", "CommandLine", ...: usable in test names. */
inline std::string kind_label(mca::SourceKind kind) {
  std::ostringstream out;
  mca::PrintTo(kind, &out);
  return out.str();
}

inline mca::VarSpec make_spec(std::string framework, std::string component, std::string name,
                              mca::VarType type = mca::VarType::String, std::string default_text = "") {
  mca::VarSpec s;
  s.framework = std::move(framework);
  s.component = std::move(component);
  s.name = std::move(name);
  s.type = type;
  s.default_text = std::move(default_text);
  s.level = 1;
  s.description = "a variable of the tests";
  return s;
}

inline mca::Source make_source(mca::SourceKind kind, std::string file = {}, int line = 0, int order = 0) {
  mca::Source s;
  s.kind = kind;
  s.file = std::move(file);
  s.line = line;
  s.order = order;
  return s;
}

inline mca::Setting make_setting(std::string name, std::string text, mca::Source source) {
  return mca::Setting{std::move(name), std::move(text), std::move(source)};
}

}  // namespace orca::test

#endif
