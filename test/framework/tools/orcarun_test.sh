#!/bin/bash
# orcarun end to end with plm/local, against the build tree: daemons on
# this host, as one node or as simulated nodes (plm_local_num_nodes), so
# no root and no namespaces are needed. Rank environment and mapping, the
# routing tree and tree spawn, exit statuses, output (whole lines, order,
# nothing lost), stdin and its flow control, signals, lost daemons, the
# time limit, and mistakes on the command line. Every case checks exact
# outputs and exit statuses, and that no orcad, rank or helper of the case
# is left once it is over.
. "$(dirname "$0")/../../lib/testcase.sh"
. "$(dirname "$0")/../../lib/tool_output.sh"

. "$(dirname "$0")/../../lib/orcarun.sh"
for program in "$ORCARUN" "$ORCAD"; do
    if [ ! -x "$program" ]; then
        echo "$program is not built" >&2
        exit 1
    fi
done

# This host's name as orcarun and orcad see it (gethostname); simulated
# node i is "$HOST#i".
HOST=$(uname -n)
HOST_RE=$(sed 's/[][\.*^$+?(){}|]/\\&/g' <<<"$HOST")  # for grep -E
# Cores as orcarun counts them (sysconf(_SC_NPROCESSORS_ONLN)): the slots
# of this host, divided among the simulated nodes.
CORES=$(getconf _NPROCESSORS_ONLN)

# --- the case's directory, marker and clean-up ----------------------------------

# setup: the case's directory T and marker M (test/lib/orcarun.sh).
setup() { local_case_setup orcarun-test; }

# done_case: nothing of the case is left (within 10 s).
done_case() {
    expect_nothing_left "$M" 10
}

# orc ARGS...: orcarun ARGS in the foreground (run_orcarun: a hang guard), stdin
# from /dev/null; stdout in $T/out, stderr in $T/err, exit status in $status.
orc() {
    status=0
    ORCA_TEST_MARKER="$M" run_orcarun "$T/out" "$T/err" "$@" || status=$?
}

# orc_stdin FILE ARGS...: as orc, with stdin from FILE (a file, or a FIFO
# a producer writes).
orc_stdin() {
    local input=$1; shift
    status=0
    orcarun_env ORCA_TEST_MARKER="$M" timeout -k 5 60 "$ORCARUN" "$@" <"$input" >"$T/out" 2>"$T/err" || status=$?
}

# start ARGS...: orcarun ARGS in the background (orcarun_start), output to
# $T/out and $T/err; finish [SECONDS] waits for it and sets $status.
start() {
    ORCA_TEST_MARKER="$M" orcarun_start "$T/out" "$T/err" "$@"
}
finish() {
    status=0
    orcarun_wait "${1:-60}" || status=$?
}



# expect_failure: a non-zero status of orcarun's own, not a signal's or
# the hang guard's (124 and above).
expect_failure() {
    if [ "$status" -eq 0 ] || [ "$status" -ge 124 ]; then
        show_output
        fail "expected orcarun to fail with a status of its own (1..123), got $status"
    fi
}

# expect_stdout TEXT: stdout is exactly TEXT and a newline.
expect_stdout() {
    if ! printf '%s\n' "$1" | cmp -s - "$T/out"; then
        show_output
        fail "stdout is not exactly:
$1"
    fi
}

# expect_sorted_stdout LINES: stdout's lines, sorted, are LINES sorted.
expect_sorted_stdout() {
    if [ "$(sort "$T/out")" != "$(sort <<<"$1")" ]; then
        show_output
        fail "stdout does not have exactly these lines (in any order):
$1"
    fi
}

expect_no_stdout() {
    if [ -s "$T/out" ]; then
        show_output
        fail "stdout is not empty"
    fi
}



# expect_match out|err REGEX: a line matches the extended REGEX.
expect_match() {
    if ! grep -qE -- "$2" "$T/$1"; then
        show_output
        fail "no line of std$1 matches /$2/"
    fi
}

# expect_no_match out|err REGEX: no line matches the extended REGEX.
expect_no_match() {
    if grep -qE -- "$2" "$T/$1"; then
        show_output
        fail "a line of std$1 matches /$2/"
    fi
}

# await_ranks COUNT: waits until ranks 0..COUNT-1 have each created
# $T/up.RANK (the commands below do so before they settle).
await_ranks() {
    local r
    for ((r = 0; r < $1; r++)); do await_file "$T/up.$r"; done
}

# A rank that says it is up, then sleeps as itself (exec: a signal to the
# rank is a signal to sleep).
SLEEPER='touch "$0/up.$ORCA_RANK"; exec sleep 100'

# by_slot_counts NODES RANKS: how many ranks --map-by slot puts on each of
# NODES simulated nodes (each with max(1, CORES / NODES) slots): full
# passes over all slots, then the rest fills the nodes in order.
by_slot_counts() {
    local nodes=$1 ranks=$2 slots i extra
    slots=$((CORES / nodes)); [ "$slots" -ge 1 ] || slots=1
    local per_pass=$((nodes * slots))
    local passes=$((ranks / per_pass)) rest=$((ranks % per_pass))
    for ((i = 0; i < nodes; i++)); do
        extra=$((rest < slots ? rest : slots))
        rest=$((rest - extra))
        echo $((passes * slots + extra))
    done
}

# ---------------------------------------------------------------------------------
# 1. The simplest job

hostname_twice() {
    setup
    local over=()
    # -n 2 needs two slots: one per core.
    [ "$CORES" -ge 2 ] || over=(--oversubscribe)
    orc "${over[@]}" -n 2 hostname
    expect_status 0
    expect_stdout "$HOST
$HOST"
    expect_no_stderr
    done_case
}

# Without -n, one rank per slot: the cores, shared among simulated nodes.
one_rank_per_slot_by_default() {
    setup
    local slots=$((CORES / 2)); [ "$slots" -ge 1 ] || slots=1
    orc --mca plm_local_num_nodes 2 sh -c 'echo "$ORCA_RANK $ORCA_SIZE"'
    expect_status 0
    local expected="" r
    for ((r = 0; r < 2 * slots; r++)); do expected+="$r $((2 * slots))"$'\n'; done
    expect_sorted_stdout "${expected%$'\n'}"
    done_case
}

