# orcadvm end to end with plm/local (simulated nodes of this host): what
# the suites test/framework/tools/orcadvm_test.sh (the DVM itself) and
# orcadvm_jobs_test.sh (jobs on it) share.
#
# Sourced by a suite, not run: it sources orcarun_local.sh beside it
# (testcase.sh, tool_output.sh, orcarun.sh, the case's directory T and
# marker M), checks that orcadvm is built, and gives the case's contact
# directory (dvm_setup), orcadvm in the foreground (dvm) and a DVM kept in
# the foreground of a background job (dvm_start, await_ready, dvm_end),
# the contact file's values (contact_value), waiting for a line
# (await_line), the check that nothing of a DVM is left
# (nothing_of_the_dvm_left), and run_dvm_suite, which runs the suite's
# cases.
_orcadvm_lib=$(dirname "${BASH_SOURCE[0]}")
. "$_orcadvm_lib/orcarun_local.sh"

ORCADVM="$ORCA_TEST_BUILDDIR/framework/tools/orcadvm/orcadvm"
[ -x "$ORCADVM" ] || { echo "$ORCADVM is not built" >&2; exit 1; }

# dvm_setup: the case's directory and marker (setup), and the contact
# directory $T/run/orca (XDG_RUNTIME_DIR=$T/run, as a login would make it).
dvm_setup() {
    setup
    mkdir -m 700 "$T/run" || fail "mkdir $T/run failed"
    export XDG_RUNTIME_DIR="$T/run"
    CONTACTS="$T/run/orca"
}

# dvm ARGS...: orcadvm ARGS in the foreground (bounded), stdout in
# $T/out, stderr in $T/err, its status in $status.
dvm() {
    status=0
    orcarun_env ORCA_TEST_MARKER="$M" timeout -k 5 120 "$ORCADVM" "$@" >"$T/out" 2>"$T/err" </dev/null || status=$?
}

# dvm_start ARGS...: `orcadvm start ARGS` in the foreground of a
# background job (its stdout in $T/dvm.out, stderr in $T/dvm.err; DVM_PID
# is orcadvm itself), returning once its ready line came; sets CONTACT.
# The files are emptied here, not by the background job's redirection:
# a case's second DVM must not be taken for up on its first one's line.
dvm_start() {
    : >"$T/dvm.out"
    : >"$T/dvm.err"
    ( exec env --default-signal=INT ORCA_MCA_mca_base_component_path="$ORCA_ALL_COMPONENTS" \
        ORCA_MCA_mca_base_help_path="$ORCA_TEST_SRCDIR/framework/help" \
        ORCA_MCA_mca_base_param_files=none ORCA_MCA_mca_base_override_param_file=none \
        ORCA_TEST_MARKER="$M" "$ORCADVM" start "$@" >"$T/dvm.out" 2>"$T/dvm.err" </dev/null ) &
    DVM_PID=$!
    await_ready "$T/dvm.out"
}

# await_ready FILE: waits (30 s at most) for the ready line in FILE; sets
# CONTACT to the contact file it names and checks the PID it names.
await_ready() {
    local i line
    for ((i = 0; i < 300; i++)); do
        line=$(grep -m1 '^orcadvm: DVM [0-9]* is up on' "$1" 2>/dev/null || true)
        [ -n "$line" ] && break
        [ -z "${DVM_PID:-}" ] || process_alive "$DVM_PID" || fail "orcadvm start ended before it was up: $(cat "$T/dvm.err")"
        sleep 0.1
    done
    [ -n "$line" ] || fail "no ready line within 30 s: $(cat "$1" "$T/dvm.err" 2>/dev/null)"
    CONTACT=${line##* contact file }
    [ -f "$CONTACT" ] || fail "the ready line names $CONTACT, which does not exist"
}

# dvm_end [SECONDS]: waits for the foreground orcadvm; its status in $status.
dvm_end() {
    local limit=${1:-30} i
    for ((i = 0; i < limit * 10; i++)); do
        process_alive "$DVM_PID" || break
        sleep 0.1
    done
    process_alive "$DVM_PID" && fail "orcadvm $DVM_PID still runs after $limit s"
    status=0
    wait "$DVM_PID" || status=$?
}

# nothing_of_the_dvm_left: no process of the case (the controller, every
# orcad and keeper), no contact file.
nothing_of_the_dvm_left() {
    done_case
    local left
    left=$(ls -A "$CONTACTS" 2>/dev/null || true)
    [ -z "$left" ] || fail "contact files left in $CONTACTS: $left"
}

# contact_value KEY: KEY's value in $CONTACT.
contact_value() { awk -v k="$1" '$1 == k { print $2 }' "$CONTACT"; }

# await_line FILE REGEX: waits (30 s at most) for a line of FILE to match.
await_line() {
    local i
    for ((i = 0; i < 300; i++)); do
        grep -qE -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    fail "no line matches /$2/ in $1 after 30 s: $(cat "$1")"
}

# run_dvm_suite SUITE [CASE...]: runs the CASEs named (by hand: bash
# SUITE_FILE CASE...), or with none every case of the suite's CASES array,
# in order, each as "SUITE.CASE"; then finish_cases, whose status is the
# suite's. Called last: run_dvm_suite Orcadvm "$@".
run_dvm_suite() {
    local suite=$1 c; shift
    [ $# -gt 0 ] || set -- "${CASES[@]}"
    for c in "$@"; do run_case "$suite.$c" "$c"; done
    finish_cases
}
