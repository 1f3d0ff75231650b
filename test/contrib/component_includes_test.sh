#!/bin/bash
# contrib/lint/component-includes, the include rule of components that
# `make lint` checks: each breach it must find, in a tree made for the case,
# what it must let through, and the real tree clean.
. "$(dirname "$0")/../lib/testcase.sh"

CHECK=$ORCA_TEST_SRCDIR/contrib/lint/component-includes

# The suite's directory, made here and removed at its end: a case runs in
# a subshell, so a directory it made itself would outlive it.
T=$(mktemp -d "${TMPDIR:-/tmp}/component-includes.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT

# A tree with one component (components/oob/demo) and the framework's
# installed and internal headers, made afresh for each case.
make_tree() {
    rm -rf "${T:?}/components" "$T/framework"
    mkdir -p "$T/components/oob/demo" "$T/components/oob/other" "$T/framework/include/orca" "$T/framework/launch"
    touch "$T/framework/include/orca/oob.h" "$T/framework/launch/job_machine.h" \
        "$T/components/oob/demo/demo.h" "$T/components/oob/other/other.h"
}

# check SOURCE: writes SOURCE as the component's demo.cc and runs the
# checker; its output in $OUT, its status in $STATUS.
check() {
    printf '%s\n' "$@" >"$T/components/oob/demo/demo.cc"
    STATUS=0
    OUT=$("$CHECK" "$T" 2>&1) || STATUS=$?
}

expect_breach() {
    [ "$STATUS" -eq 1 ] || fail "the checker passed (status $STATUS) a breach: $OUT"
    grep -qE -- "$1" <<<"$OUT" || fail "the checker did not say /$1/:
$OUT"
}

allowed_includes_pass() {
    make_tree
    check '#include "demo.h"' '#include "config.h"' '#include <orca/oob.h>' '#include <net/if.h>' \
        '#include <string>' '  #  include <sys/socket.h>'
    [ "$STATUS" -eq 0 ] || fail "allowed includes were refused: $OUT"
}

another_folders_header_is_refused() {
    make_tree
    check '#include <string>' '#include "../other/other.h"'
    expect_breach '^components/oob/demo/demo.cc:2: "\.\./other/other\.h" is not a file of components/oob/demo'
}

a_header_not_in_the_folder_is_refused() {
    make_tree
    check '#include "other.h"'
    expect_breach 'demo.cc:1: "other.h" is not a file of'
}

framework_internals_are_refused() {
    make_tree
    check '#include <launch/job_machine.h>'
    expect_breach 'demo.cc:1: <launch/job_machine.h> reaches into framework/launch/'
}

an_orca_header_that_is_not_installed_is_refused() {
    make_tree
    check '#include <orca/job_machine.h>'
    expect_breach 'demo.cc:1: <orca/job_machine.h> is not an installed header'
}

every_breach_is_counted() {
    make_tree
    check '#include <launch/job_machine.h>' '#include "../other/other.h"' '#include <orca/nope.h>'
    expect_breach '3 include\(s\) break the rule'
}

the_tree_keeps_the_rule() {
    STATUS=0
    OUT=$("$CHECK" "$ORCA_TEST_SRCDIR" 2>&1) || STATUS=$?
    [ "$STATUS" -eq 0 ] || fail "components of this tree break the include rule:
$OUT"
}

CASES=(allowed_includes_pass another_folders_header_is_refused a_header_not_in_the_folder_is_refused
       framework_internals_are_refused an_orca_header_that_is_not_installed_is_refused every_breach_is_counted
       the_tree_keeps_the_rule)
[ $# -eq 0 ] || CASES=("$@")
for c in "${CASES[@]}"; do run_case "ComponentIncludes.$c" "$c"; done
finish_cases
