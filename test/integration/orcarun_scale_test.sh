#!/bin/bash
# Jobs of many simulated daemons on this host (plm/local, no root), the
# check issue 21 asks for in CI: repeatable, bounded by what /proc says,
# never by the wall clock.
#   daemons_256        256 daemons (64 under the sanitizers), one rank
#                      each, come up, run and end with status 0 and every
#                      line; each orcad's peak RSS (VmHWM, sampled while
#                      the ranks run) and orcarun's stay under a bound.
#   busy_parents_are_waited_for
#                      128 daemons with oob_usock_handshake_timeout 100 ms:
#                      on 2 cores their parents cannot answer every
#                      handshake that fast, and a daemon must wait for a
#                      parent that runs (oob_usock_handshake_patience)
#                      instead of deciding it is gone (without the wait,
#                      measured: 2 runs of 2 failed, 21 and 22 daemons
#                      gave up).
#   cgroup_task_limit_refused_at_once
#                      in a pids cgroup that leaves 64 tasks, 50 daemons
#                      are refused before anything starts, naming the
#                      cgroup's pids.max and what to change.
#   forks_failing_mid_launch
#                      300 daemons; once some 60 run, their pids cgroup
#                      takes only 10 tasks more (three rounds), so
#                      fork() (or the clone of a daemon's keeper) fails in
#                      orcarun and in daemons alike: the job ends with
#                      status 1 naming the failed call, no
#                      sanitizer report, nothing left (a client connection
#                      closed inside its last handshake step was kept and
#                      freed, a heap-use-after-free, found this way).
#   descriptors_running_out_mid_launch
#                      the same with orcarun's RLIMIT_NOFILE lowered (by
#                      prlimit) to what it holds once a sixth of the
#                      daemons run, plus 5: pipe() and accept() fail.
#   a_daemon_maps_only_what_it_uses
#                      an orcad of a `sleep` job (no PMIx server) maps
#                      the oob's components (with built-in
#                      components: neither them nor liborca or
#                      libstdc++), and
#                      none of libcrypto, hwloc,
#                      libudev, libpmix, the ras components, the routed and plm
#                      components orcarun did not choose, or pmi/pmix
#                      and pmi/simple (sleep speaks no PMI): each was
#                      start-up CPU of every daemon; and it
#                      makes no job directory in TMPDIR (mkdir and rmdir
#                      of every daemon in one directory contend for its
#                      lock).
#   the_job_directory_is_the_pmix_servers
#                      with the PMIx server (orcarun_pmix_server always)
#                      each daemon's ranks find the job's directory, and
#                      it is gone after the job; so are those of daemons
#                      that got no rank (their server started anyway),
#                      and that of a daemon SIGKILLed mid-job (its
#                      keeper removes it).
# Every case prints its figures on a FIGURE line.
#
# By hand: ORCA_TEST_BUILDDIR=BUILD ORCA_TEST_SRCDIR=SRC bash orcarun_scale_test.sh [CASE...]
. "$(dirname "$0")/../lib/testcase.sh"

. "$(dirname "$0")/../lib/orcarun.sh"
# For figure and rss_bound_kb (its oob helpers, which need netns.sh, are not used).
. "$(dirname "$0")/../lib/proc_figures.sh"
. "$(dirname "$0")/../lib/pids_cgroup.sh"

SUITE=OrcarunScale

# --- bounds ----------------------------------------------------------------------------------

# Daemons of the big job: each is a process with its PMIx server, so the
# sanitized build (three times the memory, several times the CPU) runs a
# quarter of them.
DAEMONS=256
[ "${ORCA_TEST_SANITIZED:-no}" = yes ] && DAEMONS=64
# Peak RSS (VmHWM) of one orcad serving one rank with its PMIx server up:
# measured 14.5 MiB on average, 15.1 MiB at most, of 256 (2026-12-02). 24
# MiB catches a cost that grows with the job (every daemon once held a
# list of every rank of the job for libpmix).
ORCAD_HWM_MIB=24
# orcarun's own peak with 256 daemons: measured 11.6 MiB (about 14 KiB a
# daemon above its own 8 MiB); 32 MiB catches a per-daemon cost of 80 KiB.
ORCARUN_HWM_MIB=32

# --- helpers -----------------------------------------------------------------------------------

# output: what orcarun printed, for messages.
output() {
    echo "--- stdout ($(wc -l <"$T/out") lines):"
    tail -n 5 "$T/out"
    echo "--- stderr:"
    tail -n 40 "$T/err"
}

