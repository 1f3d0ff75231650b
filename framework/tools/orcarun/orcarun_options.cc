// orcarun's command line.
#include "orcarun_options.h"
#include "orcarun_option_values.h"

#include "mca/var/text.h"

#include <algorithm>
#include <string_view>

namespace orca::orcarun {

namespace {

// Each option spelling: a flag and what it sets, or an option of one value
// and what it does with it. Users' other launchers' spellings are here too
// (mpirun's -np, -H, --wdir; mpiexec's -hosts, -f, -wdir, -l).
struct Spelling {
  const char* name;
  bool Options::*flag;  // null for an option with a value
  ValueOption apply;    // null for a flag
};

constexpr Spelling kSpellings[] = {
    {"--help", &Options::help, nullptr},
    {"-h", &Options::help, nullptr},
    {"--version", &Options::version, nullptr},
    {"-V", &Options::version, nullptr},
    {"--oversubscribe", &Options::oversubscribe, nullptr},
    {"--allow-run-as-root", &Options::allow_run_as_root, nullptr},
    {"--tag-output", &Options::tag_output, nullptr},
    {"-l", &Options::tag_output, nullptr},
    {"-prepend-rank", &Options::tag_output, nullptr},
    {"--prepend-rank", &Options::tag_output, nullptr},
    {"--timing", &Options::timing, nullptr},
    {"--report-routes", &Options::report_routes, nullptr},
    {"--report-topology", &Options::report_topology, nullptr},
    {"--mesh-check", &Options::mesh_check, nullptr},
    {"--display-map", &Options::display_map, nullptr},
    {"--timestamp-output", &Options::timestamp_output, nullptr},
    {"--merge-stderr-to-stdout", &Options::merge_stderr, nullptr},
    {"-display-map", &Options::display_map, nullptr},
    {"--report-bindings", &Options::report_bindings, nullptr},
    {"-report-bindings", &Options::report_bindings, nullptr},
    {"--host", nullptr, add_host},
    {"-H", nullptr, add_host},
    {"-hosts", nullptr, add_host},
    {"--hostfile", nullptr, add_hostfile},
    {"-f", nullptr, add_hostfile},
    {"--machinefile", nullptr, add_hostfile},
    {"-machinefile", nullptr, add_hostfile},
    {"-n", nullptr, set_processes},
    {"--np", nullptr, set_processes},
    {"-np", nullptr, set_processes},
    {"--map-by", nullptr, set_map_by},
    {"-map-by", nullptr, set_map_by},
    {"--cpus-per-rank", nullptr, set_cpus_per_rank},
    {"--cpus-per-proc", nullptr, set_cpus_per_rank},
    {"-N", nullptr, set_per_node},
    {"--npernode", nullptr, set_per_node},
    {"-npernode", nullptr, set_per_node},
    {"-ppn", nullptr, set_per_node},
    {"--rank-by", nullptr, set_rank_by},
    {"-rank-by", nullptr, set_rank_by},
    {"--bind-to", nullptr, set_bind_to},
    {"-bind-to", nullptr, set_bind_to},
    {"--output-filename", nullptr, set_path<&Options::output_filename>},
    {"-output-filename", nullptr, set_path<&Options::output_filename>},
    {"--wdir", nullptr, set_path<&Options::working_directory>},
    {"-wdir", nullptr, set_path<&Options::working_directory>},
    {"--timeout", nullptr, set_timeout},
    {"--stdin", nullptr, set_stdin},
    {"-x", nullptr, add_forward},
    {"-genvlist", nullptr, add_forward_list},
    {"--genvlist", nullptr, add_forward_list},
    {"--tune", nullptr, add_tune_file},
    {"--output", nullptr, set_output},
    {"--app", nullptr, set_path<&Options::app_file>},
    {"--dvm", &Options::dvm, nullptr},
    {"--dvm-no-wait", &Options::dvm_no_wait, nullptr},
    {"--dvm-uri", nullptr, set_path<&Options::dvm_uri>},
    {"-configfile", nullptr, set_path<&Options::app_file>},
};

// The options of two words, parsed apart (add_mca, add_genv).
constexpr const char* kTwoWordOptions[] = {"--mca", "-mca", "-genv", "--genv", "-env", "--env"};

const Spelling* spelling(const std::string& name) {
  for (const auto& s : kSpellings) {
    if (name == s.name) return &s;
  }
  return nullptr;
}

// Options of mpirun and mpiexec that orcarun does not have: said so by
// name, rather than as a typo of one of ours.
constexpr const char* kOtherLaunchersOptions[] = {"--cpu-set"};

// --mca NAME VALUE (args[i] moves on to VALUE).
Status add_mca(const std::vector<std::string>& args, size_t& i, const OptionWord& w, Options& o) {
  // Two words follow; "--mca=NAME VALUE" would silently take the next two.
  if (w.has_inline) return bad_option(args[i], "it takes two words, --mca NAME VALUE, not --mca=NAME");
  if (i + 2 >= args.size()) return bad_option(w.name, "it needs a variable name and a value");
  o.tool.mca.push_back(mca::Setting{args[i + 1], args[i + 2], mca::Source{mca::SourceKind::CommandLine, "", 0, 0}});
  i += 2;
  return {};
}

// -genv NAME VALUE (args[i] moves on to VALUE): -env's checks, for every program.
Status add_genv(const std::vector<std::string>& args, size_t& i, const OptionWord& w, Options& o) {
  // Two words, as --mca.
  if (w.has_inline) return bad_option(args[i], "it takes two words, -genv NAME VALUE, not --genv=NAME");
  return add_program_env(args, i, o.forwards);
}

// Why `a` is no option of ours, naming the closest one we have.
Message unknown_option(const std::string& a) {
  const std::string name = split_option(a).name;
  for (const char* other : kOtherLaunchersOptions) {
    if (name == other) {
      return bad_option(a, "orcarun does not have this option of mpirun and mpiexec yet (orcarun --help lists what it has)");
    }
  }
  if (std::string close = closest_option(name); !close.empty()) {
    return bad_option(a, "it is not an orcarun option; did you mean " + close + "? (orcarun --help lists them)");
  }
  return bad_option(a, "it is not an orcarun option (orcarun --help lists them)");
}

// The option at args[i], with its values (i moves on to its last word).
Status parse_option(const std::vector<std::string>& args, size_t& i, Options& o) {
  const std::string& a = args[i];
  const OptionWord w = split_option(a);
  if (w.name == "--mca" || w.name == "-mca") return add_mca(args, i, w, o);
  if (w.name == "-genv" || w.name == "--genv") return add_genv(args, i, w, o);
  if (w.name == "-env" || w.name == "--env") return add_program_env(args, i, o.first_forwards);
  const Spelling* s = spelling(w.name);
  if (s == nullptr) return unknown_option(a);
  if (s->flag != nullptr) {
    // A flag takes no value: "--oversubscribe=0" must not read as on.
    if (w.has_inline) return bad_option(a, "it is a flag and takes no value");
    o.*(s->flag) = true;
    return {};
  }
  auto v = take_value(args, i, w);
  if (!v) return v.error();
  return s->apply(w.name, v.value(), o);
}

}  // namespace

const std::vector<std::string> kDaemonOptions = {
    "--host", "-H", "-hosts", "--hostfile", "-f", "--machinefile", "-machinefile", "--mca", "-mca", "--tune",
    "--timing", "--report-routes", "--report-topology", "--mesh-check", "--allow-run-as-root", "--help", "-h",
    "--version", "-V"};

Result<Options> parse_daemon_options(const std::vector<std::string>& args) {
  auto refuse = [](const std::string& option, const std::string& why) {
    return Message("orcadvm", "bad-option", {{"option", option}, {"why", why}});
  };
  Options o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.empty() || a[0] != '-') {
      return refuse(printable(a), "a DVM runs no program of its own; its jobs are given each on its own");
    }
    const std::string name = split_option(a).name;
    if (std::find(kDaemonOptions.begin(), kDaemonOptions.end(), name) == kDaemonOptions.end()) {
      const auto& all = option_spellings();
      if (std::find(all.begin(), all.end(), name) != all.end()) {
        return refuse(printable(a), "it is an option of a job, not of the daemons a DVM keeps; give it with the job");
      }
      return refuse(printable(a), "it is not an option of orcadvm start (orcadvm --help lists them)");
    }
    if (Status st = parse_option(args, i, o); !st) {
      if (st.error().topic() != "bad-option") return st.error();
      return refuse(st.error().arg("option"), st.error().arg("why"));
    }
  }
  return o;
}