# Ranks start in orcarun's working directory.
ranks_start_in_the_working_directory() {
    setup
    mkdir "$T/work dir"
    status=0
    (cd "$T/work dir" && ORCA_TEST_MARKER="$M" run_orcarun "$T/out" "$T/err" --mca plm_local_num_nodes 2 -n 2 pwd) ||
        status=$?
    expect_status 0
    expect_stdout "$T/work dir
$T/work dir"
    done_case
}

# ---------------------------------------------------------------------------------
# 2. The environment of every rank

ENV_COMMAND='echo $ORCA_RANK $ORCA_SIZE $ORCA_LOCAL_RANK $ORCA_LOCAL_SIZE $ORCA_NODE'

rank_environment_by_slot() {
    setup
    orc --mca plm_local_num_nodes 4 -n 8 --oversubscribe sh -c "$ENV_COMMAND"
    expect_status 0
    # By slot: node 0 takes the first ranks, then node 1, ...
    local counts expected="" node rank=0 k
    mapfile -t counts < <(by_slot_counts 4 8)
    for ((node = 0; node < 4; node++)); do
        for ((k = 0; k < counts[node]; k++)); do
            expected+="$rank 8 $k ${counts[node]} $node"$'\n'
            rank=$((rank + 1))
        done
    done
    expect_sorted_stdout "${expected%$'\n'}"
    expect_no_stderr
    done_case
}

rank_environment_by_node() {
    setup
    orc --mca plm_local_num_nodes 4 -n 8 --oversubscribe --map-by node sh -c "$ENV_COMMAND"
    expect_status 0
    # By node: round and round, rank r on node r % 4.
    local expected="" r
    for ((r = 0; r < 8; r++)); do expected+="$r 8 $((r / 4)) 2 $((r % 4))"$'\n'; done
    expect_sorted_stdout "${expected%$'\n'}"
    expect_no_stderr
    done_case
}

# --- forwarded variables (-x, -genv, -genvlist) ----------------------------------

# A value with every kind of byte a shell or a wire format could mangle:
# blanks, both quotes, a backslash, '=', a newline (and one at the end),
# a tab, UTF-8 and a leading dash.
FORWARD_VALUE=$'-a b  "c" \'d\' \\e =f==\nsecond\tline é ✓\n'

# forward_daemon: $T/orcad, the daemon as ssh would start it, without
# orcarun's FWD_* variables (plm/local's daemons inherit orcarun's
# environment, so a variable could otherwise reach a rank unforwarded); it
# leaves $T/daemon-started behind, to tell whether any daemon started.
forward_daemon() {
    cat >"$T/orcad" <<SCRIPT
#!/bin/bash
: >"$T/daemon-started"
unset "\${!FWD_@}"
exec "$ORCAD" "\$@"
SCRIPT
    chmod +x "$T/orcad"
}

# expect_no_daemon: no daemon was started (a refusal came first).
expect_no_daemon() {
    [ ! -e "$T/daemon-started" ] || { show_output; fail "a daemon was started"; }
}

# expect_rank_files PREFIX RANKS EXPECTED: $T/PREFIX.R holds exactly the
# bytes of EXPECTED for every rank R below RANKS.
expect_rank_files() {
    local r
    for ((r = 0; r < $2; r++)); do
        printf '%s' "$3" | cmp -s - "$T/$1.$r" ||
            { show_output; od -c "$T/$1.$r" 2>&1 | head -20 >&2; fail "rank $r's $1 is not the value forwarded"; }
    done
}

# Values given on the command line reach every rank byte for byte, on both
# (simulated) nodes: -x NAME=VALUE, -genv NAME VALUE, an empty value, a
# later option for the same name winning. Orca's own variables win over a
# forwarded one.
forward_values_byte_exact() {
    setup
    forward_daemon
    orc --mca plm_base_daemon "$T/orcad" --mca plm_local_num_nodes 2 -n 4 --oversubscribe \
        -x FWD_A=replaced -x "FWD_A=$FORWARD_VALUE" -genv FWD_B "$FORWARD_VALUE" -x FWD_E= \
        -x ORCA_RANK=99 -genv ORCA_SIZE 99 \
        sh -c 'printf %s "$FWD_A" >"$0/a.$ORCA_RANK"; printf %s "$FWD_B" >"$0/b.$ORCA_RANK"
               echo "$ORCA_RANK $ORCA_SIZE ${FWD_E-unset}."' "$T"
    expect_status 0
    expect_rank_files a 4 "$FORWARD_VALUE"
    expect_rank_files b 4 "$FORWARD_VALUE"
    expect_sorted_stdout "0 4 .
1 4 .
2 4 .
3 4 ."
    expect_no_stderr
    done_case
}

# Values taken from orcarun's environment: -x NAME, -x 'PREFIX*' and
# -genvlist; a variable not forwarded does not arrive (the daemon does not
# pass it on), and a PREFIX* that matches nothing is a warning only.
forward_from_the_environment() {
    setup
    forward_daemon
    status=0
    FWD_C=$FORWARD_VALUE FWD_P_1=one FWD_P_2="two 2" FWD_Q=q FWD_R=r FWD_OTHER=other ORCA_TEST_MARKER="$M" \
        run_orcarun "$T/out" "$T/err" --mca plm_base_daemon "$T/orcad" --mca plm_local_num_nodes 2 -n 2 \
        -x FWD_C -x 'FWD_P_*' -x 'FWD_NONE_*' -genvlist FWD_Q,FWD_R \
        sh -c 'printf %s "$FWD_C" >"$0/c.$ORCA_RANK"
               echo "$FWD_P_1|$FWD_P_2|$FWD_Q|$FWD_R|${FWD_OTHER-unset}"' "$T" || status=$?
    expect_status 0
    expect_rank_files c 2 "$FORWARD_VALUE"
    expect_stdout "one|two 2|q|r|unset
one|two 2|q|r|unset"
    expect_line err "orcarun: warning: -x FWD_NONE_* forwards nothing: no variable of orcarun's environment has"
    [ "$(wc -l <"$T/err")" -eq 2 ] || { show_output; fail "more on stderr than the warning"; }
    done_case
}

