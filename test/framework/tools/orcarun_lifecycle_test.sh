#!/bin/bash
# orcarun end to end with plm/local (test/lib/orcarun_local.sh): how a job
# and its daemons end. Signals to orcarun, daemons killed, stopped or
# signalled while they end (leaves and interior ones), orcarun killed,
# daemons still starting, background children of ranks, daemons that
# fail at start-up or never report, the time limit, a daemon crashing at
# the end, and daemons released early or kept for what their ranks left.
# Every case checks exact outputs and exit statuses, and that nothing of
# it is left once it is over.
. "$(dirname "$0")/../../lib/orcarun_local.sh"

# ---------------------------------------------------------------------------------
# 1. Signals to orcarun

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

# A rank that ignores SIGINT is SIGKILLed after orcarun_kill_grace. The
# policy is JobMachineExit.RanksStillThereAfterTheGraceAreKilled's, the
# adapter's wiring JobLaunchAdapter.SigintGoesToTheRanksAndRanksThatIgnore-
# ItAreKilledAfterTheGrace's; this case checks the setting, the real
# signals and the real exit status.
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
# 2. Lost daemons, lost orcarun

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

# Hundreds of daemons failing at once during wire-up (their program is
# false): agents end in a burst while others still start and descriptors
# are reused; the job fails naming a daemon, and nothing crashes or stays.
# (The decision, one failure ending the wire-up, is
# JobMachineLoss.ADaemonFailingDuringTheWireUpEndsTheJob's, the adapter's
# JobLaunchAdapter.ManyAgentsFailingAtOnceEndTheJobNamingADaemon's; the
# burst of real agents is this case's.)
many_daemons_failing_at_once() {
    setup
    orc --mca plm_base_daemon /bin/false --mca plm_local_num_nodes 300 true
    expect_status 1
    expect_match err "^orcarun: the daemon on $HOST_RE#[0-9]+ \(vpid [0-9]+\) failed: its agent \(local\) exited with status 1 before the daemon reported"
    done_case
}

# Daemons that never report: orcarun_startup_timeout names them. The
# policy is JobMachineWireUp.StartupTimeoutNamesEachMissingDaemonAndWhy's,
# the adapter's JobLaunchAdapter.DaemonsThatNeverReportAreNamedAtThe-
# StartupTimeout's; this case checks the setting and real agents.
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
# 3. --timeout

# The policy (from the first command, then the drain) is
# JobMachineExit.TheTimeoutCountsFromTheFirstCommand's, the adapter's
# JobLaunchAdapter.TheTimeoutEndsARunningJob's; this case checks the option
# and real ranks.
timeout_ends_the_job() {
    setup
    orc --timeout 1 -n 2 --oversubscribe sleep 100
    expect_failure
    expect_line err "orcarun: the job did not finish within --timeout 1 s; its ranks are being"
    expect_no_stdout
    done_case
}

# ---------------------------------------------------------------------------------
# 4. How daemons end: a crash at the end, released early, kept

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
    local alive v out=
    alive=" $(orcad_vpids "$M" | tr '\n' ' ')"
    for v in "$@"; do [[ $alive == *" $v "* ]] && out+="$v "; done
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

CASES=(sigint_ends_the_job sigterm_ends_the_job sigint_ignored_then_killed daemon_killed_mid_job
       daemon_killed_takes_its_ranks_background_children daemon_stopped sigterms_while_a_daemon_ends
       interior_daemon_killed interior_daemon_killed_tree_spawn orcarun_killed orcarun_killed_tree_spawn
       sigterm_reaches_starting_daemons sigterm_reaches_starting_daemons_tree_spawn
       background_children_end_with_the_job daemons_whose_ranks_are_done_end_early
       daemons_told_to_end_are_not_dialed_again daemons_stay_for_rank_leftovers_and_pmi
       many_daemons_failing_at_once startup_timeout timeout_ends_the_job daemon_crash_at_end_is_reported)

# Arguments, if any, name the cases to run (by hand: bash orcarun_lifecycle_test.sh CASE...).
run_orcarun_suite "$@"
