# orcarun helpers for shell tests; source after testcase.sh (and netns.sh
# for the namespace cases). Every orcarun runs with the build tree's
# components and help texts and no param files, so a tester's own
# settings never change a result.

# `make check` sets these (AM_TESTS_ENVIRONMENT in test/Makefile.inc).
if [ -z "${ORCA_TEST_BUILDDIR:-}" ] || [ -z "${ORCA_TEST_SRCDIR:-}" ]; then
    echo "ORCA_TEST_BUILDDIR and ORCA_TEST_SRCDIR must be set (run via make check)" >&2
    exit 1
fi
ORCARUN="$ORCA_TEST_BUILDDIR/framework/tools/orcarun/orcarun"
ORCAD="$ORCA_TEST_BUILDDIR/framework/tools/orcad/orcad"
ORCA_ALL_COMPONENTS=$(find "$ORCA_TEST_BUILDDIR/components" -type d -name .libs | sort | tr '\n' ':')
ORCA_ALL_COMPONENTS=${ORCA_ALL_COMPONENTS%:}

# builtin_components_configured: true when orcarun and orcad were built
# with their components linked in (configure --enable-builtin-components,
# the default): they then map no component file of the tree but pmi/pmix's.
builtin_components_configured() {
    grep -q '^#define ORCA_BUILTIN_COMPONENTS 1' "$ORCA_TEST_BUILDDIR/config.h"
}

# daemon_running RANK_NAME: the pid of a daemon (a child of the case's
# orcarun, $ORCARUN_PID, on plm/local) once one of its ranks runs as
# RANK_NAME, waiting up to 10 s; "" when none does. Everything a daemon
# loads for its job is loaded by then.
daemon_running() {
    local i pid
    for ((i = 0; i < 200; i++)); do
        pid=$(pgrep -x -P "$ORCARUN_PID" orcad | head -n 1 || true)
        if [ -n "$pid" ] && pgrep -x -P "$pid" "$1" >/dev/null; then
            echo "$pid"
            return 0
        fi
        kill -0 "$ORCARUN_PID" 2>/dev/null || break
        sleep 0.05
    done
}

# shared_objects_of PID: the shared objects PID maps, one a line.
shared_objects_of() { awk '$6 ~ /\.so/ { print $6 }' "/proc/$1/maps" | sort -u; }

# orcarun_env CMD...: CMD with the test environment orcarun and its
# daemons need (the settings reach every daemon through orcarun).
orcarun_env() {
    env ORCA_MCA_mca_base_component_path="$ORCA_ALL_COMPONENTS" \
        ORCA_MCA_mca_base_help_path="$ORCA_TEST_SRCDIR/framework/help" \
        ORCA_MCA_mca_base_param_files=none ORCA_MCA_mca_base_override_param_file=none \
        "$@"
}

# run_orcarun OUT ERR ARGS...: orcarun ARGS in the foreground (bounded by
# `timeout 120`), stdout to OUT and stderr to ERR; returns its status.
run_orcarun() {
    local out=$1 err=$2; shift 2
    orcarun_env timeout -k 5 120 "$ORCARUN" "$@" >"$out" 2>"$err" </dev/null
}

# orca_processes: the Orca daemons and launchers still alive anywhere on
# this machine (zombies are dead and not counted: the init of some
# containers reaps orphans late), one "pid comm args" line each.
orca_processes() {
    local pid
    for pid in $(pgrep -f -- '(^|/)(lt-)?(orcad|orcarun)( |$)' || true); do
        [ "$pid" = "$$" ] || process_line "$pid" || true
    done
}

# process_line PID: "PID ARGS..." of a live process; fails for one gone or
# a zombie. Builtins only (no awk, tr or cut): on a loaded machine each
# fork cost ~80 ms, and cases poll these scans until their processes are
# gone.
process_line() {
    local args
    process_alive "$1" || return 1
    mapfile -d '' -t args 2>/dev/null <"/proc/$1/cmdline" || return 1
    echo "$1 ${args[*]}"
}

