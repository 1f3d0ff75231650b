# orcarun helpers for shell tests; source after testcase.sh (and netns.sh
# for the namespace cases). Every orcarun runs with the build tree's
# components and help texts and no param files, so a tester's own
# settings never change a result.

ORCARUN="$ORCA_TEST_BUILDDIR/framework/tools/orcarun/orcarun"
ORCAD="$ORCA_TEST_BUILDDIR/framework/tools/orcad/orcad"
ORCA_ALL_COMPONENTS=$(find "$ORCA_TEST_BUILDDIR/components" -type d -name .libs | sort | tr '\n' ':')
ORCA_ALL_COMPONENTS=${ORCA_ALL_COMPONENTS%:}

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
    local pid stat
    for pid in $(pgrep -f -- '(^|/)(lt-)?(orcad|orcarun)( |$)' || true); do
        [ "$pid" = "$$" ] && continue
        stat=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || continue
        [ "$stat" = Z ] && continue
        echo "$pid $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"
    done
}

# processes_with_marker MARKER: live processes whose environment holds
# MARKER (a case sets ORCA_TEST_MARKER=<unique> on orcarun; every daemon
# and rank inherits it on plm/local and netns agents).
processes_with_marker() {
    local marker=$1 pid stat
    for pid in $(grep -lsa -- "ORCA_TEST_MARKER=$marker" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3); do
        [ "$pid" = "$$" ] && continue
        stat=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || continue
        [ "$stat" = Z ] && continue
        echo "$pid $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"
    done
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

# orcad_pid MARKER VPID: the pid of the live orcad of daemon VPID among
# the processes of MARKER on this host (plm/local), told by its usock
# listener, named @orca/JOB.VPID/PID/...; nothing when there is none.
orcad_pid() {
    local pid
    for pid in $(processes_with_marker "$1" | awk '$2 ~ /(^|\/)(lt-)?orcad$/ { print $1 }'); do
        if grep -q "@orca/[0-9]*\.$2/$pid/" /proc/net/unix 2>/dev/null; then echo "$pid"; fi
    done
}

# process_alive PID: PID exists and is not a zombie (dead, not yet reaped:
# the init of some containers reaps orphans late).
process_alive() {
    local stat
    stat=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
    [ -n "$stat" ] && [ "$stat" != Z ]
}
