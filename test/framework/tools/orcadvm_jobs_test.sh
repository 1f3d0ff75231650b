#!/bin/bash
# Jobs on a running DVM (orcarun --dvm, --dvm-uri FILE|URI, ORCA_DVM=FILE|URI)
# with plm/local (simulated nodes of this host): hundreds in a row and
# fifty at once, each with its own output and exit status; a job that may
# not wait; jobs side by side on the free slots; SIGINT, a lost daemon and
# a killed client each end their own job only, and the DVM goes on; the
# options a job on a DVM cannot use; daemons back to their descriptors
# and memory after hundreds of jobs; MPICH and Open MPI programs as DVM
# jobs, in a row, at once, aborting, and their daemons' memory after them; a client of another user or with a
# wrong secret. Every case checks exact outputs and statuses, and that
# nothing of the DVM is left once it is over. One case by hand:
# bash orcadvm_jobs_test.sh CASE.
. "$(dirname "$0")/../../lib/orcadvm.sh"

# job ARGS...: orcarun --dvm ARGS in the foreground (bounded), stdout in
# $T/out, stderr in $T/err, its status in $status.
job() { orc --dvm "$@"; }

# job_start NAME ARGS...: orcarun --dvm ARGS in the background, its stdout
# in $T/NAME.out and stderr in $T/NAME.err, with SIGINT at its default (a
# script's background jobs start with it ignored); JOB_PID[NAME] is
# orcarun itself. The case's cleanup kills it by pid (jobs -p) however
# the case ends.
declare -A JOB_PID=()
job_start() {
    local name=$1; shift
    ( exec env --default-signal=INT ORCA_MCA_mca_base_component_path="$ORCA_ALL_COMPONENTS" \
        ORCA_MCA_mca_base_help_path="$ORCA_TEST_SRCDIR/framework/help" \
        ORCA_MCA_mca_base_param_files=none ORCA_MCA_mca_base_override_param_file=none \
        ORCA_TEST_MARKER="$M" "$ORCARUN" --dvm "$@" >"$T/$name.out" 2>"$T/$name.err" </dev/null ) &
    JOB_PID[$name]=$!
}

# job_wait NAME [SECONDS]: waits for job NAME (at most SECONDS, default
# 60: a hang guard) and sets $status; one that still runs then fails the
# case (the cleanup kills it).
job_wait() {
    local name=$1 limit=${2:-60} pid=${JOB_PID[$1]} i
    # (Braced: no "Killed" notice from bash when a case killed it.)
    {
        for ((i = 0; i < limit * 20; i++)); do
            process_alive "$pid" || break
            sleep 0.05
        done
    } 2>/dev/null
    process_alive "$pid" && fail "job $name (orcarun $pid) still runs after $limit s: $(cat "$T/$name.err")"
    status=0
    { wait "$pid" || status=$?; } 2>/dev/null
}

# await_pid_files PATTERN COUNT: waits (20 s at most) for COUNT files
# $T/PATTERN.0 .. COUNT-1, each holding the pid a rank wrote (the ranks
# below write their own pid, then exec or loop); prints the pids.
await_pid_files() {
    local r i pid
    for ((r = 0; r < $2; r++)); do await_file "$T/$1.$r"; done
    for ((r = 0; r < $2; r++)); do
        pid=
        for ((i = 0; i < 100; i++)); do
            read -r pid 2>/dev/null <"$T/$1.$r" && [ -n "$pid" ] && break
            sleep 0.05
        done
        [ -n "$pid" ] || fail "$T/$1.$r holds no pid"
        echo "$pid"
    done
}

# await_gone SECONDS PID...: every PID has ended within SECONDS.
await_gone() {
    local limit=$1 i pid left; shift
    for ((i = 0; i < limit * 20; i++)); do
        left=
        for pid in "$@"; do process_alive "$pid" && left+=" $pid"; done
        [ -z "$left" ] && return 0
        sleep 0.05
    done
    fail "still running after $limit s:$left ($(for pid in $left; do process_line "$pid"; done))"
}

# A rank that writes its pid to $0/NAME.RANK, then becomes a sleep of
# SECONDS: `sh -c "$(rank_sleeps NAME SECONDS)" "$T"`.
rank_sleeps() { echo "echo \$\$ >\"\$0/$1.\$ORCA_RANK.tmp\" && mv \"\$0/$1.\$ORCA_RANK.tmp\" \"\$0/$1.\$ORCA_RANK\" && exec sleep $2"; }

# dvm_jobs EXPECTED: `orcadvm status` names EXPECTED ("R running, W
# waiting") within 10 s.
dvm_jobs() {
    local i
    for ((i = 0; i < 100; i++)); do
        dvm status
        grep -qxF "jobs      $1" "$T/out" && return 0
        sleep 0.1
    done
    show_output
    fail "orcadvm status does not say jobs $1 within 10 s"
}

# help_text FILE TOPIC: the text of [TOPIC] in framework/help/FILE, as
# a message shows it after "orcarun: " (its {keys} unfilled).
help_text() {
    awk -v topic="[$2]" '$0 == topic { on = 1; next } on && /^\[[A-Za-z0-9_-]+\]$/ { exit } on' \
        "$ORCA_TEST_SRCDIR/framework/help/$1"
}

# stop_the_dvm: orcadvm stop, the DVM's end, and nothing of it left.
stop_the_dvm() {
    dvm stop
    expect_status 0
    dvm_end
    expect_status 0
    nothing_of_the_dvm_left
}

# ---------------------------------------------------------------------------------

