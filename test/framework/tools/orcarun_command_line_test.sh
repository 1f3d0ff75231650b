#!/bin/bash
# orcarun end to end with plm/local (test/lib/orcarun_local.sh): what the
# command line asks for and what it gets wrong. A daemon program that is
# missing, a job too big for this host or for orcarun's descriptors,
# --timing and the data-plane round, --version, --help, mistakes on the
# command line (a message, a failure, nothing started) and a setting
# nothing claims. Every case checks exact outputs and exit statuses, and
# that nothing of it is left once it is over.
. "$(dirname "$0")/../../lib/orcarun_local.sh"

# ---------------------------------------------------------------------------------
# 1. Refused before the job runs: the daemon program, the limits of this host

# A daemon program that does not exist: the message says so, nothing is left.
missing_daemon_program() {
    setup
    orc --mca plm_base_daemon "$T/no-orcad" --mca plm_local_num_nodes 2 -n 2 true
    expect_failure
    expect_match err "^orcarun: the daemon on $HOST_RE#[12] \(vpid [12]\) failed: its agent \(local\) exited with status 127 before the daemon reported"
    expect_line err "cannot run $T/no-orcad: No such file or directory"
    done_case
}

# A job this host cannot hold is refused before anything starts, naming
# the limit: 65536 simulated daemons need more task ids than kernel.pid_max
# (32768 on most machines) or more memory than there is. Before, orcarun
# started thousands of them, grew to gigabytes and crashed.
job_far_too_big_is_refused_at_once() {
    setup
    orc --mca plm_local_num_nodes 65536 true
    expect_status 1
    expect_match err "^orcarun: the job cannot fit this host: 65536 daemons \(65536 on this host, with 65536 ranks there\).* need [0-9]+ where (kernel\.pid_max|kernel\.threads-max|the memory available)"
    expect_line err "Nothing was started. To run it, run fewer daemons on this host (plm_local_num_nodes), or $(grep -oE 'raise it: sysctl kernel\.(pid_max|threads-max)=N|free memory' "$T/err" | head -1)."
    expect_no_stdout
    done_case
}

# With `ulimit -n 512`, 1000 daemons need more descriptors than orcarun
# may open: refused naming RLIMIT_NOFILE and what to do. A soft limit
# below the need with a hard one above it is raised instead (the job runs).
descriptor_limit_is_named() {
    setup
    status=0
    ( ulimit -n 512; ORCA_TEST_MARKER="$M" run_orcarun "$T/out" "$T/err" --mca plm_local_num_nodes 1000 true ) || status=$?
    expect_status 1
    expect_match err "^orcarun: the job cannot fit this host: 1000 daemons .* need [0-9]+ where RLIMIT_NOFILE \(open files of orcarun; hard limit 512\) leaves 512\.$"
    expect_match err "raise it \(ulimit -n N"
    status=0
    ( ulimit -S -n 64; ORCA_TEST_MARKER="$M" run_orcarun "$T/out" "$T/err" --mca plm_local_num_nodes 30 true ) || status=$?
    expect_status 0
    # The daemon inherits the limit: 2000 ranks of one daemon need more
    # pipes than it leaves, refused before any starts (it started ~250,
    # then failed at the next pipe).
    status=0
    ( ulimit -n 512; ORCA_TEST_MARKER="$M" run_orcarun "$T/out" "$T/err" -n 2000 --oversubscribe \
        sh -c 'touch "$0/rank.$ORCA_RANK"' "$T" ) || status=$?
    expect_status 1
    expect_line err "orcarun: the job cannot fit this host: 2000 ranks of one daemon on this host need 6064 where RLIMIT_NOFILE (open files of each daemon, as of orcarun; hard limit 512) leaves 512."
    [ ! -e "$T/rank.0" ] || fail "a rank started although its daemon could not hold them"
    # A soft limit below the need, a hard one above it: raised, the job runs.
    status=0
    ( ulimit -S -n 256; ORCA_TEST_MARKER="$M" run_orcarun "$T/out" "$T/err" -n 200 --oversubscribe true ) || status=$?
    expect_status 0
    done_case
}

# ---------------------------------------------------------------------------------
# 2. --timing, --version, --help

