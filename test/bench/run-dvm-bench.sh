#!/bin/bash
# run-dvm-bench.sh: jobs on a persistent DVM (orcadvm start, orcarun --dvm)
# against cold launches, in the same run, on simulated nodes of this host
# (plm/local, no root needed):
#   client    what the client alone costs (orcarun --version), beside the rates
#   seq       jobs one after another: -n 1 true, and -n NODES hostname
#   cold      the same jobs as cold launches: orcarun (its own daemons each
#             time) and mpiexec.hydra (MPICH) when installed
#   conc      JOBS jobs of -n 1, INFLIGHT at once (xargs -P), every job's
#             output checked whole and unmixed, against the same job's rate
#             one after another (and against -n 1 true's)
#   count     COUNT jobs in a row: the rate of the last 1000 against the
#             first 1000's (no slowdown as jobs accumulate)
#   daemons   the daemons' open descriptors and RSS before and after (with
#             their PMI helper processes, pmi_base_helper)
#   mpi       MPI_JOBS jobs in a row of an MPI program (test/mpi/mpi_exchange.c,
#             2 ranks) of each flavour whose compiler is installed (MPICH's
#             mpicc.mpich, Open MPI's mpicc.openmpi): the time a job and the
#             daemons' descriptors and RSS after the first and the last job
#             (--mpi-jobs 0: none)
# Flux's and PRRTE's published figures are printed beside ours, with where
# they come from (neither is in Debian 12, so neither runs here).
#
#   run-dvm-bench.sh --builddir DIR [--nodes N] [--jobs N] [--conc N]
#                    [--inflight N] [--count N] [--repeat N] [--mpi-jobs N]
set -euo pipefail
me=run-dvm-bench.sh
usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
}

builddir= srcdir=$(cd "$(dirname "$0")/../.." && pwd)
nodes=8 jobs=200 conc=1000 inflight=16 count=2000 repeat=5 mpi_jobs=500 wrappers=0 limit=60
while [ $# -gt 0 ]; do
    case $1 in
        --builddir) builddir=$2; shift 2 ;;
        --srcdir) srcdir=$2; shift 2 ;;
        --nodes) nodes=$2; shift 2 ;;
        --jobs) jobs=$2; shift 2 ;;
        --conc) conc=$2; shift 2 ;;
        --inflight) inflight=$2; shift 2 ;;
        --count) count=$2; shift 2 ;;
        --repeat) repeat=$2; shift 2 ;;
        --mpi-jobs) mpi_jobs=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; exit 2 ;;
    esac
done
. "$srcdir/test/bench/bench_lib.sh"
bench_whole_numbers "$nodes" "$jobs" "$conc" "$inflight" "$count" "$repeat"
[[ $mpi_jobs =~ ^[0-9]+$ ]] || die "--mpi-jobs takes a whole number (0: no MPI jobs), not '$mpi_jobs'"
bench_dirs
bench_programs
bench_work dvm-bench
[ -x "$orcadvm" ] || die "no $orcadvm (build it first)"
export XDG_RUNTIME_DIR="$work/run"
mkdir -m 700 "$XDG_RUNTIME_DIR"
dvm_pid=
bench_on_exit() {
    [ -n "$dvm_pid" ] || return 0
    "$orcadvm" stop >/dev/null 2>&1 || kill "$dvm_pid" 2>/dev/null || true
}

now_ms() { awk -v t="$EPOCHREALTIME" 'BEGIN { printf "%.3f", t * 1000 }'; }
per_s() { awk -v n="$1" -v ms="$2" 'BEGIN { if (ms > 0) printf "%.1f", n * 1000 / ms; else print "-" }'; }
per_job() { awk -v n="$1" -v ms="$2" 'BEGIN { if (n > 0) printf "%.2f", ms / n; else print "-" }'; }

