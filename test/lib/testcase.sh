# Shell test cases that report like GoogleTest, so that one summary counts
# every test case of the suite. Source it, define functions, then:
#   run_case NAME FUNCTION   runs FUNCTION in a subshell with `set -e`
#   skip_case NAME WHY       records a skipped case with the reason
#   finish_cases             exits 0 only if no case failed
# Inside a case: `fail MESSAGE` fails it, `skip MESSAGE` skips it. A
# function named teardown_case, if defined, runs after every case in the
# parent shell (cases run in subshells and cannot clean up the parent).

_cases_failed=0

# fail's own status, so that run_case can tell a failure it explained from a
# command that failed under set -e and ended the case without a word.
_FAIL_STATUS=99

fail() {
    echo "FAILURE: $*" >&2
    exit $_FAIL_STATUS
}

skip() {
    echo "SKIPPED: $*"
    exit 77
}

_case_line() { echo "[ $1 ] $2 ($3 ms)"; }

run_case() {
    local name=$1 fn=$2 start end rc
    echo "[ RUN      ] $name"
    start=$(date +%s%3N)
    # Not in a condition, so that `set -e` stays in force inside.
    ( set -e; "$fn" )
    rc=$?
    end=$(date +%s%3N)
    case $rc in
        0) _case_line "      OK" "$name" $((end - start)) ;;
        77) _case_line " SKIPPED" "$name" $((end - start)) ;;
        *)
            [ "$rc" -eq $_FAIL_STATUS ] ||
                echo "FAILURE: the case ended with status $rc, not by fail: a command failed under set -e (run the case by hand with bash -x to see which)" >&2
            _case_line " FAILED " "$name" $((end - start))
            _cases_failed=$((_cases_failed + 1))
            ;;
    esac
    if declare -F teardown_case >/dev/null; then teardown_case; fi
}

skip_case() {
    echo "[ RUN      ] $1"
    echo "SKIPPED: $2"
    _case_line " SKIPPED" "$1" 0
}

# skip_cases_when_sanitized SUITE WHY CASE...: in the sanitized run
# (ORCA_TEST_SANITIZED=yes) records each CASE as skipped, saying WHY, and
# exits 0; otherwise returns. For suites whose cost there is other
# people's programs (sshd, Slurm, PyTorch) or hundreds of processes and
# jobs, around code of ours that the rest of the sanitized run already
# drives: CI runs them in the normal build (UNSANITIZED_TESTS in
# test/Makefile.inc), and its time under ASan goes where ASan can find a
# bug of ours. ORCA_TEST_SANITIZED_RUN_ALL=yes runs them anyway.
sanitized_run_is_selective() {
    [ "${ORCA_TEST_SANITIZED:-no}" = yes ] && [ "${ORCA_TEST_SANITIZED_RUN_ALL:-no}" != yes ]
}
skip_cases_when_sanitized() {
    local suite=$1 why=$2 c; shift 2
    sanitized_run_is_selective || return 0
    for c in "$@"; do skip_case "$suite.$c" "under the sanitizers: $why"; done
    exit 0
}

finish_cases() {
    [ "$_cases_failed" -eq 0 ]
}
