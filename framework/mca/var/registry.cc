// Registry: declarations, settings and the precedence that joins them.
#include <orca/mca_var.h>

#include "mca/var/text.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <tuple>

namespace orca::mca {

std::string Source::kind_word() const {
  switch (kind) {
    case SourceKind::Default: return "default";
    case SourceKind::ParamFile: return "param file";
    case SourceKind::TuneFile: return "tune file";
    case SourceKind::Environment: return "environment";
    case SourceKind::CommandLine: return "command line";
    case SourceKind::OverrideFile: return "override file";
  }
  return "unknown";
}

std::string Source::describe() const {
  const bool in_file =
      kind == SourceKind::ParamFile || kind == SourceKind::TuneFile || kind == SourceKind::OverrideFile;
  return in_file ? kind_word() + " " + file + ":" + std::to_string(line) : kind_word();
}

std::string VarSpec::full_name() const {
  std::string out;
  for (const std::string* part : {&framework, &component, &name}) {
    if (part->empty()) continue;
    if (!out.empty()) out += '_';
    out += *part;
  }
  return out;
}

namespace {

// The shortest %g text that parses back to exactly `v` (17 digits always
// do). Not std::to_chars: its floating-point part is the one piece of
// libstdc++ that needs libm, a shared object every orcad would map.
std::string shortest_text(double v) {
  char buf[32];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

}  // namespace

std::string Variable::group() const { return spec_.component.empty() ? "base" : spec_.component; }

std::string Variable::text() const {
  switch (spec_.type) {
    case VarType::Bool: return as_bool() ? "true" : "false";
    case VarType::Int: return std::to_string(as_int());
    case VarType::Unsigned:
    case VarType::Size: return std::to_string(as_unsigned());
    case VarType::Double: return shortest_text(as_double());
    case VarType::String:
    case VarType::Enum: return as_string();
    case VarType::StringList: return join(as_list(), ",");
  }
  return {};
}

struct Registry::Entry {
  explicit Entry(Variable v) : var(std::move(v)) {}
  Variable var;
  Value default_value;
};

namespace {

bool from_file(SourceKind k) {
  return k == SourceKind::ParamFile || k == SourceKind::TuneFile || k == SourceKind::OverrideFile;
}

bool valid_name_part(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

Message bad_declaration(const VarSpec& spec, std::string why) {
  return Message("mca-var", "bad-declaration", {{"name", spec.full_name()}, {"why", std::move(why)}});
}

}  // namespace

Registry::Registry() = default;
Registry::~Registry() = default;

Status Registry::add_setting(Setting setting) {
  settings_.emplace_back(std::move(setting), sequence_++);
  auto it = by_name_.find(settings_.back().first.name);
  if (it == by_name_.end()) return {};
  return resolve(*it->second);
}

Result<const Variable*> Registry::declare(VarSpec spec) {
  const std::string full = spec.full_name();
  if (full.empty() || !valid_name_part(full)) return bad_declaration(spec, "the name must be [a-z0-9_]+");
  if (spec.level < 1 || spec.level > 9) return bad_declaration(spec, "the level must be 1..9");
  if (spec.type == VarType::Enum && spec.enum_words.empty())
    return bad_declaration(spec, "an enum needs at least one word");
  if (by_name_.count(full)) return bad_declaration(spec, "declared twice");
  for (const auto& syn : spec.synonyms) {
    if (by_name_.count(syn) || syn == full || !valid_name_part(syn))
      return bad_declaration(spec, "synonym '" + syn + "' is invalid or already a name");
  }
  if (Status range = check_range(spec); !range) return range.error();
  // The default goes through the range like any other source.
  Result<Value> def = parse_value(spec, spec.default_text, Source{});
  if (!def) {
    return bad_declaration(spec, "its default '" + spec.default_text + "' is invalid: " + def.error().arg("why") +
                                     " (valid: " + valid_values(spec) + ")");
  }

  auto entry = std::make_unique<Entry>(Variable(std::move(spec), def.value(), Source{}));
  entry->default_value = def.value();
  Entry* e = entry.get();
  entries_.push_back(std::move(entry));
  by_name_.emplace(full, e);
  for (const auto& syn : e->var.spec().synonyms) by_name_.emplace(syn, e);

  Status st = resolve(*e);
  if (!st) return st.error();
  return &e->var;
}

Status Registry::resolve(Entry& entry) {
  const VarSpec& spec = entry.var.spec();
  const std::string& full = entry.var.name();
  const std::pair<Setting, std::uint64_t>* best = nullptr;
  auto rank = [](const std::pair<Setting, std::uint64_t>& s) {
    return std::make_tuple(static_cast<int>(s.first.source.kind), s.first.source.order, s.second);
  };
  for (const auto& s : settings_) {
    const std::string& n = s.first.name;
    if (n != full && std::find(spec.synonyms.begin(), spec.synonyms.end(), n) == spec.synonyms.end())
      continue;
    if ((spec.flags & ORCA_MCA_VAR_FLAG_NOT_FROM_FILES) && from_file(s.first.source.kind)) {
      notices_.emplace_back("mca-var", "not-from-files",
                            Message::Args{{"name", full}, {"source", s.first.source.describe()}});
      continue;
    }
    if (best == nullptr || rank(s) > rank(*best)) best = &s;
  }
  if (best == nullptr) {
    entry.var.value_ = entry.default_value;
    entry.var.source_ = Source{};
    return {};
  }
  Result<Value> v = parse_value(spec, best->first.text, best->first.source);
  if (!v) return v.error();
  if (best->first.name != full) {
    notices_.emplace_back("mca-var", "deprecated-synonym",
                          Message::Args{{"old", best->first.name}, {"name", full},
                                        {"source", best->first.source.describe()}});
  }
  entry.var.value_ = std::move(v.value());
  entry.var.source_ = best->first.source;
  return {};
}

const Variable* Registry::find(std::string_view full_name) const {
  auto it = by_name_.find(full_name);
  return it == by_name_.end() ? nullptr : &it->second->var;
}

std::vector<const Variable*> Registry::variables() const {
  std::vector<const Variable*> out;
  out.reserve(entries_.size());
  for (const auto& e : entries_) out.push_back(&e->var);
  return out;
}

std::vector<Setting> Registry::settings() const {
  std::vector<Setting> out;
  out.reserve(settings_.size());
  for (const auto& [s, seq] : settings_) out.push_back(s);
  return out;
}

std::vector<Message> Registry::take_notices() {
  // The same notice can be raised by every re-resolution; report each once
  // per registry, not once per call.
  std::vector<Message> out;
  for (auto& m : notices_) {
    if (reported_.insert(m.summary()).second) out.push_back(std::move(m));
  }
  notices_.clear();
  return out;
}

std::vector<Message> Registry::unclaimed_settings() const {
  std::vector<Message> out;
  for (const auto& [s, seq] : settings_) {
    if (by_name_.count(s.name)) continue;
    const std::string near = closest_name(s.name);
    out.emplace_back("mca-var", near.empty() ? "unknown-var" : "unknown-var-suggest",
                     Message::Args{{"name", s.name}, {"source", s.source.describe()}, {"suggestion", near}});
  }
  return out;
}

std::string Registry::closest_name(std::string_view name) const {
  std::string best;
  size_t best_distance = std::max<size_t>(2, name.size() / 4) + 1;
  for (const auto& [candidate, entry] : by_name_) {
    size_t d = edit_distance(name, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

}  // namespace orca::mca
