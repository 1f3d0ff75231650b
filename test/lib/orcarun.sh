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
