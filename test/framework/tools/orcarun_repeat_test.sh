#!/bin/bash
# 200 short orcarun jobs (30 under the sanitizers) in a row on this host (plm/local, 4 simulated
# nodes in a radix-2 tree: launch, wire-up over usock and TCP listeners,
# a command on every node, output, teardown). After every job the test's
# own figures are back at their baseline: the test shell's descriptors,
# no process of the test alive (orcarun, orcad, ranks: told by an
# environment marker, so other tests running at the same time do not
# count), no TCP listener held by one, no abstract socket of the job
# (@orca/JOB.*), no file in the TMPDIR orcarun and its daemons were given
# (Orca keeps no session directory; anything there would be a leak). The
# last jobs cost no more CPU than the first ones. No root needed.
. "$(dirname "$0")/../../lib/testcase.sh"
. "$(dirname "$0")/../../lib/tool_output.sh"

. "$(dirname "$0")/../../lib/orcarun.sh"
. "$(dirname "$0")/../../lib/proc_figures.sh"
for program in "$ORCARUN" "$ORCAD"; do
    [ -x "$program" ] || { echo "$program is not built" >&2; exit 1; }
done

# Under the sanitizers each job costs about five times as much (2.6 s a
# job where an exec costs 3 ms): 30 jobs there keep the suite inside CI's
# budget and still show a leak per job, which LeakSanitizer also reports
# from every process of every job.
if [ "${ORCA_TEST_SANITIZED:-no}" = yes ]; then JOBS=${ORCA_REPEAT_JOBS:-30}; else JOBS=${ORCA_REPEAT_JOBS:-200}; fi
NODES=4
# The job: every rank prints its rank; --report-routes names the job's
# abstract sockets (@orca/JOB.VPID/...), so that the test can look for
# exactly this job's sockets afterwards.
JOB_ARGS=(--mca plm_local_num_nodes "$NODES" --mca routed radix --mca routed_radix_radix 2 --report-routes
          -n "$NODES" --oversubscribe --map-by node sh -c 'echo "$ORCA_RANK"')

# --- the case's directory, marker and figures --------------------------------------------------

setup() {
    local_case_setup orcarun-repeat
    mkdir "$T/tmp"
}