# On 4 simulated nodes: a job on all of them (each rank its own line),
# 200 jobs one after another, a rank that fails and a program that is not
# there (each with the status of a standalone orcarun), the DVM named by
# --dvm-uri FILE|URI and by ORCA_DVM=FILE|URI; and no job left running or waiting.
jobs_in_a_row() {
    # Hundreds of processes and jobs in a few seconds, around code that the
    # other cases drive too: under the sanitizers they would only crowd the
    # timing-bound suites beside them (the normal build runs it in full).
    sanitized_run_is_selective && skip "under the sanitizers: hundreds of jobs (the normal build runs it)"
    dvm_setup
    dvm_start --mca plm_local_num_nodes 4
    job -n 4 --tag-output sh -c 'echo "$ORCA_RANK/$ORCA_SIZE node $ORCA_NODE on $(hostname)"'
    expect_status 0
    expect_sorted_stdout "[0] 0/4 node 0 on $HOST
[1] 1/4 node 1 on $HOST
[2] 2/4 node 2 on $HOST
[3] 3/4 node 3 on $HOST"
    expect_no_stderr
    local i start
    start=$(date +%s%3N)
    for ((i = 1; i <= 200; i++)); do
        job -n 1 true
        [ "$status" = 0 ] || { show_output; fail "job $i of 200 (-n 1 true) exited with $status"; }
        if [ -s "$T/out" ] || [ -s "$T/err" ]; then show_output; fail "job $i of 200 (-n 1 true) printed something"; fi
    done
    echo "200 jobs in a row: $(($(date +%s%3N) - start)) ms"
    job -n 1 sh -c 'exit 3'
    expect_status 3
    expect_no_stdout
    expect_match err "^orcarun: rank 0 on $HOST_RE#[1-4] exited with status 3; the job is ended and orcarun exits with its status\.$"
    expect_line err "The command was: sh"
    job -n 1 "no-such-program-$M"
    expect_status 127
    expect_match err "^orcarun: rank 0 on $HOST_RE#[1-4] could not be started: no-such-program-$M: No such file or directory\.$"
    # The DVM named by its file alone: no contact directory to find it in.
    mkdir -m 700 "$T/elsewhere"
    XDG_RUNTIME_DIR="$T/elsewhere" job -n 1 echo found
    expect_status 1
    expect_line err "orcarun: no DVM of yours is running: $T/elsewhere/orca holds no contact file of a"
    XDG_RUNTIME_DIR="$T/elsewhere" orc --dvm-uri "$CONTACT" -n 2 echo by-uri
    expect_status 0
    expect_stdout "by-uri
by-uri"
    expect_no_stderr
    XDG_RUNTIME_DIR="$T/elsewhere" ORCA_DVM="$CONTACT" orc -n 2 echo by-env
    expect_status 0
    expect_stdout "by-env
by-env"
    expect_no_stderr
    # By its contact URI (status prints it), found among this user's running
    # DVMs' contact files, which give its secret; not where there is none.
    local uri; uri=$(contact_value uri)
    orc --dvm-uri "$uri" -n 1 echo by-contact-uri
    expect_status 0
    expect_stdout "by-contact-uri"
    ORCA_DVM="$uri" orc -n 1 echo by-env-uri
    expect_status 0
    expect_stdout "by-env-uri"
    XDG_RUNTIME_DIR="$T/elsewhere" orc --dvm-uri "$uri" -n 1 true
    expect_status 1
    expect_line err "orcarun: no running DVM of yours has the contact URI $uri: a DVM is found by its"
    dvm status
    expect_status 0
    expect_line out "uri       $uri"
    expect_line out "jobs      0 running, 0 waiting"
    expect_line out "hosts     4 (4 daemon(s) up)"
    stop_the_dvm
}

