#!/bin/bash
# Installs the Debian packages Orca needs, builds it, runs the whole test
# suite (`make check`, then `make distcheck`), and ends with one line:
# "N passed, N failed, N skipped" counted over every test case.
. "$(dirname "$0")/common.sh"
install_packages
build_orca

echo "== make check (${SECONDS}s so far)"
make -j"$(nproc)" check || true

# distcheck proves the tarball builds, tests, installs and uninstalls on
# its own; it is one more test case in the summary.
echo "== make distcheck (${SECONDS}s so far)"
start=$(date +%s%3N)
if make -j"$(nproc)" distcheck > distcheck.log.out 2>&1; then result=PASS; else result=FAIL; tail -40 distcheck.log.out; fi
end=$(date +%s%3N)
{
    echo "[ RUN      ] distcheck"
    cat distcheck.log.out
    if [ $result = PASS ]; then echo "[       OK ] distcheck ($((end - start)) ms)"
    else echo "[  FAILED  ] distcheck ($((end - start)) ms)"; fi
} > distcheck.log
echo ":test-result: $result" > distcheck.trs
rm -f distcheck.log.out

echo "== summary (${SECONDS}s in all)"
"$ORCA_TOP/test/summarize-results" "$ORCA_BUILD_DIR"
