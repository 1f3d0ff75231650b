// What each orcarun option that takes a value does with it, and the
// checks those values share: orcarun_options.cc's table names these.
#ifndef ORCA_TOOLS_ORCARUN_OPTION_VALUES_H
#define ORCA_TOOLS_ORCARUN_OPTION_VALUES_H

#include "orcarun_options.h"

#include <charconv>
#include <string>
#include <string_view>
#include <vector>

namespace orca::orcarun {

/* orcarun/bad-option: `option` (as written) and why it was refused. */
Message bad_option(const std::string& option, const std::string& why);

/* Why `name` cannot name a forwarded variable, or "" if it can. */
std::string bad_variable_name(std::string_view name);

template <typename T>
bool whole_number(const std::string& text, T& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

/* One option word as written: "--opt=value" split at its first '='
 * (only "--" options take an inline value). */
struct OptionWord {
  std::string name;          // the option, without its inline value
  std::string inline_value;  // after the '=', if has_inline
  bool has_inline = false;
};
OptionWord split_option(const std::string& word);

/* The option's value: the inline one, or the next word (i moves on to it).
 * Error: orcarun/bad-option when there is none. */
Result<std::string> take_value(const std::vector<std::string>& args, size_t& i, const OptionWord& w);

/* What an option that takes one value does with it (`name` as written,
 * for messages). Each refuses a malformed value with orcarun/bad-option. */
using ValueOption = Status (*)(const std::string& name, const std::string& value, Options& o);

Status add_host(const std::string& name, const std::string& value, Options& o);
Status add_hostfile(const std::string& name, const std::string& value, Options& o);
Status set_processes(const std::string& name, const std::string& value, Options& o);
Status set_per_node(const std::string& name, const std::string& value, Options& o);
Status set_map_by(const std::string& name, const std::string& value, Options& o);
Status set_timeout(const std::string& name, const std::string& value, Options& o);
Status set_stdin(const std::string& name, const std::string& value, Options& o);
Status add_forward(const std::string& name, const std::string& value, Options& o);
Status add_forward_list(const std::string& name, const std::string& value, Options& o);
Status add_tune_file(const std::string& name, const std::string& value, Options& o);
Status set_cpus_per_rank(const std::string& name, const std::string& value, Options& o);
Status set_output(const std::string& name, const std::string& value, Options& o);
Status set_bind_to(const std::string& name, const std::string& value, Options& o);
Status set_rank_by(const std::string& name, const std::string& value, Options& o);

/* --wdir, --output-filename, --app: a path, which becomes a C string. */
template <std::optional<std::string> Options::*field>
Status set_path(const std::string& name, const std::string& value, Options& o) {
  if (value.empty()) return bad_option(name, "the path is empty");
  if (value.find('\0') != std::string::npos) return bad_option(name, "a path cannot hold a NUL byte");
  o.*field = value;
  return {};
}

}  // namespace orca::orcarun

#endif  // ORCA_TOOLS_ORCARUN_OPTION_VALUES_H
