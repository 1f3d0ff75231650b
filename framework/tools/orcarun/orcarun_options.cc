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

}  // namespace

Result<Options> parse_options(const std::vector<std::string>& args) {
  Options o;
  size_t i = 0;
  auto value = [&](const std::string& option) -> Result<std::string> {
    if (i + 1 >= args.size()) return bad_option(option, "it needs a value");
    return args[++i];
  };
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a.empty() || a[0] != '-') break;  // the command starts here
    // "--opt=value" is accepted for options that take a value.
    std::string name = a, inline_value;
    bool has_inline = false;
    if (a.rfind("--", 0) == 0) {
      if (size_t eq = a.find('='); eq != std::string::npos) {
        name = a.substr(0, eq);
        inline_value = a.substr(eq + 1);
        has_inline = true;
      }
    }
    auto take = [&]() -> Result<std::string> {
      if (has_inline) return inline_value;
      return value(name);
    };
    // A flag takes no value: "--oversubscribe=0" must not read as on.
    static const char* const kFlags[] = {"--help", "--version", "--oversubscribe", "--tag-output", "--timing",
                                         "--report-routes", "--report-topology", "--mesh-check"};
    if (has_inline && std::find(std::begin(kFlags), std::end(kFlags), name) != std::end(kFlags)) {
      return bad_option(a, "it is a flag and takes no value");
    }
    if (name == "--help" || name == "-h") {
      o.help = true;
    } else if (name == "--version" || name == "-V") {
      o.version = true;
    } else if (name == "--host" || name == "-H") {
      auto v = take();
      if (!v) return v.error();
      o.hosts.push_back(v.value());
    } else if (name == "--hostfile") {
      auto v = take();
      if (!v) return v.error();
      o.hostfiles.push_back(v.value());
    } else if (name == "-n" || name == "--np" || name == "-np") {
      auto v = take();
      if (!v) return v.error();
      unsigned n = 0;
      if (!whole_number(v.value(), n)) return bad_option(name, "\"" + v.value() + "\" is not a whole number");
      if (n == 0) return bad_option(name, "0 processes is no job; give at least 1, or leave -n out for one per slot");
      o.processes = n;
    } else if (name == "--map-by") {
      auto v = take();
      if (!v) return v.error();
      if (v.value() == "node") o.map_by = MapBy::Node;
      else if (v.value() == "slot") o.map_by = MapBy::Slot;
      else return bad_option(name, "\"" + v.value() + "\" is neither node nor slot");
    } else if (name == "--oversubscribe") {
      o.oversubscribe = true;
    } else if (name == "--tag-output") {
      o.tag_output = true;
    } else if (name == "--timing") {
      o.timing = true;
    } else if (name == "--report-routes") {
      o.report_routes = true;
    } else if (name == "--report-topology") {
      o.report_topology = true;
    } else if (name == "--mesh-check") {
      o.mesh_check = true;
    } else if (name == "--timeout") {
      auto v = take();
      if (!v) return v.error();
      char* end = nullptr;
      const double s = std::strtod(v.value().c_str(), &end);
      if (v.value().empty() || *end != '\0' || !std::isfinite(s) || s <= 0 || s > 1e7) {
        return bad_option(name, "\"" + v.value() + "\" is not a number of seconds above 0");
      }
      o.timeout_seconds = s;
    } else if (name == "--stdin") {
      auto v = take();
      if (!v) return v.error();
      if (v.value() == "none") {
        o.stdin_target = StdinTarget::None;
      } else if (v.value() == "all") {
        o.stdin_target = StdinTarget::All;
      } else if (unsigned r = 0; whole_number(v.value(), r)) {
        o.stdin_target = StdinTarget::Rank;
        o.stdin_rank = r;
      } else {
        return bad_option(name, "\"" + v.value() + "\" is none, all or a rank");
      }
    } else if (name == "--mca" || name == "-mca") {
      // Two words follow; "--mca=NAME VALUE" would silently take the next two.
      if (has_inline) return bad_option(a, "it takes two words, --mca NAME VALUE, not --mca=NAME");
      if (i + 2 >= args.size()) return bad_option(name, "it needs a variable name and a value");
      o.tool.mca.push_back(mca::Setting{args[i + 1], args[i + 2], mca::Source{mca::SourceKind::CommandLine, "", 0, 0}});
      i += 2;
    } else if (name == "-x") {
      auto v = take();
      if (!v) return v.error();
      auto r = forward_request(v.value());
      if (!r) return r.error();
      o.forwards.push_back(std::move(r.value()));
    } else if (name == "-genv" || name == "--genv") {
      // Two words, as --mca.
      if (has_inline) return bad_option(a, "it takes two words, -genv NAME VALUE, not --genv=NAME");
      if (i + 2 >= args.size()) return bad_option(name, "it needs a variable name and a value");
      const std::string& variable = args[i + 1];
      if (std::string why = bad_variable_name(variable); !why.empty()) return bad_option(name, why + " (-genv NAME VALUE)");
      if (args[i + 2].find('\0') != std::string::npos) return bad_option(name, "a value cannot hold a NUL byte");
      o.forwards.push_back({.kind = ForwardRequest::Kind::Value, .name = variable, .value = args[i + 2],
                            .option = name + " " + variable + " ..."});
      i += 2;
    } else if (name == "-genvlist" || name == "--genvlist") {
      auto v = take();
      if (!v) return v.error();
      auto list = forward_list(name, v.value());
      if (!list) return list.error();
      for (auto& r : list.value()) o.forwards.push_back(std::move(r));
    } else if (name == "--tune") {
      auto v = take();
      if (!v) return v.error();
      o.tool.tune_files.push_back(v.value());
    } else {
      return bad_option(a, "it is not an orcarun option (orcarun --help lists them)");
    }
  }
  for (; i < args.size(); ++i) o.command.push_back(args[i]);
  if (o.command.empty() && !o.help && !o.version) {
    return Message("orcarun", "no-command", {});
  }
  return o;
}

}  // namespace orca::orcarun
