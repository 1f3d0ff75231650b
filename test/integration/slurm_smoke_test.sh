#!/bin/bash
# A real Slurm on simulated hosts (test/lib/slurm.sh): slurmctld in h1,
# slurmd in h2 and h3 (network namespaces of contrib/netcluster, each with
# its own hostname), munged in the root namespace. The cluster starts once
# for the script; the cases check that every daemon runs where it should,
# that `srun -N 2 hostname` runs a task on each node, that salloc hands its
# command the node list and tasks per node, and that `sbatch --wait` runs a
# script whose output file appears. The last case stops the cluster while a
# job runs and checks that nothing is left: no daemon, slurmstepd or task,
# no namespace, no UTS file, no directory. Start and stop times are printed
# on FIGURE lines. Needs root and Debian's slurmctld, slurmd, slurm-client
# and munge; skips with the reason elsewhere.
#
# By hand: ORCA_TEST_SRCDIR=SRC bash slurm_smoke_test.sh [CASE...]
. "$(dirname "$0")/../lib/testcase.sh"
. "$(dirname "$0")/../lib/slurm.sh"

SUITE=SlurmSmoke
NODES=2
CASE_TMP=$(mktemp -d)
START_LOG=$(mktemp)
START_ERROR=""
trap 'slurm_cleanup; rm -rf "$CASE_TMP" "$START_LOG"' EXIT
trap 'exit 130' INT TERM

figure() { echo "FIGURE ${FIGURE_CASE:-${FUNCNAME[1]}}: $*"; }
now_ms() { date +%s%3N; }

# Every case needs the cluster the script started.
need_cluster() {
    [ -z "$START_ERROR" ] || fail "Slurm did not start:
$START_ERROR"
    [ -n "${ORCA_SLURM_DIR:-}" ] || fail "the cluster was stopped already"
    [ -d "$ORCA_SLURM_DIR" ] || fail "the cluster was stopped already"
}

# run_client NAME SECONDS CMD...: CMD in h1 (slurm_exec) under a timeout;
# stdout to $CASE_TMP/NAME.out, stderr to .err. Returns its status.
run_client() {
    local name=$1 limit=$2; shift 2
    slurm_exec timeout -k 5 "$limit" "$@" </dev/null >"$CASE_TMP/$name.out" 2>"$CASE_TMP/$name.err"
}

# client_output NAME: what a client printed, and the daemons' logs.
client_output() {
    echo "--- stdout:"
    cat "$CASE_TMP/$1.out" 2>/dev/null || true
    echo "--- stderr:"
    tail -n 40 "$CASE_TMP/$1.err" 2>/dev/null || true
    slurm_logs 20
}

_netns_of() { stat -L -c %i "/proc/$1/ns/net" 2>/dev/null; }
_uts_of() { stat -L -c %i "/proc/$1/ns/uts" 2>/dev/null; }
# _start_of PID: its start time (field 22 of /proc/PID/stat), or nothing.
_start_of() { sed -E 's/.*\) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $20 }'; }

# --- cases -------------------------------------------------------------------

# slurmctld runs in h1, each slurmd in its own host, munged in the root
# namespace (the test's own); each host has its own hostname.
daemons_run_in_their_hosts() {
    need_cluster
    local name pid host want got
    while read -r name pid; do
        case $name in
            munged) want=$(_netns_of $$) ;;
            slurmctld) want=$(stat -L -c %i "/run/netns/$ORCA_SLURM_PREFIX-h1") ;;
            slurmd.*) want=$(stat -L -c %i "/run/netns/$ORCA_SLURM_PREFIX-${name#slurmd.}") ;;
            *) fail "unknown daemon $name in $(slurm_dir)/pids" ;;
        esac
        got=$(_netns_of "$pid") || fail "$name (pid $pid) is gone"
        [ "$got" = "$want" ] || fail "$name (pid $pid) runs in network namespace $got, not $want"
    done < <(slurm_pids)
    [ "$(slurm_pids | wc -l)" -eq $((NODES + 2)) ] || fail "not $((NODES + 2)) daemons recorded:
$(slurm_pids)"
    for host in h1 $(slurm_nodes); do
        got=$(slurm_exec_on "$host" hostname) || fail "hostname failed in $host"
        [ "$got" = "$host" ] || fail "hostname in $host prints \"$got\""
    done
    [ "$(_uts_of "$(slurm_pid slurmctld)")" != "$(_uts_of $$)" ] ||
        fail "slurmctld shares the test's UTS namespace"
}

srun_runs_hostname_on_both_nodes() {
    need_cluster
    local rc=0 t0 t1
    t0=$(now_ms)
    run_client srun 60 srun -N 2 hostname || rc=$?
    t1=$(now_ms)
    [ $rc -eq 0 ] || fail "srun -N 2 hostname exited with $rc:
$(client_output srun)"
    [ "$(sort "$CASE_TMP/srun.out")" = "$(printf 'h2\nh3')" ] || fail "srun -N 2 hostname did not print h2 and h3:
$(client_output srun)"
    figure "srun -N 2 hostname $((t1 - t0)) ms"
}

salloc_sets_nodelist_and_tasks() {
    need_cluster
    local rc=0
    # shellcheck disable=SC2016
    run_client salloc 60 salloc -N 2 sh -c 'echo $SLURM_JOB_NODELIST $SLURM_TASKS_PER_NODE' || rc=$?
    [ $rc -eq 0 ] || fail "salloc exited with $rc:
$(client_output salloc)"
    [ "$(cat "$CASE_TMP/salloc.out")" = "h[2-3] 1(x2)" ] || fail "salloc's command did not print \"h[2-3] 1(x2)\":
$(client_output salloc)"
    grep -q 'Granted job allocation' "$CASE_TMP/salloc.err" || fail "salloc did not report its allocation:
$(client_output salloc)"
}

