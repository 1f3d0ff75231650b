#!/bin/bash
# contrib/lint/program-file-size, which `make lint` runs: a file of the
# programs over 400 lines is named with what to do, one of 400 passes, and
# this tree keeps the rule.
. "$(dirname "$0")/../lib/testcase.sh"

CHECK=$ORCA_TEST_SRCDIR/contrib/lint/program-file-size

# The suite's directory, made here and removed at its end: a case runs in
# a subshell, so a directory it made itself would outlive it.
T=$(mktemp -d "${TMPDIR:-/tmp}/program-file-size.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT

make_tree() {
    rm -rf "${T:?}/framework"
    mkdir -p "$T/framework/tools/orcarun" "$T/framework/launch"
}

# lines N FILE: FILE of N lines.
lines() { seq 1 "$1" | sed 's|^|// |' >"$2"; }

run_check() {
    STATUS=0
    OUT=$("$CHECK" "$T" 2>&1) || STATUS=$?
}

a_long_program_file_is_named() {
    make_tree
    lines 400 "$T/framework/tools/orcarun/fits.cc"
    lines 401 "$T/framework/tools/orcarun/long.h"
    lines 900 "$T/framework/launch/pure_code_may_be_long.cc"
    run_check
    [ "$STATUS" -eq 1 ] || fail "the checker passed a 401-line file (status $STATUS): $OUT"
    grep -q "^framework/tools/orcarun/long.h: 401 lines, over 400: move a decision into framework/" <<<"$OUT" ||
        fail "the long file is not named as expected: $OUT"
    ! grep -q "fits.cc\|pure_code" <<<"$OUT" || fail "a file within the rule was named: $OUT"
}

files_of_400_lines_pass() {
    make_tree
    lines 400 "$T/framework/tools/orcarun/fits.cc"
    run_check
    [ "$STATUS" -eq 0 ] || fail "the checker refused a 400-line file: $OUT"
}

the_tree_keeps_the_rule() {
    STATUS=0
    OUT=$("$CHECK" "$ORCA_TEST_SRCDIR" 2>&1) || STATUS=$?
    [ "$STATUS" -eq 0 ] || fail "files of the programs are over 400 lines:
$OUT"
}

CASES=(a_long_program_file_is_named files_of_400_lines_pass the_tree_keeps_the_rule)
[ $# -eq 0 ] || CASES=("$@")
for c in "${CASES[@]}"; do run_case "ProgramFileSize.$c" "$c"; done
finish_cases