# A name that orcarun's environment does not hold is refused before any
# daemon starts, naming it and both ways out.
forward_unset_name_refused() {
    setup
    forward_daemon
    unset FWD_UNSET  # the case runs in a subshell of its own
    orc --mca plm_base_daemon "$T/orcad" -genvlist HOME,FWD_UNSET true
    expect_status 1
    expect_line err "orcarun: -genvlist HOME,FWD_UNSET forwards FWD_UNSET from orcarun's environment, but FWD_UNSET is not set"
    expect_text err "(export FWD_UNSET=...),"
    expect_text err "-x FWD_UNSET=VALUE."
    expect_no_stdout
    expect_no_daemon
    done_case
}

# The bounds are the kernel's for a program's environment: one NAME=VALUE
# of 128 KiB with its NUL, and 1 MiB in all, arrive whole; a byte more of
# either is refused before any daemon starts, saying why and what to do.
forward_bounds() {
    setup
    forward_daemon
    local at_limit over part i
    at_limit=$(head -c $((131072 - 7)) /dev/zero | tr '\0' v)  # "FWD_B=" + value + NUL
    orc --mca plm_base_daemon "$T/orcad" --mca plm_local_num_nodes 2 -n 2 -genv FWD_B "$at_limit" \
        sh -c 'echo ${#FWD_B}'
    expect_status 0
    expect_stdout "131065
131065"
    rm -f "$T/daemon-started"
    orc --mca plm_base_daemon "$T/orcad" -genv FWD_B "${at_limit}v" true
    expect_status 1
    expect_line err "orcarun: the variable FWD_B (-genv FWD_B ...) is 131073 bytes as NAME=VALUE, more than a"
    expect_text err "rank may be given (131072 bytes, 128 KiB, its terminating NUL counted);"
    expect_text err "Pass data"
    expect_no_daemon

    # Eight variables of 128 KiB fill 1 MiB: they reach every rank (and a
    # launch command that large gets through the oob).
    part=$(head -c $((131072 - 8)) /dev/zero | tr '\0' w)  # "FWD_Vn=" + value + NUL
    local -a eight=()
    for ((i = 0; i < 8; i++)); do eight+=(-genv "FWD_V$i" "$part"); done
    orc --mca plm_base_daemon "$T/orcad" --mca plm_local_num_nodes 2 -n 2 "${eight[@]}" \
        sh -c 'echo $((${#FWD_V0} + ${#FWD_V1} + ${#FWD_V2} + ${#FWD_V3} + ${#FWD_V4} + ${#FWD_V5} + ${#FWD_V6} + ${#FWD_V7}))'
    expect_status 0
    expect_stdout "$((8 * (131072 - 8)))
$((8 * (131072 - 8)))"
    rm -f "$T/daemon-started"
    orc --mca plm_base_daemon "$T/orcad" "${eight[@]}" -x FWD_X= true
    expect_status 1
    expect_line err "orcarun: the 9 variables orcarun would forward (-x, -genv, -genvlist) are"
    expect_text err "1048583 bytes in all, more than 1048576 bytes (1024 KiB); nothing was"
    expect_no_stdout
    expect_no_daemon
    done_case
}

# A launch command past the oob's message limit (lowered here; the default
# 64M holds the 1 MiB forwarding allows) ends the job at once, naming the
# limit, where before the job waited forever for ranks no daemon started.
forward_past_the_message_limit() {
    setup
    local big
    big=$(head -c 100000 /dev/zero | tr '\0' v)
    orc --mca oob_usock_max_msg_size 64k --mca oob_tcp_max_msg_size 64k --mca plm_local_num_nodes 2 -n 2 \
        -genv FWD_BIG "$big" true
    expect_status 1
    expect_match err '^orcarun: the command could not be sent to the daemons: a message of [0-9]+ bytes is larger than oob_(usock|tcp)_max_msg_size \(65536\)\. No rank was started$'
    expect_no_stdout
    done_case
}

# ---------------------------------------------------------------------------------
# 3. The routing tree: the output, and each daemon's parent in --report-routes

# routes_case ROUTED TREE_SPAWN: 8 simulated nodes, one rank each; every
# rank's line, and a route line per daemon whose parent is the tree's
# (radix 2: (v - 1) / 2, see components/routed/radix/radix_tree.cc;
# direct: orcarun) and whose connection goes to that parent's listener.
routes_case() {
    local routed=$1 spawn=$2 args
    setup
    if [ "$routed" = direct ]; then args=(--mca routed direct)
    else args=(--mca routed radix --mca routed_radix_radix 2); fi
    orc "${args[@]}" --mca plm_local_tree_spawn "$spawn" --mca plm_local_num_nodes 8 \
        -n 8 --oversubscribe --map-by node --report-routes sh -c 'echo "rank $ORCA_RANK node $ORCA_NODE"'
    expect_status 0
    local expected="" v parent to
    for ((v = 0; v < 8; v++)); do expected+="rank $v node $v"$'\n'; done
    expect_sorted_stdout "${expected%$'\n'}"
    local title="routes (8 daemons, routed/$routed, plm/local"
    [ "$spawn" = 0 ] || title+=", tree spawn"
    expect_line err "$title):"
    [ "$(grep -c '^  daemon ' "$T/err")" -eq 8 ] || { show_output; fail "expected 8 route lines"; }
    for ((v = 1; v <= 8; v++)); do
        if [ "$routed" = direct ]; then parent=0; else parent=$(((v - 1) / 2)); fi
        if [ "$parent" = 0 ]; then to=orcarun; else to="daemon $parent"; fi
        # The connection's far end is the parent's usock listener, @orca/JOB.PARENT/PID/...
        expect_match err "^  daemon $v on $HOST_RE#$v -> $to: usock: local -> @orca/[0-9]+\.$parent/[0-9]+/[0-9a-f]+\$"
    done
    done_case
}

routes_direct() { routes_case direct 0; }
routes_direct_tree_spawn() { routes_case direct 1; }
routes_radix() { routes_case radix 0; }
routes_radix_tree_spawn() { routes_case radix 1; }

# ---------------------------------------------------------------------------------
# 4. How ranks end, and what orcarun exits with

