// orca_info --param: every variable's value, source and documentation.
#include "info_report.h"

#include <orca/mca_var.h>

#include <set>

namespace orca::info {

namespace {

void print_one(const mca::Variable& v, const ReportOptions& options, std::ostream& out) {
  const mca::VarSpec& spec = v.spec();
  if (options.parsable) {
    const std::string p = "mca:" + spec.framework + ":" + v.group() + ":param:" + v.name() + ":";
    out << p << "value:" << v.text() << "\n"
        << p << "source:" << v.source().describe() << "\n"
        << p << "level:" << spec.level << "\n"
        << p << "type:" << mca::type_name(spec.type) << "\n"
        << p << "help:" << spec.description << "\n"
        << p << "default:" << spec.default_text << "\n"
        << p << "valid:" << mca::valid_values(spec) << "\n";
    for (const auto& s : spec.synonyms) out << p << "synonym:" << s << "\n";
    return;
  }
  out << "  " << v.name() << " = \"" << v.text() << "\"\n"
      << "      source: " << v.source().describe() << "; level " << spec.level << "; type "
      << mca::type_name(spec.type);
  if (!v.is_default()) out << "; default \"" << spec.default_text << "\"";
  out << "\n      " << spec.description << "\n";
  // Strings take any text and lists say what they are; every other type has
  // a set of valid values worth showing, numbers with their declared range.
  if (spec.type != mca::VarType::String && spec.type != mca::VarType::StringList)
    out << "      valid values: " << mca::valid_values(spec) << "\n";
  if (!spec.synonyms.empty()) {
    out << "      deprecated synonyms:";
    for (const auto& s : spec.synonyms) out << " " << s;
    out << "\n";
  }
}

std::string listing(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

Status print_params(Runtime& runtime, const std::string& framework, const std::string& component,
                    const ReportOptions& options, std::ostream& out) {
  const auto vars = runtime.registry().variables();
  std::set<std::string> frameworks, components;
  for (const auto* v : vars) {
    frameworks.insert(v->spec().framework);
    if (framework == "all" || v->spec().framework == framework) components.insert(v->group());
  }
  if (framework != "all" && !frameworks.count(framework)) {
    return Message("orca-info", "unknown-framework", {{"name", framework}, {"available", listing(frameworks)}});
  }
  if (component != "all" && !components.count(component)) {
    return Message("orca-info", "unknown-component",
                   {{"framework", framework}, {"name", component}, {"available", listing(components)}});
  }
  int hidden = 0;
  for (const auto* v : vars) {
    if (framework != "all" && v->spec().framework != framework) continue;
    if (component != "all" && v->group() != component) continue;
    if (v->spec().level > options.level) {
      ++hidden;
      continue;
    }
    print_one(*v, options, out);
  }
  if (hidden > 0 && !options.parsable) {
    out << "  (" << hidden << " more at levels above " << options.level << "; use --level 9 to see them)\n";
  }
  return {};
}

}  // namespace orca::info
