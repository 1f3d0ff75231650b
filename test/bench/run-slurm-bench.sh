#!/bin/bash
# run-slurm-bench.sh: how long orcarun takes to launch a job inside a real
# Slurm allocation, against Open MPI 4.1 (mpirun.openmpi) and MPICH Hydra
# (mpiexec.hydra -launcher slurm), in the same run, in the same allocation.
#
# The cluster is test/lib/slurm.sh's: network namespaces h1..hN+1 (each
# with its own host name), slurmctld in h1, one slurmd in each of h2..hN+1,
# munged in the root namespace. Once every node is idle, the script runs
# itself again, in h1, as the command of `salloc -N N` (the "inner" run), so
# all launchers see the same SLURM_* variables (SLURM_JOB_NODELIST,
# SLURM_TASKS_PER_NODE=1(xN), ...) and none is given a host list:
#   orcarun hostname                  ras/slurm reads the allocation, plm/slurm
#                                     starts the orcads as one srun step
#   mpirun.openmpi hostname           Open MPI's ras/slurm and plm/slurm (its
#                                     orteds as one srun step)
#   mpiexec.hydra -launcher slurm -ppn 1 hostname
#                                     Hydra's slurm resource manager and launcher
#                                     (its proxies as one srun step)
#   srun hostname                     for reference: one bare step, no launcher
# Each: one warm-up round, then the median of --repeat timed runs (wall
# clock, ms), the launchers taking turns within each round (the first one
# changing every round), each run starting once the allocation has no job
# step left (a step Slurm still winds down would make the next srun wait
# for its CPUs). A run counts only if it exits with 0 and prints
# the N node names, one each (h2..hN+1 in any order); a launcher without
# such a run is reported as failed, without a figure. A launcher that is
# not installed is said so and skipped. orcarun's cache of srun's options
# (plm_slurm_srun_cache) is in the work directory, filled by the warm-up
# round: the timed runs are a user's second and later jobs.
#
# Output: the time slurm_start took, a table, and "FIGURE name value unit"
# lines, then one summary line (and, before them, orcarun's own --timing
# phases of one more run)
#   FIGURE slurm_launch orcarun_ms=M mpirun_ms=M hydra_ms=M ratio_vs_best=R
# (ratio_vs_best: orcarun over the faster of the other two; below 1 means
# orcarun is faster). Every launcher call runs under `timeout`; the cluster
# is torn down on exit (also on failure, INT and TERM; should the script be
# SIGKILLed, a watcher still removes the namespaces, and with them the
# slurmds, slurmctld and the job, but munged and the cluster's directory
# stay). Needs root and Debian's slurmctld, slurmd,
# slurm-client and munge; elsewhere it prints a SKIP line (exit 0).
# Exit status 1 when an installed launcher had no good run.
set -euo pipefail
shopt -s inherit_errexit
export LC_ALL=C

me=${0##*/}

usage() {
    cat <<USAGE
Usage: $me --builddir DIR [OPTIONS]
  --builddir DIR        the build tree (orcarun, orcad, components)
  --srcdir DIR          the source tree (contrib/netcluster, framework/help,
                        test/lib, test/bench); default: two levels above this script
  --orcarun PATH        an installed orcarun (it finds the orcad beside it and
                        the components it was installed with); default: the
                        build tree's, with the build tree's components
  --nodes N             nodes of the cluster and of the allocation (default 8)
  --repeat N            timed runs per launcher (default \$BENCH_REPEAT, else 5)
  --wrappers            run orcarun/orcad through the libtool wrappers
                        (default: the real programs in .libs, LD_LIBRARY_PATH set)
  --limit SECONDS       timeout of each launcher call (default 60)
  --keep                leave the cluster's directory (daemon logs) on exit
USAGE
}

here=$(cd "$(dirname "$0")" && pwd)
# die, argument checks, figures, timed runs, the programs and their versions.
. "$here/bench_lib.sh"
builddir=
srcdir=$(cd "$here/../.." && pwd)
installed=
nodes=8
repeat=${BENCH_REPEAT:-5}
wrappers=0
limit=60
keep=0
inner=0
inner_work=
while [ $# -gt 0 ]; do
    case $1 in
        --builddir) builddir=$2; shift 2 ;;
        --srcdir) srcdir=$2; shift 2 ;;
        --orcarun) installed=$2; shift 2 ;;
        --nodes) nodes=$2; shift 2 ;;
        --repeat) repeat=$2; shift 2 ;;
        --wrappers) wrappers=1; shift ;;
        --limit) limit=$2; shift 2 ;;
        --keep) keep=1; shift ;;
        # The run inside the allocation (the script gives these to itself).
        --inner) inner=1; inner_work=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown option $1" ;;
    esac