# run_n N CMD...: CMD N times in a row (each must succeed); prints the ms it took.
run_n() {
    local n=$1 i t0 t1; shift
    t0=$(now_ms)
    for ((i = 0; i < n; i++)); do
        "$@" >/dev/null 2>"$work/err" </dev/null || die "run $i of '$*' failed: $(head -c 600 "$work/err")"
    done
    t1=$(now_ms)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }'
}
# best_of CMD...: the lowest of $repeat run_n figures of CMD (ms), and n.
best_of() {
    local n=$1 r best=; shift
    for ((r = 0; r < repeat; r++)); do
        local ms
        ms=$(run_n "$n" "$@")
        best=$(awk -v a="${best:-$ms}" -v b="$ms" 'BEGIN { print (b < a ? b : a) }')
    done
    echo "$best"
}

# Orca's settings in this shell's environment, so that each call is one
# exec of orcarun as each of mpiexec.hydra is (not env, then orcarun).
for setting in "${orca_env[@]:1}"; do export "${setting?}"; done
orca=("$orcarun")
echo "orcarun:  $orcarun ($programs)"
echo "Hydra:    $(hydra_version)"
echo "nodes:    $nodes simulated (plm/local) on $(nproc) cores"

banner "client: what orcarun costs before any job (--version), ms a call"
client_ms=$(per_job 100 "$(best_of 100 "${orca[@]}" --version)")
echo "orcarun --version: $client_ms ms"
figure dvm_client_ms "$client_ms" ms

banner "start: orcadvm start on $nodes simulated nodes"
t0=$(now_ms)
"$orcadvm" start --mca plm_local_num_nodes "$nodes" >"$work/dvm.out" 2>"$work/dvm.err" </dev/null &
dvm_pid=$!
for ((i = 0; i < 300; i++)); do
    grep -q '^orcadvm: DVM .* is up' "$work/dvm.out" 2>/dev/null && break
    kill -0 "$dvm_pid" 2>/dev/null || die "orcadvm start ended: $(cat "$work/dvm.err")"
    sleep 0.05
done
grep -q 'is up' "$work/dvm.out" || die "the DVM did not come up: $(cat "$work/dvm.err")"
start_ms=$(awk -v a="$t0" -v b="$(now_ms)" 'BEGIN { printf "%.0f", b - a }')
echo "up in $start_ms ms (to the ready line, polled every 50 ms)"
orcad_pids() { pgrep -P "$dvm_pid" -x orcad || pgrep -P "$dvm_pid" -f 'orcad' || true; }
# A daemon's PMI helper (orcad-pmi, pmi_base_helper) is part of it.
helper_pids() { local p; for p in $(orcad_pids); do pgrep -P "$p" -x orcad-pmi || true; done; }
daemon_figures() { # fds and RSS (kB) summed over the daemons and their PMI helpers
    local fds=0 rss=0 p
    for p in $(orcad_pids) $(helper_pids); do
        fds=$((fds + $(ls "/proc/$p/fd" 2>/dev/null | wc -l)))
        rss=$((rss + $(awk '/^VmRSS/ { print $2 }' "/proc/$p/status" 2>/dev/null || echo 0)))
    done
    echo "$fds $rss"
}
run_n 20 "${orca[@]}" --dvm -n 1 true >/dev/null  # warm-up
read -r fds0 rss0 <<<"$(daemon_figures)"

banner "seq: jobs one after another on the DVM (best of $repeat runs of $jobs jobs)"
seq_true=$(best_of "$jobs" "${orca[@]}" --dvm -n 1 true)
seq_host=$(best_of "$jobs" "${orca[@]}" --dvm -n "$nodes" hostname)
rate_true=$(per_s "$jobs" "$seq_true")
rate_host=$(per_s "$jobs" "$seq_host")
printf '%-28s %10s %12s %14s\n' job "jobs/s" "ms a job" "client ms"
printf '%-28s %10s %12s %14s\n' "-n 1 true" "$rate_true" "$(per_job "$jobs" "$seq_true")" "$client_ms"
printf '%-28s %10s %12s %14s\n' "-n $nodes hostname" "$rate_host" "$(per_job "$jobs" "$seq_host")" "$client_ms"
figure dvm_seq_true_jobs_per_s "$rate_true" jobs/s
figure dvm_seq_hostname_jobs_per_s "$rate_host" jobs/s

