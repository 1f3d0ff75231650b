#!/bin/bash
# orcarun end to end with plm/local (test/lib/orcarun_local.sh): the ranks'
# output and input. Whole lines, in order per rank, nothing lost (also
# while orcarun lags behind, and through relaying daemons), stdout and
# stderr apart, partial and long lines; stdin to rank 0, to all, to none,
# large and down a tree, and its flow control; the progress line on a
# terminal. Every case checks exact outputs and exit statuses, and that
# nothing of it is left once it is over.
. "$(dirname "$0")/../../lib/orcarun_local.sh"

# ---------------------------------------------------------------------------------
# 1. Output

many_lines_whole_and_in_order() {
    setup
    orc --mca plm_local_num_nodes 4 -n 8 --oversubscribe --tag-output \
        sh -c 'i=0; while [ $i -lt 10000 ]; do echo "$ORCA_RANK $i"; i=$((i + 1)); done'
    expect_status 0
    expect_no_stderr
    local why
    why=$(check_numbered_lines "$T/out" 8 10000) || { show_output; fail "$why"; }
    [ "$(wc -l <"$T/out")" -eq 80000 ] || fail "expected 80000 lines, got $(wc -l <"$T/out")"
    done_case
}

# sum_per_rank FILE CHAR: "[r] N" for each rank: the CHARs of its tagged
# lines; fails (prints the line) if a line holds anything else.
sum_per_rank() {
    awk -v c="$2" '
        { tag = $1; text = substr($0, length(tag) + 2)
          if (tag !~ /^\[[0-9]+\]$/ || text !~ ("^" c "*$")) { print "foreign line " NR ": " substr($0, 1, 80); exit 1 }
          sum[tag] += length(text) }
        END { for (t in sum) print t, sum[t] }' "$1" | sort -V
}