# 50 jobs submitted at once on 4 slots: they wait their turn, each
# orcarun prints its own job's 20 lines, in order, and nothing of another
# job; each exits 0. A job that may not wait while every slot is held is
# refused at once, naming what runs and waits.
jobs_at_once() {
    # Hundreds of processes and jobs in a few seconds, around code that the
    # other cases drive too: under the sanitizers they would only crowd the
    # timing-bound suites beside them (the normal build runs it in full).
    sanitized_run_is_selective && skip "under the sanitizers: hundreds of jobs (the normal build runs it)"
    dvm_setup
    dvm_start --mca plm_local_num_nodes 4
    local k i
    for ((k = 1; k <= 50; k++)); do
        job_start "j$k" -n 1 sh -c 'i=1; while [ $i -le 20 ]; do echo "$0-line$i"; i=$((i + 1)); done' "job$k"
    done
    for ((k = 1; k <= 50; k++)); do
        job_wait "j$k" 90
        [ "$status" = 0 ] || fail "job $k exited with $status: $(cat "$T/j$k.err")"
        [ ! -s "$T/j$k.err" ] || fail "job $k wrote on stderr: $(cat "$T/j$k.err")"
        for i in $(seq 20); do echo "job$k-line$i"; done | cmp -s - "$T/j$k.out" ||
            fail "job $k's output is not its own 20 lines in order: $(head -c 2000 "$T/j$k.out")"
    done
    # Every slot held by one job, one more waiting for its turn.
    job_start long -n 4 sh -c "$(rank_sleeps long 60)" "$T"
    await_pid_files long 4 >/dev/null
    job_start waiter -n 1 echo waited
    dvm_jobs "1 running, 1 waiting"
    local begin took
    begin=$(date +%s%3N)
    job --dvm-no-wait -n 1 true
    took=$(($(date +%s%3N) - begin))
    expect_status 1
    expect_no_stdout
    local busy
    busy=$(help_text help-launch.txt dvm-busy)
    busy=${busy//\{running\}/1}
    [ "$(cat "$T/err")" = "orcarun: ${busy//\{waiting\}/1}" ] ||
        { show_output; fail "the job that may not wait was not refused with [dvm-busy] of help-launch.txt"; }
    [ "$took" -lt 5000 ] || fail "the job that may not wait took $took ms to be refused"
    echo "a job that may not wait, refused in $took ms"
    kill -INT "${JOB_PID[long]}"
    job_wait long 10
    expect_status 130
    job_wait waiter 20
    expect_status 0
    [ "$(cat "$T/waiter.out")" = waited ] || fail "the waiting job printed: $(cat "$T/waiter.out" "$T/waiter.err")"
    dvm_jobs "0 running, 0 waiting"
    stop_the_dvm
}

# Two jobs of 2 ranks each; SIGINT to one orcarun reaches its ranks
# alone: it exits 130 within seconds with its ranks gone, while the other
# job's ranks still run, and that job ends by itself with 0. The second
# job runs on the two slots the first left free.
sigint_ends_that_job_only() {
    dvm_setup
    dvm_start --mca plm_local_num_nodes 4
    local a_ranks b_ranks begin took
    job_start a -n 2 sh -c "$(rank_sleeps a 60)" "$T"
    # (Up before b is submitted: b, first, would hold a's slots.)
    a_ranks=$(await_pid_files a 2)
    # Job b's ranks say they are up, wait for $T/go (60 s at most), and end.
    job_start b -n 2 sh -c 'echo $$ >"$0/b.$ORCA_RANK.tmp" && mv "$0/b.$ORCA_RANK.tmp" "$0/b.$ORCA_RANK"
        i=0; while [ ! -e "$0/go" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done; echo "b $ORCA_RANK done"' "$T"
    b_ranks=$(await_pid_files b 2)
    dvm_jobs "2 running, 0 waiting"
    begin=$(date +%s%3N)
    kill -INT "${JOB_PID[a]}"
    job_wait a 10
    took=$(($(date +%s%3N) - begin))
    expect_status 130
    echo "the job given SIGINT ended in $took ms"
    # shellcheck disable=SC2086
    await_gone 5 $a_ranks
    grep -qE "^orcarun: rank [01] on $HOST_RE#[1-4] was killed by signal 2 \(Interrupt\); the job is ended" "$T/a.err" ||
        fail "job a: $(cat "$T/a.err")"
    local pid
    for pid in $b_ranks; do process_alive "$pid" || fail "a rank of the other job (pid $pid) ended with the job given SIGINT"; done
    process_alive "${JOB_PID[b]}" || fail "the other job ended with the job given SIGINT: $(cat "$T/b.err")"
    touch "$T/go"
    job_wait b 30
    expect_status 0
    [ "$(sort "$T/b.out")" = "b 0 done
b 1 done" ] || fail "the other job printed: $(cat "$T/b.out" "$T/b.err")"
    [ ! -s "$T/b.err" ] || fail "the other job wrote on stderr: $(cat "$T/b.err")"
    dvm_jobs "0 running, 0 waiting"
    stop_the_dvm
}

# A daemon SIGKILLed under a job on all 4 nodes: that job's orcarun names
# the host and daemon lost and exits 1, its ranks elsewhere are stopped;
# status shows the host lost, and a job of 3 runs on the 3 left.
lost_daemon_ends_its_jobs() {
    dvm_setup
    dvm_start --mca plm_local_num_nodes 4
    job_start all -n 4 sh -c "$(rank_sleeps r 60)" "$T"
    local ranks orcad
    ranks=$(await_pid_files r 4)
    orcad=$(orcad_pid "$M" 2)
    [ -n "$orcad" ] || fail "no orcad of daemon 2: $(processes_with_marker "$M")"
    kill -KILL "$orcad"
    job_wait all 20
    expect_status 1
    grep -qE "^orcarun: the DVM lost its daemon on $HOST_RE#2 \(daemon 2\): .*killed by signal 9" "$T/all.err" ||
        fail "the job's orcarun did not name the lost daemon: $(cat "$T/all.err")"
    grep -qxF "The job's 1 rank(s) there are gone with it, so the job is ended and" "$T/all.err" ||
        fail "the job's orcarun: $(cat "$T/all.err")"
    # shellcheck disable=SC2086
    await_gone 10 $ranks
    await_line "$T/dvm.err" "^orcadvm: the DVM lost its daemon 2 on $HOST_RE#2 "
    dvm status
    expect_status 0
    expect_line out "hosts     4 (3 daemon(s) up)"
    expect_line out "jobs      0 running, 0 waiting"
    expect_match out "^  $HOST_RE#2  1 slot\(s\)  lost$"
    expect_match out "^  $HOST_RE#1  1 slot\(s\)  up$"
    job -n 3 --tag-output sh -c 'echo "$ORCA_RANK/$ORCA_SIZE node $ORCA_NODE"'
    expect_status 0
    expect_sorted_stdout "[0] 0/3 node 0
[1] 1/3 node 2
[2] 2/3 node 3"
    expect_no_stderr
    stop_the_dvm
}

# A job is mapped on the slots free when it fits there: with one slot of 4
# held, a job of 3 that may not wait runs at once on the other three hosts.
jobs_share_the_free_slots() {
    dvm_setup
    dvm_start --mca plm_local_num_nodes 4
    job_start hold -n 1 sh -c "$(rank_sleeps hold 60)" "$T"
    await_pid_files hold 1 >/dev/null
    dvm_jobs "1 running, 0 waiting"
    job --dvm-no-wait -n 3 --tag-output sh -c 'echo "node $ORCA_NODE"'
    local got_status=$status
    cp "$T/out" "$T/free.out"
    cp "$T/err" "$T/free.err"
    kill -INT "${JOB_PID[hold]}"
    job_wait hold 10
    expect_status 130
    stop_the_dvm
    status=$got_status
    cp "$T/free.out" "$T/out"
    cp "$T/free.err" "$T/err"
    if [ "$status" != 0 ]; then
        show_output
        fail "a job of 3 ranks on a DVM with 3 of its 4 slots free was not run on them"
    fi
    expect_sorted_stdout "[0] node 1
[1] node 2
[2] node 3"
    expect_no_stderr
}

# An orcarun --dvm SIGKILLed: the controller kills its job's ranks, and
# the DVM goes on serving others.
killed_client_ends_its_ranks() {
    dvm_setup
    dvm_start --mca plm_local_num_nodes 4
    job_start victim -n 2 sh -c "$(rank_sleeps c 300)" "$T"
    local ranks
    ranks=$(await_pid_files c 2)
    kill -KILL "${JOB_PID[victim]}"
    job_wait victim 5
    expect_status 137
    # shellcheck disable=SC2086
    await_gone 5 $ranks
    dvm_jobs "0 running, 0 waiting"
    expect_line out "hosts     4 (4 daemon(s) up)"
    job -n 4 echo still
    expect_status 0
    expect_stdout "still
still
still
still"
    stop_the_dvm
}

# The options of a standalone run that a job on a DVM cannot use are
# refused, each named as given, with status 1 and nothing run; --stdin
# none and --stdin 0 are taken (rank 0 reads orcarun's stdin). A job far
# too big for the host is refused before any of its ranks starts.
refused_options() {
    dvm_setup
    dvm_start --mca plm_local_num_nodes 2
    local why="a job on a running DVM cannot use it: it shapes the daemons, which run already (give it to orcadvm start, or run without --dvm)."
    local given
    for given in "--host x" "--mca foo bar" "--report-routes" "--bind-to core"; do
        # shellcheck disable=SC2086
        job $given -n 1 touch "$T/ran"
        expect_status 1
        expect_no_stdout
        expect_line err "orcarun: the option ${given%% *} cannot be used as given: $why"
        [ ! -e "$T/ran" ] || fail "orcarun --dvm $given ran the job"
    done
    job --stdin none -n 2 echo none
    expect_status 0
    expect_stdout "none
none"
    expect_no_stderr
    printf 'in-1\nin-2\n' >"$T/in"
    orc_stdin "$T/in" --dvm --stdin 0 -n 2 --tag-output sh -c 'cat; echo end'
    expect_status 0
    expect_sorted_stdout "[0] in-1
[0] in-2
[0] end
[1] end"
    expect_no_stderr
    # More ranks than the DVM's slots, not oversubscribed: refused at once,
    # with the DVM's advice (its hosts are set at its start).
    job -n 5 touch "$T/ran"
    expect_status 1
    expect_no_stdout
    expect_line err "orcarun: -n 5 asks for more processes than the 2 slots of the DVM's 2"
    expect_line err "--host node1:8, or slots=8 in its hostfile)."
    [ ! -e "$T/ran" ] || fail "a job of more ranks than the DVM's slots ran"
    # A job far too big for this host is refused before any rank starts,
    # naming the limit (more processes than the machine has task ids).
    local pid_max
    pid_max=$(cat /proc/sys/kernel/pid_max)
    if [ $((pid_max + 1)) -le 4194304 ]; then  # a job's most ranks (launch::kMaxRanks)
        job --oversubscribe -n $((pid_max + 1)) touch "$T/ran"
        expect_status 1
        expect_no_stdout
        expect_match err "^orcarun: the job cannot fit this host: $((pid_max + 1)) ranks on this host need $((pid_max + 1)) where kernel.pid_max"
        expect_match err "To run it, run fewer ranks on this host \\(-n, -N\\), or raise it: sysctl kernel.pid_max=N"
        [ ! -e "$T/ran" ] || fail "a job far too big for the host ran"
    else
        echo "kernel.pid_max is $pid_max, above a job's most ranks: the refusal of a job past it is not checked"
    fi
    # Past a job's most ranks: refused naming the count the user gave.
    job --oversubscribe -n 5000000 touch "$T/ran"
    expect_status 1
    expect_no_stdout
    expect_line err "orcarun: the job would have 5000000 processes (from -n), more than the limit of 4194304."
    [ ! -e "$T/ran" ] || fail "a job past the most ranks ran"
    dvm status
    expect_line out "jobs      0 running, 0 waiting"
    stop_the_dvm
}

# orcad_fds PID: how many descriptors PID has open.
orcad_fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }

# helper_of PID: the PMI helper process (orcad-pmi) of daemon PID, if any;
# while one it replaced is still ending, once that one is gone (5 s at most).
helper_of() {
    local i found
    for ((i = 0; i < 50; i++)); do
        found=$(pgrep -P "$1" -x orcad-pmi || true)
        [ "$(wc -w <<<"$found")" -le 1 ] && break
        sleep 0.1
    done
    echo "$found"
}

# orcad_figures PIDS...: "fds rss" of each daemon, with its PMI helper
# process (pmi_base_helper: part of the daemon, replaced now and then),
# once they hold still: two reads 0.3 s apart that agree on every
# descriptor count (a daemon may still be closing the last job's pipes
# when its orcarun returns), 5 s at most.
orcad_figures() {
    local i pid now before= h fds rss
    for ((i = 0; i < 17; i++)); do
        now=
        for pid in "$@"; do
            fds=$(orcad_fds "$pid")
            rss=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$pid/status")
            for h in $(helper_of "$pid"); do
                fds=$((fds + $(orcad_fds "$h")))
                rss=$((rss + $(awk '$1 == "VmRSS:" { print $2 }' "/proc/$h/status" 2>/dev/null || echo 0)))
            done
            now+="$fds $rss"$'\n'
        done
        [ -n "$before" ] && [ "$(cut -d' ' -f1 <<<"$now")" = "$(cut -d' ' -f1 <<<"$before")" ] && break
        before=$now
        sleep 0.3
    done
    printf '%s' "$now"
}

# After a warm-up, 300 jobs of a rank on each of 4 daemons leave every
# daemon with the descriptors it had and its memory grown by 2 MB at most:
# each drops a job's state at the job's end.
daemons_back_to_baseline() {
    sanitized_run_is_selective &&
        skip "under the sanitizers: ASan's quarantine keeps freed memory resident, so a bound on VmRSS says nothing there (the normal build runs it)"
    dvm_setup
    dvm_start --mca plm_local_num_nodes 4
    local i
    for ((i = 1; i <= 20; i++)); do
        job -n 4 true
        [ "$status" = 0 ] || { show_output; fail "warm-up job $i exited with $status"; }
    done
    local pids
    mapfile -t pids < <(pids_named "$M" '^orcad$')
    [ "${#pids[@]}" = 4 ] || fail "not 4 daemons: $(processes_with_marker "$M")"
    local before after start
    before=$(orcad_figures "${pids[@]}")
    start=$(date +%s%3N)
    for ((i = 1; i <= 300; i++)); do
        job -n 4 true
        [ "$status" = 0 ] || { show_output; fail "job $i of 300 exited with $status"; }
    done
    echo "300 jobs of 4 ranks: $(($(date +%s%3N) - start)) ms"
    after=$(orcad_figures "${pids[@]}")
    expect_daemons_at_baseline "$before" "$after" "${pids[@]}"
    stop_the_dvm
}

# expect_daemons_at_baseline BEFORE AFTER PIDS...: orcad_figures of PIDS
# before and after; each daemon has the same descriptors, and VmRSS grown
# by 2 MB at most.
expect_daemons_at_baseline() {
    local before=$1 after=$2
    shift 2
    local pids=("$@") n=0 fds0 rss0 fds1 rss1 bad=
    while read -r fds0 rss0 && read -r fds1 rss1 <&3; do
        echo "daemon pid ${pids[n]}: fds $fds0 -> $fds1, VmRSS $rss0 kB -> $rss1 kB ($((rss1 - rss0)) kB)"
        [ "$fds1" = "$fds0" ] || bad+=" daemon ${pids[n]}: $fds0 descriptors, then $fds1 ($(ls -l "/proc/${pids[n]}/fd" | tail -n +2 | cut -c40-));"
        [ $((rss1 - rss0)) -le 2048 ] || bad+=" daemon ${pids[n]}: VmRSS grew by $((rss1 - rss0)) kB;"
        n=$((n + 1))
    done <<<"$before" 3<<<"$after"
    [ "$n" = "${#pids[@]}" ] || fail "figures of $n daemons, not ${#pids[@]}: $before / $after"
    [ -z "$bad" ] || fail "the daemons did not come back to their baseline:$bad"
}

# build_mpi_programs: mpi_exchange built in $T with each MPI compiler
# installed (mpicc.mpich, mpicc.openmpi), its path in MPI_PROGRAM[mpich]
# and MPI_PROGRAM[openmpi]; skips the case where neither is.
declare -A MPI_PROGRAM=()
build_mpi_programs() {
    local flavour
    for flavour in mpich openmpi; do
        command -v "mpicc.$flavour" >/dev/null || { echo "mpicc.$flavour is not installed: no $flavour job here"; continue; }
        MPI_PROGRAM[$flavour]="$T/mpi_exchange.$flavour"
        "mpicc.$flavour" -o "${MPI_PROGRAM[$flavour]}" "$ORCA_TEST_SRCDIR/test/mpi/mpi_exchange.c" >"$T/cc.out" 2>&1 ||
            fail "mpicc.$flavour failed: $(cat "$T/cc.out")"
    done
    [ "${#MPI_PROGRAM[@]}" -gt 0 ] || skip "neither mpicc.mpich (Debian mpich) nor mpicc.openmpi (openmpi-bin) is installed"
}

# expect_mpi_stdout FILE N: FILE is exactly the N lines of an mpi_exchange
# job of N ranks (each rank's checks held), in any order.
expect_mpi_stdout() {
    local r n=$2 sum=$(($2 * ($2 + 1) / 2)) want=
    for ((r = 0; r < n; r++)); do want+="rank $r/$n allreduce=$sum ring=$(((r + n - 1) % n)) barrier=ok host=$(uname -n)"$'\n'; done
    [ "$(sort "$1")" = "$(sort <<<"${want%$'\n'}")" ] || fail "not the $n ranks' lines in $1:
$(cat "$1")
--- wanted ---
$want"
}

# MPI programs of both flavours as DVM jobs: each job its own PMI-1/2 key
# space (MPICH) and PMIx namespace (Open MPI), made and released per job.
# Per flavour, five jobs of 4 ranks back to back, an MPI_Abort that ends
# its job alone with the rank's status, and a rank that exits unfinalized;
# then four jobs at once, the flavours mixed (were two jobs' data shared,
# a rank would read another job's addresses and its exchange fail); then
# one more of each.
mpi_jobs_back_to_back() {
    build_mpi_programs
    dvm_setup
    dvm_start --mca plm_local_num_nodes 4
    local flavour program i
    for flavour in "${!MPI_PROGRAM[@]}"; do
        program=${MPI_PROGRAM[$flavour]}
        for ((i = 1; i <= 5; i++)); do
            job -n 4 "$program"
            [ "$status" = 0 ] || { show_output; fail "$flavour job $i exited with $status"; }
            expect_mpi_stdout "$T/out" 4
        done
        job -n 4 "$program" abort 2 7
        expect_status 7
        expect_match err "^orcarun: rank 2 on [^ ]+ aborted the job with status 7"
        job -n 3 "$program" unfinished 1
        expect_status 1
        expect_match err "^orcarun: rank 1 on [^ ]+ exited with status 0 after it initialized MPI \\(PMI\\)$"
    done
    local flavours=("${!MPI_PROGRAM[@]}")
    for i in 0 1 2 3; do
        job_start "at-once-$i" -n 2 --oversubscribe "${MPI_PROGRAM[${flavours[i % ${#flavours[@]}]}]}"
    done
    for i in 0 1 2 3; do
        job_wait "at-once-$i"
        [ "$status" = 0 ] || fail "job $i of four at once (${flavours[i % ${#flavours[@]}]}) exited with $status: $(cat "$T/at-once-$i.err")"
        expect_mpi_stdout "$T/at-once-$i.out" 2
    done
    for flavour in "${!MPI_PROGRAM[@]}"; do
        job -n 4 "${MPI_PROGRAM[$flavour]}"
        expect_status 0
        expect_mpi_stdout "$T/out" 4
    done
    stop_the_dvm
}

# Each DVM job gets the PMI servers its programs may use, as a standalone
# run would: printenv reaches no PMI library and runs no program, so its
# ranks get neither PMI_FD nor a PMIx namespace; sh may run an MPI program,
# so its ranks get both, the namespace the job's own (another for the next
# job).
pmi_servers_per_job() {
    dvm_setup
    dvm_start --mca plm_local_num_nodes 2
    job -n 2 printenv PMI_FD PMIX_NAMESPACE
    expect_status 1  # printenv: a variable not set
    expect_no_stdout
    local first second
    job -n 2 sh -c 'echo "$PMIX_NAMESPACE ${PMI_FD:+fd}"'
    expect_status 0
    first=$(sort -u "$T/out")
    [[ $first =~ ^orca-[0-9]+-[0-9]+\ fd$ ]] || fail "not one namespace of the job's own and a PMI_FD in each rank: $(cat "$T/out")"
    job -n 1 sh -c 'echo "$PMIX_NAMESPACE"'
    second=$(cat "$T/out")
    [ -n "$second" ] && [ "$second" != "${first% fd}" ] || fail "the next job's namespace is \"$second\", not a new one (the first: ${first% fd})"
    stop_the_dvm
}

# An Open MPI job whose rank on one daemon exits unfinalized leaves the
# other daemon's rank in MPI_Finalize's fence, open in libpmix: the job's
# end answers it (each daemon says so at pmi_base_verbose 1) before its
# namespace goes, and the next job of that DVM runs as if none had. The
# rank exits only once the other daemon's rank is in that fence (its
# daemon has logged one fence more than the rank's own): were it to exit
# at once, the job could end before the other rank reached MPI_Finalize,
# with no fence open (a loaded, sanitized run once did).
open_fence_answered_at_job_end() {
    open_mpi_job_in_its_last_fence unfinished exit-now
    touch "$T/exit-now"
    job_wait unfinished
    [ "$status" = 1 ] || fail "the job exited with $status, not 1: $(cat "$T/unfinished.err")"
    grep -qE "^orcarun: rank 1 on [^ ]+ exited with status 0 after it initialized MPI \\(PMI\\)$" "$T/unfinished.err" ||
        fail "no line says rank 1 exited unfinalized: $(cat "$T/unfinished.err")"
    await_line "$T/dvm.err" "pmi/pmix: the job ends with 1 fences and 0 direct-modex requests open: each answered unreachable"
    job -n 2 --map-by node "${MPI_PROGRAM[openmpi]}"
    expect_status 0
    expect_mpi_stdout "$T/out" 2
    stop_the_dvm
}

# open_mpi_job_in_its_last_fence NAME FILE: on a DVM of 2 simulated nodes
# (pmi_base_verbose 1), job NAME (job_start) of an Open MPI program whose
# rank 1 waits for $T/FILE and then exits without MPI_Finalize, once rank
# 0 is in MPI_Finalize's fence; skips where mpicc.openmpi is not installed.
open_mpi_job_in_its_last_fence() {
    build_mpi_programs
    [ -n "${MPI_PROGRAM[openmpi]:-}" ] || skip "mpicc.openmpi (Debian openmpi-bin) is not installed"
    dvm_setup
    dvm_start --mca plm_local_num_nodes 2 --mca pmi_base_verbose 1
    job_start "$1" -n 2 --map-by node "${MPI_PROGRAM[openmpi]}" unfinished 1 "$T/$2"
    await_one_fence_more "vm#1" "vm#2"
}

# await_one_fence_more AHEAD BEHIND: waits (30 s at most) until daemon
# AHEAD (its log's name, as vm#1) has logged more fences of its ranks
# than daemon BEHIND in $T/dvm.err (pmi_base_verbose 1).
await_one_fence_more() {
    local i ahead behind
    for ((i = 0; i < 300; i++)); do
        ahead=$(grep -c "^\\[orcad $1\\] .*pmi/pmix: fence [0-9]*: this node's ranks are in" "$T/dvm.err" || true)
        behind=$(grep -c "^\\[orcad $2\\] .*pmi/pmix: fence [0-9]*: this node's ranks are in" "$T/dvm.err" || true)
        [ "$ahead" -gt "$behind" ] && return 0
        sleep 0.1
    done
    fail "daemon $1 logged no fence more than $2 within 30 s ($ahead against $behind): $(cat "$T/dvm.err")"
}

# A job whose programs may read the data plane's variables (sh) gets
# torch's MASTER_ADDR and MASTER_PORT, the same in each of its ranks: rank
# 0's host's link and a port free there, asked of its daemon per job (two
# jobs at once, two ports); printenv reads none and gets neither (no port
# is asked for it). The real torch.distributed job runs on the ssh
# suite's DVM, across namespace hosts.
torch_master_per_job() {
    dvm_setup
    dvm_start --mca plm_local_num_nodes 2
    local i first second
    for i in 0 1; do
        job_start "master-$i" -n 2 --oversubscribe sh -c 'echo "$MASTER_ADDR:$MASTER_PORT"; sleep 1'
    done
    for i in 0 1; do
        job_wait "master-$i"
        [ "$status" = 0 ] || fail "job $i exited with $status: $(cat "$T/master-$i.err")"
        [ "$(wc -l <"$T/master-$i.out")" = 2 ] && [ "$(sort -u "$T/master-$i.out" | wc -l)" = 1 ] ||
            fail "job $i's two ranks do not see one torch master: $(cat "$T/master-$i.out")"
        [[ $(head -1 "$T/master-$i.out") =~ ^127\.0\.0\.1:[1-9][0-9]*$ ]] ||
            fail "job $i's torch master is not loopback (the DVM's only link) and a port: $(cat "$T/master-$i.out")"
    done
    first=$(head -1 "$T/master-0.out"); second=$(head -1 "$T/master-1.out")
    [ "$first" != "$second" ] || fail "two jobs at once got the same torch master port: $first"
    job -n 2 printenv MASTER_ADDR MASTER_PORT
    expect_status 1  # printenv: a variable not set
    expect_no_stdout
    stop_the_dvm
}

# MPI jobs of a rank on each of 4 daemons, after a warm-up, leave every
# daemon with its descriptors, and its memory grown by 2 MB at most: a
# job's PMI service (its socketpairs, its key space, its PMIx namespace)
# goes with it. 30 MPICH jobs, then 30 Open MPI jobs: libpmix 4.2.2's
# server keeps some 5 kB a rank of its own (13 kB more with its
# shared-memory store: pmix_data_store_is_hash) until its end, so each
# daemon's figures count its PMI helper process, which is replaced when
# idle and grown (pmi_base_helper_growth, 64k here: twice or so a daemon
# over these jobs; without the helper, hundreds of Open MPI jobs passed
# the bound).
# Each job starts its daemon's PMIx clients anew: when a rank was
# deregistered at its exit, libpmix could leave the next connection with
# its descriptor number unread, and a rank hung in PMIx_Init every few to
# twenty Open MPI jobs (PmixServer::retire).
mpi_jobs_leave_nothing() {
    sanitized_run_is_selective &&
        skip "under the sanitizers: ASan's quarantine keeps freed memory resident, so a bound on VmRSS says nothing there (the normal build runs it)"
    build_mpi_programs
    dvm_setup
    dvm_start --mca plm_local_num_nodes 4 --mca pmi_base_helper_growth 64k --mca pmi_base_verbose 1
    local flavour i count pids before after
    for flavour in mpich openmpi; do
        [ -n "${MPI_PROGRAM[$flavour]:-}" ] || continue
        for ((i = 1; i <= 5; i++)); do
            job -n 4 "${MPI_PROGRAM[$flavour]}"
            [ "$status" = 0 ] || { show_output; fail "$flavour warm-up job $i exited with $status"; }
        done
        mapfile -t pids < <(pids_named "$M" '^orcad$')
        [ "${#pids[@]}" = 4 ] || fail "not 4 daemons: $(processes_with_marker "$M")"
        before=$(orcad_figures "${pids[@]}")
        count=30
        for ((i = 1; i <= count; i++)); do
            job -n 4 "${MPI_PROGRAM[$flavour]}"
            [ "$status" = 0 ] || { show_output; fail "$flavour job $i of $count exited with $status"; }
        done
        after=$(orcad_figures "${pids[@]}")
        echo "after $count $flavour jobs:"
        expect_daemons_at_baseline "$before" "$after" "${pids[@]}"
    done
    [ -z "${MPI_PROGRAM[openmpi]:-}" ] || grep -q "helper process [0-9]* grew by .*: replaced by a new one" "$T/dvm.err" ||
        fail "no PMI helper was replaced over the Open MPI jobs: $(grep helper "$T/dvm.err")"
    stop_the_dvm
}

# A copy of the contact file with a secret of one's own: what any client
# without the DVM's secret has.
forged_contact() {
    sed "s/^secret .*/secret $(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')/" "$CONTACT" >"$1"
    chmod 600 "$1"
}

# A client refused in the oob handshake says it cannot reach the DVM (as
# orcadvm does), not that the DVM was lost while a job ran: no job ran,
# and the DVM goes on.
# expect_refused_not_lost FILE: the refusal names FILE and the DVM's
# process, and claims no job ran and no DVM ended.
expect_refused_not_lost() {
    expect_match err "^orcarun: .*the DVM of $1 \(process $DVM_PID\)"
    if grep -qE "while the job ran|Its daemons end with it" "$T/err"; then
        show_output
        fail "orcarun refused in the handshake says the DVM was lost while the job ran; it should say it cannot reach the DVM"
    fi
}

# refused_then_owner_served FILE: the client just run (status, $T/err)
# was refused with status 1 and printed nothing; the DVM still runs its
# owner's job and counts one client; then, with the DVM stopped, the
# refusal names FILE as one that never reached the DVM.
refused_then_owner_served() {
    local refused_status=$status
    cp "$T/err" "$T/refused.err"
    expect_status 1
    expect_no_stdout
    job -n 2 echo owner
    expect_status 0
    expect_stdout "owner
owner"
    dvm status
    expect_line out "clients   1"
    expect_line out "jobs      0 running, 0 waiting"
    stop_the_dvm
    status=$refused_status
    cp "$T/refused.err" "$T/err"
    : >"$T/out"
    expect_refused_not_lost "$1"
}

# A client with a wrong secret (the contact file, its secret changed) is
# refused in the handshake with status 1; the DVM goes on serving.
wrong_secret_cannot_submit() {
    dvm_setup
    dvm_start --mca plm_local_num_nodes 2
    forged_contact "$T/forged"
    job --dvm-uri "$T/forged" -n 2 touch "$T/ran"
    [ ! -e "$T/ran" ] || fail "a client with a wrong secret ran a job"
    refused_then_owner_served "$T/forged"
}

# Another user can neither read the contact file nor, with a copy of its
# address and a secret of its own, submit a job; the DVM goes on serving
# its owner.
another_user_cannot_submit() {
    [ "$(id -u)" = 0 ] || skip "needs root to run a client as another user"
    command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
    id nobody >/dev/null 2>&1 || skip "no user nobody"
    local as_nobody=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
    orcarun_env HOME=/ "${as_nobody[@]}" "$ORCARUN" --version >/dev/null 2>&1 ||
        skip "user nobody cannot run $ORCARUN (a directory above it is closed to other users)"
    dvm_setup
    dvm_start --mca plm_local_num_nodes 2
    chmod 755 "$T"  # so that nobody reaches the files below, not the contact file
    mkdir -m 700 "$T/nobody" && chown nobody "$T/nobody"
    status=0
    orcarun_env ORCA_TEST_MARKER="$M" HOME="$T/nobody" XDG_RUNTIME_DIR= \
        timeout -k 5 60 "${as_nobody[@]}" "$ORCARUN" --dvm-uri "$CONTACT" -n 1 true >"$T/out" 2>"$T/err" </dev/null || status=$?
    expect_status 1
    expect_no_stdout
    expect_line err "orcarun: cannot use the DVM contact file $CONTACT: Permission denied."
    forged_contact "$T/nobody/guess"
    chown nobody "$T/nobody/guess"
    status=0
    orcarun_env ORCA_TEST_MARKER="$M" HOME="$T/nobody" XDG_RUNTIME_DIR= \
        timeout -k 5 60 "${as_nobody[@]}" "$ORCARUN" --dvm-uri "$T/nobody/guess" -n 2 touch "$T/nobody/ran" \
        >"$T/out" 2>"$T/err" </dev/null || status=$?
    [ ! -e "$T/nobody/ran" ] || fail "another user's client ran a job"
    refused_then_owner_served "$T/nobody/guess"
}

# A rank that leaves its PMIx connection to a child and exits before
# PMIx_Finalize ends its job, and the next jobs' ranks are served: libpmix
# 4.2.2, told to drop a client whose connection it has not yet seen close,
# leaves the next connection given that descriptor number unread (with
# ranks deregistered at their exit, the second such job hung in PMIx_Init;
# PmixServer::retire). The child goes with its rank's job, before the
# job's namespace does: without that wait for the rank's killed group
# (~RankProcess), the second job hung as well.
pmix_connection_left_to_a_child() {
    local flood="$ORCA_TEST_BUILDDIR/test/integration/pmix_flood" i
    [ -x "$flood" ] || fail "$flood is not built"
    dvm_setup
    dvm_start --mca plm_local_num_nodes 1
    for i in 1 2 3; do
        job -x FLOOD_ABANDON=1 -n 1 "$flood"
        [ "$status" = 1 ] || { show_output; fail "job $i leaving its connection to a child exited with $status"; }
        expect_line out "flood: rank 0 leaves its connection to a child"
        expect_match err "^orcarun: rank 0 on [^ ]+ exited with status 0 after it initialized MPI \\(PMI\\)$"
    done
    # libpmix's client leaks a few bytes at PMIx_Finalize: not this case's
    # to report (LeakSanitizer would fail the sanitized build's ranks).
    job -x FLOOD_ROUNDS=2 -x FLOOD_PUTS=1 -x FLOOD_VALUE_BYTES=16 \
        -x ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" -n 2 "$flood"
    expect_status 0
    expect_sorted_stdout "flood: rank 0 done
flood: rank 1 done"
    local children
    mapfile -t children < <(pids_named "$M" '^pmix_flood$')
    [ "${#children[@]}" = 0 ] || await_gone 10 "${children[@]}"
    stop_the_dvm
}

# 100 jobs in a row of two PMIx ranks on two daemons that only initialize
# and finalize (pmix_flood of no rounds), each bounded: a rank's exit can
# reach its daemon before its connection's close reaches libpmix (the FIN
# waits for the kernel's softirq thread), and libpmix 4.2.2, told at the
# job's end to drop a client whose connection it has not seen close,
# leaves the next connection given that descriptor number unread. With no
# wait for the half-closed connections (PmixServer::retire), a job of
# these hung in PMIx_Init within the first 3 to 46 here.
pmix_jobs_in_a_row() {
    local flood="$ORCA_TEST_BUILDDIR/test/integration/pmix_flood" i
    [ -x "$flood" ] || fail "$flood is not built"
    dvm_setup
    dvm_start --mca plm_local_num_nodes 2
    for ((i = 1; i <= 100; i++)); do
        job --timeout 20 -x FLOOD_ROUNDS=0 -x ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
            -n 2 --map-by node "$flood"
        [ "$status" = 0 ] || { show_output; fail "PMIx job $i of 100 exited with $status"; }
        expect_sorted_stdout "flood: rank 0 done
flood: rank 1 done"
    done
    stop_the_dvm
}

# A DVM's daemons serve PMIx from a helper process each (orcad-pmi, a fork
# of the daemon: pmi_base_helper), which is replaced by a fresh one once no
# job uses it and it grew past pmi_base_helper_growth: libpmix 4.2.2 keeps
# some kB of every rank it served until its own end. With a bound of 1
# byte, every PMIx job's end replaces it; the jobs are served all the same.
pmix_helper_is_replaced_when_grown() {
    local flood="$ORCA_TEST_BUILDDIR/test/integration/pmix_flood" i daemon first now
    [ -x "$flood" ] || fail "$flood is not built"
    dvm_setup
    dvm_start --mca plm_local_num_nodes 1 --mca pmi_base_helper_growth 1 --mca pmi_base_verbose 1
    daemon=$(pids_named "$M" '^orcad$')
    first=$(helper_of "$daemon")
    [ -n "$first" ] || fail "daemon $daemon has no PMI helper process: $(processes_with_marker "$M")"
    for ((i = 1; i <= 4; i++)); do
        job --timeout 20 -x FLOOD_ROUNDS=1 -x FLOOD_PUTS=4 -x FLOOD_VALUE_BYTES=64 \
            -x ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" -n 1 "$flood"
        [ "$status" = 0 ] || { show_output; fail "PMIx job $i exited with $status"; }
        expect_sorted_stdout "flood: rank 0 done"
    done
    await_line "$T/dvm.err" "pmi/pmix's helper process [0-9]+ grew by [0-9]+ kB \\(pmi_base_helper_growth\\): replaced by a new one"
    now=$(helper_of "$daemon")
    [ -n "$now" ] && [ "$now" != "$first" ] || fail "the helper is still $first (now '$now'): $(cat "$T/dvm.err")"
    stop_the_dvm
    process_alive "$now" && fail "helper $now outlived the DVM"
    return 0
}

# A daemon's PMI helper process lost under a job (SIGKILL) ends that job,
# naming the helper; the daemon goes on, and its next job gets a new one.
pmix_helper_lost_ends_its_job() {
    open_mpi_job_in_its_last_fence held never
    local daemon helper
    daemon=$(orcad_pid "$M" 1)
    helper=$(helper_of "$daemon")
    [ -n "$helper" ] || fail "daemon $daemon has no PMI helper process: $(processes_with_marker "$M")"
    kill -KILL "$helper"
    job_wait held
    [ "$status" != 0 ] || fail "the job whose PMI helper was killed exited 0"
    tr '\n' ' ' <"$T/held.err" | grep -qE "orcarun: the PMI server of the job's ranks on vm#1 \(pmi/pmix\) is gone: its helper process $helper \(orcad-pmi, pmi_base_helper\) ended: it was killed by signal 9" ||
        fail "the job's end does not name its PMI helper: $(cat "$T/held.err")"
    job -n 2 --map-by node "${MPI_PROGRAM[openmpi]}"
    expect_status 0
    expect_mpi_stdout "$T/out" 2
    [ -n "$(helper_of "$daemon")" ] && [ "$(helper_of "$daemon")" != "$helper" ] || fail "no new helper for daemon $daemon"
    stop_the_dvm
}

# A daemon that cannot start a job's ranks (here pmi/simple listed for the
# helper process, which cannot give its ranks PMI_FD) ends that job with
# why, naming the variable; the job's other ranks are killed, and those
# that never started do not keep the job (and its client) waiting: the
# drain ends it. The DVM goes on.
a_daemon_that_cannot_start_ends_the_job() {
    build_mpi_programs
    [ -n "${MPI_PROGRAM[mpich]:-}" ] || skip "mpicc.mpich (Debian mpich) is not installed"
    dvm_setup
    dvm_start --mca plm_local_num_nodes 2 --mca pmi_base_helper pmix,simple --mca orcarun_kill_grace 1
    job -n 2 --map-by node "${MPI_PROGRAM[mpich]}"
    [ "$status" = 1 ] || { show_output; fail "the job exited with $status, not 1"; }
    tr '\n' ' ' <"$T/err" | grep -qE "cannot start this job's ranks: .*pmi/simple gives its ranks a descriptor, which its helper process cannot: leave it out of pmi_base_helper" ||
        { show_output; fail "the job's end does not say why its ranks could not start"; }
    job -n 2 --map-by node hostname
    expect_status 0
    stop_the_dvm
}

# libpmix's data store is hash (pmi_pmix_gds): its shared-memory store
# (ds21, ds12), libpmix 4.2.2's choice, never frees some 13 kB of each
# rank it served, which a DVM's daemons would keep job after job; it makes
# its segments' directories beside the rendezvous, and hash none. With
# pmi_pmix_gds empty, libpmix chooses again, and they are there.
pmix_data_store_is_hash() {
    local list='ls -a "$PMIX_SERVER_TMPDIR"'
    dvm_setup
    dvm_start --mca plm_local_num_nodes 1
    job -n 1 sh -c "$list"
    expect_status 0
    expect_no_match out "^pmix_dstor_"
    expect_line out ".."
    stop_the_dvm
    dvm_start --mca plm_local_num_nodes 1 --mca pmi_pmix_gds ""
    job -n 1 sh -c "$list"
    expect_status 0
    expect_match out "^pmix_dstor_ds21_"
    stop_the_dvm
}

CASES=(jobs_in_a_row jobs_at_once sigint_ends_that_job_only jobs_share_the_free_slots lost_daemon_ends_its_jobs
       killed_client_ends_its_ranks refused_options daemons_back_to_baseline mpi_jobs_back_to_back
       mpi_jobs_leave_nothing pmix_connection_left_to_a_child pmix_jobs_in_a_row pmix_helper_is_replaced_when_grown
       pmix_helper_lost_ends_its_job a_daemon_that_cannot_start_ends_the_job pmix_data_store_is_hash open_fence_answered_at_job_end pmi_servers_per_job torch_master_per_job wrong_secret_cannot_submit another_user_cannot_submit)
run_dvm_suite OrcadvmJobs "$@"