const std::vector<std::string> kDvmJobOptions = {
    "-n", "--np", "-np", "--map-by", "-map-by", "-N", "--npernode", "-npernode", "-ppn", "--oversubscribe",
    "-x", "-genv", "--genv", "-genvlist", "--genvlist", "-env", "--env", "--wdir", "-wdir", "--tag-output", "-l",
    "-prepend-rank", "--prepend-rank", "--timestamp-output", "--merge-stderr-to-stdout", "--timeout", "--stdin",
    "--output", "--app", "-configfile", "--allow-run-as-root", "--dvm", "--dvm-uri", "--dvm-no-wait", "--help", "-h",
    "--version", "-V"};

Status check_dvm_job_options(const Options& o) {
  for (const auto& name : o.given) {
    if (std::find(kDvmJobOptions.begin(), kDvmJobOptions.end(), name) == kDvmJobOptions.end()) {
      return bad_option(name, "a job on a running DVM cannot use it: it shapes the daemons, which run already (give "
                              "it to orcadvm start, or run without --dvm)");
    }
  }
  // Accepted options whose values only a standalone run has yet.
  if (o.cpu.needs_topology() || o.cpu.per_object != 0) {
    return bad_option("--map-by", "a job on a DVM is mapped by slot or node only (no resource, ppr or pe= yet)");
  }
  if (o.tag_host) return bad_option("--output tag-detailed", "a job on a DVM tags its lines by rank only (--tag-output)");
  if (o.output_filename) return bad_option("--output-filename", "a job on a DVM writes its output to orcarun's own");
  return {};
}

