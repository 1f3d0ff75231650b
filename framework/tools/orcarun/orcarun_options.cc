// orcarun's command line.
#include "orcarun_options.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

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
    "  --mca NAME VALUE       set an MCA variable (orca_info --param all all lists them)\n"
    "  --tune FILE            read MCA settings from FILE\n"
    "  --version, --help\n";

namespace {

Message bad_option(const std::string& option, const std::string& why) {
  return Message("orcarun", "bad-option", {{"option", option}, {"why", why}});
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