timing_phases() {
    setup
    # `true` cannot read the data-plane variables: the round is asked for.
    orc --timing --mca orcarun_data_plane_round always -n 1 true
    expect_status 0
    expect_line err "timing (ms since orcarun started):"
    local phase
    for phase in "agents started" "first daemon up" "all daemons up" "data plane chosen" "command started" "command ended" \
        "teardown done"; do
        expect_match err "^  $phase +[0-9]+\.[0-9]\$"
    done
    sed -n '/^timing (ms/,/^orcad start-up/p' "$T/err" | grep '^  ' >"$T/phases"
    [ "$(wc -l <"$T/phases")" -eq 7 ] || { show_output; fail "expected seven phase lines"; }
    # The phases come in order.
    awk '{ if ($NF + 0 < last) bad = 1; last = $NF + 0 } END { exit bad }' "$T/phases" ||
        { show_output; fail "the phases are not in order"; }
    # Then the daemon's own start-up, phase by phase (median / slowest).
    expect_line err "orcad start-up (ms, median / slowest of 1 daemon):"
    for phase in "agent to main" "bootstrap" "settings and components" "frameworks" "oob open" "parent answered"; do
        expect_match err "^  $phase +[0-9]+\.[0-9] / +[0-9]+\.[0-9]\$"
    done
    done_case
}

# The data-plane round only for ranks that can read its variables: none
# for `true` (said under --timing, and no interface variable reaches the
# rank), one for `sh` (it may run anything), and one whenever
# --report-routes asks for it.
data_plane_round_only_where_ranks_can_use_it() {
    setup
    orc --timing -n 1 true
    expect_status 0
    expect_no_match err '^  data plane chosen'
    expect_match err '^no data-plane round: /.*/true links no MPI, PMI or network library and cannot run or load another program \(orcarun_data_plane_round=auto\); set orcarun_data_plane_round=always'
    orc --timing -n 1 sh -c 'echo "gloo=${GLOO_SOCKET_IFNAME-unset}"'
    expect_status 0
    expect_match err '^  data plane chosen +[0-9]+\.[0-9]$'
    expect_no_match err '^no data-plane round'
    expect_stdout "gloo=lo"
    orc --timing --report-routes -n 1 true
    expect_status 0
    expect_match err '^  data plane chosen +[0-9]+\.[0-9]$'
    orc --timing --mca orcarun_data_plane_round never -n 1 sh -c 'echo "gloo=${GLOO_SOCKET_IFNAME-unset}"'
    expect_status 0
    expect_no_match err '^  data plane chosen'
    expect_stdout "gloo=unset"
    done_case
}

version_option() {
    setup
    local v
    v=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$ORCA_TEST_BUILDDIR/config.h")
    [ -n "$v" ] || fail "no PACKAGE_VERSION in $ORCA_TEST_BUILDDIR/config.h"
    orc --version
    expect_status 0
    expect_stdout "orcarun (Orca) $v"
    expect_no_stderr
    done_case
}

help_option() {
    setup
    orc --help
    expect_status 0
    expect_line out "Usage: orcarun [options] CMD [ARGS...] [: -n N [-x V] [-env V X] [--wdir D] CMD2 [ARGS...]]..."
    expect_line out "       orcarun [options] --app FILE"
    local option
    for option in --host --hostfile "-n, --np N" --map-by --oversubscribe --tag-output --stdin --timeout --timing \
                  --report-routes -x -genv -genvlist --mca --tune; do
        expect_match out "^  $option"
    done
    expect_no_stderr
    done_case
}

# ---------------------------------------------------------------------------------
# 3. Mistakes on the command line: a message, a failure, nothing started

no_command() {
    setup
    orc -n 2
    expect_failure
    expect_text err "orcarun: a command to run is needed, for example:"
    expect_line err "  orcarun -n 2 hostname"
    done_case
}

zero_processes() {
    setup
    orc -n 0 true
    expect_failure
    expect_text err "the option -n cannot be used as given: 0 processes is no job"
    done_case
}

hostfile_syntax_error() {
    setup
    printf '# the hosts\nlocalhost slots=2\nnode[1- slots=2\n' >"$T/hosts"
    orc --hostfile "$T/hosts" true
    expect_failure
    expect_text err "$T/hosts:3"
    expect_text err "the '[' is never closed by a ']'"
    printf 'localhost slots=x\n' >"$T/hosts"
    orc --hostfile "$T/hosts" true
    expect_failure
    expect_text err "hostfile $T/hosts, line 1: slots=x is invalid"
    done_case
}

unknown_plm_component() {
    setup
    orc --mca plm nosuch true
    expect_failure
    expect_text err "there is no component named 'nosuch'"
    expect_line err "  Components of plm found: local, rsh, slurm"
    done_case
}

