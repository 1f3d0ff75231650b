#!/bin/bash
# Installs the Debian packages Orca needs, and runs every check there is:
#  1. the normal build: `make check-unsanitized` (the suites whose cost
#     under ASan is other people's programs or hundreds of processes, see
#     UNSANITIZED_TESTS in test/Makefile.inc) and `make lint`;
#  2. `make distcheck` built by clang with ASan, UBSan and libFuzzer's
#     coverage (--enable-sanitizers --enable-fuzzing), which runs the whole
#     suite under the sanitizers (the suites above skip there, all or their
#     costliest cases), and with it each libFuzzer target for a bounded
#     time (ORCA_FUZZ_SECONDS each, see test/fuzz/).
# Ends with one line, "N passed, N failed, N skipped", over every test case
# of both; exits nonzero if any failed.
. "$(dirname "$0")/common.sh"
# clang and its runtimes for the sanitized build and the fuzz targets,
# clang-tidy for the lint; the programs whose libraries choose interfaces
# by themselves, which the data-plane tests run (PyTorch with gloo, UCX's
# and libfabric's test clients).
install_packages clang libclang-rt-14-dev clang-tidy python3 python3-torch ucx-utils libfabric-bin

# run_case NAME COMMAND...: runs a command as one test case of the summary
# (NAME.log and NAME.trs in the current build directory).
run_case() {
    local name=$1 start end result; shift
    start=$(date +%s%3N)
    if "$@" > "$name.log.out" 2>&1; then result=PASS; else result=FAIL; tail -40 "$name.log.out"; fi
    end=$(date +%s%3N)
    {
        echo "[ RUN      ] $name"
        cat "$name.log.out"
        if [ $result = PASS ]; then echo "[       OK ] $name ($((end - start)) ms)"
        else echo "[  FAILED  ] $name ($((end - start)) ms)"; fi
    } > "$name.log"
    echo ":test-result: $result" > "$name.trs"
    rm -f "$name.log.out"
}

# -g1 (line tables, enough for every backtrace a test prints) instead of
# autoconf's -g: at -O2 it takes some 40% off the compile time, most of it
# in the test programs' GoogleTest code.
build_orca "$ORCA_BUILD_DIR" --prefix="$ORCA_PREFIX" CFLAGS="-O2 -g1" CXXFLAGS="-O2 -g1" ${ORCA_CONFIGURE_FLAGS:-}
# The lint needs only the configured tree, and much of the suite waits on
# daemons, sshd, Slurm and timers rather than on the CPU: clang-tidy runs
# beside the rest at the lowest priority, taking the idle time, and is
# waited for before the summary.
# It lints the code Orca ships (framework, components, contrib): the test
# programs' 87 files would double its CPU time (make lint, without
# LINT_DIRS, covers them too).
echo "== make lint, in the background at nice 19 (${SECONDS}s so far)"
( nice -n 19 bash -c "$(declare -f run_case); run_case lint make lint LINT_DIRS='framework components contrib'" ) &
lint_pid=$!
# Each suite runs once. The normal build, which gets installed, runs the
# integration suites whose cost under ASan is sshd, Slurm, MPI, PyTorch or
# hundreds of processes and jobs, and whose bounds are the installed
# build's own figures; every other test runs in the sanitized distcheck
# below. Running every integration suite here as well took 509 s of 2487.
echo "== make check-unsanitized (${SECONDS}s so far)"
phase_start=$SECONDS
rm -f "$ORCA_BUILD_DIR/integration-times"
ORCA_TEST_TIMES=$ORCA_BUILD_DIR/integration-times make -j"$(nproc)" check-unsanitized || true
"$ORCA_TOP/test/test-times" "$ORCA_BUILD_DIR/integration-times" $((SECONDS - phase_start)) || true
# distcheck proves the tarball builds, tests, installs and uninstalls on its
# own; CI has it build with ASan and UBSan, so that it is also the run of
# the whole suite under the sanitizers, and with libFuzzer's coverage, so
# that its `make check` runs the fuzz targets too (test/fuzz/
# fuzz_run_test.sh): one clang build for both, where a fuzzing build of
# its own compiled the framework a third time. Its build tree goes when it
# passes: the test driver keeps each test's log under sanitized/ to be
# counted.
# The sanitized build uses -O1 -g1, as ASan advises: about half the compile
# time of -O2 -g, and reports still name file and line. The test programs'
# own files use -O0 (TEST_CXXFLAGS): 5 s a GoogleTest file instead of 8.5,
# for tests that run in milliseconds either way. It uses clang:
# with ASan and UBSan, g++ 12 takes 11 to 14 s for a file that clang 14
# compiles in 7 (the normal build above is g++'s), and libFuzzer is clang's.
echo "== make distcheck, with ASan, UBSan and the fuzz targets (${SECONDS}s so far)"
rm -rf "$ORCA_BUILD_DIR/sanitized" "$ORCA_BUILD_DIR/sanitized-times"
phase_start=$SECONDS
ORCA_TEST_KEEP_LOGS=$ORCA_BUILD_DIR/sanitized ORCA_TEST_TIMES=$ORCA_BUILD_DIR/sanitized-times \
    run_case distcheck make -j"$(nproc)" distcheck \
    DISTCHECK_CONFIGURE_FLAGS="CC=clang CXX=clang++ --enable-sanitizers --enable-fuzzing CFLAGS='-O1 -g1' CXXFLAGS='-O1 -g1' TEST_CXXFLAGS=-O0"
# Where the distcheck's time went: its tests' span, and the rest (making the
# tarball, configuring, compiling, installing).
"$ORCA_TOP/test/test-times" "$ORCA_BUILD_DIR/sanitized-times" $((SECONDS - phase_start)) 15 || true

echo "== waiting for the lint (${SECONDS}s so far)"
wait "$lint_pid" || true
echo "== summary (${SECONDS}s in all)"
"$ORCA_TOP/test/summarize-results" "$ORCA_BUILD_DIR"
