#!/bin/bash
# run-binding-bench.sh: what CPU binding costs a launch, and where each
# launcher puts the ranks. An MPI program (test/mpi/mpi_exchange, Open MPI
# build) on K namespace hosts, RANKS ranks on each, started by
#   orcarun --bind-to none
#   orcarun --map-by core --bind-to core
#   mpirun.openmpi --map-by core --bind-to core   (the same map)
# in the same run, through the same rsh-style agent (bench_lib.sh). Each
# rank prints its host and its own affinity mask (taskset -p on the shell
# that then execs the program): the placement table counts the ranks per
# mask, so a launcher that did not bind, or bound two ranks to one core,
# shows it. Figure: wall ms, median of --repeat runs after one warm-up
# round, the three taking turns within each round; ratios against
# orcarun --bind-to none and against mpirun.
#
# A run counts only if it exits 0 and prints, for K*RANKS ranks, each rank
# line of mpi_exchange once and one mask line each. The namespaces are
# removed on exit; without root, namespaces or mpicc.openmpi it prints a
# SKIP line (exit 0).
set -euo pipefail
shopt -s inherit_errexit
export LC_ALL=C

me=${0##*/}
t_start=$EPOCHREALTIME

usage() {
    cat <<USAGE
Usage: $me --builddir DIR [OPTIONS]
  --builddir DIR    the build tree (orcarun, orcad, components)
  --srcdir DIR      the source tree; default: two levels above this script
  --sizes "K..."    hosts per job (default "2 8")
  --ranks N         ranks on each host (default: this machine's CPUs, $(nproc))
  --repeat N        timed runs per size and launcher (default 5)
  --limit SECONDS   timeout of each launcher call (default 60)
USAGE
}

here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench_lib.sh"

builddir=
srcdir=$(cd "$here/../.." && pwd)
sizes="2 8"
ranks=$(nproc)
repeat=5
limit=60
uts=1
wrappers=0
ompi_if=
while [ $# -gt 0 ]; do
    case $1 in
        --builddir) builddir=$2; shift 2 ;;
        --srcdir) srcdir=$2; shift 2 ;;
        --sizes) sizes=$2; shift 2 ;;
        --ranks) ranks=$2; shift 2 ;;
        --repeat) repeat=$2; shift 2 ;;
        --limit) limit=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown option $1" ;;
    esac
done
bench_dirs
bench_whole_numbers $sizes "$ranks" "$repeat" "$limit"
source_c="$srcdir/test/mpi/mpi_exchange.c"
[ -r "$source_c" ] || die "no $source_c"
bench_programs
bench_work binding

echo "Binding benchmark: test/mpi/mpi_exchange (Open MPI build), $ranks ranks on each host"
echo "  orcarun:  Orca, $programs"
echo "  Open MPI: $(ompi_version)"
echo "  machine:  $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
if ! command -v mpicc.openmpi >/dev/null; then
    echo; echo "SKIP: binding benchmark: mpicc.openmpi is not installed"
    exit 0
fi
program="$work/mpi_exchange"
mpicc.openmpi -O2 -o "$program" "$source_c" >"$work/cc" 2>&1 || { cat "$work/cc" >&2; die "mpicc.openmpi failed"; }
bench_need_namespaces "binding benchmark on simulated hosts" bench-binding
kmax=0
for k in $sizes; do [ "$k" -gt "$kmax" ] && kmax=$k; done
bench_cluster bb "$kmax"

# The ranks' hosts, each with RANKS slots: "h2:2,h3:2".
slots_list() { local i out=; for ((i = 2; i <= $1 + 1; i++)); do out+=${out:+,}h$i:$ranks; done; echo "$out"; }
# Each rank: its host and mask, then the program.
wrap=(sh -c 'echo "mask $(hostname) $(taskset -pc $$ | sed "s/.*: //")"; exec "$0" "$@"' "$program" times)
variants=(none core ompi)
declare -A title_of=([none]="orcarun --bind-to none" [core]="orcarun --bind-to core"
                     [ompi]="mpirun.openmpi --bind-to core")
