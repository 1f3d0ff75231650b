// orcarun's command line.
#include "orcarun_options.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string_view>

namespace orca::orcarun {

const char* const kUsage =
    "Usage: orcarun [options] CMD [ARGS...]\n"
    "Starts one orcad per host, wires them up over the oob, runs CMD as N\n"
    "processes and forwards their output. Options end at the first word\n"
    "that is not an option (or at --).\n"
    "\n"
    "  --host H[:SLOTS],...   hosts to run on (hostlist syntax: node[01-04]); default: the nodes\n"
    "                         of the Slurm allocation orcarun runs in (salloc, sbatch), whose\n"
    "                         daemons srun starts (--mca plm rsh: ssh), else this host\n"
    "  --hostfile FILE        one host per line, \"slots=N\", # comments\n"
    "  -n, --np N             processes in all (default: one per slot)\n"
    "  --map-by node|slot     spread ranks across hosts, or fill each host first (default: slot)\n"
    "  --oversubscribe        allow more processes than slots\n"
    "  --tag-output           prefix every output line with [rank]\n"
    "  --stdin none|all|RANK  where orcarun's standard input goes (default: 0)\n"
    "  --timeout SECONDS      end the job after this long, with a message\n"
    "  --timing               print the phases of the launch in milliseconds\n"
    "  --report-routes        print which addresses each daemon's connection uses, and why\n"
    "  --report-topology      print each host's hwloc summary\n"
    "  --mesh-check           before ranks start, connect every host to every other host's\n"
    "                         data-plane address; stop naming each pair that cannot connect\n"
    "  -x NAME[=VALUE]        set NAME in every rank's environment: to VALUE, or to its value here;\n"
    "                         as -x 'PREFIX*', every variable here whose name starts with PREFIX\n"
    "  -genv NAME VALUE       set NAME to VALUE in every rank's environment\n"
    "  -genvlist NAME,...     forward these variables from here, as -x NAME does\n"
    "  --mca NAME VALUE       set an MCA variable (orca_info --param all all lists them)\n"
    "  --tune FILE            read MCA settings from FILE\n"
    "  --version, --help\n";

namespace {

Message bad_option(const std::string& option, const std::string& why) {
  return Message("orcarun", "bad-option", {{"option", option}, {"why", why}});
}

// Why `name` cannot name a forwarded variable, or "" if it can. Any byte
// but NUL and '=' may: the environment is C strings of NAME=VALUE.
std::string bad_variable_name(std::string_view name) {
  if (name.empty()) return "the variable's name is empty";
  if (name.find('=') != std::string_view::npos) return "a variable's name cannot hold '='";
  if (name.find('\0') != std::string_view::npos) return "a variable's name cannot hold a NUL byte";
  return "";
}

// -x WORD: NAME=VALUE, PREFIX* or NAME.
Result<ForwardRequest> forward_request(const std::string& word) {
  ForwardRequest r{.option = "-x " + word};
  if (const size_t eq = word.find('='); eq != std::string::npos) {
    r.kind = ForwardRequest::Kind::Value;
    r.name = word.substr(0, eq);
    r.value = word.substr(eq + 1);
    r.option = "-x " + r.name + "=...";  // a value may be long; messages name the variable
  } else if (!word.empty() && word.back() == '*') {
    // An empty prefix ("*") forwards all of orcarun's environment.
    r.kind = ForwardRequest::Kind::Prefix;
    r.name = word.substr(0, word.size() - 1);
    if (r.name.find('\0') != std::string::npos) return bad_option("-x", "a variable's name cannot hold a NUL byte");
    return r;
  } else {
    r.kind = ForwardRequest::Kind::FromEnvironment;
    r.name = word;
  }
  if (std::string why = bad_variable_name(r.name); !why.empty()) return bad_option("-x", why + " (-x NAME=VALUE, -x NAME or -x 'PREFIX*')");
  if (r.value.find('\0') != std::string::npos) return bad_option("-x", "a value cannot hold a NUL byte");
  return r;
}

// -genvlist NAME,NAME...: each as -x NAME.
Result<std::vector<ForwardRequest>> forward_list(const std::string& option, const std::string& list) {
  std::vector<ForwardRequest> out;
  size_t from = 0;
  while (true) {
    const size_t comma = std::min(list.find(',', from), list.size());
    std::string name = list.substr(from, comma - from);
    if (std::string why = bad_variable_name(name); !why.empty()) {
      return bad_option(option, why + " in \"" + printable(list) + "\" (it takes names between commas: a,b,c)");
    }
    out.push_back({.kind = ForwardRequest::Kind::FromEnvironment, .name = std::move(name), .option = option + " " + list});
    if (comma == list.size()) return out;
    from = comma + 1;
  }
}

template <typename T>
bool whole_number(const std::string& text, T& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

// One option word as written: "--opt=value" split at its first '='.
struct OptionWord {
  std::string name;          // the option, without its inline value
  std::string inline_value;  // after the '=', if has_inline
  bool has_inline = false;
};

// "--opt=value" is accepted for options that take a value.
OptionWord split_option(const std::string& a) {
  OptionWord w{.name = a};
  if (a.rfind("--", 0) == 0) {
    if (size_t eq = a.find('='); eq != std::string::npos) {
      w.name = a.substr(0, eq);
      w.inline_value = a.substr(eq + 1);
      w.has_inline = true;
    }
  }
  return w;
}

// The option's value: the inline one, or the next word (args[i] moves on to it).
Result<std::string> take_value(const std::vector<std::string>& args, size_t& i, const OptionWord& w) {
  if (w.has_inline) return w.inline_value;
  if (i + 1 >= args.size()) return bad_option(w.name, "it needs a value");
  return args[++i];
}

bool is_flag(const std::string& name) {
  static const char* const kFlags[] = {"--help", "--version", "--oversubscribe", "--tag-output", "--timing",
                                       "--report-routes", "--report-topology", "--mesh-check"};
  return std::find(std::begin(kFlags), std::end(kFlags), name) != std::end(kFlags);
}

// What the flag `name` sets in `o`, or null if it is no flag.
bool* flag_of(const std::string& name, Options& o) {
  if (name == "--help" || name == "-h") return &o.help;
  if (name == "--version" || name == "-V") return &o.version;
  if (name == "--oversubscribe") return &o.oversubscribe;
  if (name == "--tag-output") return &o.tag_output;
  if (name == "--timing") return &o.timing;
  if (name == "--report-routes") return &o.report_routes;
  if (name == "--report-topology") return &o.report_topology;
  if (name == "--mesh-check") return &o.mesh_check;
  return nullptr;
}

// What an option that takes one value does with it (`name` as written, for messages).
using ValueOption = Status (*)(const std::string& name, const std::string& value, Options& o);

Status add_host(const std::string& /*name*/, const std::string& value, Options& o) {
  o.hosts.push_back(value);
  return {};
}

Status add_hostfile(const std::string& /*name*/, const std::string& value, Options& o) {
  o.hostfiles.push_back(value);
  return {};
}

Status set_processes(const std::string& name, const std::string& value, Options& o) {
  unsigned n = 0;
  if (!whole_number(value, n)) return bad_option(name, "\"" + value + "\" is not a whole number");
  if (n == 0) return bad_option(name, "0 processes is no job; give at least 1, or leave -n out for one per slot");
  o.processes = n;
  return {};
}

Status set_map_by(const std::string& name, const std::string& value, Options& o) {
  if (value == "node") o.map_by = MapBy::Node;
  else if (value == "slot") o.map_by = MapBy::Slot;
  else return bad_option(name, "\"" + value + "\" is neither node nor slot");
  return {};
}

Status set_timeout(const std::string& name, const std::string& value, Options& o) {
  char* end = nullptr;
  const double s = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || !std::isfinite(s) || s <= 0 || s > 1e7) {
    return bad_option(name, "\"" + value + "\" is not a number of seconds above 0");
  }
  o.timeout_seconds = s;
  return {};
}

Status set_stdin(const std::string& name, const std::string& value, Options& o) {
  if (value == "none") {
    o.stdin_target = StdinTarget::None;
  } else if (value == "all") {
    o.stdin_target = StdinTarget::All;
  } else if (unsigned r = 0; whole_number(value, r)) {
    o.stdin_target = StdinTarget::Rank;
    o.stdin_rank = r;
  } else {
    return bad_option(name, "\"" + value + "\" is none, all or a rank");
  }
  return {};
}

Status add_forward(const std::string& /*name*/, const std::string& value, Options& o) {
  auto r = forward_request(value);
  if (!r) return r.error();
  o.forwards.push_back(std::move(r.value()));
  return {};
}

Status add_forward_list(const std::string& name, const std::string& value, Options& o) {
  auto list = forward_list(name, value);
  if (!list) return list.error();
  for (auto& r : list.value()) o.forwards.push_back(std::move(r));
  return {};
}

Status add_tune_file(const std::string& /*name*/, const std::string& value, Options& o) {
  o.tool.tune_files.push_back(value);
  return {};
}

// The option `name` if it takes one value, or null.
ValueOption value_option(const std::string& name) {
  if (name == "--host" || name == "-H") return add_host;
  if (name == "--hostfile") return add_hostfile;
  if (name == "-n" || name == "--np" || name == "-np") return set_processes;
  if (name == "--map-by") return set_map_by;
  if (name == "--timeout") return set_timeout;
  if (name == "--stdin") return set_stdin;
  if (name == "-x") return add_forward;
  if (name == "-genvlist" || name == "--genvlist") return add_forward_list;
  if (name == "--tune") return add_tune_file;
  return nullptr;
}

// --mca NAME VALUE (args[i] moves on to VALUE).
Status add_mca(const std::vector<std::string>& args, size_t& i, const OptionWord& w, Options& o) {
  // Two words follow; "--mca=NAME VALUE" would silently take the next two.
  if (w.has_inline) return bad_option(args[i], "it takes two words, --mca NAME VALUE, not --mca=NAME");
  if (i + 2 >= args.size()) return bad_option(w.name, "it needs a variable name and a value");
  o.tool.mca.push_back(mca::Setting{args[i + 1], args[i + 2], mca::Source{mca::SourceKind::CommandLine, "", 0, 0}});
  i += 2;
  return {};
}

// -genv NAME VALUE (args[i] moves on to VALUE).
Status add_genv(const std::vector<std::string>& args, size_t& i, const OptionWord& w, Options& o) {
  // Two words, as --mca.
  if (w.has_inline) return bad_option(args[i], "it takes two words, -genv NAME VALUE, not --genv=NAME");
  if (i + 2 >= args.size()) return bad_option(w.name, "it needs a variable name and a value");
  const std::string& variable = args[i + 1];
  if (std::string why = bad_variable_name(variable); !why.empty()) return bad_option(w.name, why + " (-genv NAME VALUE)");
  if (args[i + 2].find('\0') != std::string::npos) return bad_option(w.name, "a value cannot hold a NUL byte");
  o.forwards.push_back({.kind = ForwardRequest::Kind::Value, .name = variable, .value = args[i + 2],
                        .option = w.name + " " + variable + " ..."});
  i += 2;
  return {};
}

// The option at args[i], with its values (i moves on to its last word).
Status parse_option(const std::vector<std::string>& args, size_t& i, Options& o) {
  const std::string& a = args[i];
  const OptionWord w = split_option(a);
  // A flag takes no value: "--oversubscribe=0" must not read as on.
  if (w.has_inline && is_flag(w.name)) return bad_option(a, "it is a flag and takes no value");
  if (bool* flag = flag_of(w.name, o); flag != nullptr) {
    *flag = true;
    return {};
  }
  if (w.name == "--mca" || w.name == "-mca") return add_mca(args, i, w, o);
  if (w.name == "-genv" || w.name == "--genv") return add_genv(args, i, w, o);
  if (ValueOption apply = value_option(w.name); apply != nullptr) {
    auto v = take_value(args, i, w);
    if (!v) return v.error();
    return apply(w.name, v.value(), o);
  }
  return bad_option(a, "it is not an orcarun option (orcarun --help lists them)");
}

}  // namespace

Result<Options> parse_options(const std::vector<std::string>& args) {
  Options o;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a.empty() || a[0] != '-') break;  // the command starts here
    if (Status st = parse_option(args, i, o); !st) return st.error();
  }
  for (; i < args.size(); ++i) o.command.push_back(args[i]);
  if (o.command.empty() && !o.help && !o.version) {
    return Message("orcarun", "no-command", {});
  }
  return o;
}

}  // namespace orca::orcarun
