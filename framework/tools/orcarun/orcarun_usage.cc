// orcarun --help: every option, each spelling the parser takes that users
// of other launchers look for (orcarun_options.cc), and what it does.
// The man page names each of these options (test/framework/tools/man_pages_test.sh).
#include "orcarun_options.h"

namespace orca::orcarun {

const char* const kUsage =
    "Usage: orcarun [options] CMD [ARGS...]\n"
    "Starts one orcad per host, wires them up over the oob, runs CMD as N\n"
    "processes and forwards their output. Options end at the first word\n"
    "that is not an option (or at --).\n"
    "\n"
    "  --host, -hosts H[:SLOTS],...\n"
    "                         hosts to run on (hostlist syntax: node[01-04]; [ADDR]:SLOTS for an IPv6\n"
    "                         address); default: the nodes of the Slurm allocation orcarun runs in\n"
    "                         (salloc, sbatch), whose daemons srun starts (--mca plm rsh: ssh), else\n"
    "                         this host\n"
    "  --hostfile, -f, --machinefile FILE\n"
    "                         one host per line, \"host slots=N\" or \"host:N\", # comments\n"
    "  -n, --np N             processes in all (default: one per slot)\n"
    "  --map-by node|slot|ppr:N:node\n"
    "                         spread ranks across hosts, fill each host first (default: slot), or\n"
    "                         put N on every host\n"
    "  -N, --npernode, -ppn N N ranks on every host (-n: the first that many of those)\n"
    "  --display-map          print which ranks run on which host before they start\n"
    "  --oversubscribe        allow more processes than slots\n"
    "  --tag-output, -l, --prepend-rank\n"
    "                         prefix every output line with [rank]\n"
    "  --timestamp-output     prefix every output line with [HH:MM:SS.mmm], the time orcarun printed it\n"
    "  --output-filename DIR  write each rank's output to DIR/rank.N/stdout and DIR/rank.N/stderr\n"
    "                         instead of orcarun's own\n"
    "  --merge-stderr-to-stdout\n"
    "                         the ranks' stderr goes to stdout, in the order they wrote both\n"
    "  --wdir, -wdir DIR      the ranks' working directory (relative: to this one), which every host\n"
    "                         must have; without it, this directory on hosts that have it, else the\n"
    "                         daemon's\n"
    "  --bind-to none         ranks are not bound to CPUs (the only value: binding is not done yet)\n"
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

}  // namespace orca::orcarun
