#!/bin/bash
# `make check`'s run of every libFuzzer target, in fuzzing builds only
# (configure --enable-fuzzing): what `make fuzz-run` does, as one entry of
# the suite. CI's sanitized distcheck is configured so, and is thereby
# also the fuzz run, without a third build of the tree.
# ORCA_FUZZ_NAMES (from the Makefile) names the targets; ORCA_FUZZ_SECONDS
# and the rest are run-fuzzers.sh's.
set -u
: "${ORCA_TEST_BUILDDIR:?run by make check}" "${ORCA_TEST_SRCDIR:?run by make check}" "${ORCA_FUZZ_NAMES:?run by make check}"
# The suite's sanitizer options suit the programs under test; the fuzzers
# take run-fuzzers.sh's own (no fake stacks: they would halve the inputs
# tried in the time given).
unset ASAN_OPTIONS UBSAN_OPTIONS
# shellcheck disable=SC2086
exec bash "$ORCA_TEST_SRCDIR/test/fuzz/run-fuzzers.sh" --bin "$ORCA_TEST_BUILDDIR/test/fuzz" \
    --src "$ORCA_TEST_SRCDIR/test/fuzz" --work "$ORCA_TEST_BUILDDIR/test/fuzz/fuzz-work" \
    --log "$ORCA_TEST_BUILDDIR/test/fuzz/fuzz-run.log" $ORCA_FUZZ_NAMES