failed_rank_exit_status() {
    setup
    orc -n 4 --oversubscribe sh -c 'if [ "$ORCA_RANK" = 3 ]; then exit 7; fi; exec sleep 100'
    expect_status 7
    expect_line err "orcarun: rank 3 on $HOST exited with status 7; the job is ended and orcarun exits with its status."
    expect_line err "The command was: sh"
    # Only the rank that failed first is named, not the ones killed after.
    [ "$(grep -c '^orcarun: rank ' "$T/err")" -eq 1 ] || { show_output; fail "more than one rank named"; }
    expect_no_stdout
    done_case
}

missing_command_is_127() {
    setup
    orc --mca plm_local_num_nodes 2 -n 2 --oversubscribe --map-by node no-such-command-orcarun-test
    expect_status 127
    # Both fail; whichever is reported first, its rank and host match.
    expect_match err "^orcarun: rank (0 on $HOST_RE#1|1 on $HOST_RE#2) could not be started: no-such-command-orcarun-test: No such file or directory\.\$"
    [ "$(grep -c '^orcarun: rank ' "$T/err")" -eq 1 ] || { show_output; fail "more than one rank named"; }
    expect_no_stdout
    done_case
}

rank_killed_by_signal() {
    setup
    orc -n 1 sh -c 'kill -USR1 $$'
    expect_status $((128 + 10))
    expect_match err "^orcarun: rank 0 on $HOST_RE was killed by signal 10 \(.*\); the job is ended and orcarun exits with its status\.\$"
    done_case
}

# ---------------------------------------------------------------------------------
# 5. Output

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
# 6. Standard input

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
# 7. Signals to orcarun

# signal_case SIGNAL STATUS: SIGNAL to orcarun while ranks sleep: they are
# ended by it, orcarun exits with 128 + SIGNAL, nothing is left.
signal_case() {
    local sig=$1 expected=$2 number
    number=$(kill -l "$sig")
    setup
    start --mca plm_local_num_nodes 2 -n 2 --oversubscribe sh -c "$SLEEPER" "$T"
    await_ranks 2
    kill "-$sig" "$ORCARUN_PID"
    finish 30
    expect_status "$expected"
    expect_match err "^orcarun: rank [01] on $HOST_RE#[12] was killed by signal $number "
    done_case
}

sigint_ends_the_job() { signal_case INT 130; }
sigterm_ends_the_job() { signal_case TERM 143; }

# A rank that ignores SIGINT is SIGKILLed after orcarun_kill_grace.
sigint_ignored_then_killed() {
    setup
    start --mca orcarun_kill_grace 1 -n 1 sh -c 'trap "" INT; touch "$0/up.$ORCA_RANK"; sleep 100' "$T"
    await_ranks 1
    kill -INT "$ORCARUN_PID"
    finish 30
    expect_status 137
    expect_match err "^orcarun: rank 0 on $HOST_RE was killed by signal 9 "
    done_case
}

# ---------------------------------------------------------------------------------
# 8. Lost daemons, lost orcarun

# signal_daemon SIGNAL VPID: sends SIGNAL to the orcad of daemon VPID.
signal_daemon() {
    local pid; pid=$(orcad_pid "$M" "$2")
    [ -n "$pid" ] || fail "no orcad of daemon $2 found"
    kill "-$1" "$pid"
}

daemon_killed_mid_job() {
    setup
    start --mca plm_local_num_nodes 4 -n 4 --oversubscribe --map-by node sh -c "$SLEEPER" "$T"
    await_ranks 4
    signal_daemon KILL 3
    finish 30
    expect_failure
    expect_text err "orcarun: the daemon on $HOST#3 (vpid 3) failed: "
    done_case
}

# A rank that starts a child in the background, writes its pid to
# $0/bg.RANK, says it is up, and waits.
BACKGROUNDER='sleep 100 & echo $! >"$0/bg.$ORCA_RANK"; touch "$0/up.$ORCA_RANK"; wait'

# A SIGKILLed daemon ends nothing itself, and its ranks' parent-death
# signal reaches only each rank's own process: its keeper kills the ranks'
# process groups, so what a rank started in the background goes too. And
# orcarun, the daemon's parent here, reports how it ended (signal 9), not
# the oob's refused connection.
daemon_killed_takes_its_ranks_background_children() {
    setup
    start --mca plm_local_num_nodes 2 -n 2 --map-by node sh -c "$BACKGROUNDER" "$T"
    await_ranks 2
    await_file "$T/bg.1"
    signal_daemon KILL 2
    finish 30
    expect_failure
    expect_match err "^orcarun: the daemon on $HOST_RE#2 \(vpid 2\) failed: .*killed by signal 9 "
    if grep -q 'Connection refused' "$T/err"; then
        show_output
        fail "orcarun reports the oob's refused connection, not the daemon's signal"
    fi
    done_case
}

# A daemon SIGSTOPped for longer than the heartbeat: alive but silent. The
# job ends naming it, and the stopped daemon is not left behind.
daemon_stopped() {
    setup
    start --mca plm_local_num_nodes 4 -n 4 --oversubscribe --map-by node sh -c "$SLEEPER" "$T"
    await_ranks 4
    signal_daemon STOP 2
    finish 40
    expect_failure
    expect_text err "orcarun: the daemon on $HOST#2 (vpid 2) failed: "
    done_case
}