local_plm_for_another_host() {
    setup
    orc --mca plm local --host nosuchhost true
    expect_failure
    expect_text err "orcarun: no plm component can start a daemon on nosuchhost:"
    expect_line err "  plm/local: nosuchhost is not this host ($HOST); plm/local starts daemons here only"
    done_case
}

# ---------------------------------------------------------------------------------
# 4. Settings

# A setting nothing claims (from the environment) is orcarun's warning,
# once, not every daemon's.
unknown_setting_warned_once() {
    setup
    ORCA_MCA_nosuch_var=3 orc --mca plm_local_num_nodes 4 -n 4 true
    expect_status 0
    [ "$(grep -c 'no MCA variable is named "nosuch_var" (from the environment)' "$T/err")" -eq 1 ] ||
        { show_output; fail "the unknown setting was not warned about exactly once"; }
    done_case
}

# Open MPI's own -mca settings, as Horovod's wrapper passes them, reach
# every rank as OMPI_MCA_<name> (said at mca_base_verbose 1, no warning);
# -x wins for the same variable.
open_mpi_mca_settings_reach_the_ranks() {
    setup
    orc -mca pml ob1 -mca btl ^openib -x OMPI_MCA_coll=basic --mca coll tuned --mca plm_local_num_nodes 2 -n 2 \
        --oversubscribe sh -c 'echo "$OMPI_MCA_pml $OMPI_MCA_btl $OMPI_MCA_coll"'
    expect_status 0
    expect_stdout "ob1 ^openib basic
ob1 ^openib basic"
    expect_no_stderr
    orc --mca mca_base_verbose 1 -mca pml ob1 -n 1 true
    expect_match err "orcarun: --mca pml names no framework of Orca's: the ranks get it as OMPI_MCA_pml$"
    done_case
}

# A --mca name of one of Orca's frameworks that no variable has is a typo:
# an error that suggests the name meant, and nothing starts.
mistyped_orca_setting_is_an_error() {
    setup
    orc --mca oob_tcp_if_inclde lo -n 1 sh -c 'touch "$0/ran"' "$T"
    expect_failure
    expect_line err "orcarun: no MCA variable of Orca's is named \"oob_tcp_if_inclde\" (from the command line)."
    expect_match err "^Did you mean oob_tcp_if_include\?"
    [ ! -e "$T/ran" ] || fail "a rank started"
    done_case
}

# ---------------------------------------------------------------------------------
# 5. The ranks' working directory, and what users of mpirun and mpiexec type

# --wdir: a relative directory is taken from orcarun's own, an absolute one
# as it is; every rank runs there. Without it, ranks run in orcarun's.
working_directory_option() {
    setup
    mkdir -p "$T/run/sub" || fail "mkdir"
    cd "$T/run" || fail "cd"
    orc --mca plm_local_num_nodes 2 -n 2 --oversubscribe --wdir sub pwd
    expect_status 0
    expect_stdout "$T/run/sub
$T/run/sub"
    orc -n 1 -wdir "$T" pwd
    expect_status 0
    expect_stdout "$T"
    orc -n 1 pwd
    expect_stdout "$T/run"
    cd / || fail "cd /"
    done_case
}

# A --wdir that a host cannot enter ends the job at wire-up with one
# message naming the directory and the host, and no rank starts (before,
# ranks started silently in the daemon's directory).
working_directory_missing_starts_nothing() {
    setup
    orc --mca plm_local_num_nodes 3 -n 3 --oversubscribe --wdir "$T/nowhere" sh -c 'touch "$0/ran.$ORCA_RANK"' "$T"
    expect_failure
    expect_line err "orcarun: the ranks' working directory $T/nowhere (--wdir) cannot be entered on"
    expect_match err "^$HOST_RE#[1-3]: No such file or directory\. No rank was started: create the directory on every host of$"
    [ "$(grep -c "cannot be entered" "$T/err")" -eq 1 ] || { show_output; fail "not exactly one message"; }
    ! ls "$T"/ran.* >/dev/null 2>&1 || fail "a rank started: $(ls "$T")"
    expect_no_stdout
    # A file is not a directory (not "Permission denied", which access()
    # alone says of a file, even to root).
    touch "$T/afile"
    orc --mca plm_local_num_nodes 1 -n 1 --wdir "$T/afile" sh -c 'touch "$0/ran.$ORCA_RANK"' "$T"
    expect_failure
    expect_line err "orcarun: the ranks' working directory $T/afile (--wdir) cannot be entered on"
    expect_match err "^$HOST_RE(#1)?: Not a directory\. No rank was started"
    ! ls "$T"/ran.* >/dev/null 2>&1 || fail "a rank started: $(ls "$T")"
    done_case
}