banner "cold: the same jobs as cold launches (best of $repeat runs of 20)"
cold_true=$(per_job 20 "$(best_of 20 "${orca[@]}" --mca plm_local_num_nodes "$nodes" --oversubscribe -n 1 true)")
cold_host=$(per_job 20 "$(best_of 20 "${orca[@]}" --mca plm_local_num_nodes "$nodes" --oversubscribe -n "$nodes" hostname)")
hydra_true=- hydra_host=-
if [ -n "$hydra" ]; then
    hydra_true=$(per_job 20 "$(best_of 20 "$hydra" -n 1 true)")
    hydra_host=$(per_job 20 "$(best_of 20 "$hydra" -n "$nodes" hostname)")
fi
printf '%-28s %12s %12s %12s %14s %14s\n' job "dvm ms" "cold ms" "hydra ms" "dvm/cold" "dvm/hydra"
dvm_true=$(per_job "$jobs" "$seq_true")
dvm_host=$(per_job "$jobs" "$seq_host")
printf '%-28s %12s %12s %12s %14s %14s\n' "-n 1 true" "$dvm_true" "$cold_true" "$hydra_true" \
    "$(ratio "$dvm_true" "$cold_true")" "$(ratio "$dvm_true" "$hydra_true")"
printf '%-28s %12s %12s %12s %14s %14s\n' "-n $nodes hostname" "$dvm_host" "$cold_host" "$hydra_host" \
    "$(ratio "$dvm_host" "$cold_host")" "$(ratio "$dvm_host" "$hydra_host")"
figure dvm_ratio_true_cold "$(ratio "$dvm_true" "$cold_true")" ratio
figure dvm_ratio_true_hydra "$(ratio "$dvm_true" "$hydra_true")" ratio
figure dvm_ratio_hostname_hydra "$(ratio "$dvm_host" "$hydra_host")" ratio

