// Parsing of MCA variable values, one rule per type, then the declared
// range. Errors name the variable, the source and what is valid
// (help-mca-var.txt [bad-value]).
#include <orca/mca_var.h>

#include "mca/var/text.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>

namespace orca::mca {

std::string_view type_name(VarType type) {
  switch (type) {
    case VarType::Bool: return "bool";
    case VarType::Int: return "int";
    case VarType::Unsigned: return "unsigned";
    case VarType::Size: return "size";
    case VarType::Double: return "double";
    case VarType::String: return "string";
    case VarType::Enum: return "enum";
    case VarType::StringList: return "string list";
  }
  return "unknown";
}

namespace {

Message bad_value(const VarSpec& spec, std::string_view text, const Source& source,
                  std::string why) {
  return Message("mca-var", "bad-value",
                 {{"name", spec.full_name()},
                  {"value", std::string(text)},
                  {"source", source.describe()},
                  {"why", std::move(why)},
                  {"valid", valid_values(spec)}},
                 ErrorKind::BadValue);
}

// Decimal, or hexadecimal after 0x; never octal (a leading zero is decimal).
int number_base(std::string_view digits) {
  return digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X') ? 16 : 10;
}

// Whole-string unsigned parse; false on junk or overflow.
bool parse_u64(std::string_view text, std::uint64_t* out) {
  if (text.empty() || text[0] == '-' || text[0] == '+' || is_space(text[0])) return false;
  std::string s(text);
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(s.c_str(), &end, number_base(s));
  // The whole text, not up to an embedded NUL ("5\0junk" is not 5).
  if (errno == ERANGE || end == s.c_str() || end != s.c_str() + s.size()) return false;
  *out = v;
  return true;
}

Result<Value> parse_int(const VarSpec& spec, std::string_view text, const Source& source) {
  std::string s(text);
  errno = 0;
  char* end = nullptr;
  const std::string_view unsigned_part = !s.empty() && (s[0] == '-' || s[0] == '+') ? std::string_view(s).substr(1) : s;
  long long v = std::strtoll(s.c_str(), &end, number_base(unsigned_part));
  if (s.empty() || is_space(s[0]) || end == s.c_str() || end != s.c_str() + s.size())
    return bad_value(spec, text, source, "not a whole number");
  if (errno == ERANGE) return bad_value(spec, text, source, "out of the 64-bit range");
  return Value(std::int64_t{v});
}

Result<Value> parse_size(const VarSpec& spec, std::string_view text, const Source& source) {
  std::string_view digits = text;
  std::uint64_t multiplier = 1;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'k': case 'K': multiplier = 1ull << 10; break;
      case 'm': case 'M': multiplier = 1ull << 20; break;
      case 'g': case 'G': multiplier = 1ull << 30; break;
      case 't': case 'T': multiplier = 1ull << 40; break;
      default: break;
    }
    if (multiplier != 1) digits.remove_suffix(1);
  }
  std::uint64_t v = 0;
  if (!parse_u64(digits, &v)) return bad_value(spec, text, source, "not a byte count");
  if (v > std::numeric_limits<std::uint64_t>::max() / multiplier)
    return bad_value(spec, text, source, "too large");
  return Value(v * multiplier);
}

// The type's own rule, without the range: also parses the range's bounds.
Result<Value> parse_unbounded(const VarSpec& spec, std::string_view text, const Source& source) {
  switch (spec.type) {
    case VarType::Bool: {
      const std::string w = lower(text);
      if (w == "1" || w == "true" || w == "yes" || w == "on") return Value(true);
      if (w == "0" || w == "false" || w == "no" || w == "off") return Value(false);
      return bad_value(spec, text, source, "not a boolean");
    }
    case VarType::Int:
      return parse_int(spec, text, source);
    case VarType::Unsigned: {
      std::uint64_t v = 0;
      if (!parse_u64(text, &v)) return bad_value(spec, text, source, "not a non-negative whole number");
      return Value(v);
    }
    case VarType::Size:
      return parse_size(spec, text, source);
    case VarType::Double: {
      std::string s(text);
      errno = 0;
      char* end = nullptr;
      double v = std::strtod(s.c_str(), &end);
      if (s.empty() || is_space(s[0]) || end == s.c_str() || end != s.c_str() + s.size())
        return bad_value(spec, text, source, "not a number");
      if (!std::isfinite(v)) return bad_value(spec, text, source, "not finite");
      // ERANGE also flags tiny (subnormal) results, which are fine; only a
      // result flushed to zero has lost the value.
      if (errno == ERANGE && v == 0.0) return bad_value(spec, text, source, "too small to represent");
      return Value(v);
    }
    case VarType::String:
      return Value(std::string(text));
    case VarType::Enum: {
      const std::string w = lower(text);
      for (const auto& word : spec.enum_words) {
        if (lower(word) == w) return Value(word);
      }
      return bad_value(spec, text, source, "not one of its words");
    }
    case VarType::StringList: {
      std::vector<std::string> items;
      if (trim(text).empty()) return Value(items);
      for (const auto& item : split(text, ',')) {
        std::string t(trim(item));
        if (t.empty()) return bad_value(spec, text, source, "an empty item in the list");
        items.push_back(std::move(t));
      }
      return Value(std::move(items));
    }
  }
  return bad_value(spec, text, source, "unknown type");
}

