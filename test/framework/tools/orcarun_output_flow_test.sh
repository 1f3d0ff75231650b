#!/bin/bash
# orcarun's output to a reader that pauses or goes away (plm/local,
# simulated nodes; no root needed): the event loop never blocks on its own
# stdout or stderr, so a 15 s pause of the reader ends no healthy job;
# output is flow-controlled per daemon (iof_base_output_buffer), so
# orcarun's and every orcad's memory stay bounded whatever the ranks
# write; everything arrives, in order, once the reader reads again; and a
# reader that is gone (`| head -1`) ends the job as a pipeline's writer,
# with 141 and nothing left.
. "$(dirname "$0")/../../lib/testcase.sh"
. "$(dirname "$0")/../../lib/tool_output.sh"

. "$(dirname "$0")/../../lib/orcarun.sh"
. "$(dirname "$0")/../../lib/proc_figures.sh"

setup() { local_case_setup orcarun-flow; }
done_case() { expect_nothing_left "$M" 10; }

# The bound on orcarun's and each orcad's resident set during a pause:
# 64 MiB, however much the ranks write (more under ASan, rss_bound_kb).
RSS_BOUND_KB=$(rss_bound_kb 65536)

# watch_rss SECONDS: samples the VmRSS of the case's orcarun and
# orcads every 0.2 s for SECONDS; prints the largest, "pid comm kB", and
# fails if any sample is above RSS_BOUND_KB.
watch_rss() {
    local until=$((SECONDS + $1)) pid comm kb max=0 who=""
    while [ $SECONDS -lt $until ]; do
        for pid in $(pids_named "$M" '^(lt-)?(orcad|orcarun)$'); do
            kb=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$pid/status" 2>/dev/null) || continue
            [ -n "$kb" ] || continue
            comm=$(cat "/proc/$pid/comm" 2>/dev/null || echo "?")
            if [ "$kb" -gt "$max" ]; then max=$kb; who="$pid $comm"; fi
        done
        sleep 0.2
    done
    echo "largest resident set during the pause: $who $max kB (bound $RSS_BOUND_KB kB)"
    [ "$max" -gt 0 ] || fail "no orcarun or orcad of the case was found while the reader paused"
    [ "$max" -le "$RSS_BOUND_KB" ] || fail "$who grew to $max kB while the reader paused (bound $RSS_BOUND_KB kB)"
}

# paused_reader LINES: 2 ranks on 2 simulated nodes each print LINES
# numbered lines (tagged); orcarun's stdout is a pipe whose reader sleeps
# 15 s before it reads. Sets $status to orcarun's exit status; the output
# is in $T/out, orcarun's stderr in $T/err.
# awk's output to a pipe goes in blocks that end mid-line; a rank that
# the scheduler then leaves waiting longer than iof_base_partial_line_ms
# (100 ms; a loaded CI machine did, once) has the line's start shown as a
# partial line, as designed, which these cases would read as torn. They
# are about flow control, not that timer (test/framework/iof has its
# cases): it is set far above any scheduling delay.
paused_reader() {
    local lines=$1
    ( rc=0; orcarun_env ORCA_TEST_MARKER="$M" timeout -k 5 120 "$ORCARUN" --mca plm_local_num_nodes 2 -n 2 --map-by node \
          --mca iof_base_partial_line_ms 60000 --tag-output awk -v n="$lines" 'BEGIN { r = ENVIRON["ORCA_RANK"]; for (i = 0; i < n; i++) print r, i }' \
          2>"$T/err" </dev/null || rc=$?
      echo "$rc" >"$T/status" ) | { sleep 15; cat; } >"$T/out" &
    local job=$!
    # The ranks fill the pipe and their windows at once; the pause is
    # measured over most of the reader's sleep.
    sleep 1
    watch_rss 13
    wait "$job" || true
    status=$(cat "$T/status" 2>/dev/null || echo missing)
}

# 1 MB: more than a pipe and a daemon's window.
paused_reader_1mb_loses_nothing() {
    setup
    paused_reader 60000  # 2 x 60000 lines of "[r] r i": about 1.1 MB
    expect_status 0
    expect_no_stderr
    local why
    why=$(check_numbered_lines "$T/out" 2 60000) || { show_output; fail "$why"; }
    done_case
}