banner "conc: $conc jobs of -n 1 --oversubscribe, $inflight at once"
mkdir "$work/conc"
# One job: its number in, its output in its own file.
{
    echo '#!/bin/bash'
    printf '%q ' "${orca[@]}"
    echo '--dvm --oversubscribe -n 1 printf "job%s-a\\njob%s-b\\n" "$1" "$1" >"'"$work/conc"'/$1.out" 2>&1 ||'
    echo "    echo \"\$1 failed\" >>'$work/conc/failed'"
} >"$work/one-job"
chmod +x "$work/one-job"
# jobs_through P FIRST COUNT: ms for jobs FIRST.. (COUNT of them), P at once.
jobs_through() {
    local t0; t0=$(now_ms)
    seq "$2" $(($2 + $3 - 1)) | xargs -P "$1" -n 1 "$work/one-job"
    awk -v a="$t0" -v b="$(now_ms)" 'BEGIN { printf "%.1f", b - a }'
}
# The same job one after another first: the rate to beat at once.
seq_same=$((conc < jobs ? conc : jobs))
same_ms=$(jobs_through 1 $((conc + 1)) "$seq_same")
conc_ms=$(jobs_through "$inflight" 1 "$conc")
mixed=0
for ((i = 1; i <= conc + seq_same; i++)); do
    [ "$(cat "$work/conc/$i.out")" = "job$i-a
job$i-b" ] || mixed=$((mixed + 1))
done
failed=0
[ -f "$work/conc/failed" ] && failed=$(wc -l <"$work/conc/failed")
rate_same=$(per_s "$seq_same" "$same_ms")
rate_conc=$(per_s "$conc" "$conc_ms")
echo "the job (printf of two lines, checked whole in its own file), one after another: $rate_same jobs/s ($seq_same jobs)"
echo "$inflight at once: $rate_conc jobs/s ($conc jobs in $conc_ms ms); outputs not exactly their own: $mixed; failed: $failed"
echo "at once against one after another: $(ratio "$rate_conc" "$rate_same")x (against the sequential -n 1 true rate: $(ratio "$rate_conc" "$rate_true")x)"
figure dvm_conc_jobs_per_s "$rate_conc" jobs/s
figure dvm_conc_seq_same_jobs_per_s "$rate_same" jobs/s
figure dvm_conc_ratio_seq "$(ratio "$rate_conc" "$rate_same")" ratio
figure dvm_conc_ratio_seq_true "$(ratio "$rate_conc" "$rate_true")" ratio
figure dvm_conc_mixed_outputs "$mixed" jobs

banner "count: $count jobs of -n 1 true in a row, the rate of the first and last 1000"
if [ "$count" -ge 2000 ]; then
    first=$(run_n 1000 "${orca[@]}" --dvm -n 1 true)
    run_n $((count - 2000)) "${orca[@]}" --dvm -n 1 true >/dev/null
    last=$(run_n 1000 "${orca[@]}" --dvm -n 1 true)
    echo "first 1000: $(per_s 1000 "$first") jobs/s; last 1000: $(per_s 1000 "$last") jobs/s;" \
        "last/first: $(ratio "$(per_s 1000 "$last")" "$(per_s 1000 "$first")")"
    figure dvm_count_ratio_last_first "$(ratio "$(per_s 1000 "$last")" "$(per_s 1000 "$first")")" ratio
else
    echo "SKIP: --count below 2000"
fi

banner "daemons: open descriptors and RSS over the $(orcad_pids | wc -w) daemons, after the warm-up and now"
read -r fds1 rss1 <<<"$(daemon_figures)"
echo "descriptors: $fds0 -> $fds1; RSS: $rss0 kB -> $rss1 kB ($((rss1 - rss0)) kB)"
figure dvm_daemons_fd_delta $((fds1 - fds0)) fds
figure dvm_daemons_rss_delta_kb $((rss1 - rss0)) kB

banner "mpi: $mpi_jobs jobs in a row of an MPI program (2 ranks) of each flavour"
for flavour in mpich openmpi; do
    if [ "$mpi_jobs" = 0 ]; then
        echo "SKIP: --mpi-jobs 0"
        break
    elif ! command -v "mpicc.$flavour" >/dev/null; then
        echo "SKIP: $flavour (mpicc.$flavour is not installed)"
        continue
    fi
    program="$work/mpi_exchange.$flavour"
    "mpicc.$flavour" -o "$program" "$srcdir/test/mpi/mpi_exchange.c" >"$work/cc.out" 2>&1 || die "mpicc.$flavour: $(cat "$work/cc.out")"
    "${orca[@]}" --dvm -n 2 "$program" >/dev/null || die "the first $flavour job failed"
    read -r mfds0 mrss0 <<<"$(daemon_figures)"
    mpi_ms=$(run_n "$mpi_jobs" "${orca[@]}" --dvm -n 2 "$program")
    read -r mfds1 mrss1 <<<"$(daemon_figures)"
    echo "$flavour: $(per_job "$mpi_jobs" "$mpi_ms") ms a job; descriptors $mfds0 -> $mfds1;" \
        "RSS $mrss0 kB -> $mrss1 kB ($((mrss1 - mrss0)) kB over the daemons after the first job and the last)"
    figure "dvm_mpi_${flavour}_ms_per_job" "$(per_job "$mpi_jobs" "$mpi_ms")" ms
    figure "dvm_mpi_${flavour}_rss_delta_kb" $((mrss1 - mrss0)) kB
    figure "dvm_mpi_${flavour}_fd_delta" $((mfds1 - mfds0)) fds
done

banner "published figures of other tools (not run here)"
cat <<'EOF'
Flux   async submission, throughput test: ~147 jobs/s at 2048 jobs, 33-68 jobs/s at 16,384
       (flux-framework/flux-core#6690); 23-26 jobs/s for 4096 real jobs a round
       (flux-core#3583, 2021); back-to-back command-line submission 8-17 jobs/s
       (flux-framework/flux-sched#573).
RADICAL-Pilot over Flux: ~5 tasks/s (radical-cybertools/radical.pilot#3137).
PRRTE  (prte/prun): no jobs/s figure is published that we found; open-mpi/ompi#4532 compares
       prun with mpirun launch times (the DVM saves the daemons' start).
EOF
