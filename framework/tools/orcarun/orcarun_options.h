// orcarun's command line, parsed into a value (no I/O): the options the
// launcher takes, then the command. Options end at the first word that is
// not an option (or at "--"); everything after is the command, untouched.
// --mca and --tune are the options every Orca program shares; they are
// kept in order for the Runtime (mca::ToolOptions).
#ifndef ORCA_TOOLS_ORCARUN_OPTIONS_H
#define ORCA_TOOLS_ORCARUN_OPTIONS_H

#include "app_contexts.h"
#include "forwarded_environment.h"

#include "launch/cpu_binding.h"
#include "launch/rank_map.h"

#include "mca/var/mca_sources.h"
#include <orca/result.h>

#include <optional>
#include <string>
#include <vector>

namespace orca::orcarun {

using MapBy = launch::MapBy;  // --map-by
enum class StdinTarget { None, All, Rank };

struct Options {
  std::vector<std::string> hosts;     // --host values, in order (each may hold several)
  std::vector<std::string> hostfiles; // --hostfile
  std::optional<unsigned> processes;  // -n / --np; empty: one per slot
  MapBy map_by = MapBy::Slot;
  std::optional<unsigned> per_node;   // -N, --npernode, -ppn, --map-by ppr:N:node
  std::optional<launch::RankBy> rank_by;  // --rank-by; none: the map's own order
  launch::CpuPolicy cpu;              // --map-by RES[:pe=N], --cpus-per-rank, --bind-to
  bool display_map = false;           // --display-map
  bool report_bindings = false;       // --report-bindings
  bool timestamp_output = false;      // --timestamp-output
  bool merge_stderr = false;          // --merge-stderr-to-stdout
  std::optional<std::string> output_filename;  // --output-filename DIR
  bool oversubscribe = false;
  bool tag_output = false;
  bool tag_host = false;              // --output tag-detailed: "[host:rank] "
  std::optional<double> timeout_seconds;
  bool timing = false;
  bool report_routes = false;
  bool report_topology = false;
  bool mesh_check = false;            // --mesh-check
  StdinTarget stdin_target = StdinTarget::Rank;  // rank 0 by default
  unsigned stdin_rank = 0;
  bool allow_run_as_root = false;     // --allow-run-as-root: Open MPI's; orcarun runs as any user
  std::vector<ForwardRequest> first_forwards;  // -env before the first program: that program's own
  bool help = false;
  bool version = false;
  std::vector<ForwardRequest> forwards;  // -x, -genv, -genvlist, in order (a later one wins)
  std::optional<std::string> working_directory;  // --wdir, as given (orcarun makes it absolute)
  mca::ToolOptions tool;              // --mca / --tune, for the Runtime
  std::vector<std::string> command;   // CMD ARGS... (the first program's)
  /* Every program of the job in order (one unless MPMD: `: -n 4 ./b`, or
   * --app FILE); settle_apps fills it. The first segment's -x and --wdir
   * hold for every program; apps[0]'s own are empty then. */
  std::vector<AppContext> apps;
  std::optional<std::string> app_file;  // --app, -configfile: the programs, read by orcarun
  bool dvm = false;                     // --dvm: run on the running DVM (also --dvm-uri, ORCA_DVM)
  std::optional<std::string> dvm_uri;   // --dvm-uri FILE: that DVM's contact file
  bool dvm_no_wait = false;             // --dvm-no-wait: refused at once when its slots are busy
  std::vector<std::string> given;       // the job's options as written (before the command), for a DVM's check
};

/* Parses argv[1..]. Errors: an unknown option, a missing or malformed
 * value (names the option and says what it takes; a forwarded variable's
 * name that is empty or holds '=' or NUL, a value that holds NUL), no
 * command (unless --help or --version). */
Result<Options> parse_options(const std::vector<std::string>& args);

/* Checks the programs in `o.apps` and makes the job's -n their sum (MPMD:
 * each must have its -n) and `o.command` the first one's. Errors
 * (orcarun/bad-option): a program without -n, -N with several programs,
 * more than kMaxApps programs or launch::kMaxRanks ranks. */
Status settle_apps(Options& o);

/* Whether ranks are placed on each host's processors (so every daemon
 * reports them, with hwloc): a resource map, pe, a binding, or
 * --report-bindings. */
inline bool places_cpus(const Options& o) { return o.cpu.needs_topology() || o.report_bindings; }

/* orcadvm start's command line: only the options that shape the daemons
 * (kDaemonOptions: hosts, settings, wire-up reports). Errors
 * (orcadvm/bad-option): a job's option, named as such; an unknown one; a
 * program (a DVM runs none of its own). */
Result<Options> parse_daemon_options(const std::vector<std::string>& args);
/* The option words parse_daemon_options takes. */
extern const std::vector<std::string> kDaemonOptions;
/* The options a job on a running DVM takes (check_dvm_job_options). */
extern const std::vector<std::string> kDvmJobOptions;
/* Whether `o` can run on a DVM, whose daemons already run: options that
 * only a starting daemon uses (hosts, --mca, reports, binding) cannot
 * reach them. Errors (orcarun/bad-option): the first such option, named,
 * and why. */
Status check_dvm_job_options(const Options& o);
/* The --help text. */
extern const char* const kUsage;

/* Every option word parse_options takes (each spelling), for suggestions
 * and for the test that each of them parses. */
const std::vector<std::string>& option_spellings();

/* The spelling of option_spellings() closest to `word` (a mistyped
 * option), or "" when none is close enough to be what was meant. */
std::string closest_option(const std::string& word);

}  // namespace orca::orcarun

#endif  // ORCA_TOOLS_ORCARUN_OPTIONS_H
