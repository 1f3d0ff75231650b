# orcarun end to end with plm/local, against the build tree: what the
# suites test/framework/tools/orcarun_{mapping,io,lifecycle,command_line}_test.sh
# share. Their daemons run on this host, as one node or as simulated nodes
# (plm_local_num_nodes), so no root and no namespaces are needed. Every
# case checks exact outputs and exit statuses, and that no orcad, rank or
# helper of the case is left once it is over.
#
# Sourced by a suite, not run: it sources testcase.sh, tool_output.sh and
# orcarun.sh beside it, checks that orcarun and orcad are built, and gives
# the host's name and cores, each case's directory and marker (setup,
# done_case), orcarun in the foreground (orc, orc_stdin) or background
# (start, finish), the checks of its output (expect_*), and
# run_orcarun_suite, which runs the suite's cases.
_orcarun_local_lib=$(dirname "${BASH_SOURCE[0]}")
. "$_orcarun_local_lib/testcase.sh"
. "$_orcarun_local_lib/tool_output.sh"

. "$_orcarun_local_lib/orcarun.sh"
for program in "$ORCARUN" "$ORCAD"; do
    if [ ! -x "$program" ]; then
        echo "$program is not built" >&2
        exit 1
    fi
done

# This host's name as orcarun and orcad see it (gethostname); simulated
# node i is "$HOST#i".
HOST=$(uname -n)
HOST_RE=$(sed 's/[][\.*^$+?(){}|]/\\&/g' <<<"$HOST")  # for grep -E
# Cores as orcarun counts them (sysconf(_SC_NPROCESSORS_ONLN)): the slots
# of this host, divided among the simulated nodes.
CORES=$(getconf _NPROCESSORS_ONLN)

# --- the case's directory, marker and clean-up ----------------------------------

# setup: the case's directory T and marker M (test/lib/orcarun.sh).
setup() { local_case_setup orcarun-test; }

# done_case: nothing of the case is left (within 10 s).
done_case() {
    expect_nothing_left "$M" 10
}

# orc ARGS...: orcarun ARGS in the foreground (run_orcarun: a hang guard), stdin
# from /dev/null; stdout in $T/out, stderr in $T/err, exit status in $status.
orc() {
    status=0
    ORCA_TEST_MARKER="$M" run_orcarun "$T/out" "$T/err" "$@" || status=$?
}

# orc_stdin FILE ARGS...: as orc, with stdin from FILE (a file, or a FIFO
# a producer writes).
orc_stdin() {
    local input=$1; shift
    status=0
    orcarun_env ORCA_TEST_MARKER="$M" timeout -k 5 60 "$ORCARUN" "$@" <"$input" >"$T/out" 2>"$T/err" || status=$?
}

# start ARGS...: orcarun ARGS in the background (orcarun_start), output to
# $T/out and $T/err; finish [SECONDS] waits for it and sets $status.
start() {
    ORCA_TEST_MARKER="$M" orcarun_start "$T/out" "$T/err" "$@"
}

finish() {
    status=0
    orcarun_wait "${1:-60}" || status=$?
}

# expect_failure: a non-zero status of orcarun's own, not a signal's or
# the hang guard's (124 and above).
expect_failure() {
    if [ "$status" -eq 0 ] || [ "$status" -ge 124 ]; then
        show_output
        fail "expected orcarun to fail with a status of its own (1..123), got $status"
    fi
}

# expect_stdout TEXT: stdout is exactly TEXT and a newline.
expect_stdout() {
    if ! printf '%s\n' "$1" | cmp -s - "$T/out"; then
        show_output
        fail "stdout is not exactly:
$1"
    fi
}

# expect_sorted_stdout LINES: stdout's lines, sorted, are LINES sorted.
expect_sorted_stdout() {
    if [ "$(sort "$T/out")" != "$(sort <<<"$1")" ]; then
        show_output
        fail "stdout does not have exactly these lines (in any order):
$1"
    fi
}

expect_no_stdout() {
    if [ -s "$T/out" ]; then
        show_output
        fail "stdout is not empty"
    fi
}

# expect_match out|err REGEX: a line matches the extended REGEX.
expect_match() {
    if ! grep -qE -- "$2" "$T/$1"; then
        show_output
        fail "no line of std$1 matches /$2/"
    fi
}

# expect_no_match out|err REGEX: no line matches the extended REGEX.
expect_no_match() {
    if grep -qE -- "$2" "$T/$1"; then
        show_output
        fail "a line of std$1 matches /$2/"
    fi
}

# await_ranks COUNT: waits until ranks 0..COUNT-1 have each created
# $T/up.RANK (the commands below do so before they settle).
await_ranks() {
    local r
    for ((r = 0; r < $1; r++)); do await_file "$T/up.$r"; done
}

# A rank that says it is up, then sleeps as itself (exec: a signal to the
# rank is a signal to sleep).
SLEEPER='touch "$0/up.$ORCA_RANK"; exec sleep 100'

# by_slot_counts NODES RANKS: how many ranks --map-by slot puts on each of
# NODES simulated nodes (each with max(1, CORES / NODES) slots): full
# passes over all slots, then the rest fills the nodes in order.
by_slot_counts() {
    local nodes=$1 ranks=$2 slots i extra
    slots=$((CORES / nodes)); [ "$slots" -ge 1 ] || slots=1
    local per_pass=$((nodes * slots))
    local passes=$((ranks / per_pass)) rest=$((ranks % per_pass))
    for ((i = 0; i < nodes; i++)); do
        extra=$((rest < slots ? rest : slots))
        rest=$((rest - extra))
        echo $((passes * slots + extra))
    done
}

# --- running the suite ---------------------------------------------------------

# run_orcarun_suite [CASE...]: runs the CASEs named (by hand: bash SUITE
# CASE...), or with none every case of the suite's CASES array, in order,
# each as "Orcarun.CASE" (the name the test summary counts it by); then
# finish_cases, whose status is the suite's. Called last: run_orcarun_suite "$@".
run_orcarun_suite() {
    local c
    [ $# -gt 0 ] || set -- "${CASES[@]}"
    for c in "$@"; do run_case "Orcarun.$c" "$c"; done
    finish_cases
}
