/*
 * MCA variables: typed, documented settings with a recorded source.
 *
 * A variable is declared once (VarSpec) by liborca, a framework base or a
 * component, and named <framework>_<component>_<name>. Its value is the
 * default unless a Setting names it (or one of its deprecated synonyms);
 * among settings the highest SourceKind wins, then the later param file,
 * then the later setting. Settings may arrive before or after the
 * declaration: a tool gathers the command line, environment and files
 * first, and components declare their variables later.
 *
 * A numeric variable (Int, Unsigned, Size, Double) may declare an
 * inclusive range; parse_value enforces it, so a value outside it is
 * refused from every source, the default included.
 *
 * Errors (an unparsable value, a value out of range, an unknown enum word,
 * a duplicate declaration) are returned as Messages naming the variable,
 * the source and what is valid. Settings that no declared variable claims
 * are reported by unclaimed_settings() with the closest registered name.
 *
 * A Registry is not thread-safe; it belongs to the thread that runs the
 * process's event loop. Each process normally has one, owned by its
 * Runtime (runtime.h); tests create their own.
 */
#ifndef ORCA_MCA_VAR_H
#define ORCA_MCA_VAR_H

#include <orca/export.h>
#include <orca/mca_component.h>
#include <orca/result.h>

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace orca::mca {

enum class VarType {
  Bool = ORCA_MCA_VAR_BOOL,
  Int = ORCA_MCA_VAR_INT,
  Unsigned = ORCA_MCA_VAR_UNSIGNED,
  Size = ORCA_MCA_VAR_SIZE,
  Double = ORCA_MCA_VAR_DOUBLE,
  String = ORCA_MCA_VAR_STRING,
  Enum = ORCA_MCA_VAR_ENUM,
  StringList = ORCA_MCA_VAR_STRING_LIST,
};

ORCA_EXPORT std::string_view type_name(VarType type);

/* Where a value came from, lowest precedence first. */
enum class SourceKind {
  Default = 0,
  ParamFile,     // $sysconfdir/orca-mca-params.conf, $HOME/.orca/mca-params.conf, ...
  TuneFile,      // --tune FILE
  Environment,   // ORCA_MCA_<name>
  CommandLine,   // --mca <name> <value>
  OverrideFile,  // $sysconfdir/orca-mca-params-override.conf: nothing beats it
};

struct ORCA_EXPORT Source {
  SourceKind kind = SourceKind::Default;
  std::string file{};  // for file kinds
  int line = 0;        // for file kinds, 1-based
  int order = 0;       // among param files: a later file beats an earlier one

  /* "default", "environment", "command line", "param file /x:3", ... */
  std::string describe() const;
  /* "default", "param file", "tune file", ... without file and line. */
  std::string kind_word() const;
};

/* A raw name = text pair from some source, before any variable claims it. */
struct ORCA_EXPORT Setting {
  std::string name;
  std::string text;
  Source source;
};

using Value = std::variant<bool, std::int64_t, std::uint64_t, double, std::string,
                           std::vector<std::string>>;

/* One variable's declaration. An aggregate: write it with designated
 * initialisers ({.framework = "mca", .component = "base", ...}); every
 * member has a default initialiser, so members left out are empty. */
struct ORCA_EXPORT VarSpec {
  std::string framework{};   // "mca", "oob"
  std::string component{};   // "base", "tcp", or "" for a framework's own selection variable
  std::string name{};        // "component_path"; may be "" (selection variable)
  VarType type = VarType::String;
  std::string default_text{};
  int level = 1;             // 1..9
  std::string description{};
  std::vector<std::string> enum_words{};  // Enum only
  std::vector<std::string> synonyms{};    // deprecated full names
  unsigned flags = ORCA_MCA_VAR_FLAG_NONE;
  /* Inclusive range, as text parsed by the variable's own type ("1k" for a
   * Size); empty leaves that side unbounded. Numeric types only. */
  std::string min_text{};
  std::string max_text{};

  /* framework, component and name joined by '_', empty parts skipped. */
  std::string full_name() const;
};

class ORCA_EXPORT Variable {
 public:
  const VarSpec& spec() const noexcept { return spec_; }
  const std::string& name() const noexcept { return full_name_; }
  /* The component group orca_info lists it under ("base" for framework vars). */
  std::string group() const;
  const Value& value() const noexcept { return value_; }
  /* The value in canonical text form (what `--mca` would accept). */
  std::string text() const;
  const Source& source() const noexcept { return source_; }
  bool is_default() const noexcept { return source_.kind == SourceKind::Default; }

  bool as_bool() const { return std::get<bool>(value_); }
  std::int64_t as_int() const { return std::get<std::int64_t>(value_); }
  std::uint64_t as_unsigned() const { return std::get<std::uint64_t>(value_); }
  std::uint64_t as_size() const { return std::get<std::uint64_t>(value_); }
  double as_double() const { return std::get<double>(value_); }
  /* String and Enum (the canonical word). */
  const std::string& as_string() const { return std::get<std::string>(value_); }
  const std::vector<std::string>& as_list() const {
    return std::get<std::vector<std::string>>(value_);
  }

 private:
  friend class Registry;
  Variable(VarSpec spec, Value value, Source source)
      : spec_(std::move(spec)), full_name_(spec_.full_name()), value_(std::move(value)),
        source_(std::move(source)) {}
  VarSpec spec_;
  std::string full_name_;
  Value value_;
  Source source_;
};

/* Parses `text` as `spec.type` and checks it against the range; `spec`
 * supplies enum words and the range. The error ("bad-value", of kind ErrorKind::BadValue) names
 * `spec.full_name()`, `source` and the valid values; a value outside the
 * range has the why "out of range". A spec whose range is malformed (see
 * check_range) fails with that "bad-declaration" instead. */
ORCA_EXPORT Result<Value> parse_value(const VarSpec& spec, std::string_view text,
                                      const Source& source);

/* The text that describes what parse_value accepts for this spec, range
 * included: "a whole number from 1 to 3600000". */
ORCA_EXPORT std::string valid_values(const VarSpec& spec);

/* Whether the range of `spec` is well formed: each bound parses as its
 * type, min <= max, and only Int, Unsigned, Size and Double have one. The
 * error is a "bad-declaration" Message. Registry::declare checks it. */
ORCA_EXPORT Status check_range(const VarSpec& spec);

class ORCA_EXPORT Registry {
 public:
  Registry();
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  /* Records a setting. If a declared variable claims it and it now wins,
   * the variable is re-resolved; a bad value is returned as an error and
   * the variable keeps its previous value. */
  Status add_setting(Setting setting);

  /* Declares a variable and resolves its value from the settings so far.
   * Fails with "bad-declaration" on a bad name or level, a duplicate name,
   * a malformed range (check_range) or a default that does not parse or
   * lies outside the range; and with "bad-value" (ErrorKind::BadValue) on a bad winning setting
   * (the variable is then kept with its default so tools can show it). */
  Result<const Variable*> declare(VarSpec spec);

  const Variable* find(std::string_view full_name) const;
  /* Declaration order. */
  std::vector<const Variable*> variables() const;

  /* Every setting received so far, claimed or not, in arrival order (a
   * read-only view: what a launcher forwards is chosen from these). */
  std::vector<Setting> settings() const;

  /* Deprecated synonyms that were used, one message each, once. */
  std::vector<Message> take_notices();

  /* Settings no declared variable (or synonym) claims, each as a warning
   * naming the source and the closest registered name when one is near. */
  std::vector<Message> unclaimed_settings() const;

  /* The registered name (or synonym) closest to `name`, "" if none is near. */
  std::string closest_name(std::string_view name) const;

 private:
  struct Entry;
  Status resolve(Entry& entry);
  std::vector<std::unique_ptr<Entry>> entries_;
  std::map<std::string, Entry*, std::less<>> by_name_;  // full names and synonyms
  std::vector<std::pair<Setting, std::uint64_t>> settings_;  // with arrival order
  std::vector<Message> notices_;
  std::set<std::string> reported_;  // summaries of notices already taken
  std::uint64_t sequence_ = 0;
};

}  // namespace orca::mca

#endif  // ORCA_MCA_VAR_H