# processes_with_marker MARKER: live processes whose environment holds
# MARKER (a case sets ORCA_TEST_MARKER=<unique> on orcarun; every daemon
# and rank inherits it on plm/local and netns agents).
processes_with_marker() {
    local marker=$1 file pid
    for file in $(grep -lsa -- "ORCA_TEST_MARKER=$marker" /proc/[0-9]*/environ 2>/dev/null); do
        pid=${file#/proc/}
        pid=${pid%/environ}
        [ "$pid" = "$$" ] || process_line "$pid" || true
    done
}

# pids_named MARKER REGEX: the live processes of MARKER whose name
# (/proc/PID/comm) matches the extended REGEX, one pid a line. By name, not
# command line: orcad's keeper keeps orcad's command line but is named
# orcad-keeper.
pids_named() {
    local pid comm
    for pid in $(processes_with_marker "$1" | awk '{ print $1 }'); do
        read -r comm 2>/dev/null <"/proc/$pid/comm" || continue
        [[ $comm =~ $2 ]] && echo "$pid"
    done
    return 0
}

# expect_nothing_left MARKER [SECONDS]: within SECONDS (default 10), no
# process of the case is left: no orcad, no rank, no agent.
expect_nothing_left() {
    local marker=$1 limit=${2:-10} i left
    for ((i = 0; i < limit * 10; i++)); do
        left=$(processes_with_marker "$marker")
        [ -z "$left" ] && return 0
        sleep 0.1
    done
    fail "processes left after $limit s:
$left"
}

# orca_listeners_in PREFIX HOST: TCP listeners and Unix sockets of orcad or
# orcarun inside a host (must be none once a job is over).
orca_listeners_in() {
    "$NETCLUSTER" exec "$1" "$2" ss -Hlpn 2>/dev/null | grep -E '"(lt-)?(orcad|orcarun)"' || true
}

# orcarun_start OUT ERR ARGS...: orcarun ARGS in the background, with the
# environment of orcarun_env and whatever the caller puts before the call
# (ORCA_TEST_MARKER=... orcarun_start ...); stdout to OUT, stderr to ERR,
# stdin from $ORCARUN_STDIN (default /dev/null). Sets ORCARUN_PID to the
# pid of orcarun itself (env and the libtool wrapper exec it), so that a
# signal sent there reaches orcarun, not a shell. SIGINT is set back to
# its default: bash starts the background commands of a script with
# SIGINT ignored, and orcarun would inherit that.
orcarun_start() {
    local out=$1 err=$2; shift 2
    ( exec env --default-signal=INT \
        ORCA_MCA_mca_base_component_path="$ORCA_ALL_COMPONENTS" \
        ORCA_MCA_mca_base_help_path="$ORCA_TEST_SRCDIR/framework/help" \
        ORCA_MCA_mca_base_param_files=none ORCA_MCA_mca_base_override_param_file=none \
        "$ORCARUN" "$@" <"${ORCARUN_STDIN:-/dev/null}" >"$out" 2>"$err" ) &
    ORCARUN_PID=$!
}

# orcarun_wait [SECONDS]: waits for the orcarun of orcarun_start, at most
# SECONDS (default 60: a hang guard, not a measurement); returns its exit
# status. One that still runs then is SIGKILLed and fails the case.
orcarun_wait() {
    local limit=${1:-60} i rc=0
    for ((i = 0; i < limit * 20; i++)); do
        kill -0 "$ORCARUN_PID" 2>/dev/null || break
        sleep 0.05
    done
    if kill -0 "$ORCARUN_PID" 2>/dev/null; then
        kill -KILL "$ORCARUN_PID" 2>/dev/null || true
        wait "$ORCARUN_PID" 2>/dev/null || true
        fail "orcarun still ran after $limit s"
    fi
    # (Braced: no "Killed" notice from bash when a case killed it.)
    { wait "$ORCARUN_PID" || rc=$?; } 2>/dev/null
    return "$rc"
}

# await_file PATH [SECONDS]: waits (hang guard, default 20 s) until PATH
# exists; fails if the orcarun of orcarun_start ended first or it never
# comes.
await_file() {
    local path=$1 limit=${2:-20} i
    for ((i = 0; i < limit * 20; i++)); do
        [ -e "$path" ] && return 0
        if [ -n "${ORCARUN_PID:-}" ] && ! kill -0 "$ORCARUN_PID" 2>/dev/null; then
            orcarun_wait 1 || true
            show_output
            fail "orcarun ended before $path appeared"
        fi
        sleep 0.05
    done
    show_output
    fail "$path did not appear within $limit s"
}

# orcad_pid MARKER VPID: the pid of the live orcad of daemon VPID among
# the processes of MARKER on this host (plm/local), told by its usock
# listener, named @orca/JOB.VPID/PID/...; nothing when there is none.
orcad_pid() {
    local pid
    for pid in $(processes_with_marker "$1" | awk '$2 ~ /(^|\/)(lt-)?orcad$/ { print $1 }'); do
        if grep -q "@orca/[0-9]*\.$2/$pid/" /proc/net/unix 2>/dev/null; then echo "$pid"; fi
    done
}

# orcad_vpids MARKER: the vpids of the live orcads of MARKER on this host,
# one a line, in order: as orcad_pid, with one pass over the processes and
# one over /proc/net/unix for all of them (a test polling four daemons
# every 50 ms otherwise scans /proc eight times per poll).
orcad_vpids() {
    local pids=" " job_vpid pid comm
    # By name first (/proc/PID/comm reads no memory of the process): the
    # environ of each process takes its memory map's lock, and on a loaded
    # machine reading every one took seconds.
    for pid in /proc/[0-9]*; do
        read -r comm 2>/dev/null <"$pid/comm" || continue
        [[ $comm =~ ^(lt-)?orcad$ ]] || continue
        grep -qsa -- "ORCA_TEST_MARKER=$1" "$pid/environ" && pids+="${pid#/proc/} "
    done
    [ "$pids" != " " ] || return 0
    grep -oE '@orca/[0-9]*\.[0-9]+/[0-9]+/' /proc/net/unix 2>/dev/null |
        while IFS=/ read -r _ job_vpid pid _; do
            [[ $pids == *" $pid "* ]] && echo "${job_vpid#*.}"
        done | sort -nu
}

# check_numbered_lines FILE RANKS LINES: every line is "[r] r i", each
# rank's i goes 0, 1, ... in order and ends at LINES; prints what is wrong.
check_numbered_lines() {
    awk -v ranks="$2" -v lines="$3" '
        $0 !~ /^\[[0-9]+\] [0-9]+ [0-9]+$/ { if (bad++ < 5) print "torn or foreign line " NR ": " substr($0, 1, 80); next }
        { r = substr($1, 2, length($1) - 2)
          if ($2 != r || $3 != next_[r] + 0) { if (bad++ < 5) print "line " NR " out of order: " $0 }
          next_[r] = $3 + 1 }
        END { for (r = 0; r < ranks; r++) if (next_[r] + 0 != lines) { bad++; print "rank " r ": " next_[r] + 0 " lines, not " lines }
              exit bad > 0 }' "$1"
}

# process_alive PID: PID exists and is not a zombie (dead, not yet reaped:
# the init of some containers reaps orphans late).
process_alive() {
    local stat
    read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
    stat=${stat##*) }  # after "PID (comm) ", and comm may hold spaces
    [ -n "$stat" ] && [ "${stat%% *}" != Z ]
}

# ===============================================================================================
# orcarun and orcad on simulated hosts: the helpers the namespace tests
# (orcarun_netns_test.sh, orcarun_hostile_test.sh) share. They need
# netns.sh sourced first ($NETCLUSTER, the _oob_dirs and _oob_pids registries).

# --- orcarun inside a host ---------------------------------------------------------------------

# run_dir: makes this case's directory RUN_DIR (removed at teardown) and its
# marker RUN_MARKER: every process of the case (orcarun, agents, orcad,
# ranks) carries ORCA_TEST_MARKER=RUN_MARKER in its environment. Call it
# once at the start of a case.
run_dir() {
    RUN_DIR=$(mktemp -d)
    echo "$RUN_DIR" >>"$_oob_dirs"
    RUN_MARKER="orcarun-netns-$$-$BASHPID-$RANDOM"
    declare -gA _run_jobs=() _run_rc=()
    trap _run_reap EXIT
}

# The case's orcaruns are killed when it ends, however it ends; the
# cluster's teardown kills whatever is left in its namespaces.
_run_reap() {
    local name pid
    for name in "${!_run_jobs[@]}"; do
        pid=$(cat "$RUN_DIR/$name.pid" 2>/dev/null || true)
        [ -z "$pid" ] || kill -KILL "$pid" 2>/dev/null || true
        kill -KILL "${_run_jobs[$name]}" 2>/dev/null || true
        wait "${_run_jobs[$name]}" 2>/dev/null || true
    done
}

# agent PREFIX: the plm_rsh_agent that reaches the hosts of a cluster.
agent() { echo "$NETCLUSTER exec $1"; }

# agent_of_lost_daemons PREFIX: agent(), but in a sanitized build the
# daemons it starts skip LeakSanitizer's check at exit (orcarun keeps
# its own). For the cases where orcarun declares a daemon lost that,
# cut off, may be ending by itself at that moment: orcarun then sends
# its agent's group SIGCONT (a stopped daemon must run to end its ranks),
# and a SIGCONT discards a pending SIGSTOP, here the one of the ptrace
# attach with which the check stops the daemon. The check then waits
# for a stop that never comes, and the daemon never exits.
agent_of_lost_daemons() {
    if [ "${ORCA_TEST_SANITIZED:-no}" = yes ]; then
        echo "env ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 $NETCLUSTER exec $1"
    else
        agent "$1"
    fi
}

# orun_start NAME PREFIX HOST ARGS...: orcarun ARGS inside HOST, in the
# background, with the build tree's components and the case's marker; its
# output goes to $RUN_DIR/NAME.out and .err, the pid of orcarun itself
# (the libtool wrapper execs it) to $RUN_DIR/NAME.pid.
orun_start() {
    local name=$1 p=$2 h=$3; shift 3
    [ -n "${RUN_DIR:-}" ] || fail "orun_start before run_dir"
    orcarun_env ORCA_TEST_MARKER="$RUN_MARKER" "$NETCLUSTER" exec "$p" "$h" \
        sh -c 'echo $$ >"$0.tmp" && mv "$0.tmp" "$0"; echo $$ >>"$1"; shift; exec "$@"' \
        "$RUN_DIR/$name.pid" "$_oob_pids" "$ORCARUN" "$@" \
        </dev/null >"$RUN_DIR/$name.out" 2>"$RUN_DIR/$name.err" &
    _run_jobs[$name]=$!
}

# orun_pid NAME: the pid of orcarun NAME (waits for it).
orun_pid() {
    local i
    for ((i = 0; i < 200; i++)); do
        [ -s "$RUN_DIR/$1.pid" ] && { cat "$RUN_DIR/$1.pid"; return 0; }
        sleep 0.05
    done
    fail "orcarun $1 never started:
$(orun_output "$1")"
}

# orun_wait NAME [SECONDS]: waits (default 60 s) for orcarun NAME; returns
# its exit status (again when called again). Fails the case if it still runs.
orun_wait() {
    local name=$1 limit=${2:-60} pid=${_run_jobs[$1]:-} i
    if [ -z "$pid" ] && [ -n "${_run_rc[$name]:-}" ]; then return "${_run_rc[$name]}"; fi
    [ -n "$pid" ] || fail "no orcarun $name was started"
    for ((i = 0; i < limit * 20; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    kill -0 "$pid" 2>/dev/null && fail "orcarun $name still runs after $limit s:
$(orun_output "$name")
--- processes of the case:
$(processes_with_marker "$RUN_MARKER")"
    local rc=0
    wait "$pid" || rc=$?
    unset "_run_jobs[$name]"
    _run_rc[$name]=$rc
    return "$rc"
}

# orun_run NAME PREFIX HOST ARGS...: orcarun in the foreground (at most
# 60 s); returns its exit status.
orun_run() {
    local name=$1
    orun_start "$@"
    orun_wait "$name" 60
}

# orun_output NAME: what orcarun printed, stdout then stderr, for messages.
orun_output() {
    echo "--- orcarun $1 stdout:"
    tail -n 40 "$RUN_DIR/$1.out" 2>/dev/null || true
    echo "--- orcarun $1 stderr:"
    tail -n 80 "$RUN_DIR/$1.err" 2>/dev/null || true
}

# exit_text RC: how a process ended, for messages.
exit_text() {
    if [ "$1" -gt 128 ]; then echo "exit status $1 (signal $(kill -l $(($1 - 128)) 2>/dev/null || echo $(($1 - 128))))"
    else echo "exit status $1"; fi
}

# expect_ok NAME RC: orcarun NAME exited with status 0.
expect_ok() {
    [ "$2" -eq 0 ] || fail "orcarun $1 ended with $(exit_text "$2"), not 0:
$(orun_output "$1")"
}

# expect_failed NAME RC: orcarun NAME exited with a status other than 0.
expect_failed() {
    [ "$2" -ne 0 ] || fail "orcarun $1 exited with status 0 although its job failed:
$(orun_output "$1")"
}

# expect_stdout NAME EXPECTED: orcarun NAME's stdout, its lines sorted, is
# EXPECTED (lines, sorted).
expect_stdout() {
    local got; got=$(sort "$RUN_DIR/$1.out")
    [ "$got" = "$(sort <<<"$2")" ] || fail "orcarun $1 printed the wrong lines; expected:
$2
$(orun_output "$1")"
}

# expect_no_stdout NAME: orcarun NAME printed nothing on stdout.
expect_no_stdout() {
    [ ! -s "$RUN_DIR/$1.out" ] || fail "orcarun $1 printed output although no rank printed any:
$(orun_output "$1")"
}

# expect_err NAME REGEX: orcarun NAME's stderr has a line matching REGEX.
expect_err() {
    grep -qE -- "$2" "$RUN_DIR/$1.err" || fail "orcarun $1 printed no line matching /$2/ on stderr:
$(orun_output "$1")"
}

# await_err NAME REGEX [SECONDS]: waits (default 30 s) until orcarun NAME's
# stderr has a line matching REGEX.
await_err() {
    local name=$1 pattern=$2 limit=${3:-30} i
    for ((i = 0; i < limit * 20; i++)); do
        grep -qE -- "$pattern" "$RUN_DIR/$name.err" 2>/dev/null && return 0
        sleep 0.05
    done
    fail "orcarun $name printed no line matching /$pattern/ on stderr within $limit s:
$(orun_output "$name")"
}

# expect_clean PREFIX HOST...: no process of the case is left anywhere
# within 10 s, and no orcad or orcarun listens in any of the hosts.
expect_clean() {
    local p=$1 h l; shift
    expect_nothing_left "$RUN_MARKER" 10
    for h in "$@"; do
        l=$(orca_listeners_in "$p" "$h")
        [ -z "$l" ] || fail "listeners left in $h:
$l"
    done
}

# hosts_list FIRST LAST: "hFIRST,...,hLAST".
hosts_list() { local i out=; for ((i = $1; i <= $2; i++)); do out+=${out:+,}h$i; done; echo "$out"; }

# all_hosts K: "h1 h2 ... hK" (for expect_clean).
all_hosts() { local i; for ((i = 1; i <= $1; i++)); do echo "h$i"; done; }

# --- processes inside hosts --------------------------------------------------------------------

# pids_in PREFIX HOST COMM-REGEX: pids in a host whose command name matches.
pids_in() {
    local pid c
    for pid in $(ip netns pids "$1-$2" 2>/dev/null); do
        read -r c 2>/dev/null <"/proc/$pid/comm" || continue
        process_alive "$pid" || continue
        [[ $c =~ $3 ]] && echo "$pid"
    done
    return 0
}

# orcad_in PREFIX HOST: the pid of the orcad in a host (fails if none).
orcad_in() {
    local pids; pids=$(pids_in "$1" "$2" '^(lt-)?orcad$')
    [ -n "$pids" ] || fail "no orcad runs in $2"
    [ "$(wc -w <<<"$pids")" -eq 1 ] || fail "more than one orcad runs in $2: $pids"
    echo "$pids"
}

# await_ranks NAME PREFIX COMM HOST...: waits (30 s) until a process COMM
# (a rank) runs in every HOST; fails with orcarun NAME's output otherwise.
await_ranks() {
    local name=$1 p=$2 comm=$3 h i missing; shift 3
    for ((i = 0; i < 600; i++)); do
        missing=
        for h in "$@"; do [ -n "$(pids_in "$p" "$h" "^$comm\$")" ] || missing+=" $h"; done
        [ -z "$missing" ] && return 0
        kill -0 "${_run_jobs[$name]}" 2>/dev/null || break
        sleep 0.05
    done
    fail "no $comm rank runs in$missing:
$(orun_output "$name")"
}

# --- a case on this host (plm/local) ------------------------------------------------------------

# local_case_setup NAME: the case's directory T (removed when the case
# ends; also its HOME, so no ~/.orca of the tester's counts) and marker M
# (NAME-...): orcarun runs with ORCA_TEST_MARKER=$M, and every daemon and
# rank inherits it. No ORCA_MCA_* setting of the caller reaches orcarun.
# When the case ends, however it ends, whatever of it still runs is
# SIGKILLed by pid (local_case_cleanup).
_LOCAL_CASE_DIRS=()
_LOCAL_CASE_MARKERS=()
local_case_setup() {
    T=$(mktemp -d) || fail "mktemp -d failed"
    # The case's jobs keep what they leave in TMPDIR (a job directory of a
    # daemon killed with its keeper) under $T, which the cleanup removes.
    mkdir "$T/case-tmpdir" || fail "mkdir $T/case-tmpdir failed"
    export TMPDIR="$T/case-tmpdir"
    M="$1-$$-$BASHPID-$RANDOM"
    # A case may set up again for its next job: the cleanup removes every
    # directory and marker it had, not the last one only.
    _LOCAL_CASE_DIRS+=("$T")
    _LOCAL_CASE_MARKERS+=("$M")
    ORCARUN_PID=
    local v
    for v in $(compgen -e); do
        case $v in ORCA_MCA_*) unset "$v" ;; esac
    done
    export HOME="$T"
    trap local_case_cleanup EXIT
}

local_case_cleanup() {
    local pid
    # The case's own background jobs (orcarun, producers of stdin), then
    # whatever carries its marker; within the braces, bash's "Killed"
    # notices go nowhere.
    local marker
    {
        for pid in ${ORCARUN_PID:-} $(jobs -p); do kill -KILL "$pid" || true; done
        for marker in "${_LOCAL_CASE_MARKERS[@]}"; do
            for pid in $(processes_with_marker "$marker" | cut -d' ' -f1); do kill -KILL "$pid" || true; done
        done
        wait || true
    } 2>/dev/null
    rm -rf "${_LOCAL_CASE_DIRS[@]}"
}

# --- running a suite on namespace hosts ----------------------------------------------------------

# run_netns_suite SUITE [TOOL...]: runs every case of CASES as SUITE.<case>
# (FIGURE_CASE names it on its figure lines) and ends the script. Every
# case is skipped with the reason where network namespaces cannot be made
# or a TOOL is not installed.
run_netns_suite() {
    local suite=$1 why= tool c prog start; shift
    netns_available || why="cannot create network namespaces here (needs root and ip netns)"
    for tool in "$@"; do
        [ -n "$why" ] || command -v "$tool" >/dev/null || why="$tool is not installed"
    done
    if [ -n "$why" ]; then
        for c in "${CASES[@]}"; do skip_case "$suite.$c" "$why"; done
        exit 0
    fi
    for prog in "$ORCARUN" "$ORCAD"; do
        [ -x "$prog" ] || { echo "no $prog: build the tree (make) first" >&2; exit 1; }
    done
    start=$(date +%s)
    for c in "${CASES[@]}"; do FIGURE_CASE=$c run_case "$suite.$c" "$c"; done
    echo "$suite: ${#CASES[@]} cases in $(($(date +%s) - start)) s"
    finish_cases
}

# --- CPU binding (--bind-to, --report-bindings) ----------------------------------

# A rank's command that prints "RANK CPUS": its own affinity mask, as the
# kernel has it (taskset -p on itself).
MASK_COMMAND='echo "$ORCA_RANK $(taskset -pc $$ | sed "s/.*: //")"'

# cpu_words LIST: "0-2,5" (taskset's or orcarun's form) as "0 1 2 5".
cpu_words() {
    local run out=()
    for run in ${1//,/ }; do
        if [[ $run == *-* ]]; then out+=($(seq "${run%-*}" "${run#*-}")); else out+=("$run"); fi
    done
    echo "${out[*]}"
}

# rank_cpus FILE: each "RANK LIST" line of FILE as "RANK CPU CPU...".
rank_cpus() {
    local rank list
    while read -r rank list; do echo "$rank $(cpu_words "$list")"; done <"$1"
}

# reported_rank_cpus ERR: "RANK CPU CPU..." for each --report-bindings
# line of orcarun's stderr in ERR.
reported_rank_cpus() {
    sed -nE 's/^orcarun: rank ([0-9]+) on .*\(CPUs ([0-9,-]+)\).*$/\1 \2/p' "$1" | rank_cpus /dev/stdin
}