# A daemon that is ending still cleans up when more SIGTERMs come (as
# when its tree parent, ending too, signals it): a storm of SIGTERMs from
# the first to its exit leaves no file of the job's tmpdir (PMIx's
# rendezvous) and no report of the daemon killed by the signal.
sigterms_while_a_daemon_ends() {
    setup
    mkdir "$T/tmp"
    TMPDIR="$T/tmp" start --mca plm_local_num_nodes 2 -n 2 --map-by node sh -c "$SLEEPER" "$T"
    await_ranks 2
    local pid; pid=$(orcad_pid "$M" 2)
    [ -n "$pid" ] || fail "no orcad of daemon 2 found"
    local sent=0
    while kill -TERM "$pid" 2>/dev/null; do sent=$((sent + 1)); done
    finish 30
    expect_failure
    expect_text err "orcarun: the daemon on $HOST#2 (vpid 2) failed: "
    if grep -E 'killed by signal 15|Terminated' "$T/err"; then
        show_output
        fail "daemon 2 was killed by one of the $sent SIGTERMs instead of ending by itself"
    fi
    local left; left=$(find "$T/tmp" -mindepth 1)
    [ -z "$left" ] || { show_output; fail "files of the job left in its TMPDIR after $sent SIGTERMs:
$left"; }
    done_case
}

# interior_case TREE_SPAWN: radix 2 over 7 nodes (1 -> 3, 4; 3 -> 7);
# daemon 1, with its subtree below it, is SIGKILLed.
interior_case() {
    setup
    start --mca plm_local_num_nodes 7 --mca routed radix --mca routed_radix_radix 2 --mca plm_local_tree_spawn "$1" \
        -n 7 --oversubscribe --map-by node sh -c "$SLEEPER" "$T"
    await_ranks 7
    signal_daemon KILL 1
    finish 30
    expect_failure
    expect_text err "orcarun: the daemon on $HOST#1 (vpid 1) failed: "
    done_case
}

interior_daemon_killed() { interior_case 0; }
interior_daemon_killed_tree_spawn() { interior_case 1; }

# orcarun_killed_case TREE_SPAWN: orcarun SIGKILLed (it cannot clean up):
# every orcad and rank goes within 10 s by itself. The ranks are shells
# with a child, so that killing only each rank's own process is not enough.
orcarun_killed_case() {
    setup
    start --mca plm_local_num_nodes 8 --mca routed radix --mca routed_radix_radix 2 --mca plm_local_tree_spawn "$1" \
        -n 8 --oversubscribe --map-by node sh -c 'touch "$0/up.$ORCA_RANK"; sleep 100; true' "$T"
    await_ranks 8
    kill -KILL "$ORCARUN_PID"
    finish 10
    expect_status 137
    done_case
}

orcarun_killed() { orcarun_killed_case 0; }
orcarun_killed_tree_spawn() { orcarun_killed_case 1; }

# starting_case TREE_SPAWN: SIGTERM to orcarun while daemons 3 and 4 (radix 2
# over 4 nodes: below daemon 1) are still starting, their parent up. They
# cannot hear the teardown (daemon 1 does not know them yet): whoever
# started them must end them. Their daemon program here is a stand-in that
# waits, and says when it gets SIGTERM.
starting_case() {
    setup
    cat >"$T/slow-orcad" <<EOS
#!/bin/sh
# The first two to start are orcad (with tree spawn, daemons 1 and 2); the
# later ones wait. mkdir takes a slot atomically: counting files that
# others may be adding at once let a third daemon wait too, now and then.
if mkdir "$T/slot.1" 2>/dev/null || mkdir "$T/slot.2" 2>/dev/null; then
    exec "$ORCAD" "\$@"
fi
trap 'touch "$T/term.\$\$"; exit 1' TERM
touch "$T/waiting.\$\$"
while :; do sleep 0.05; done
EOS
    chmod +x "$T/slow-orcad"
    start --mca plm_base_daemon "$T/slow-orcad" --mca plm_local_num_nodes 4 --mca routed radix \
        --mca routed_radix_radix 2 --mca plm_local_tree_spawn "$1" -n 4 --oversubscribe true
    local i
    for ((i = 0; i < 400; i++)); do
        [ "$(ls "$T" | grep -c '^waiting\.')" -ge 2 ] && break
        sleep 0.05
    done
    [ "$(ls "$T" | grep -c '^waiting\.')" -eq 2 ] || { show_output; fail "daemons 3 and 4 did not start"; }
    kill -TERM "$ORCARUN_PID"
    finish 30
    expect_status 143
    local w
    for w in "$T"/waiting.*; do
        [ -e "$T/term.${w##*.}" ] || { show_output; fail "the starting daemon ${w##*.} was not sent SIGTERM"; }
    done
    done_case
}

sigterm_reaches_starting_daemons() { starting_case 0; }
sigterm_reaches_starting_daemons_tree_spawn() { starting_case 1; }

# Background children of a rank end with the job.
background_children_end_with_the_job() {
    setup
    orc --mca plm_local_num_nodes 2 -n 2 --oversubscribe sh -c 'sleep 100 >/dev/null 2>&1 & echo "$ORCA_RANK started"'
    expect_status 0
    expect_sorted_stdout "0 started
1 started"
    done_case
}

# A daemon program that does not exist: the message says so, nothing is left.
missing_daemon_program() {
    setup
    orc --mca plm_base_daemon "$T/no-orcad" --mca plm_local_num_nodes 2 -n 2 true
    expect_failure
    expect_match err "^orcarun: the daemon on $HOST_RE#[12] \(vpid [12]\) failed: its agent \(local\) exited with status 127 before the daemon reported"
    expect_line err "cannot run $T/no-orcad: No such file or directory"
    done_case
}

# A job this host cannot hold is refused before anything starts, naming
# the limit: 65536 simulated daemons need more task ids than kernel.pid_max
# (32768 on most machines) or more memory than there is. Before, orcarun
# started thousands of them, grew to gigabytes and crashed.
job_far_too_big_is_refused_at_once() {
    setup
    orc --mca plm_local_num_nodes 65536 true
    expect_status 1
    expect_match err "^orcarun: the job cannot fit this host: 65536 daemons \(65536 on this host, with 65536 ranks there\).* need [0-9]+ where (kernel\.pid_max|kernel\.threads-max|the memory available)"
    expect_line err "Nothing was started. To run it, run fewer daemons on this host (plm_local_num_nodes), or $(grep -oE 'raise it: sysctl kernel\.(pid_max|threads-max)=N|free memory' "$T/err" | head -1)."
    expect_no_stdout
    done_case
}

# With `ulimit -n 512`, 1000 daemons need more descriptors than orcarun
# may open: refused naming RLIMIT_NOFILE and what to do. A soft limit
# below the need with a hard one above it is raised instead (the job runs).
descriptor_limit_is_named() {
    setup
    status=0
    ( ulimit -n 512; ORCA_TEST_MARKER="$M" run_orcarun "$T/out" "$T/err" --mca plm_local_num_nodes 1000 true ) || status=$?
    expect_status 1
    expect_match err "^orcarun: the job cannot fit this host: 1000 daemons .* need [0-9]+ where RLIMIT_NOFILE \(open files of orcarun; hard limit 512\) leaves 512\.$"
    expect_match err "raise it \(ulimit -n N"
    status=0
    ( ulimit -S -n 64; ORCA_TEST_MARKER="$M" run_orcarun "$T/out" "$T/err" --mca plm_local_num_nodes 30 true ) || status=$?
    expect_status 0
    done_case
}

# Hundreds of daemons failing at once during wire-up (their program is
# false): agents end in a burst while others still start and descriptors
# are reused; the job fails naming a daemon, and nothing crashes or stays.
many_daemons_failing_at_once() {
    setup
    orc --mca plm_base_daemon /bin/false --mca plm_local_num_nodes 300 true
    expect_status 1
    expect_match err "^orcarun: the daemon on $HOST_RE#[0-9]+ \(vpid [0-9]+\) failed: its agent \(local\) exited with status 1 before the daemon reported"
    done_case
}

# Daemons that never report: orcarun_startup_timeout names them.
startup_timeout() {
    setup
    printf '#!/bin/sh\nexec sleep 100\n' >"$T/mute-orcad"
    chmod +x "$T/mute-orcad"
    orc --mca plm_base_daemon "$T/mute-orcad" --mca orcarun_startup_timeout 1 --mca plm_local_num_nodes 2 -n 2 true
    expect_failure
    expect_line err "orcarun: only 0 of 2 daemons reported within orcarun_startup_timeout (1 s). Not up:"
    expect_line err "  $HOST#1 (daemon 1)"
    expect_line err "  $HOST#2 (daemon 2)"
    done_case
}

# ---------------------------------------------------------------------------------
# 9. --timeout

timeout_ends_the_job() {
    setup
    orc --timeout 1 -n 2 --oversubscribe sleep 100
    expect_failure
    expect_line err "orcarun: the job did not finish within --timeout 1 s; its ranks are being"
    expect_no_stdout
    done_case
}

# ---------------------------------------------------------------------------------
# 10. --timing, --version, --help

timing_phases() {
    setup
    # `true` cannot read the data-plane variables: the round is asked for.
    orc --timing --mca orcarun_data_plane_round always -n 1 true
    expect_status 0
    expect_line err "timing (ms since orcarun started):"
    local phase
    for phase in "agents started" "first daemon up" "all daemons up" "data plane chosen" "command started" "command ended" \
        "teardown done"; do
        expect_match err "^  $phase +[0-9]+\.[0-9]\$"
    done
    sed -n '/^timing (ms/,/^orcad start-up/p' "$T/err" | grep '^  ' >"$T/phases"
    [ "$(wc -l <"$T/phases")" -eq 7 ] || { show_output; fail "expected seven phase lines"; }
    # The phases come in order.
    awk '{ if ($NF + 0 < last) bad = 1; last = $NF + 0 } END { exit bad }' "$T/phases" ||
        { show_output; fail "the phases are not in order"; }
    # Then the daemon's own start-up, phase by phase (median / slowest).
    expect_line err "orcad start-up (ms, median / slowest of 1 daemon):"
    for phase in "agent to main" "bootstrap" "settings and components" "frameworks" "oob open" "parent answered"; do
        expect_match err "^  $phase +[0-9]+\.[0-9] / +[0-9]+\.[0-9]\$"
    done
    done_case
}

# The data-plane round only for ranks that can read its variables: none
# for `true` (said under --timing, and no interface variable reaches the
# rank), one for `sh` (it may run anything), and one whenever
# --report-routes asks for it.
data_plane_round_only_where_ranks_can_use_it() {
    setup
    orc --timing -n 1 true
    expect_status 0
    expect_no_match err '^  data plane chosen'
    expect_match err '^no data-plane round: /.*/true links no MPI, PMI or network library and cannot run or load another program \(orcarun_data_plane_round=auto\); set orcarun_data_plane_round=always'
    orc --timing -n 1 sh -c 'echo "gloo=${GLOO_SOCKET_IFNAME-unset}"'
    expect_status 0
    expect_match err '^  data plane chosen +[0-9]+\.[0-9]$'
    expect_no_match err '^no data-plane round'
    expect_stdout "gloo=lo"
    orc --timing --report-routes -n 1 true
    expect_status 0
    expect_match err '^  data plane chosen +[0-9]+\.[0-9]$'
    orc --timing --mca orcarun_data_plane_round never -n 1 sh -c 'echo "gloo=${GLOO_SOCKET_IFNAME-unset}"'
    expect_status 0
    expect_no_match err '^  data plane chosen'
    expect_stdout "gloo=unset"
    done_case
}

version_option() {
    setup
    local v
    v=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$ORCA_TEST_BUILDDIR/config.h")
    [ -n "$v" ] || fail "no PACKAGE_VERSION in $ORCA_TEST_BUILDDIR/config.h"
    orc --version
    expect_status 0
    expect_stdout "orcarun (Orca) $v"
    expect_no_stderr
    done_case
}

help_option() {
    setup
    orc --help
    expect_status 0
    expect_line out "Usage: orcarun [options] CMD [ARGS...]"
    local option
    for option in --host --hostfile "-n, --np N" --map-by --oversubscribe --tag-output --stdin --timeout --timing \
                  --report-routes -x -genv -genvlist --mca --tune; do
        expect_match out "^  $option"
    done
    expect_no_stderr
    done_case
}

# ---------------------------------------------------------------------------------
# 11. Mistakes on the command line: a message, a failure, nothing started

no_command() {
    setup
    orc -n 2
    expect_failure
    expect_text err "orcarun: a command to run is needed, for example:"
    expect_line err "  orcarun -n 2 hostname"
    done_case
}

zero_processes() {
    setup
    orc -n 0 true
    expect_failure
    expect_text err "the option -n cannot be used as given: 0 processes is no job"
    done_case
}

more_processes_than_slots() {
    setup
    orc -n $((CORES + 1)) true
    expect_failure
    expect_text err "-n $((CORES + 1)) asks for more processes than the $CORES slots of the 1 host(s)."
    expect_text err "--oversubscribe"
    orc --mca plm_local_num_nodes 3 -n $((3 * (CORES / 3 > 0 ? CORES / 3 : 1) + 1)) true
    expect_failure
    expect_text err "--oversubscribe"
    done_case
}

# Inside a Slurm allocation (the variables salloc and sbatch set; this
# host, named localhost, as its one node of 3 tasks) and with no host
# named, plm/slurm starts the daemons with srun (which finds no Slurm
# here, or is not installed: orcarun says so); with plm/slurm left out,
# ras/slurm gives the job its nodes and slots: 3 ranks without -n.
# --host still chooses (ras/hostfile), and `--mca ras ^slurm` leaves the
# allocation out; a malformed variable is an error quoting it.
slurm_allocation_gives_the_nodes() {
    setup
    # An allocation of this host alone, as salloc's variables say, without
    # a Slurm: plm/slurm's srun finds no controller, and orcarun quotes it.
    SLURM_JOB_ID=4242 SLURM_JOB_NODELIST=localhost SLURM_TASKS_PER_NODE=3 orc true
    expect_failure
    expect_text err "plm/slurm"
    expect_text err "srun"
    expect_text err "--mca plm rsh"
    # The rest is about the nodes (ras/slurm): the daemons start here.
    # Assignments before a function call reach the commands it runs.
    in_allocation() { SLURM_JOB_ID=4242 SLURM_JOB_NODELIST=localhost SLURM_TASKS_PER_NODE=3 orc --mca plm ^slurm "$@"; }
    in_allocation sh -c 'echo "rank $ORCA_RANK of $ORCA_SIZE"'
    expect_status 0
    expect_sorted_stdout "rank 0 of 3
rank 1 of 3
rank 2 of 3"
    in_allocation --host localhost:1 sh -c 'echo "of $ORCA_SIZE"'
    expect_status 0
    expect_stdout "of 1"
    in_allocation --mca ras ^slurm -n 1 sh -c 'echo "of $ORCA_SIZE"'
    expect_status 0
    expect_stdout "of 1"
    SLURM_JOB_ID=4242 SLURM_JOB_NODELIST='node[1-' SLURM_TASKS_PER_NODE=3 orc true
    expect_failure
    expect_text err "SLURM_JOB_NODELIST=node[1-"
    SLURM_JOB_ID=4242 SLURM_JOB_NODELIST=localhost orc true
    expect_failure
    expect_text err "SLURM_TASKS_PER_NODE"
    done_case
}

hostfile_syntax_error() {
    setup
    printf '# the hosts\nlocalhost slots=2\nnode[1- slots=2\n' >"$T/hosts"
    orc --hostfile "$T/hosts" true
    expect_failure
    expect_text err "$T/hosts:3"
    expect_text err "the '[' is never closed by a ']'"
    printf 'localhost slots=x\n' >"$T/hosts"
    orc --hostfile "$T/hosts" true
    expect_failure
    expect_text err "hostfile $T/hosts, line 1: slots=x is invalid"
    done_case
}

unknown_plm_component() {
    setup
    orc --mca plm nosuch true
    expect_failure
    expect_text err "there is no component named 'nosuch'"
    expect_line err "  Components of plm found: local, rsh, slurm"
    done_case
}

local_plm_for_another_host() {
    setup
    orc --mca plm local --host nosuchhost true
    expect_failure
    expect_text err "orcarun: no plm component can start a daemon on nosuchhost:"
    expect_line err "  plm/local: nosuchhost is not this host ($HOST); plm/local starts daemons here only"
    done_case
}

# ---------------------------------------------------------------------------------

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

# A daemon that dies of a fault as the job ends (here its agent: it runs
# the daemon, then SIGSEGVs itself, as a daemon crashing in its exit path
# looks to orcarun) is a bug orcarun names, and exits 1 for, even though
# every rank succeeded.
daemon_crash_at_end_is_reported() {
    setup
    local agent="sh -c 'shift; \"\$@\"; kill -SEGV \$\$' agent"
    orc --mca plm rsh --mca plm_rsh_agent "$agent" --host localhost echo ran
    expect_status 1
    expect_stdout ran
    grep -q 'the daemon on localhost (vpid 1) was killed by signal 11 (Segmentation fault) while the job ended' "$T/err" ||
        { show_output; fail "the crash was not named"; }
    done_case
}

# daemons_alive VPID...: which of these daemons of the case still run.
daemons_alive() {
    local v out=
    for v in "$@"; do [ -z "$(orcad_pid "$M" "$v")" ] || out+="$v "; done
    echo "${out% }"
}

# await_daemons WANT VPID... : waits (20 s at most) until daemons_alive
# VPID... prints WANT.
await_daemons() {
    local want=$1 i; shift
    for ((i = 0; i < 400; i++)); do
        [ "$(daemons_alive "$@")" = "$want" ] && return 0
        sleep 0.05
    done
    show_output
    fail "of daemons $*, these still run: '$(daemons_alive "$@")', not '$want'"
}

# expect_daemons_stay WHY VPID...: these daemons all still run for the
# next half second (as long again as an early end takes here, and more).
expect_daemons_stay() {
    local why=$1 i; shift
    for ((i = 0; i < 10; i++)); do
        [ "$(daemons_alive "$@")" = "$*" ] || { show_output; fail "$why ended before the job"; }
        sleep 0.05
    done
}

# A daemon whose ranks are all done ends then (DaemonDone, a Teardown to
# it alone), not with the job's last rank: here daemons 2-4 while rank 0
# on daemon 1 still runs. Nothing they printed is lost, and an early
# failure still gives the job its status.
daemons_whose_ranks_are_done_end_early() {
    setup
    local no_pmi=(--mca orcarun_pmi_simple_server never --mca orcarun_pmix_server never)
    start "${no_pmi[@]}" --mca plm_local_num_nodes 4 -n 4 sh -c '
        if [ "$ORCA_RANK" = 0 ]; then while [ ! -e "$0/go" ]; do sleep 0.05; done; else seq 40000; fi' "$T"
    await_daemons 1 1 2 3 4
    touch "$T/go"
    finish
    expect_status 0
    [ "$(wc -l <"$T/out")" -eq 120000 ] && [ "$(sort -n "$T/out" | uniq -c | awk '$1 != 3' | wc -l)" -eq 0 ] ||
        { show_output; fail "the early daemons' output is not all there: $(wc -l <"$T/out") lines"; }
    orc "${no_pmi[@]}" --mca plm_local_num_nodes 4 -n 4 sh -c 'case $ORCA_RANK in 0) sleep 0.5 ;; 2) exit 3 ;; esac'
    expect_status 3
    expect_match err '^orcarun: rank 2 on .* exited with status 3'
    done_case
}

# A daemon orcarun told to end (released early, or at the job's end) is
# forgotten by orcarun's oob: its connection closing is its end, and
# orcarun neither dials it again nor waits on it (each such dial was a
# route ranking and a refused connect per daemon, at every job's end).
daemons_told_to_end_are_not_dialed_again() {
    setup
    local no_pmi=(--mca orcarun_pmi_simple_server never --mca orcarun_pmix_server never)
    # Ranks 1 and 2 end at once (their daemons are released early), rank 0
    # later (its daemon ends with the job's teardown).
    orc "${no_pmi[@]}" --mca oob_base_verbose 10 --mca plm_local_num_nodes 3 -n 3 sh -c '
        [ "$ORCA_RANK" = 0 ] && sleep 0.3; exit 0'
    expect_status 0
    local told
    told=$(grep -c '^\[orcarun:[0-9]*\] oob: [a-z]*: [0-9]*\.[123] ended as told: not connecting again$' "$T/err" || true)
    [ "$told" -eq 3 ] || { show_output; fail "orcarun let go of $told of 3 daemons told to end"; }
    done_case
}

# It stays while what a rank started lives on in its process group (the
# job's end still kills that), and while a pmi server serves its ranks
# (another rank may still ask it for their data): daemons 3 and 4 here,
# and every daemon of a shell's job by default.
daemons_stay_for_rank_leftovers_and_pmi() {
    setup
    local no_pmi=(--mca orcarun_pmi_simple_server never --mca orcarun_pmix_server never)
    # Ranks 2 and 3 leave a sleep behind; rank 1 does not.
    start "${no_pmi[@]}" --mca plm_local_num_nodes 4 -n 4 sh -c '
        case $ORCA_RANK in
          0) while [ ! -e "$0/go" ]; do sleep 0.05; done ;;
          1) ;;
          *) sleep 300 & ;;
        esac' "$T"
    await_daemons "1 3 4" 1 2 3 4
    expect_daemons_stay "a daemon whose rank left a child behind" 3 4
    touch "$T/go"
    finish
    expect_status 0
    # A shell can run an MPI program: its daemons serve PMI, and stay.
    start --mca plm_local_num_nodes 2 -n 2 sh -c '
        [ "$ORCA_RANK" = 0 ] && while [ ! -e "$0/go2" ]; do sleep 0.05; done; touch "$0/ended.$ORCA_RANK"' "$T"
    await_file "$T/ended.1"
    expect_daemons_stay "a daemon serving PMI" 1 2
    touch "$T/go2"
    finish
    expect_status 0
    done_case
}

