#!/bin/bash
# Runs every libFuzzer target for a bounded time (`make fuzz-run`), each
# from a scratch copy of its checked-in corpus so the source tree is never
# written, and reports each target like a GoogleTest case:
#   [ RUN      ] Fuzz.<name>
#   [       OK ] Fuzz.<name> (<ms> ms)      or   [  FAILED  ] ...
# Any crash, leak, time-out or out-of-memory fails the run (exit 1); the
# input that caused it is kept under <work>/artifacts/<name>/ and named,
# ready to be added to corpus/<name>/ as regression-<what>.
#
# Usage: run-fuzzers.sh --bin DIR --src DIR --work DIR --log FILE NAME...
#   ORCA_FUZZ_SECONDS   seconds per target (default 3: under a minute in all,
#                       with start-up and the corpus load)
#   ORCA_FUZZ_ARGS      extra libFuzzer flags (e.g. -seed=1)
#   ORCA_FUZZ_JOBS      targets run at once (default: the CPUs)
set -u

bin= src= work= log=
while [ $# -gt 0 ]; do
    case $1 in
        --bin) bin=$2; shift 2 ;;
        --src) src=$2; shift 2 ;;
        --work) work=$2; shift 2 ;;
        --log) log=$2; shift 2 ;;
        --) shift; break ;;
        -*) echo "run-fuzzers.sh: unknown option $1" >&2; exit 2 ;;
        *) break ;;
    esac
done
[ -n "$bin" ] && [ -n "$src" ] && [ -n "$work" ] && [ -n "$log" ] && [ $# -gt 0 ] || {
    echo "usage: run-fuzzers.sh --bin DIR --src DIR --work DIR --log FILE NAME..." >&2
    exit 2
}
seconds=${ORCA_FUZZ_SECONDS:-3}

# The longest input worth trying per target: about what the real decoder
# sees in one message (longer inputs only slow the search down).
max_len_of() {
    case $1 in
        frame_codec|handshake|launch_wire|bootstrap_stream|iof_lines) echo 4096 ;;
        param_file|hostfile|mca_forward) echo 2048 ;;
        *) echo 512 ;;
    esac
}

now_ms() { date +%s%3N; }

run_one() {
    local name=$1 program=$bin/${1}_fuzz
    local dir=$work/$name corpus=$work/$name/corpus artifacts=$work/artifacts/$name
    rm -rf "$dir" "$artifacts"
    mkdir -p "$corpus" "$artifacts"
    cp -R "$src/corpus/$name/." "$corpus/" 2>/dev/null
    chmod -R u+w "$corpus"  # distcheck's source tree is read-only
    local dict=()
    [ -f "$src/$name.dict" ] && dict=(-dict="$src/$name.dict")
    echo "[ RUN      ] Fuzz.$name"
    local start rc
    start=$(now_ms)
    # Leaks fail the run too (ASan's leak check at exit of every input).
    # ASan's quarantine of freed memory (256 MB by default) counts against
    # -rss_limit_mb, which is meant for the code's own memory: a million
    # hosts (the documented limit) cost ~110 MB live, 450 MB with it.
    # -timeout and -report_slow_units (an input slower than that is saved,
    # and fails the run) are hang guards, not measurements: an input at a
    # documented bound (--host with a million names) takes 5 s here under
    # ASan alone and took 15 s with libFuzzer's coverage beside the rest of
    # a sanitized `make check` on 2 cores, past libFuzzer's 10 s default.
    # shellcheck disable=SC2086
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:quarantine_size_mb=64} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
        "$program" "$corpus" "${dict[@]}" \
        -max_total_time="$seconds" -rss_limit_mb=512 -timeout=60 -report_slow_units=60 -max_len="$(max_len_of "$name")" \
        -detect_leaks=1 -print_final_stats=1 -artifact_prefix="$artifacts/" \
        ${ORCA_FUZZ_ARGS:-} >"$dir/fuzz.log" 2>&1
    rc=$?
    local ms=$(( $(now_ms) - start ))
    local found
    found=$(find "$artifacts" -type f | sort)
    if [ "$rc" -eq 0 ] && [ -z "$found" ]; then
        grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' "$dir/fuzz.log" | tail -n 2
        echo "[       OK ] Fuzz.$name ($ms ms)"
        return 0
    fi
    echo "libFuzzer exited with status $rc; the end of its output ($dir/fuzz.log):"
    tail -n 40 "$dir/fuzz.log"
    for f in $found; do echo "crash input saved as $f"; done
    echo "[  FAILED  ] Fuzz.$name ($ms ms)"
    return 1
}

# Targets run ORCA_FUZZ_JOBS at a time (default: one per CPU), each into
# its own report, printed in the order named once all have ended.
run_all() {
    local failed=0 name jobs=${ORCA_FUZZ_JOBS:-$(nproc)}
    echo "[==========] ${#@} fuzz targets, $seconds s each, $jobs at a time"
    mkdir -p "$work/reports"
    for name in "$@"; do
        while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
        if [ ! -x "$bin/${name}_fuzz" ]; then
            {
                echo "[ RUN      ] Fuzz.$name"
                echo "no program $bin/${name}_fuzz: run make fuzz first"
                echo "[  FAILED  ] Fuzz.$name (0 ms)"
            } >"$work/reports/$name"
            echo 1 >"$work/reports/$name.rc"
            continue
        fi
        { run_one "$name" >"$work/reports/$name" 2>&1; echo $? >"$work/reports/$name.rc"; } &
    done
    wait
    for name in "$@"; do
        cat "$work/reports/$name"
        [ "$(cat "$work/reports/$name.rc" 2>/dev/null)" = 0 ] || failed=$((failed + 1))
    done
    echo "[==========] $(( ${#@} - failed )) passed, $failed failed"
    [ "$failed" -eq 0 ]
}

mkdir -p "$work" "$(dirname "$log")"
status=$work/status
# Everything to the terminal and to the log; the status survives the pipe.
{ run_all "$@"; echo $? >"$status"; } 2>&1 | tee "$log"
exit "$(cat "$status")"