# count_fds: sets FDS to the descriptors open in this (the case's) shell
# (not in a command substitution: its fork has a pipe of its own).
count_fds() {
    local fds=(/proc/"$BASHPID"/fd/*)
    FDS=${#fds[@]}
}

# tmp_files: files and directories orcarun and its daemons left in their TMPDIR.
tmp_files() { find "$T/tmp" -mindepth 1 | wc -l; }

# job_sockets JOB: abstract Unix sockets of orca job JOB on this host
# (listeners and connections: @orca/JOB.VPID/PID/...).
job_sockets() { grep -c -- "@orca/$1\." /proc/net/unix || true; }

# tcp_listeners PID...: TCP sockets in LISTEN state held by those processes.
tcp_listeners() {
    local pid inodes=
    for pid in "$@"; do
        inodes+=" $(find "/proc/$pid/fd" -lname 'socket:\[*' -printf '%l\n' 2>/dev/null | tr -dc '0-9\n' | tr '\n' ' ')"
    done
    # State 0A is LISTEN; field 10 is the inode.
    awk -v want="$inodes" 'BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) mine[w[i]] = 1 }
        FNR > 1 && $4 == "0A" && ($10 in mine) { c++ } END { print c + 0 }' /proc/net/tcp /proc/net/tcp6
}

# marked_pids: live processes of the case.
marked_pids() { processes_with_marker "$M" | cut -d' ' -f1; }

# children_cpu: sets CPU_MS to the CPU time (user + system) of every
# child this shell waited for, and of their children that they waited
# for, in ms. `times` must run in this shell, not in a command
# substitution, whose fork would count only its own children: it reads
# getrusage(RUSAGE_CHILDREN).
children_cpu() {
    times >"$T/times"
    local self children u s
    { read -r self; read -r children; } <"$T/times"
    read -r u s <<<"$children"
    CPU_MS=$(($(_times_ms "$u") + $(_times_ms "$s")))
}
# _times_ms 1m2.345s: milliseconds.
_times_ms() {
    local v=$1 m
    m=${v%%m*}
    v=${v#*m}
    v=${v%s}
    local sec=${v%.*} frac=${v#*.}
    frac=${frac}000
    echo $((10#$m * 60000 + 10#$sec * 1000 + 10#${frac:0:3}))
}

# now_ms: the wall clock in ms (with microseconds dropped).
now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }

# median VALUES...: the median (the lower middle one of an even count).
median() {
    local -a sorted
    mapfile -t sorted < <(printf '%s\n' "$@" | sort -n)
    echo "${sorted[$(((${#sorted[@]} - 1) / 2))]}"
}

# job_of_routes: the job id in the route report of $T/err.
job_of_routes() {
    sed -nE 's/^  daemon 1 on .* -> orcarun: usock: local -> @orca\/([0-9]+)\.0\/.*/\1/p' "$T/err" | head -1
}

# ---------------------------------------------------------------------------------------------

# The figures this test counts do see a job while it runs: one held on a
# file, then released.
figures_see_a_running_job() {
    setup
    ORCA_TEST_MARKER="$M" TMPDIR="$T/tmp" orcarun_start "$T/out" "$T/err" --mca plm_local_num_nodes "$NODES" \
        --mca routed radix --mca routed_radix_radix 2 --report-routes -n "$NODES" --oversubscribe --map-by node \
        sh -c 'touch "$0/up.$ORCA_RANK"; while [ ! -e "$0/go" ]; do sleep 0.02; done' "$T"
    local r i
    for ((r = 0; r < NODES; r++)); do
        for ((i = 0; i < 400; i++)); do [ -e "$T/up.$r" ] && break; sleep 0.05; done
        [ -e "$T/up.$r" ] || { show_output; fail "rank $r never started"; }
    done
    local pids job procs orcads listeners sockets
    mapfile -t pids < <(marked_pids)
    procs=${#pids[@]}
    orcads=$(pids_named "$M" '^(lt-)?orcad$' | wc -l)
    listeners=$(tcp_listeners "${pids[@]}")
    job=$(job_of_routes)
    [ -n "$job" ] || { show_output; fail "no job id in the route report"; }
    sockets=$(job_sockets "$job")
    touch "$T/go"
    status=0
    orcarun_wait 30 || status=$?
    expect_status 0
    figure "while running: processes=$procs orcad=$orcads tcp_listeners=$listeners job_sockets=$sockets"
    [ "$orcads" -eq "$NODES" ] || fail "$orcads orcad processes seen, not $NODES"
    # orcarun, the daemons, and at least a shell per rank.
    [ "$procs" -ge $((1 + 2 * NODES)) ] || fail "only $procs processes of the job seen"
    [ "$listeners" -ge $((NODES + 1)) ] || fail "only $listeners TCP listeners of the job seen"
    [ "$sockets" -ge $((NODES + 1)) ] || fail "only $sockets sockets of job $job seen"
    expect_nothing_left "$M" 10
    [ "$(job_sockets "$job")" -eq 0 ] || fail "sockets of job $job left: $(grep -- "@orca/$job\." /proc/net/unix)"
}

many_jobs_leave_nothing() {
    setup
    local expected
    expected=$(seq 0 $((NODES - 1)))
    # The baseline, before the first job.
    local fds0 tmp0 procs0
    count_fds
    fds0=$FDS
    tmp0=$(tmp_files)
    procs0=$(marked_pids | wc -l)
    [ "$procs0" -eq 0 ] || fail "processes with the case's marker before any job: $procs0"
    figure "baseline: shell_fds=$fds0 tmp_files=$tmp0 processes=$procs0 tcp_listeners=0"

    local j c0 c1 t0 t1 job left i tmp suite_start
    local -a cpu wall
    suite_start=$(now_ms)
    for ((j = 0; j < JOBS; j++)); do
        children_cpu
        c0=$CPU_MS
        t0=$(now_ms)
        status=0
        ORCA_TEST_MARKER="$M" TMPDIR="$T/tmp" run_orcarun "$T/out" "$T/err" "${JOB_ARGS[@]}" || status=$?
        t1=$(now_ms)
        children_cpu
        c1=$CPU_MS
        cpu[j]=$((c1 - c0))
        wall[j]=$((t1 - t0))
        [ "$status" -eq 0 ] || { show_output; fail "job $j: orcarun exited with $status"; }
        [ "$(sort -n "$T/out")" = "$expected" ] || { show_output; fail "job $j: not one line per rank"; }
        job=$(job_of_routes)
        [ -n "$job" ] || { show_output; fail "job $j: no job id in the route report"; }
        # Every process of the job was waited for by its parent before
        # orcarun exited, so nothing should be left at all; the bounded
        # poll only gives a process being reaped a moment.
        left=$(processes_with_marker "$M")
        for ((i = 0; i < 40 && ${#left} > 0; i++)); do sleep 0.05; left=$(processes_with_marker "$M"); done
        [ -z "$left" ] || fail "job $j: processes left after orcarun exited:
$left
(TCP listeners they hold: $(tcp_listeners $(cut -d' ' -f1 <<<"$left")))"
        [ "$(job_sockets "$job")" -eq 0 ] || fail "job $j: sockets of job $job left:
$(grep -- "@orca/$job\." /proc/net/unix)"
        count_fds
        [ "$FDS" -eq "$fds0" ] || fail "job $j: the test shell has $FDS descriptors open, not $fds0:
$(ls -l "/proc/$BASHPID/fd")"
        tmp=$(tmp_files)
        [ "$tmp" -eq "$tmp0" ] || fail "job $j: $tmp files in TMPDIR, not $tmp0:
$(find "$T/tmp" -mindepth 1 | head -20)"
    done
    # First and last n jobs, n a third of them (at most 20): disjoint sets.
    local elapsed=$(($(now_ms) - suite_start)) n=$((JOBS / 3 < 20 ? JOBS / 3 : 20))
    [ "$n" -ge 1 ] || n=1
    local cpu_first cpu_last wall_first wall_last
    cpu_first=$(median "${cpu[@]:0:n}")
    cpu_last=$(median "${cpu[@]:JOBS-n:n}")
    wall_first=$(median "${wall[@]:0:n}")
    wall_last=$(median "${wall[@]:JOBS-n:n}")
    figure "jobs=$JOBS total_ms=$elapsed first_job: cpu_ms=${cpu[0]} wall_ms=${wall[0]}" \
        "last_job: cpu_ms=${cpu[JOBS-1]} wall_ms=${wall[JOBS-1]}"
    figure "median of the first $n: cpu_ms=$cpu_first wall_ms=$wall_first;" \
        "median of the last $n: cpu_ms=$cpu_last wall_ms=$wall_last"
    # CPU time, not wall time: wall time is at the mercy of whatever else
    # runs on the machine (make -j runs other tests beside this one). The
    # margin: the CPU time of one ~100 ms job still moves with cache and
    # frequency effects and with contention from those other tests, by
    # up to a few tens of percent between medians (hence 1.5x); the 20 ms
    # cover the accounting of the very short processes (sh, the rank
    # commands) and, under ASan, quarantine and shadow-memory work that
    # varies from job to job. A leak that makes each job slower (a growing
    # directory, processes or sockets piling up) exceeds both over the jobs.
    [ "$cpu_last" -le $((cpu_first * 3 / 2 + 20)) ] ||
        fail "the last $n jobs took a median $cpu_last ms of CPU, more than 1.5 x $cpu_first ms + 20 ms of the first $n"
}

CASES=(figures_see_a_running_job many_jobs_leave_nothing)
[ $# -eq 0 ] || CASES=("$@")
skip_cases_when_sanitized OrcarunRepeat "200 jobs in a row, over the launch every other suite runs; LeakSanitizer reports a leak from any job of the sanitized run" "${CASES[@]}"
for c in "${CASES[@]}"; do run_case "OrcarunRepeat.$c" "$c"; done
finish_cases