bool is_numeric(VarType type) {
  return type == VarType::Int || type == VarType::Unsigned || type == VarType::Size || type == VarType::Double;
}

Message bad_declaration(const VarSpec& spec, std::string why) {
  return Message("mca-var", "bad-declaration", {{"name", spec.full_name()}, {"why", std::move(why)}});
}

// A declared range, parsed; an absent bound leaves that side open.
struct Bounds {
  std::optional<Value> min;
  std::optional<Value> max;
};

Result<Bounds> bounds_of(const VarSpec& spec) {
  Bounds b;
  if (spec.min_text.empty() && spec.max_text.empty()) return b;
  if (!is_numeric(spec.type)) {
    return bad_declaration(spec, "a range applies only to int, unsigned, size and double variables, not to a " +
                                     std::string(type_name(spec.type)));
  }
  const struct {
    const std::string& text;
    std::optional<Value>& slot;
    const char* word;
  } sides[] = {{spec.min_text, b.min, "minimum"}, {spec.max_text, b.max, "maximum"}};
  for (const auto& side : sides) {
    if (side.text.empty()) continue;
    Result<Value> v = parse_unbounded(spec, side.text, Source{});
    if (!v) return bad_declaration(spec, std::string("its ") + side.word + " '" + side.text + "' is invalid: " + v.error().arg("why"));
    side.slot = std::move(v.value());
  }
  // Both bounds hold the same alternative, so variant order is value order.
  if (b.min && b.max && *b.max < *b.min)
    return bad_declaration(spec, "its minimum '" + spec.min_text + "' is above its maximum '" + spec.max_text + "'");
  return b;
}

// "from 1 to 10", "of at least 1", "of at most 10", or "" when unbounded.
std::string range_words(const VarSpec& spec) {
  if (!spec.min_text.empty() && !spec.max_text.empty()) return "from " + spec.min_text + " to " + spec.max_text;
  if (!spec.min_text.empty()) return "of at least " + spec.min_text;
  if (!spec.max_text.empty()) return "of at most " + spec.max_text;
  return {};
}

}  // namespace

std::string valid_values(const VarSpec& spec) {
  const std::string range = is_numeric(spec.type) ? range_words(spec) : std::string();
  const std::string suffixes = "with an optional suffix k, M, G or T (powers of 1024)";
  switch (spec.type) {
    case VarType::Bool: return "one of 1, 0, true, false, yes, no, on, off";
    case VarType::Int:
      return range.empty() ? "a whole number, e.g. -3 or 42" : "a whole number " + range;
    case VarType::Unsigned:
      if (range.empty()) return "a non-negative whole number, e.g. 0 or 42";
      return (spec.min_text.empty() ? "a non-negative whole number " : "a whole number ") + range;
    case VarType::Size:
      // Without a range the examples show the suffixes; with one they might lie outside it.
      return range.empty() ? "a byte count " + suffixes + ", e.g. 4096, 64k, 4M"
                           : "a byte count " + range + " " + suffixes;
    case VarType::Double:
      return range.empty() ? "a finite number, e.g. 0.25 or 3" : "a number " + range;
    case VarType::String: return "any text";
    case VarType::Enum: return "one of " + join(spec.enum_words, ", ");
    case VarType::StringList: return "a comma-separated list of non-empty items, e.g. a,b,c";
  }
  return {};
}

Status check_range(const VarSpec& spec) {
  Result<Bounds> b = bounds_of(spec);
  if (!b) return b.error();
  return {};
}

Result<Value> parse_value(const VarSpec& spec, std::string_view text, const Source& source) {
  Result<Value> v = parse_unbounded(spec, text, source);
  if (!v || (spec.min_text.empty() && spec.max_text.empty())) return v;
  Result<Bounds> b = bounds_of(spec);
  if (!b) return b.error();
  // Same alternative on both sides (the bounds were parsed by the same rule).
  if ((b->min && v.value() < *b->min) || (b->max && *b->max < v.value()))
    return bad_value(spec, text, source, "out of range");
  return v;
}

}  // namespace orca::mca