done
bench_dirs
bench_whole_numbers "$nodes" "$repeat" "$limit"
[ "$nodes" -le 249 ] || die "at most 249 nodes (netcluster makes 250 hosts at most)"
if [ -n "$installed" ]; then
    [ -x "$installed" ] || die "no program $installed"
    installed=$(cd "$(dirname "$installed")" && pwd)/${installed##*/}
fi

bench_programs
# What runs orcarun: the build tree's (bench_programs) or the installed one.
if [ -n "$installed" ]; then
    orca_words=("$installed")
    [ -x "$(dirname "$installed")/orcad" ] || die "no orcad beside $installed"
    programs="installed: $installed"
else
    orca_words=("${orca_env[@]}" "$orcarun" --mca plm_base_daemon "$orcad")
    programs="the build tree's, $programs"
fi
# The same arguments, for the inner run.
self_args=(--builddir "$builddir" --srcdir "$srcdir" --nodes "$nodes" --repeat "$repeat" --limit "$limit")
[ -z "$installed" ] || self_args+=(--orcarun "$installed")
[ "$wrappers" = 0 ] || self_args+=(--wrappers)

# --- inside the allocation ----------------------------------------------------
if [ "$inner" = 1 ]; then
    work=$inner_work
    [ -f "$work/failures" ] || die "--inner: no work directory $work (the script passes its own)"
    [ -n "${SLURM_JOB_ID:-}" ] || die "--inner: not inside a Slurm allocation (SLURM_JOB_ID is not set)"
    expect=$(hosts_list "$nodes")
    # plm/slurm's cache of srun's options: the bench's own, filled by the
    # warm-up round (as a user's is by their first job), never the home's.
    export XDG_CACHE_HOME="$work/xdg-cache"

    echo "  allocation: job $SLURM_JOB_ID, SLURM_JOB_NODELIST=${SLURM_JOB_NODELIST:-} SLURM_TASKS_PER_NODE=${SLURM_TASKS_PER_NODE:-}"
    [ "${SLURM_JOB_NUM_NODES:-}" = "$nodes" ] ||
        echo "  note: SLURM_JOB_NUM_NODES=${SLURM_JOB_NUM_NODES:-} (not $nodes)"

    # A run is good when it printed each node's name once (and nothing else).
    # shellcheck disable=SC2317  # called by run_one
    bench_check_output() {
        local got want
        got=$(sort "$1" | tr '\n' ' ')
        want=$(tr ',' '\n' <<<"$2" | sort | tr '\n' ' ')
        echo "$(wc -l <"$1") lines of output: ${got:0:120}(expected ${want% })"
        [ "$got" = "$want" ]
    }

    launchers=(orca held)
    declare -A name_of=([orca]=orcarun [held]="orcarun, held" [ompi]=mpirun.openmpi [hydra]=mpiexec.hydra
                        [srun]="srun (reference)")
    declare -A cmd_of=()
    cmd_of[orca]="${orca_words[*]} hostname"
    # The baseline of the same run: ranks held until every daemon is up,
    # as before orcarun_start_early.
    cmd_of[held]="${orca_words[*]} --mca orcarun_start_early false hostname"
    # Open MPI: one rank per slot, and salloc -N gives each node 1 slot
    # (SLURM_TASKS_PER_NODE=1(xN)), so no -n; as root it needs
    # --allow-run-as-root. Its plm/slurm starts the orteds with srun.
    if [ -n "$ompi" ]; then
        launchers+=(ompi)
        cmd_of[ompi]="$ompi --allow-run-as-root hostname"
    else
        echo "  note: mpirun.openmpi is not installed: skipped"
    fi
    # Hydra: -launcher slurm (srun for its proxies) with the slurm resource
    # manager (it reads the allocation); without -n it would start one rank
    # per CPU of each node, so -ppn 1 -n N.
    if [ -n "$hydra" ]; then
        launchers+=(hydra)
        cmd_of[hydra]="$hydra -launcher slurm -rmk slurm -ppn 1 -n $nodes hostname"
    else
        echo "  note: mpiexec.hydra is not installed: skipped"
    fi
    srun=$(command -v srun || true)
    [ -z "$srun" ] || { launchers+=(srun); cmd_of[srun]="$srun --ntasks-per-node=1 hostname"; }

    # quiet_steps: waits (10 s at most) until the allocation has no job step
    # left. A step Slurm still winds down holds its CPUs (salloc -N gives one
    # per node), and an srun that finds them busy retries ("Job step creation
    # temporarily disabled"): every run starts with the allocation idle.
    quiet_steps() {
        local i left
        for ((i = 0; i < 200; i++)); do
            left=$(squeue -h -s -j "$SLURM_JOB_ID" -o %i 2>/dev/null) || left=
            [ -n "$left" ] || return 0
            sleep 0.05
        done
        echo "  note: steps still listed after 10 s: $(tr '\n' ' ' <<<"$left")" >&2
    }
    for l in "${launchers[@]}"; do : >"$work/ms.$l"; : >"$work/retried.$l"; done
    for ((r = 0; r <= repeat; r++)); do
        for ((j = 0; j < ${#launchers[@]}; j++)); do
            l=${launchers[$(((j + r) % ${#launchers[@]}))]}
            cmd=()
            words cmd "${cmd_of[$l]}"
            quiet_steps
            ms=$(run_one "" "$l" "$expect" "${cmd[@]}")
            [ "$r" = 0 ] && continue # warm-up
            echo "$ms" >>"$work/ms.$l"
            ! grep -q 'step creation temporarily disabled' "$work/err" || echo "$r" >>"$work/retried.$l"
        done
    done

    banner "launch inside the allocation: wall ms of LAUNCHER hostname ($nodes ranks, one per node), median of $repeat (plus 1 warm-up)"
    declare -A med=() shown=()
    bad=0
    printf '  %-18s %10s %16s %8s %8s\n' launcher "median ms" "min..max ms" "good" "waited"
    for l in orca held ompi hydra srun; do
        if [ -z "${cmd_of[$l]:-}" ]; then
            med[$l]=-; shown[$l]="not installed"
            continue
        fi
        good=$(grep -vc fail "$work/ms.$l" || true)
        if [ "$good" = 0 ]; then
            med[$l]=-; shown[$l]=failed
            [ "$l" = srun ] || bad=1
            printf '  %-18s %10s %16s %8s %8s\n' "${name_of[$l]}" failed - "0/$repeat" "$(wc -l <"$work/retried.$l")"
            continue
        fi
        med[$l]=$(grep -v fail "$work/ms.$l" | median)
        shown[$l]=${med[$l]}
        printf '  %-18s %10s %16s %8s %8s\n' "${name_of[$l]}" "${med[$l]}" \
            "$(grep -v fail "$work/ms.$l" | sort -g | head -1)..$(grep -v fail "$work/ms.$l" | maxof)" "$good/$repeat" \
            "$(wc -l <"$work/retried.$l")"
    done
    # The faster of the two MPI launchers (of those with a figure).
    best=-
    for l in ompi hydra; do
        [ "${med[$l]}" != - ] || continue
        if [ "$best" = - ] || awk -v a="${med[$l]}" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=${med[$l]}; fi
    done
    r_ompi=$(ratio "${med[orca]}" "${med[ompi]}")
    r_hydra=$(ratio "${med[orca]}" "${med[hydra]}")
    r_best=$(ratio "${med[orca]}" "$best")
    r_held=$(ratio "${med[orca]}" "${med[held]}")
    echo "  orcarun / mpirun.openmpi: $r_ompi   orcarun / mpiexec.hydra: $r_hydra   orcarun / the faster: $r_best"
    echo "  orcarun / orcarun held (--mca orcarun_start_early false: ranks start once every daemon is up): $r_held"
    echo "  (ratios below 1: orcarun is faster; the srun line is one bare step, no launcher: the floor;"
    echo "   good: runs that printed the $nodes node names; waited: timed runs whose srun had to retry for a step)"
    echo "  invocations (in h1, as the command of salloc -N $nodes, under timeout $limit):"
    for l in "${launchers[@]}"; do
        echo "    ${name_of[$l]}: ${cmd_of[$l]}" | sed "s|${orca_env[*]} ||"
    done
    failed_runs_line | sed 's/^/  /'
    # Where orcarun's time goes: its own --timing of one more run.
    if [ "${med[orca]}" != - ]; then
        words cmd "${orca_words[*]} --timing hostname"
        quiet_steps
        ms=$(run_one "" orca-timing "$expect" "${cmd[@]}")
        echo "  orcarun --timing, one more run ($ms ms):"
        sed 's/^/    /' "$work/err"
    fi
    figure "slurm_k${nodes}_orcarun" "${med[orca]}" ms
    figure "slurm_k${nodes}_openmpi" "${med[ompi]}" ms
    figure "slurm_k${nodes}_hydra" "${med[hydra]}" ms
    figure "slurm_k${nodes}_srun" "${med[srun]}" ms
    figure "slurm_k${nodes}_ratio_orca_openmpi" "$r_ompi" ratio
    figure "slurm_k${nodes}_ratio_orca_hydra" "$r_hydra" ratio
    figure "slurm_k${nodes}_ratio_orca_best" "$r_best" ratio
    figure "slurm_k${nodes}_orcarun_held" "${med[held]}" ms
    figure "slurm_k${nodes}_ratio_orca_held" "$r_held" ratio
    sp() { local v=$1; echo "${v/not installed/skipped}"; }
    echo "FIGURE slurm_launch orcarun_ms=$(sp "${shown[orca]}") mpirun_ms=$(sp "${shown[ompi]}") hydra_ms=$(sp "${shown[hydra]}") ratio_vs_best=$r_best"
    # 2 (not die's 1): the outer run tells this from a failure of its own.
    [ "$bad" = 0 ] || exit 2
    exit 0
fi

# --- the cluster ----------------------------------------------------------------
echo "Slurm launch benchmark: $nodes nodes, one allocation (salloc -N $nodes)"
echo "  orcarun:  Orca, $programs"
echo "  Open MPI: $(ompi_version)"
echo "  Hydra:    $(hydra_version)"
# (srun --version wants a slurm.conf; the package says which Slurm it is.)
# shellcheck disable=SC2016
echo "  Slurm:    $(dpkg-query -W -f 'slurm-client ${Version}' slurm-client 2>/dev/null || echo "version unknown (no dpkg)")"
echo "  machine:  $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"

# slurm.sh finds netcluster through ORCA_TEST_SRCDIR; it wants testcase.sh first.
export ORCA_TEST_SRCDIR=$srcdir
. "$srcdir/test/lib/testcase.sh"
. "$srcdir/test/lib/slurm.sh"
if ! why=$(slurm_available); then
    echo; echo "SKIP: Slurm launch benchmark: $why"
    rm -f "$_slurm_registry"
    exit 0
fi
others=$(pgrep -x slurmctld | tr '\n' ' ' || true)
[ -z "$others" ] || echo "  note: other slurmctld processes run on this machine (pids $others): figures may be disturbed"

# bench_work's trap runs bench_on_exit first: the cluster goes, then $work.
# (No second signal cuts the teardown short: slurm_stop waits for its daemons.)
# shellcheck disable=SC2317  # called by bench_cleanup
bench_on_exit() { trap '' INT TERM; slurm_cleanup; }
bench_work slurm
[ "$keep" = 0 ] || export ORCA_SLURM_KEEP=1
P=$(slurm_prefix) || die "no free netcluster prefix"
# The watcher of bench_work removes these namespaces should this shell be
# killed without its trap; bench_cleanup destroys them (again) after slurm_stop.
prefix=$P
echo "$P" >"$work/prefix"
t0=$EPOCHREALTIME
if ! slurm_start "$P" "$nodes" 2>"$work/start.err"; then
    cat "$work/start.err" >&2
    die "slurm_start $P $nodes failed after $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s"
fi
start_ms=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", (b - a) * 1000 }')
echo "  cluster:  $P, slurmctld in h1, slurmd in h2..h$((nodes + 1)); slurm_start took $start_ms ms"
figure "slurm_start_n${nodes}" "$start_ms" ms

# The inner run, as salloc's command in h1 (launchers in turn, each under
# timeout $limit): at most this long, with a minute for salloc itself.
total=$(((repeat + 1) * 4 * (limit + 5) + 60))
# In the background, so that a signal to this shell alone (kill PID,
# timeout) runs its trap at once, not after salloc: slurm_stop then cancels
# the job, and the namespaces go with whatever still runs in them.
rc=0
slurm_exec timeout -k 10 "$total" salloc -N "$nodes" --immediate=60 \
    bash "$srcdir/test/bench/run-slurm-bench.sh" "${self_args[@]}" --inner "$work" </dev/null &
wait $! || rc=$?
# 2: a launcher had no good run (said above); else salloc, the timeout or
# the inner run itself failed: the daemons' logs may tell why.
if [ "$rc" = 2 ]; then
    echo "$me: a launcher had no good run (see \"run failed\" above)" >&2
    rc=1
elif [ "$rc" != 0 ]; then
    echo "$me: salloc -N $nodes and the run inside it exited with $rc" >&2
    slurm_logs 20 >&2
fi
exit "$rc"