sbatch_wait_writes_output() {
    need_cluster
    local d="$CASE_TMP/sbatch" rc=0 t0 t1 out
    mkdir -p "$d"
    # shellcheck disable=SC2016
    printf '#!/bin/sh\necho "first on $(hostname)"\necho "second of $SLURM_JOB_NUM_NODES nodes: $SLURM_JOB_NODELIST"\n' >"$d/job.sh"
    t0=$(now_ms)
    run_client sbatch 90 sbatch -N 2 --wait -o "$d/out.%j" "$d/job.sh" || rc=$?
    t1=$(now_ms)
    [ $rc -eq 0 ] || fail "sbatch --wait exited with $rc:
$(client_output sbatch)"
    local id
    id=$(sed -n 's/^Submitted batch job \([0-9][0-9]*\)$/\1/p' "$CASE_TMP/sbatch.out")
    [ -n "$id" ] || fail "sbatch printed no job id:
$(client_output sbatch)"
    [ -f "$d/out.$id" ] || fail "no output file $d/out.$id:
$(ls -l "$d")
$(client_output sbatch)"
    out=$(cat "$d/out.$id")
    [ "$out" = "$(printf 'first on h2\nsecond of 2 nodes: h[2-3]')" ] || fail "the job's output is not its two lines:
$out
$(client_output sbatch)"
    # (sbatch --wait polls every 2 s with the library's MinJobAge; the
    # first scheduler pass comes about 3 s after slurmctld starts.)
    figure "sbatch --wait $((t1 - t0)) ms"
}

# With a job running on both nodes, slurm_stop ends it, every daemon, every
# slurmstepd and task, and removes the namespaces and the directory.
stop_leaves_nothing_behind() {
    need_cluster
    local p=$ORCA_SLURM_PREFIX d=$ORCA_SLURM_DIR rc=0 i n h pid pids=() t0 t1
    run_client long 30 sbatch -N 2 -o /dev/null --wrap 'srun sleep 300' || rc=$?
    [ $rc -eq 0 ] || fail "sbatch exited with $rc:
$(client_output long)"
    # Every task runs (a sleep on each node).
    for ((i = 0; i < 150; i++)); do
        n=0
        for h in $(slurm_nodes); do
            for pid in $(ip netns pids "$p-$h" 2>/dev/null); do
                [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = sleep ] && n=$((n + 1))
            done
        done
        [ $n -ge $NODES ] && break
        sleep 0.2
    done
    [ $n -ge $NODES ] || fail "the job's $NODES sleeps did not start within 30 s ($n did):
$(slurm_exec squeue 2>&1)
$(slurm_logs 20)"
    # Everything of the cluster now: its daemons, the netcluster processes
    # that started them, and every process in its hosts; as "PID START" (the
    # start time tells the same process from a later one with its pid).
    for pid in $(slurm_pids | awk '{ print $2 }') $(slurm_wrapper_pids); do pids+=("$pid $(_start_of "$pid")"); done
    for h in h1 $(slurm_nodes); do
        for pid in $(ip netns pids "$p-$h"); do pids+=("$pid $(_start_of "$pid")"); done
    done
    t0=$(now_ms)
    slurm_stop || fail "slurm_stop returned $?"
    t1=$(now_ms)
    local left
    left=$(slurm_leftovers "$p" "$d")
    local entry start
    for entry in "${pids[@]}"; do
        read -r pid start <<<"$entry"
        [ -n "$start" ] && [ "$(_start_of "$pid")" = "$start" ] || continue
        [ "$(sed -E 's/.*\) (.).*/\1/' "/proc/$pid/stat" 2>/dev/null)" != Z ] || continue
        # A process still in its exit when read above can be gone now.
        local comm cmdline
        comm=$(cat "/proc/$pid/comm" 2>/dev/null) || continue
        cmdline=$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline") || continue
        left+=$'\n'"process $pid ($comm): $cmdline"
    done
    [ -z "$left" ] || fail "left after slurm_stop:
$left"
    # Again: nothing to do, no error.
    slurm_stop || fail "a second slurm_stop returned $?"
    figure "slurm_stop with a job running $((t1 - t0)) ms (${#pids[@]} processes)"
}

CASES=(daemons_run_in_their_hosts srun_runs_hostname_on_both_nodes salloc_sets_nodelist_and_tasks
       sbatch_wait_writes_output stop_leaves_nothing_behind)

# Arguments, if any, name the cases to run (stop_leaves_nothing_behind stops
# the cluster: name it last).
[ $# -eq 0 ] || CASES=("$@")

if ! why=$(slurm_available); then
    for c in "${CASES[@]}"; do skip_case "$SUITE.$c" "$why"; done
    exit 0
fi

P=$(slurm_prefix) || { echo "no free netcluster prefix" >&2; exit 1; }
t0=$(now_ms)
if slurm_start "$P" "$NODES" 2>"$START_LOG"; then
    FIGURE_CASE=start figure "slurm_start of $NODES nodes (prefix $P) $(($(now_ms) - t0)) ms"
else
    START_ERROR=$(cat "$START_LOG")
    echo "slurm_start failed after $(($(now_ms) - t0)) ms" >&2
fi
for c in "${CASES[@]}"; do FIGURE_CASE=$c run_case "$SUITE.$c" "$c"; done
finish_cases
