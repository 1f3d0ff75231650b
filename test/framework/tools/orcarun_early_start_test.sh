#!/bin/bash
# Early start (orcarun_start_early, framework/tools/orcarun/early_start.h)
# with plm/local on simulated nodes (no root needed): a job that needs
# nothing from the other daemons first starts each daemon's ranks as its
# part of the routing tree comes up, and the daemons still starting can
# still fail or be interrupted, which then ends the ranks already running.
#
# The second daemon to start here is a stand-in that waits for a file the
# first daemon's rank creates before it execs orcad (at most GATE_WAIT
# seconds: the case's hang guard, never a measurement). Ranks held until
# every daemon is up would never create it: the stand-in says which it
# was by the file it leaves, saw-gate or no-gate.
. "$(dirname "$0")/../../lib/testcase.sh"
. "$(dirname "$0")/../../lib/tool_output.sh"

. "$(dirname "$0")/../../lib/orcarun.sh"

setup() { local_case_setup orcarun-early; }
done_case() { expect_nothing_left "$M" 10; }

# gated_daemon THEN [GATE_WAIT]: writes $T/gated-orcad. The first daemon
# to start runs orcad at once; every later one waits for $T/gate, leaves
# saw-gate (or no-gate after GATE_WAIT seconds, default 20), then does
# THEN: "orcad", "fail" (exits 3 without a daemon) or "wait" (waits for
# $T/never, which nothing creates, and is ended by orcarun's teardown).
gated_daemon() {
    cat >"$T/gated-orcad" <<EOS
#!/bin/sh
if mkdir "$T/slot.1" 2>/dev/null; then exec "$ORCAD" "\$@"; fi
i=0
while [ ! -e "$T/gate" ] && [ \$i -lt $((${2:-20} * 20)) ]; do sleep 0.05; i=\$((i + 1)); done
if [ -e "$T/gate" ]; then touch "$T/saw-gate"; else touch "$T/no-gate"; fi
case $1 in
  orcad) exec "$ORCAD" "\$@" ;;
  fail) echo "stand-in daemon failing on purpose" >&2; exit 3 ;;
  wait) while [ ! -e "$T/never" ]; do sleep 0.05; done ;;
esac
EOS
    chmod +x "$T/gated-orcad"
}

# orc ARGS...: orcarun ARGS (run_orcarun: a hang guard) with the gated
# daemon; output in $T/out and $T/err, exit status in $status.
orc() {
    status=0
    ORCA_TEST_MARKER="$M" run_orcarun "$T/out" "$T/err" --mca plm_base_daemon "$T/gated-orcad" "$@" || status=$?
}

# A shell could run an MPI program, for which orcarun asks every host for
# its data-plane link before any rank starts (orcarun_data_plane_round);
# the cases whose ranks are shells say they need none.
NO_ROUND=(--mca orcarun_data_plane_round never)

# The first daemon's rank runs while the second daemon waits for it.
ranks_start_before_the_last_daemon_is_up() {
    setup
    gated_daemon orcad
    # touch runs no other program: no data-plane round for it.
    orc --timing --mca plm_local_num_nodes 2 --map-by node -n 2 touch "$T/gate"
    expect_status 0
    [ -e "$T/saw-gate" ] || { show_output; fail "the second daemon waited in vain: ranks were held for it"; }
    expect_line err "ranks started as each part of the routing tree came up (orcarun_start_early)"
    done_case
}

# orcarun_start_early false holds every rank until every daemon is up: the
# gate stays shut until the stand-in gives up waiting (2 s).
held_when_start_early_is_false() {
    setup
    gated_daemon orcad 2
    orc --timing --mca orcarun_start_early false --mca plm_local_num_nodes 2 --map-by node -n 2 touch "$T/gate"
    expect_status 0
    [ -e "$T/no-gate" ] || { show_output; fail "a rank started before every daemon was up"; }
    expect_line err "ranks held until every daemon was up: orcarun_start_early is false"
    done_case
}

