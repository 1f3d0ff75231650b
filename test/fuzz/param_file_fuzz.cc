// Param files (parse_param_text, framework/mca/var/mca_sources.h): `name = value`
// lines, comments and quotes, as read_param_file() gets them from a file
// a user (or a runaway generator) wrote; then every value through the
// typed parsers (parse_value), as the registry applies them.
//
// Checks: settings have valid names and lines counting from 1 in order;
// a value that parses as a type gives the registry the same value, and
// its canonical text (Variable::text, what a launcher forwards) parses
// back to exactly that value; no NUL byte hides in an accepted number.
#include "mca/var/mca_sources.h"
#include <orca/mca_var.h>

#include "fuzz_input.h"

#include <array>

namespace orca::mca {
namespace {

using fuzz::fuzz_require;

// At most this many settings go through the typed parsers (each one
// costs a registry update per type); the text parser sees them all.
constexpr size_t kTypedSettings = 32;

std::vector<VarSpec> typed_specs() {
  auto spec = [](std::string name, VarType type, std::string def) {
    VarSpec s{.framework = "fuzz", .component = "t", .name = std::move(name), .type = type,
              .default_text = std::move(def), .level = 1, .description = "a fuzzed variable"};
    return s;
  };
  std::vector<VarSpec> out = {spec("bool", VarType::Bool, "false"),     spec("int", VarType::Int, "0"),
                              spec("unsigned", VarType::Unsigned, "0"), spec("size", VarType::Size, "0"),
                              spec("double", VarType::Double, "0"),     spec("string", VarType::String, ""),
                              spec("list", VarType::StringList, "")};
  VarSpec e = spec("enum", VarType::Enum, "tcp");
  e.enum_words = {"tcp", "usock", "Auto"};
  out.push_back(e);
  VarSpec ranged = spec("port", VarType::Unsigned, "1");
  ranged.min_text = "1";
  ranged.max_text = "65535";
  out.push_back(ranged);
  VarSpec size_ranged = spec("msg", VarType::Size, "1k");
  size_ranged.min_text = "1k";
  size_ranged.max_text = "1G";
  out.push_back(size_ranged);
  return out;
}

bool valid_name(std::string_view n) {
  if (n.empty()) return false;
  for (char c : n) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

void check_typed(const std::vector<Setting>& settings) {
  const std::vector<VarSpec> specs = typed_specs();
  Registry registry;
  for (const VarSpec& s : specs) fuzz_require(registry.declare(s).ok(), "a fuzz variable cannot be declared");
  for (size_t i = 0; i < settings.size() && i < kTypedSettings; ++i) {
    for (const VarSpec& spec : specs) {
      const Setting& s = settings[i];
      Result<Value> direct = parse_value(spec, s.text, s.source);
      Status st = registry.add_setting(Setting{spec.full_name(), s.text, s.source});
      fuzz_require(st.ok() == direct.ok(), "the registry and parse_value disagree about a value");
      if (!direct) continue;
      const Variable* var = registry.find(spec.full_name());
      fuzz_require(var != nullptr && var->value() == direct.value(), "the registry holds another value");
      Result<Value> again = parse_value(spec, var->text(), Source{});
      fuzz_require(again.ok() && again.value() == direct.value(), "a value's canonical text does not parse back");
      fuzz_require(s.text.find('\0') == std::string::npos || spec.type == VarType::String ||
                       spec.type == VarType::StringList,
                   "a value with a NUL byte was accepted as a number, boolean or word");
    }
  }
}

}  // namespace
}  // namespace orca::mca

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  using namespace orca::mca;
  using orca::fuzz::fuzz_require;
  orca::fuzz::FuzzInput in(data, size);
  const Source origin{SourceKind::ParamFile, "fuzz-mca-params.conf", 0, 1};
  auto settings = parse_param_text(in.rest_text(), origin);
  if (!settings) return 0;
  int last_line = 0;
  for (const Setting& s : settings.value()) {
    fuzz_require(valid_name(s.name), "a setting with an invalid name");
    fuzz_require(s.source.line > last_line, "settings out of line order");
    fuzz_require(s.source.file == origin.file && s.source.kind == origin.kind, "a setting lost its file");
    last_line = s.source.line;
  }
  check_typed(settings.value());
  return 0;
}