# 100 MB: far more than every window together; orcarun and each orcad
# stay under the bound, and all of it arrives in order.
paused_reader_100mb_bounded() {
    setup
    paused_reader 4500000  # 2 x 4.5 M lines: about 105 MB
    expect_status 0
    expect_no_stderr
    local why
    why=$(check_numbered_lines "$T/out" 2 4500000) || { show_output; fail "$why"; }
    done_case
}

# The reader is gone: the job ends as `yes | head -1` does, status 141,
# no message, nothing left; before, orcarun wrote to nobody for ever.
reader_gone_ends_the_job() {
    setup
    local first
    first=$(orcarun_env ORCA_TEST_MARKER="$M" timeout -k 5 60 "$ORCARUN" --mca plm_local_num_nodes 2 -n 2 --map-by node \
                sh -c 'while :; do echo y; done' 2>"$T/err" </dev/null | head -1; echo "status ${PIPESTATUS[0]}")
    status=${first##*status }
    [ "${first%%$'\n'*}" = y ] || { show_output; fail "head did not read 'y' first: $first"; }
    expect_status 141
    expect_no_stderr
    done_case
}

# --timeout still ends the job while the reader pauses: orcarun's loop
# runs, and its message on stderr (a file here) comes at the time, not
# once the reader reads.
timeout_fires_while_the_reader_pauses() {
    setup
    ( rc=0; orcarun_env ORCA_TEST_MARKER="$M" timeout -k 5 60 "$ORCARUN" --timeout 1 --mca plm_local_num_nodes 2 -n 2 \
          --map-by node sh -c 'while :; do echo "$ORCA_RANK"; done' 2>"$T/err" </dev/null || rc=$?
      echo "$rc" >"$T/status" ) | { sleep 8; cat >/dev/null; } &
    local job=$! i
    for ((i = 0; i < 120; i++)); do
        grep -q "did not finish within --timeout 1 s" "$T/err" 2>/dev/null && break
        sleep 0.05
    done
    grep -q "did not finish within --timeout 1 s" "$T/err" || { show_output; fail "no --timeout message within 7 s while the reader paused"; }
    [ ! -e "$T/status" ] || fail "orcarun exited before the reader read what the job printed"
    wait "$job" || true
    status=$(cat "$T/status")
    [ "$status" -ge 1 ] && [ "$status" -lt 124 ] || { show_output; fail "expected orcarun's own failure status, got $status"; }
    done_case
}

# stderr too: orcarun's own messages go through the same nonblocking
# writer, after the ranks' stderr; a paused reader of both (2>&1) loses
# neither, and the job's status is the failed rank's.
paused_stderr_keeps_messages_in_order() {
    setup
    ( rc=0; orcarun_env ORCA_TEST_MARKER="$M" timeout -k 5 60 "$ORCARUN" --mca plm_local_num_nodes 2 -n 2 --map-by node \
          sh -c '[ "$ORCA_RANK" = 0 ] || exit 0; head -c 2000000 /dev/zero | tr "\0" e | fold -w 100 >&2; echo >&2; exit 3' \
          </dev/null 2>&1 || rc=$?
      echo "$rc" >"$T/status" ) | { sleep 6; cat; } >"$T/out" &
    local job=$!
    wait "$job" || true
    status=$(cat "$T/status")
    expect_status 3
    local message_line last_e
    message_line=$(grep -n "^orcarun: rank 0 on .* exited with status 3" "$T/out" | head -1 | cut -d: -f1)
    [ -n "$message_line" ] || { show_output; fail "orcarun's message is missing"; }
    [ "$(grep -c '^e\{100\}$' "$T/out")" -eq 20000 ] || { show_output; fail "rank 0's stderr lost lines"; }
    last_e=$(grep -n '^e\{100\}$' "$T/out" | tail -1 | cut -d: -f1)
    [ "$message_line" -gt "$last_e" ] || fail "orcarun's message (line $message_line) came before the ranks' last output (line $last_e)"
    done_case
}

CASES=(paused_reader_1mb_loses_nothing paused_reader_100mb_bounded reader_gone_ends_the_job
       timeout_fires_while_the_reader_pauses paused_stderr_keeps_messages_in_order)
if [ $# -eq 0 ]; then
    for c in "${CASES[@]}"; do run_case "OrcarunOutputFlow.$c" "$c"; done
else
    for c in "$@"; do run_case "OrcarunOutputFlow.$c" "$c"; done
fi
finish_cases