# Spellings of mpirun and mpiexec (Hydra's -f file of host:N lines, -np,
# -l, -bind-to, -map-by) run the job; a typo names the option that was
# meant, and another launcher's option we lack is named as such.
other_launchers_spellings() {
    setup
    printf '%s:2\n' "$HOST" >"$T/hosts"
    orc -f "$T/hosts" -np 2 -l --bind-to none echo hi
    expect_status 0
    expect_sorted_stdout "[0] hi
[1] hi"
    orc --oversubcribe -n 1 true
    expect_failure
    expect_text err "orcarun: the option --oversubcribe cannot be used as given: it is not an orcarun option; did you mean --oversubscribe?"
    orc --cpu-set 0 -n 1 true
    expect_failure
    expect_text err "orcarun does not have this option of mpirun and mpiexec yet"
    expect_no_stdout
    orc -bind-to core -map-by core -n 1 -report-bindings true
    expect_status 0
    expect_match err "^orcarun: rank 0 on $HOST_RE \(daemon 1\): bound to core 0 "
    done_case
}

# MPMD: programs after ':' (or the lines of --app / -configfile) share one
# job, ranks numbered across them; each has its own -n, -x, -env and
# --wdir on top of the job's; each rank knows its program (ORCA_APPNUM).
several_programs_in_one_job() {
    setup
    mkdir "$T/b"
    local show='echo "$0 $ORCA_RANK/$ORCA_SIZE app=$ORCA_APPNUM job=${JOBV-} own=${OWNV-} dir=$(pwd -P)"'
    orc --oversubscribe -x JOBV=j -n 1 sh -c "$show" first : -n 2 -x OWNV=o --wdir "$T/b" sh -c "$show" second \
        : -np 1 -env OWNV e sh -c "$show" third
    expect_status 0
    local here; here=$(pwd -P)
    expect_sorted_stdout "first 0/4 app=0 job=j own= dir=$here
second 1/4 app=1 job=j own=o dir=$(cd "$T/b" && pwd -P)
second 2/4 app=1 job=j own=o dir=$(cd "$T/b" && pwd -P)
third 3/4 app=2 job=j own=e dir=$here"
    # The same job from a file, one program a line (Hydra's -configfile too).
    printf '%s\n' "# two programs" "-n 1 sh -c 'echo one \$ORCA_APPNUM'" "-n 1 sh -c 'echo two \$ORCA_APPNUM'" >"$T/apps"
    orc --oversubscribe --app "$T/apps"
    expect_status 0
    expect_sorted_stdout "one 0
two 1"
    orc --oversubscribe -configfile "$T/apps"
    expect_status 0
    # One clear message each, and nothing starts.
    orc -n 1 true : ./b
    expect_failure
    expect_text err "each program of an MPMD job needs its own -n; program 2 (./b) has none"
    orc -n 1 true : -n 1 --host "$HOST" true
    expect_failure
    expect_text err "a program of an MPMD job takes only -n, -x, -env and --wdir"
    printf '%s\n' "-n 1 ./a" "-n 1 'unclosed" >"$T/bad"
    orc --app "$T/bad"
    expect_failure
    expect_text err "$T/bad, line 2: a ' is not closed."
    orc --app "$T/none"
    expect_failure
    expect_text err "cannot read the programs' file $T/none: No such file or directory."
    # A program's own --wdir missing on the host: its rank does not start, named with its host.
    orc --oversubscribe -n 1 true : -n 1 --wdir "$T/missing" true
    expect_status 127
    expect_text err "rank 1 on $HOST could not be started: true: cannot enter the working directory $T/missing"
    done_case
}

CASES=(missing_daemon_program job_far_too_big_is_refused_at_once descriptor_limit_is_named timing_phases
       data_plane_round_only_where_ranks_can_use_it version_option help_option no_command zero_processes
       hostfile_syntax_error unknown_plm_component local_plm_for_another_host unknown_setting_warned_once
       working_directory_option working_directory_missing_starts_nothing other_launchers_spellings
       open_mpi_mca_settings_reach_the_ranks mistyped_orca_setting_is_an_error several_programs_in_one_job)

# Arguments, if any, name the cases to run (by hand: bash orcarun_command_line_test.sh CASE...).
run_orcarun_suite "$@"