# sample_peaks: every orcad's and orcarun's VmHWM now (one awk for all:
# hundreds of processes are read), the highest kept in ORCAD_PEAK_KB
# (with the count of daemons seen in ORCADS_SEEN) and ORCARUN_PEAK_KB.
# plm/local starts each orcad as a child of orcarun.
sample_peaks() {
    local -a files=() pids
    local pid figures
    mapfile -t pids < <(pgrep -x -P "$ORCARUN_PID" orcad || true)
    for pid in "${pids[@]}"; do files+=("/proc/$pid/status"); done
    figures=$(awk '$1 == "VmHWM:" { n++; if ($2 > max) max = $2 } END { print n + 0, max + 0 }' \
        "${files[@]}" /dev/null 2>/dev/null || true)
    [ "${figures% *}" -le "$ORCADS_SEEN" ] || ORCADS_SEEN=${figures% *}
    [ "${figures#* }" -le "$ORCAD_PEAK_KB" ] || ORCAD_PEAK_KB=${figures#* }
    figures=$(awk '$1 == "VmHWM:" { print $2 }' "/proc/$ORCARUN_PID/status" 2>/dev/null || true)
    [ -z "$figures" ] || [ "$figures" -le "$ORCARUN_PEAK_KB" ] || ORCARUN_PEAK_KB=$figures
}

# release_ranks FIFO: lets every rank blocked in `cat FIFO` go on (EOF),
# as often as needed until orcarun ends: a rank that opens the FIFO after
# one release waits for the next.
release_ranks() {
    while kill -0 "$ORCARUN_PID" 2>/dev/null; do
        # Read-write: the open never blocks, whoever reads or not.
        exec {w}<>"$1"
        exec {w}>&-
        sleep 0.2
    done
}

# --- cases ---------------------------------------------------------------------------------------

daemons_256() {
    local_case_setup scale-daemons
    ORCAD_PEAK_KB=0 ORCARUN_PEAK_KB=0 ORCADS_SEEN=0
    # Each rank blocks on a FIFO (no CPU: hundreds of polling shells would
    # starve the daemons), so that every daemon is up, and at its peak,
    # while it is sampled.
    mkfifo "$T/release"
    ORCA_TEST_MARKER=$M orcarun_start "$T/out" "$T/err" --mca plm_local_num_nodes "$DAEMONS" -n "$DAEMONS" \
        sh -c 'touch "$0.$ORCA_RANK"; cat "$0" >/dev/null; echo "rank $ORCA_RANK"' "$T/release"
    local i started=0
    for ((i = 0; i < 1200; i++)); do
        started=$(find "$T" -maxdepth 1 -name 'release.*' | wc -l)
        [ "$started" -lt "$DAEMONS" ] || break
        kill -0 "$ORCARUN_PID" 2>/dev/null || break
        sleep 0.1
    done
    [ "$started" -eq "$DAEMONS" ] || fail "$started of $DAEMONS ranks started:
$(output)"
    sample_peaks
    release_ranks "$T/release"
    local rc=0
    orcarun_wait 120 || rc=$?
    figure "daemons=$DAEMONS orcads_seen=$ORCADS_SEEN orcad_peak_hwm_kb=$ORCAD_PEAK_KB orcarun_hwm_kb=$ORCARUN_PEAK_KB"
    [ "$rc" -eq 0 ] || fail "orcarun exited with status $rc:
$(output)"
    [ "$(grep -c '^rank [0-9]*$' "$T/out")" -eq "$DAEMONS" ] || fail "not every rank printed its line:
$(output)"
    [ "$ORCADS_SEEN" -eq "$DAEMONS" ] || fail "$ORCADS_SEEN of $DAEMONS orcads were seen running"
    local bound_kb; bound_kb=$(rss_bound_kb $((ORCAD_HWM_MIB * 1024)))
    [ "$ORCAD_PEAK_KB" -le "$bound_kb" ] ||
        fail "an orcad reached a peak RSS of $((ORCAD_PEAK_KB / 1024)) MiB, over $((bound_kb / 1024)) MiB"
    bound_kb=$(rss_bound_kb $((ORCARUN_HWM_MIB * 1024)))
    [ "$ORCARUN_PEAK_KB" -le "$bound_kb" ] ||
        fail "orcarun reached a peak RSS of $((ORCARUN_PEAK_KB / 1024)) MiB with $DAEMONS daemons, over $((bound_kb / 1024)) MiB"
    expect_nothing_left "$M" 20
}

busy_parents_are_waited_for() {
    local_case_setup scale-busy
    local n=128
    [ "${ORCA_TEST_SANITIZED:-no}" = yes ] && n=48
    ORCA_TEST_MARKER=$M orcarun_start "$T/out" "$T/err" --mca plm_local_num_nodes "$n" -n "$n" \
        --mca oob_usock_handshake_timeout 100 hostname
    local rc=0
    orcarun_wait 120 || rc=$?
    figure "daemons=$n gave_up=$(grep -c 'parent of this daemon is gone' "$T/err")"
    [ "$rc" -eq 0 ] || fail "orcarun exited with status $rc (a daemon gave up on a busy parent?):
$(output)"
    [ "$(wc -l <"$T/out")" -eq "$n" ] || fail "not every rank printed its line:
$(output)"
    ! grep -q 'parent of this daemon is gone' "$T/err" || fail "a daemon gave up on its parent:
$(output)"
    expect_nothing_left "$M" 20
}

# --- limits met half way through a launch --------------------------------------------------------

# sanitizer_reports FILE: what a sanitizer (or the sanitized builds' own
# descriptor checks) said in FILE; a daemon's lines come prefixed.
sanitizer_reports() {
    grep -E 'ERROR: (Address|Leak|Memory|Thread)Sanitizer|runtime error:|an enabled IoWatch on descriptor|closed twice' "$1" || true
}

# squeezed_job_ends_cleanly RC WHAT: the checks every squeezed launch
# shares: status 1, stderr saying WHAT failed (an extended regular
# expression), no sanitizer report, and
# nothing of the case left.
squeezed_job_ends_cleanly() {
    [ "$1" -eq 1 ] || fail "orcarun exited with status $1, not 1:
$(output)"
    grep -qE -- "$2" "$T/err" || fail "nothing said '$2':
$(output)"
    local reports; reports=$(sanitizer_reports "$T/err")
    [ -z "$reports" ] || fail "a sanitizer report:
$(head -n 40 <<<"$reports")"
    expect_nothing_left "$M" 20
}

cgroup_task_limit_refused_at_once() {
    local_case_setup scale-cgroup
    pids_cgroup_make refused
    trap 'pids_cgroup_remove; local_case_cleanup' EXIT
    echo 64 >"$PIDS_CG/pids.max"
    local rc=0
    ( echo "$BASHPID" >"$PIDS_CG/cgroup.procs"
      ORCA_TEST_MARKER=$M run_orcarun "$T/out" "$T/err" --mca plm_local_num_nodes 50 true ) || rc=$?
    [ "$rc" -eq 1 ] || fail "orcarun exited with status $rc, not 1:
$(output)"
    grep -q "the pids.max of cgroup $PIDS_CG" "$T/err" || fail "the refusal does not name the cgroup's pids.max:
$(output)"
    grep -q 'Nothing was started' "$T/err" || fail "no 'Nothing was started':
$(output)"
    grep -q 'TasksMax=' "$T/err" || fail "the refusal does not say what to change:
$(output)"
    expect_nothing_left "$M" 5
}

forks_failing_mid_launch() {
    local_case_setup scale-forks
    pids_cgroup_make forks
    trap 'pids_cgroup_remove; local_case_cleanup' EXIT
    # orcarun in the cgroup from its first instruction: the check before
    # the launch sees the cgroup (no limit yet), and every daemon counts.
    printf '#!/bin/sh\necho $$ >"%s/cgroup.procs" && exec "%s" "$@"\n' "$PIDS_CG" "$ORCARUN" >"$T/orcarun-in-cgroup"
    chmod +x "$T/orcarun-in-cgroup"
    # Three rounds: which daemon is where when fork() fails differs every
    # time (the use after free above showed in one round of four).
    local round
    for round in 1 2 3; do
        echo max >"$PIDS_CG/pids.max"
        # LeakSanitizer needs a thread of its own at exit, which a full
        # cgroup refuses: its report would be of the squeeze, not a leak.
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" ORCA_TEST_MARKER=$M ORCARUN="$T/orcarun-in-cgroup" \
            orcarun_start "$T/out" "$T/err" --mca plm_local_num_nodes 300 -n 300 sh -c 'sleep 0.2'
        # At 255 tasks (some 60 daemons, their ranks and threads), the
        # cgroup takes 10 more: daemons are up, starting, connecting and
        # starting ranks when fork() begins to fail, in orcarun and in
        # daemons alike. (The launch stops there: the sanitized build runs
        # as many daemons.)
        local i tasks=0
        for ((i = 0; i < 2400; i++)); do
            tasks=$(cat "$PIDS_CG/pids.current")
            [ "$tasks" -lt 255 ] || break
            kill -0 "$ORCARUN_PID" 2>/dev/null || break
            sleep 0.02
        done
        echo $((tasks + 10)) >"$PIDS_CG/pids.max"
        local rc=0
        orcarun_wait 120 || rc=$?
        figure "round=$round daemons=300 squeezed_at_tasks=$tasks status=$rc fork_failures=$(grep -cE '(fork|clone) failed' "$T/err" || true)"
        # A daemon's keeper is a clone (rank_keeper.h): its failure says so.
        squeezed_job_ends_cleanly "$rc" '(fork|clone) failed: Resource temporarily unavailable'
    done
}

descriptors_running_out_mid_launch() {
    command -v prlimit >/dev/null || skip "prlimit (util-linux) is not installed"
    local_case_setup scale-fds
    # The launch stops at the squeeze: the sanitized build too runs as many.
    local n=300
    ORCA_TEST_MARKER=$M orcarun_start "$T/out" "$T/err" --mca plm_local_num_nodes "$n" -n "$n" sh -c 'sleep 1'
    local i fds=0
    for ((i = 0; i < 2400; i++)); do
        fds=$(ls "/proc/$ORCARUN_PID/fd" 2>/dev/null | wc -l)
        [ "$fds" -lt $((n / 2)) ] || break
        kill -0 "$ORCARUN_PID" 2>/dev/null || break
        sleep 0.05
    done
    prlimit --pid "$ORCARUN_PID" --nofile=$((fds + 5)):$((fds + 5)) || fail "prlimit failed on orcarun ($ORCARUN_PID)"
    local rc=0
    orcarun_wait 120 || rc=$?
    figure "daemons=$n squeezed_at_fds=$fds status=$rc"
    squeezed_job_ends_cleanly "$rc" 'Too many open files'
}

a_daemon_maps_only_what_it_uses() {
    local_case_setup scale-maps
    mkdir "$T/tmp"
    TMPDIR=$T/tmp ORCA_TEST_MARKER=$M orcarun_start "$T/out" "$T/err" --mca plm_local_num_nodes 2 -n 2 sleep 30
    local pid; pid=$(daemon_running sleep)
    [ -n "$pid" ] || fail "no orcad with a running rank was seen:
$(output)"
    local maps; maps=$(shared_objects_of "$pid")
    local made; made=$(ls -A "$T/tmp")
    kill -INT "$ORCARUN_PID"
    orcarun_wait 30 || true
    figure "shared_objects=$(wc -l <<<"$maps") components=$(grep -c '/mca_' <<<"$maps")"
    # The test can fail: what it must find is there. With built-in components
    # orcad has them: it maps no library of the tree and no component file.
    if builtin_components_configured; then
        for unwanted in liborca libstdc++ mca_oob_tcp mca_oob_usock mca_routed_radix mca_plm_local; do
            ! grep -q "/$unwanted" <<<"$maps" || fail "an orcad with built-in components mapped $unwanted, which is built into it:
$maps"
        done
    else
        for want in mca_oob_tcp mca_oob_usock mca_routed_radix mca_plm_local; do
            grep -q "/$want\.so" <<<"$maps" || fail "the orcad did not map $want:
$maps"
        done
    fi
    for unwanted in libcrypto libhwloc libudev libpmix libmunge mca_ras_ mca_routed_direct mca_plm_rsh mca_plm_slurm mca_pmi_pmix mca_pmi_simple; do
        ! grep -q "/$unwanted" <<<"$maps" || fail "the orcad mapped $unwanted, which it does not use:
$(grep "/$unwanted" <<<"$maps")"
    done
    [ -z "$made" ] || fail "the daemons of a job without a PMIx server made in TMPDIR: $made"
    expect_nothing_left "$M" 20
}

the_job_directory_is_the_pmix_servers() {
    local_case_setup scale-jobdir
    compgen -G "$ORCA_TEST_BUILDDIR/components/pmi/pmix/.libs/mca_pmi_pmix.so" >/dev/null ||
        skip "pmi/pmix is not built here (no libpmix at configure)"
    mkdir "$T/tmp"
    # pmi/pmix names its directory to Open MPI's shared-memory transport.
    TMPDIR=$T/tmp ORCA_TEST_MARKER=$M orcarun_start "$T/out" "$T/err" --mca plm_local_num_nodes 2 -n 2 \
        --mca orcarun_pmix_server always \
        sh -c 'd=$OMPI_MCA_btl_vader_backing_directory; case $d in "$TMPDIR"/orca-*) test -d "$d" && echo "dir $d" ;; esac'
    local rc=0
    orcarun_wait 30 || rc=$?
    [ "$rc" -eq 0 ] || fail "orcarun ended with $rc:
$(cat "$T/err")"
    [ "$(grep -c '^dir ' "$T/out")" -eq 2 ] || fail "not every rank found its daemon's job directory:
$(cat "$T/out" "$T/err")"
    [ "$(sort -u "$T/out" | wc -l)" -eq 2 ] || fail "the two daemons share one directory: $(cat "$T/out")"
    local left; left=$(ls -A "$T/tmp")
    [ -z "$left" ] || fail "the job's directories outlived it: $left"
    # Every daemon starts its server before it knows whether it gets ranks
    # (warm_up): those that get none end it, and its directory, too.
    rc=0
    TMPDIR=$T/tmp ORCA_TEST_MARKER=$M run_orcarun "$T/out" "$T/err" --mca plm_local_num_nodes 3 -n 1 \
        --mca orcarun_pmix_server always hostname || rc=$?
    [ "$rc" -eq 0 ] && [ "$(wc -l <"$T/out")" -eq 1 ] || fail "a job of 1 rank on 3 daemons ended with $rc:
$(cat "$T/out" "$T/err")"
    left=$(ls -A "$T/tmp")
    [ -z "$left" ] || fail "the directories of daemons without ranks outlived the job: $left"
    # A daemon SIGKILLed mid-job cannot remove its directory (the files
    # Open MPI's shared-memory transport and libpmix's store put there; each
    # rank here writes one): its keeper does, as it ends the daemon's ranks.
    TMPDIR=$T/tmp ORCA_TEST_MARKER=$M orcarun_start "$T/out" "$T/err" --mca plm_local_num_nodes 2 -n 2 \
        --mca orcarun_pmix_server always \
        sh -c 'echo segment >"$OMPI_MCA_btl_vader_backing_directory/segment" && echo up; sleep 30'
    local i pid=
    for ((i = 0; i < 200; i++)); do
        pid=$(pgrep -x -P "$ORCARUN_PID" orcad | head -n 1 || true)
        [ -n "$pid" ] && [ "$(grep -c '^up' "$T/out")" -eq 2 ] && compgen -G "$T/tmp/orca-*/segment" >/dev/null && break
        pid=
        kill -0 "$ORCARUN_PID" 2>/dev/null || break
        sleep 0.05
    done
    [ -n "$pid" ] || fail "no orcad with running ranks and a file in its job directory was seen:
$(cat "$T/out" "$T/err"; ls -R "$T/tmp")"
    kill -KILL "$pid"
    rc=0
    orcarun_wait 30 || rc=$?
    [ "$rc" -ne 0 ] || fail "orcarun reported success for a job whose daemon was killed"
    left=$(ls -A "$T/tmp")
    [ -z "$left" ] || fail "a killed daemon's directory outlived it: $(ls -R "$T/tmp")"
    expect_nothing_left "$M" 20
}

CASES=(daemons_256 busy_parents_are_waited_for cgroup_task_limit_refused_at_once forks_failing_mid_launch
       descriptors_running_out_mid_launch a_daemon_maps_only_what_it_uses the_job_directory_is_the_pmix_servers)
if [ "$#" -eq 0 ]; then set -- "${CASES[@]}"; fi
for c in "$@"; do
    # The sizes: hundreds of daemons, each several times dearer under ASan,
    # where the cases of failures mid-launch (a use after free showed in
    # one of them) run as well.
    if sanitized_run_is_selective && [[ $c == daemons_256 || $c == busy_parents_are_waited_for ]]; then
        skip_case "$SUITE.$c" "under the sanitizers: a size case; the failures mid-launch run here, the sizes in the normal build"
        continue
    fi
    FIGURE_CASE=$c run_case "$SUITE.$c" "$c"
done
finish_cases
