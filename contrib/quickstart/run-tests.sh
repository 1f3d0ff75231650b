#!/bin/bash
# Installs the Debian packages Orca needs, and runs every check there is:
#  1. the normal build: `make check` and `make lint`;
#  2. `make distcheck` built by clang with ASan and UBSan
#     (--enable-sanitizers), which runs the whole suite again under the
#     sanitizers;
#  3. a clang build of the libFuzzer targets (--enable-fuzzing): each target
#     for a bounded time (ORCA_FUZZ_SECONDS each, see test/fuzz/).
# Ends with one line, "N passed, N failed, N skipped", over every test case
# of all three; exits nonzero if any failed.
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
# The fuzz targets' clang build needs nothing of the rest: it too runs in
# the background, at nice 10 (above the lint, below the tests), taking the
# time the normal suite spends waiting; the targets run at the end.
SANITIZED_FLAGS=(CFLAGS="-O1 -g1" CXXFLAGS="-O1 -g1")
FUZZ_DIR=$ORCA_TOP/_build-fuzz
echo "== the fuzz targets' build, in the background at nice 10 (${SECONDS}s so far)"
( renice -n 10 "$BASHPID" > /dev/null
  configure_orca "$FUZZ_DIR" CC=clang CXX=clang++ --enable-fuzzing "${SANITIZED_FLAGS[@]}" && make -j"$(nproc)" fuzz
) > "$ORCA_BUILD_DIR/fuzz-build.out" 2>&1 &
fuzz_build_pid=$!
echo "== make check (${SECONDS}s so far)"
make -j"$(nproc)" check || true
# distcheck proves the tarball builds, tests, installs and uninstalls on its
# own; CI has it build with ASan and UBSan, so that it is also the run of
# the whole suite under the sanitizers. Its build tree goes when it passes:
# the test driver keeps each test's log under sanitized/ to be counted.
# The sanitized builds use -O1 -g1, as ASan advises: about half the compile
# time of -O2 -g, and reports still name file and line. They use clang:
# with ASan and UBSan, g++ 12 takes 11 to 14 s for a file that clang 14
# compiles in 7 (the normal build above is g++'s).
echo "== make distcheck, with ASan and UBSan (${SECONDS}s so far)"
rm -rf "$ORCA_BUILD_DIR/sanitized"
ORCA_TEST_KEEP_LOGS=$ORCA_BUILD_DIR/sanitized \
    run_case distcheck make -j"$(nproc)" distcheck \
    DISTCHECK_CONFIGURE_FLAGS="CC=clang CXX=clang++ --enable-sanitizers CFLAGS='-O1 -g1' CXXFLAGS='-O1 -g1'"

echo "== fuzz targets (${SECONDS}s so far)"
if wait "$fuzz_build_pid"; then
    cd "$FUZZ_DIR"
    # fuzz-run prints one GoogleTest-shaped case per target; its log is
    # counted like any test's.
    make fuzz-run > fuzz-run.log 2>&1 && echo ":test-result: PASS" > fuzz-run.trs \
        || { echo ":test-result: FAIL" > fuzz-run.trs; tail -60 fuzz-run.log; }
else
    mkdir -p "$FUZZ_DIR"
    { echo "the fuzz targets' build failed:"; tail -60 "$ORCA_BUILD_DIR/fuzz-build.out"; } | tee "$FUZZ_DIR/fuzz-run.log"
    echo ":test-result: FAIL" > "$FUZZ_DIR/fuzz-run.trs"
fi

echo "== waiting for the lint (${SECONDS}s so far)"
wait "$lint_pid" || true
echo "== summary (${SECONDS}s in all)"
"$ORCA_TOP/test/summarize-results" "$ORCA_BUILD_DIR" "$ORCA_TOP/_build-fuzz"