# --report-topology: every daemon's hwloc summary, before the command runs.
report_topology() {
    setup
    orc --mca plm_local_num_nodes 2 -n 2 --report-topology true
    expect_status 0
    local h
    h=$(hostname)
    expect_line err "topology of $h#1 (daemon 1):"
    expect_line err "topology of $h#2 (daemon 2):"
    expect_match err '^  [0-9]+ packages?, [0-9]+ cores?, [0-9]+ PUs?, [0-9]+ NUMA nodes?$'
    done_case
}

# A setting nothing claims is orcarun's warning, once, not every daemon's.
unknown_setting_warned_once() {
    setup
    orc --mca plm_local_num_nodes 4 --mca nosuch_var 3 -n 4 true
    expect_status 0
    [ "$(grep -c 'no MCA variable is named "nosuch_var"' "$T/err")" -eq 1 ] ||
        { show_output; fail "the unknown setting was not warned about exactly once"; }
    done_case
}

CASES=(hostname_twice one_rank_per_slot_by_default ranks_start_in_the_working_directory rank_environment_by_slot rank_environment_by_node
       forward_values_byte_exact forward_from_the_environment forward_unset_name_refused forward_bounds
       forward_past_the_message_limit
       routes_direct routes_direct_tree_spawn routes_radix routes_radix_tree_spawn
       failed_rank_exit_status missing_command_is_127 rank_killed_by_signal
       many_lines_whole_and_in_order output_of_ranks_that_exit_at_once output_kept_while_orcarun_lags
       stdout_and_stderr_apart partial_line_is_shown long_line_without_newline
       stdin_goes_to_rank_0 stdin_to_all stdin_to_none large_stdin_intact stdin_flow_control
       sigint_ends_the_job sigterm_ends_the_job sigint_ignored_then_killed
       daemon_killed_mid_job daemon_killed_takes_its_ranks_background_children daemon_stopped sigterms_while_a_daemon_ends interior_daemon_killed interior_daemon_killed_tree_spawn
       orcarun_killed orcarun_killed_tree_spawn sigterm_reaches_starting_daemons
       sigterm_reaches_starting_daemons_tree_spawn background_children_end_with_the_job
       daemons_whose_ranks_are_done_end_early daemons_told_to_end_are_not_dialed_again daemons_stay_for_rank_leftovers_and_pmi
       missing_daemon_program job_far_too_big_is_refused_at_once descriptor_limit_is_named many_daemons_failing_at_once startup_timeout
       timeout_ends_the_job timing_phases data_plane_round_only_where_ranks_can_use_it version_option help_option
       no_command zero_processes more_processes_than_slots hostfile_syntax_error unknown_plm_component
       local_plm_for_another_host relayed_output_kept_while_orcarun_lags
       progress_line_on_a_terminal report_topology daemon_crash_at_end_is_reported
       slurm_allocation_gives_the_nodes
       unknown_setting_warned_once)

# Arguments, if any, name the cases to run (by hand: bash orcarun_test.sh CASE...).
if [ $# -eq 0 ]; then
    for c in "${CASES[@]}"; do run_case "Orcarun.$c" "$c"; done
else
    for c in "$@"; do run_case "Orcarun.$c" "$c"; done
fi
finish_cases