output_of_ranks_that_exit_at_once() {
    setup
    # One line of 1,000,000 bytes each, then exit: longer than a pipe and a
    # line piece (64 KiB), so it arrives in pieces, and the rank is gone
    # before orcad has read it all.
    orc --mca plm_local_num_nodes 4 -n 8 --oversubscribe --tag-output sh -c 'head -c 1000000 /dev/zero | tr "\0" x; echo'
    expect_status 0
    expect_no_stderr
    local got expected="" r
    got=$(sum_per_rank "$T/out" x) || { show_output; fail "$got"; }
    for ((r = 0; r < 8; r++)); do expected+="[$r] 1000000"$'\n'; done
    [ "$got" = "${expected%$'\n'}" ] || { show_output; fail "bytes per rank:
$got"; }
    done_case
}

# orcarun cannot write as fast as the ranks print (its stdout is a pipe
# read late): orcad stops reading the ranks' pipes (back-pressure, here
# after 64 KiB with oob_usock_send_queue_limit). Ranks that print and exit
# while it does (ranks 1 to 3: less than a pipe holds, so they exit at
# once) must still have all their output shown once orcarun catches up,
# however long that takes.
output_kept_while_orcarun_lags() {
    setup
    orcarun_env ORCA_TEST_MARKER="$M" timeout -k 5 60 "$ORCARUN" --mca oob_usock_send_queue_limit 64k \
        -n 4 --oversubscribe --tag-output sh -c '
            if [ "$ORCA_RANK" = 0 ]; then head -c 5000000 /dev/zero | tr "\0" x | fold -w 100
            else sleep 0.5; head -c 50000 /dev/zero | tr "\0" x | fold -w 100; fi' \
        2>"$T/err" </dev/null | { sleep 2; cat; } >"$T/out"
    status=${PIPESTATUS[0]}
    expect_status 0
    expect_no_stderr
    local got
    got=$(sum_per_rank "$T/out" x) || { show_output; fail "$got"; }
    [ "$got" = "[0] 5000000
[1] 50000
[2] 50000
[3] 50000" ] || { show_output; fail "bytes per rank:
$got"; }
    done_case
}

# The same through the routing tree: radix 2 over 4 nodes, the ranks of
# daemons 3 and 4 print through daemon 1, whose queue to orcarun fills.
# A relay whose next hop's queue is full must wait, not drop: a dropped
# message loses output and even exit records (orcarun would then wait for
# ever: the hang guard ends it).
relayed_output_kept_while_orcarun_lags() {
    setup
    orcarun_env ORCA_TEST_MARKER="$M" timeout -k 5 30 "$ORCARUN" --mca oob_usock_send_queue_limit 64k \
        --mca plm_local_num_nodes 4 --mca routed radix --mca routed_radix_radix 2 -n 4 --oversubscribe --map-by node \
        --tag-output sh -c 'i=0; while [ $i -lt 100000 ]; do echo "$ORCA_RANK $i"; i=$((i + 1)); done' \
        2>"$T/err" </dev/null | { sleep 2; cat; } >"$T/out"
    status=${PIPESTATUS[0]}
    expect_status 0
    local why
    why=$(check_numbered_lines "$T/out" 4 100000) || { show_output; fail "$why"; }
    done_case
}

stdout_and_stderr_apart() {
    setup
    orc --mca plm_local_num_nodes 2 -n 2 sh -c 'echo "out $ORCA_RANK"; echo "err $ORCA_RANK" >&2'
    expect_status 0
    expect_sorted_stdout "out 0
out 1"
    [ "$(sort "$T/err")" = "err 0
err 1" ] || { show_output; fail "stderr is not exactly the ranks' stderr"; }
    done_case
}

# --merge-stderr-to-stdout: each rank's stderr joins its stdout where the
# rank writes them, so its lines keep the order it wrote them in;
# --timestamp-output puts the time before every line (and its rank tag).
merged_and_timestamped_output() {
    setup
    orc --mca plm_local_num_nodes 2 -n 2 --merge-stderr-to-stdout --tag-output \
        sh -c 'for i in 1 2 3; do echo "out $i"; echo "err $i" >&2; done'
    expect_status 0
    expect_no_stderr
    local r
    for r in 0 1; do
        [ "$(grep "^\[$r\] " "$T/out")" = "[$r] out 1
[$r] err 1
[$r] out 2
[$r] err 2
[$r] out 3
[$r] err 3" ] || { show_output; fail "rank $r's lines are not all on stdout in the order written"; }
    done
    orc -n 1 --timestamp-output -l sh -c 'echo a; echo b >&2'
    expect_status 0
    expect_match out '^\[[0-2][0-9]:[0-5][0-9]:[0-6][0-9]\.[0-9]{3}\] \[0\] a$'
    expect_match err '^\[[0-2][0-9]:[0-5][0-9]:[0-6][0-9]\.[0-9]{3}\] \[0\] b$'
    # Open MPI 5's --output: tag-detailed names each rank's host too.
    orc --mca plm_local_num_nodes 2 -n 2 --map-by node --output tag-detailed,timestamp sh -c 'echo "r$ORCA_RANK"'
    expect_status 0
    expect_match out "^\[[0-9:.]{12}\] \[$HOST_RE#1:0\] r0$"
    expect_match out "^\[[0-9:.]{12}\] \[$HOST_RE#2:1\] r1$"
    done_case
}

# --output-filename DIR: 10,000 lines of each rank's stdout and 100 of its
# stderr, every line in its own rank's file, in order; nothing on the
# terminal. A directory orcarun cannot make stops the job before it starts.
output_files_per_rank() {
    setup
    orc --mca plm_local_num_nodes 2 -n 2 --output-filename "$T/out.d" \
        awk -v r=x 'BEGIN { r = ENVIRON["ORCA_RANK"]; for (i = 1; i <= 10000; i++) print "rank " r " line " i;
                            for (i = 1; i <= 100; i++) print "rank " r " error " i > "/dev/stderr" }'
    expect_status 0
    expect_no_stdout
    expect_no_stderr
    local r
    for r in 0 1; do
        cmp -s "$T/out.d/rank.$r/stdout" <(seq 1 10000 | sed "s/^/rank $r line /") ||
            fail "$T/out.d/rank.$r/stdout is not rank $r's 10000 lines in order ($(wc -l <"$T/out.d/rank.$r/stdout") lines)"
        cmp -s "$T/out.d/rank.$r/stderr" <(seq 1 100 | sed "s/^/rank $r error /") ||
            fail "$T/out.d/rank.$r/stderr is not rank $r's 100 error lines in order"
    done
    : >"$T/a-file"
    orc -n 1 --output-filename "$T/a-file/sub" sh -c 'touch "$0/ran"' "$T"
    expect_failure
    expect_match err "^orcarun: cannot make the directory $T/a-file/sub \(--output-filename\): Not a directory\.$"
    [ ! -e "$T/ran" ] || fail "a rank started"
    done_case
}

# A line without its newline yet (a prompt) is shown after
# iof_base_partial_line_ms (100 ms), while the rank still waits.
partial_line_is_shown() {
    setup
    start -n 1 sh -c 'printf "prompt> "; while [ ! -e "$0/go" ]; do sleep 0.05; done; echo done' "$T"
    local i
    for ((i = 0; i < 200; i++)); do
        [ "$(cat "$T/out")" = "prompt> " ] && break
        kill -0 "$ORCARUN_PID" 2>/dev/null || break
        sleep 0.05
    done
    [ ! -e "$T/go" ] || fail "the rank was released early"
    [ "$(cat "$T/out")" = "prompt> " ] || { show_output; fail "the partial line \"prompt> \" was not shown while the rank waited"; }
    touch "$T/go"
    finish 30
    expect_status 0
    expect_stdout "prompt> done"
    expect_no_stderr
    done_case
}

# 2 MiB without a newline: pieces of 64 KiB, none lost, nothing added.
long_line_without_newline() {
    setup
    orc -n 1 sh -c 'head -c 2097152 /dev/zero | tr "\0" y'
    expect_status 0
    expect_no_stderr
    head -c 2097152 /dev/zero | tr '\0' y >"$T/expected"
    cmp -s "$T/out" "$T/expected" || { show_output; fail "stdout ($(wc -c <"$T/out") bytes) is not the 2097152 bytes the rank wrote"; }
    done_case
}

# ---------------------------------------------------------------------------------
# 2. Standard input

stdin_goes_to_rank_0() {
    setup
    mkfifo "$T/in"
    echo hello >"$T/in" &
    orc_stdin "$T/in" -n 2 --oversubscribe cat
    expect_status 0
    expect_stdout "hello"
    done_case
}

stdin_to_all() {
    setup
    mkfifo "$T/in"
    echo hello >"$T/in" &
    orc_stdin "$T/in" --mca plm_local_num_nodes 2 -n 4 --oversubscribe --stdin all cat
    expect_status 0
    expect_stdout "hello
hello
hello
hello"
    done_case
}

stdin_to_none() {
    setup
    mkfifo "$T/in"
    echo hello >"$T/in" &
    orc_stdin "$T/in" -n 2 --oversubscribe --stdin none cat
    expect_status 0
    expect_no_stdout
    done_case
}

# 20 MB through a pipe reach rank 0 intact; and a rank two daemons down a
# radix tree (--stdin 7 on 8 nodes, radix 2: orcarun -> 1 -> 3 -> 7).
large_stdin_intact() {
    setup
    head -c 20000000 /dev/urandom >"$T/data" || fail "cannot write $T/data"
    local sum; sum=$(md5sum <"$T/data")
    mkfifo "$T/in"
    cat "$T/data" >"$T/in" &
    orc_stdin "$T/in" -n 2 --oversubscribe sh -c 'if [ "$ORCA_RANK" = 0 ]; then md5sum; fi'
    expect_status 0
    expect_stdout "$sum"
    cat "$T/data" >"$T/in" &
    orc_stdin "$T/in" --mca plm_local_num_nodes 8 --mca routed radix --mca routed_radix_radix 2 \
        --mca plm_local_tree_spawn 1 -n 8 --oversubscribe --map-by node --stdin 7 \
        sh -c 'if [ "$ORCA_RANK" = 7 ]; then md5sum; fi'
    expect_status 0
    expect_stdout "$sum"
    done_case
}

# Flow control: two ranks on one daemon read stdin (--stdin all); one
# reads at once, the other not before the test lets it. The bytes the
# slow one has not taken are bounded (a window per reading rank, 1 MiB):
# the producer, writing 20 chunks of 1 MiB, is held back long before its
# end. Then the slow rank reads, and both get all of it.
stdin_flow_control() {
    setup
    head -c 1048576 /dev/urandom >"$T/chunk" || fail "cannot write $T/chunk"
    local sum; sum=$(for i in $(seq 20); do cat "$T/chunk"; done | md5sum)
    mkfifo "$T/in"
    env ORCA_TEST_MARKER="$M" sh -c 'for i in $(seq 20); do cat "$0/chunk"; echo "$i" >"$0/written"; done' "$T" >"$T/in" &
    ORCARUN_STDIN="$T/in" start -n 2 --oversubscribe --stdin all sh -c '
        if [ "$ORCA_RANK" = 0 ]; then md5sum
        else touch "$0/up.1"; while [ ! -e "$0/go" ]; do sleep 0.05; done; md5sum; fi' "$T"
    await_file "$T/up.1"
    # Without flow control all 20 MiB are through in a fraction of this.
    sleep 1
    local written; written=$(cat "$T/written" 2>/dev/null || echo 0)
    [ "$written" -lt 10 ] || fail "the producer wrote $written of 20 MiB while a reading rank took none: stdin is not flow-controlled"
    touch "$T/go"
    finish 60
    expect_status 0
    expect_stdout "$sum
$sum"
    done_case
}

# ---------------------------------------------------------------------------------
# 3. The progress line on a terminal

# Wire-up slower than 2 s (an agent that sleeps 3 s): on a terminal,
# stderr shows one updating line naming the daemons still awaited; in a
# file, nothing of it. script(1) gives orcarun a terminal.
progress_line_on_a_terminal() {
    setup
    command -v script >/dev/null || skip "script(1) is not installed"
    local agent="sh -c 'sleep 3; shift; exec \"\$@\"' agent"
    printf '%s\n' "$agent" >"$T/agent"
    ORCA_TEST_MARKER="$M" orcarun_env timeout -k 5 60 script -qfec \
        "$ORCARUN --mca plm rsh --mca plm_rsh_agent \"\$(cat $T/agent)\" --host localhost true" "$T/tty" \
        >/dev/null </dev/null || fail "orcarun on a terminal failed: $(cat -v "$T/tty")"
    grep -qa 'daemons up 0/1; waiting for localhost' "$T/tty" || fail "no progress line on the terminal: $(cat -v "$T/tty")"
    orc --mca plm rsh --mca plm_rsh_agent "$agent" --host localhost true
    [ "$status" -eq 0 ] || { show_output; fail "orcarun failed with $status"; }
    if grep -q 'daemons up' "$T/err"; then show_output; fail "a progress line in a file"; fi
    done_case
}

CASES=(many_lines_whole_and_in_order output_of_ranks_that_exit_at_once output_kept_while_orcarun_lags
       stdout_and_stderr_apart merged_and_timestamped_output output_files_per_rank partial_line_is_shown long_line_without_newline stdin_goes_to_rank_0
       stdin_to_all stdin_to_none large_stdin_intact stdin_flow_control relayed_output_kept_while_orcarun_lags
       progress_line_on_a_terminal)

# Arguments, if any, name the cases to run (by hand: bash orcarun_io_test.sh CASE...).
run_orcarun_suite "$@"
