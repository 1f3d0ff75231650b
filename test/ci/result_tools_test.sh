#!/bin/bash
# The tools CI reads a run with: test/keep-log-driver (each test's log kept,
# its start and end timed), test/summarize-results (the closing "N passed,
# N failed, N skipped" line) and test/test-times (testing's span against
# the run's, the longest tests), over logs and times made for each case.
. "$(dirname "$0")/../lib/testcase.sh"

TOOLS=$ORCA_TEST_SRCDIR/test

# The suite's directory, made here and removed at its end: a case runs in
# a subshell, so a directory it made itself would outlive it.
SUITE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/result-tools.XXXXXX") || exit 1
trap 'rm -rf "$SUITE_DIR"' EXIT
setup_case() { T=$(mktemp -d "$SUITE_DIR/case.XXXXXX"); }

# run_tool TOOL ARGS...: its output (stdout and stderr) in $OUT, status in $STATUS.
run_tool() {
    STATUS=0
    OUT=$("$@" 2>&1) || STATUS=$?
}
expect_out() { grep -qE -- "$1" <<<"$OUT" || fail "expected /$1/ in:
$OUT"; }

# a_log NAME RESULT LINES...: NAME.log with those lines and NAME.trs with RESULT.
a_log() {
    local name=$1 result=$2; shift 2
    mkdir -p "$(dirname "$T/build/$name")"
    printf '%s\n' "$@" >"$T/build/$name.log"
    echo ":test-result: $result" >"$T/build/$name.trs"
}

cases_are_counted_over_every_log() {
    setup_case
    a_log a/one PASS '[       OK ] A.x (1 ms)' '[       OK ] A.y (0 ms)' '[  SKIPPED ] A.z (0 ms)'
    a_log b/two FAIL '[       OK ] B.x (1 ms)' '[  FAILED  ] B.y (3 ms)'
    run_tool "$TOOLS/summarize-results" "$T/build"
    [ "$STATUS" -eq 1 ] || fail "a failed case must fail the summary (status $STATUS): $OUT"
    expect_out '^3 passed, 1 failed, 1 skipped$'
    expect_out 'b/two.log: \[  FAILED  \] B.y'
}

a_program_that_died_without_a_case_counts_as_one_failure() {
    setup_case
    a_log crashed FAIL '[ RUN      ] C.x' 'Segmentation fault'
    run_tool "$TOOLS/summarize-results" "$T/build"
    [ "$STATUS" -eq 1 ] || fail "status $STATUS: $OUT"
    expect_out 'crashed.log failed without a failed case'
    expect_out '^0 passed, 1 failed, 0 skipped$'
}

a_clean_run_passes() {
    setup_case
    a_log ok PASS '[       OK ] D.x (1 ms)'
    run_tool "$TOOLS/summarize-results" "$T/build"
    [ "$STATUS" -eq 0 ] || fail "status $STATUS: $OUT"
    expect_out '^1 passed, 0 failed, 0 skipped$'
}

the_driver_keeps_the_log_and_times_the_test() {
    setup_case
    printf '#!/bin/sh\necho "[       OK ] E.x (0 ms)"\nsleep 0.2\n' >"$T/e_test" && chmod +x "$T/e_test"
    # automake's driver, as make check calls it (config/test-driver is in
    # the source tree after autogen).
    [ -x "$ORCA_TEST_SRCDIR/config/test-driver" ] || [ -f "$ORCA_TEST_SRCDIR/config/test-driver" ] ||
        skip "no config/test-driver in $ORCA_TEST_SRCDIR (run autogen.sh)"
    (cd "$T" && ORCA_TEST_KEEP_LOGS=$T/kept ORCA_TEST_TIMES=$T/times \
        sh "$TOOLS/keep-log-driver" --test-name e_test --log-file e_test.log --trs-file e_test.trs \
        --color-tests no --enable-hard-errors yes --expect-failure no -- ./e_test >/dev/null) ||
        fail "the driver failed"
    grep -q 'E.x' "$T/kept/e_test.log" || fail "the log was not kept: $(ls -R "$T")"
    grep -q ':test-result: PASS' "$T/kept/e_test.trs" || fail "the trs was not kept"
    read -r start end log <"$T/times" || fail "no time was written"
    [ "$log" = e_test.log ] || fail "times name $log"
    awk -v s="$start" -v e="$end" 'BEGIN { exit !(e - s >= 0.2 && e - s < 30) }' ||
        fail "the test took 0.2 s at least, the times say $start to $end"
}

times_tell_testing_from_the_rest() {
    setup_case
    printf '%s\n' '100.0 110.5 a.log' '101.0 160.0 b.log' '111.0 130.0 c.log' >"$T/times"
    run_tool "$TOOLS/test-times" "$T/times" 500 2
    [ "$STATUS" -eq 0 ] || fail "status $STATUS: $OUT"
    expect_out '^3 tests: 60 s from the first start to the last end, 88 s summed \(1.48 running at once\)$'
    expect_out "^of the run's 500 s, 440 s were building"
    # The two longest, longest first; the third is left out.
    [ "$(grep -cE '^ +[0-9.]+ s  ' <<<"$OUT")" -eq 2 ] || fail "not two longest: $OUT"
    grep -A1 '^longest:' <<<"$OUT" | grep -q '59.0 s  b.log' || fail "b.log is the longest: $OUT"
}

no_times_is_an_error() {
    setup_case
    : >"$T/times"
    run_tool "$TOOLS/test-times" "$T/times"
    [ "$STATUS" -ne 0 ] || fail "an empty file passed: $OUT"
    expect_out 'no test was timed'
}

CASES=(cases_are_counted_over_every_log a_program_that_died_without_a_case_counts_as_one_failure a_clean_run_passes
       the_driver_keeps_the_log_and_times_the_test times_tell_testing_from_the_rest no_times_is_an_error)
[ $# -eq 0 ] || CASES=("$@")
for c in "${CASES[@]}"; do run_case "ResultTools.$c" "$c"; done
finish_cases