[ -n "$ompi" ] || { variants=(none core); echo "note: mpirun.openmpi is not installed; its row stays empty"; }
# variant_cmd VARIANT K: the command into array `cmd`.
variant_cmd() {
    local n=$(($2 * ranks))
    case $1 in
        none) cmd=("${orca_env[@]}" "$orcarun" --mca plm_rsh_agent "$agent" --mca plm_base_daemon "$orcad"
                   --host "$(slots_list "$2")" -n "$n" --bind-to none) ;;
        core) cmd=("${orca_env[@]}" "$orcarun" --mca plm_rsh_agent "$agent" --mca plm_base_daemon "$orcad"
                   --host "$(slots_list "$2")" -n "$n" --map-by core --bind-to core) ;;
        ompi) cmd=("$ompi" --allow-run-as-root --mca plm_rsh_agent "$agent" --host "$(slots_list "$2")" -n "$n"
                   --map-by core --bind-to core) ;;
    esac
    cmd+=("${wrap[@]}")
}
# A good run: every rank's mpi_exchange line once, and one mask line each.
bench_check_output() { # OUT N
    awk -v n="$2" '
        $1 == "mask" { masks++; next }
        $1 == "rank" { split($2, rn, "/"); if (rn[2] == n && !seen[rn[1]]++) right++; next }
        END { printf "%d of %d rank lines right, %d mask lines\n", right, n, masks; exit !(right == n && masks == n) }' "$1"
}
# placement OUT: "MASK xCOUNT" over the ranks of every host, e.g. "0 x8; 1 x8".
placement() {
    awk '$1 == "mask" { c[$3]++ } END { for (m in c) printf "%s x%d\n", m, c[m] }' "$1" | sort | paste -sd";" - | sed "s/;/; /g"
}

banner "runs: wall ms of LAUNCHER --host h2:$ranks,... -n K*$ranks mpi_exchange on h1, median of $repeat (plus 1 warm-up)"
for k in $sizes; do
    for v in "${variants[@]}"; do : >"$work/ms.$v.$k"; done
    for ((r = 0; r <= repeat; r++)); do
        for ((j = 0; j < ${#variants[@]}; j++)); do
            v=${variants[$(((j + r) % ${#variants[@]}))]}
            variant_cmd "$v" "$k"
            ms=$(run_one "$h1" "$v-k$k" $((k * ranks)) "${cmd[@]}" 2>>"$work/fail.log")
            [ "$ms" = fail ] || placement "$work/out" >"$work/placed.$v.$k"
            [ "$r" = 0 ] || echo "$ms" >>"$work/ms.$v.$k"
        done
    done
done

: >"$work/figures"
banner "launch time and placement (each rank's own mask: CPU list x ranks), median of $repeat runs"
printf '%4s  %-32s %10s %8s %12s %12s  %s\n' K launcher "median ms" failed "/bind none" "/mpirun" "placement (last good run)"
for k in $sizes; do
    declare -A med=()
    for v in "${variants[@]}"; do
        grep -v fail "$work/ms.$v.$k" >"$work/good.$v.$k" || true
        med[$v]=$(median <"$work/good.$v.$k")
    done
    for v in "${variants[@]}"; do
        nf=$(grep -c fail "$work/ms.$v.$k" || true)
        to_ompi=-
        [ -z "$ompi" ] || to_ompi=$(ratio "${med[$v]}" "${med[ompi]}")
        printf '%4s  %-32s %10s %8s %12s %12s  %s\n' "$k" "${title_of[$v]}" "${med[$v]}" "$nf/$repeat" \
            "$(ratio "${med[$v]}" "${med[none]}")" "$to_ompi" "$(cat "$work/placed.$v.$k" 2>/dev/null || echo -)"
        figure "binding_k${k}_${v}" "${med[$v]}" ms >>"$work/figures"
    done
    figure "binding_k${k}_ratio_core_none" "$(ratio "${med[core]}" "${med[none]}")" ratio >>"$work/figures"
    [ -z "$ompi" ] || figure "binding_k${k}_ratio_core_ompi" "$(ratio "${med[core]}" "${med[ompi]}")" ratio >>"$work/figures"
    unset med
done
echo "  (ratios below 1: faster than the other; the hosts share this machine's $(nproc) CPUs, so a bound"
echo "   host's ranks are on CPUs 0..$((ranks - 1)) each)"
if [ -s "$work/failures" ]; then
    banner "failed runs"
    sed 's/^/  /' "$work/fail.log" | head -40
fi
echo
cat "$work/figures"
echo
failed_runs_line
echo "total: $(awk -v a="$t_start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }') s"