# Nor does a job that asks for the data-plane round start early.
held_for_the_data_plane_round() {
    setup
    gated_daemon orcad 2
    orc --timing --mca orcarun_data_plane_round always --mca plm_local_num_nodes 2 --map-by node -n 2 touch "$T/gate"
    expect_status 0
    [ -e "$T/no-gate" ] || { show_output; fail "a rank started before the data-plane round"; }
    expect_line err "ranks held until every daemon was up: the data-plane round needs every daemon up"
    done_case
}

# A daemon that fails after the first one's rank started ends the job,
# and that rank with it.
late_daemon_failure_ends_the_early_ranks() {
    setup
    gated_daemon fail
    orc "${NO_ROUND[@]}" --mca plm_local_num_nodes 2 --map-by node -n 2 sh -c 'touch "$0/gate"; exec sleep 100' "$T"
    expect_status 1
    [ -e "$T/saw-gate" ] || { show_output; fail "the first rank did not start early"; }
    expect_match_err 'the daemon on .*#[12] \(vpid [12]\) failed: .*exited with status 3'
    done_case
}

# A rank that fails while a daemon is still starting ends the job with its
# status at once: the starting daemon is stopped, not waited for.
early_rank_failure_ends_the_wire_up() {
    setup
    gated_daemon wait
    orc "${NO_ROUND[@]}" --mca plm_local_num_nodes 2 --map-by node -n 2 sh -c 'touch "$0/gate"; exit 7' "$T"
    expect_status 7
    expect_match_err '^orcarun: rank [01] on .*#[12] exited with status 7'
    done_case
}

# SIGINT while a daemon is starting: the message says ranks were running,
# they end, and orcarun exits 130.
sigint_during_the_wire_up_ends_the_early_ranks() {
    setup
    gated_daemon wait
    ORCA_TEST_MARKER="$M" orcarun_start "$T/out" "$T/err" --mca plm_base_daemon "$T/gated-orcad" "${NO_ROUND[@]}" \
        --mca plm_local_num_nodes 2 --map-by node -n 2 sh -c 'touch "$0/gate"; exec sleep 100' "$T"
    await_file "$T/saw-gate"
    kill -INT "$ORCARUN_PID"
    status=0
    orcarun_wait 30 || status=$?
    expect_status 130
    expect_match_err 'while the daemons were starting \(1 of 2 up\)'
    expect_match_err 'and with them the ranks already started on those that were up'
    done_case
}

# Through a tree (radix 2 over 6: daemons 3, 4 below 1 and 5, 6 below 2),
# each child of orcarun gets the command once its subtree is up, and it
# reaches every rank.
every_rank_runs_through_a_tree() {
    setup
    gated_daemon orcad 0
    orc "${NO_ROUND[@]}" --mca routed radix --mca routed_radix_radix 2 --mca plm_local_num_nodes 6 --map-by node -n 6 \
        sh -c 'echo "rank $ORCA_RANK"'
    expect_status 0
    [ "$(sort "$T/out")" = "$(printf 'rank %s\n' 0 1 2 3 4 5)" ] || { show_output; fail "not every rank ran once"; }
    done_case
}

# expect_match_err REGEX: a line of stderr matches the extended REGEX.
expect_match_err() {
    grep -qE -- "$1" "$T/err" || { show_output; fail "no line of stderr matches /$1/"; }
}

CASES=(ranks_start_before_the_last_daemon_is_up held_when_start_early_is_false held_for_the_data_plane_round
       late_daemon_failure_ends_the_early_ranks early_rank_failure_ends_the_wire_up
       sigint_during_the_wire_up_ends_the_early_ranks every_rank_runs_through_a_tree)

# Arguments, if any, name the cases to run (by hand: bash orcarun_early_start_test.sh CASE...).
if [ $# -eq 0 ]; then
    for c in "${CASES[@]}"; do run_case "OrcarunEarlyStart.$c" "$c"; done
else
    for c in "$@"; do run_case "OrcarunEarlyStart.$c" "$c"; done
fi
finish_cases