const std::vector<std::string>& option_spellings() {
  static const std::vector<std::string> all = [] {
    std::vector<std::string> v;
    for (const auto& s : kSpellings) v.emplace_back(s.name);
    for (const char* t : kTwoWordOptions) v.emplace_back(t);
    return v;
  }();
  return all;
}

std::string closest_option(const std::string& word) {
  // Dashes apart: "-wdir" and "--wdir", "--np" and "-np" are one option.
  auto bare = [](std::string_view w) { return w.substr(std::min(w.find_first_not_of('-'), w.size())); };
  const std::string_view typed = bare(word);
  if (typed.size() < 2) return "";
  std::string best;
  size_t best_distance = 3;  // at most two edits, and fewer than half the word
  for (const auto& s : option_spellings()) {
    const size_t d = mca::edit_distance(typed, bare(s));
    if (2 * d >= typed.size()) continue;
    // On a tie, the long spelling: the one --help shows first.
    const bool longer_form = s.rfind("--", 0) == 0 && best.rfind("--", 0) != 0;
    if (d < best_distance || (d == best_distance && longer_form)) {
      best = s;
      best_distance = d;
    }
  }
  return best;
}

Status settle_apps(Options& o) {
  if (o.apps.size() > kMaxApps) return bad_option(":", "more than " + std::to_string(kMaxApps) + " programs in one job");
  if (o.apps.size() > 1) {
    std::uint64_t total = 0;
    for (std::size_t k = 0; k < o.apps.size(); ++k) {
      if (!o.apps[k].processes) {
        return bad_option(":", "each program of an MPMD job needs its own -n; program " + std::to_string(k + 1) + " (" +
                                   printable(o.apps[k].command.front()) + ") has none");
      }
      total += *o.apps[k].processes;
    }
    if (o.per_node) return bad_option("-N", "ranks per node and several programs are two counts; give each program its -n");
    if (o.cpu.per_object != 0) {
      return bad_option("--map-by ppr", "ranks per object and several programs are two counts; give each program its -n");
    }
    if (total > launch::kMaxRanks) {
      return bad_option(":", "the programs ask for " + std::to_string(total) + " ranks, more than the " +
                                 std::to_string(launch::kMaxRanks) + " of one job");
    }
    o.processes = static_cast<unsigned>(total);
  } else if (!o.apps.empty() && o.apps[0].processes) {
    o.processes = o.apps[0].processes;
  }
  if (!o.apps.empty()) o.command = o.apps[0].command;
  return {};
}

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
    o.given.push_back(split_option(a).name);
    if (Status st = parse_option(args, i, o); !st) return st.error();
  }
  // A lone ':' starts another program (MPMD), as with mpirun and mpiexec.
  for (; i < args.size() && args[i] != ":"; ++i) o.command.push_back(args[i]);
  o.apps.push_back({.processes = o.processes, .forwards = o.first_forwards, .working_directory = {}, .command = o.command});
  if (i < args.size()) {
    if (o.command.empty()) return bad_option(":", "the first program has no command (-n N CMD : -n M CMD2)");
    for (++i; i < args.size();) {
      auto app = parse_app_context(args, i);
      if (!app) return app.error();
      o.apps.push_back(std::move(app.value()));
    }
  }
  if (o.app_file) {
    if (!o.command.empty()) return bad_option("--app " + *o.app_file, "the file names every program; give no command after it");
    o.apps.clear();  // orcarun reads them from the file
  } else if (Status st = settle_apps(o); !st) {
    return st.error();
  }
  if (o.per_node && o.map_by == MapBy::Node) {
    return bad_option("-N", "ranks per node and --map-by node (or :span) are two mappings; give one of them");
  }
  if (o.cpu.per_object != 0 && (o.per_node || o.map_by == MapBy::Node)) {
    return bad_option("--map-by ppr", "ranks per object, and -N or --map-by node (or :span), are two mappings; give one");
  }
  if (o.command.empty() && !o.app_file && !o.help && !o.version) {
    return Message("orcarun", "no-command", {});
  }
  return o;
}

}  // namespace orca::orcarun
