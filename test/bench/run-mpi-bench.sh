#!/bin/bash
# run-mpi-bench.sh: how long an MPI job takes from start to end under
# orcarun, against the MPI library's own launcher, in the same run, on the
# same simulated hosts, through the same rsh-style agent:
#   MPICH build (mpicc.mpich):      orcarun (pmi/simple)  vs  mpiexec.hydra
#   Open MPI build (mpicc.openmpi): orcarun (pmi/pmix)    vs  mpirun.openmpi
# The program is test/mpi/mpi_exchange.c (MPI_Allreduce, a ring
# MPI_Sendrecv, MPI_Barrier), built in the work directory at start; a
# build whose compiler is missing is skipped (and said so).
#
# Hosts are network namespaces (contrib/netcluster), each with its own host
# name (UTS namespace): h1 runs the launcher, h2..hK+1 one daemon and one
# rank each. Every launcher reaches a host through test/bench/netns-rsh-agent
# (`AGENT HOST COMMAND...`, like ssh), driven as run-launch-bench.sh drives
# it. Figure: wall time of `LAUNCHER ... -n K mpi_exchange times`, median of
# --repeat runs after one warm-up round, the launchers of both builds taking
# turns within each round (the first one changing every round).
# A run counts only if it exits with 0 and prints exactly K lines
#   rank R/K allreduce=S ring=L barrier=ok host=H
# with every R in 0..K-1 once, S = K(K+1)/2, L = R-1 mod K and the K hosts
# h2..hK+1 (one rank each), besides the K lines "times R init_ms=I
# finalize_ms=F" of each rank's own MPI_Init and MPI_Finalize: the wall
# time minus the slowest rank's I + F is the launcher's own overhead,
# tabled per build with its ratio. Any other run (a launcher that fails, e.g.
# orcarun on the Open MPI build while pmi/pmix is missing) is reported with
# its exit status and first error lines and left out of the median ("-").
#
# Transport settings (--mpich-env, --ompi-env) are applied to both launchers
# of a build in the same way: in the launcher's environment, which the agent
# passes to the daemons and they to the ranks (as ssh would with SendEnv);
# the header prints them.
#
# Output: a table per build, and one "FIGURE name value unit" line per
# figure. Every launcher call runs under `timeout`; the namespaces are
# removed on exit (also on failure, INT and TERM). Without root or network
# namespaces it prints a SKIP line (exit 0).
set -euo pipefail
shopt -s inherit_errexit
export LC_ALL=C

me=${0##*/}
t_start=$EPOCHREALTIME

usage() {
    cat <<USAGE
Usage: $me --builddir DIR [OPTIONS]
  --builddir DIR        the build tree (orcarun, orcad, components)
  --srcdir DIR          the source tree (contrib/netcluster, framework/help,
                        test/bench, test/mpi); default: two levels above this script
  --sizes "K..."        hosts per job, one rank each (default "2 8 32")
  --repeat N            timed runs per size and launcher (default 5)
  --mpich-env "V=X..."  environment of both launchers of the MPICH build
                        (default "$default_mpich_env"; "" for none)
  --ompi-env "V=X..."   environment of both launchers of the Open MPI build
                        (default "$default_ompi_env"; "" for none)
  --orca-args "ARGS"    more orcarun options for both builds, e.g. "--mca pmi ^pmix"
                        (default: none)
  --ompi-if IF          add --mca oob_tcp_if_include IF to mpirun (default: none)
  --no-uts              hosts keep this machine's host name (no UTS namespaces)
  --wrappers            run orcarun/orcad through the libtool wrappers
                        (default: the real programs in .libs, LD_LIBRARY_PATH set)
  --limit SECONDS       timeout of each launcher call (default 60)
USAGE
}

here=$(cd "$(dirname "$0")" && pwd)
# die, argument checks, figures, the cluster, timed runs, launcher commands.
. "$here/bench_lib.sh"

# Transport settings. MPICH 4.0 on Debian is ch4:ucx; Open MPI 4.1 takes
# pml ob1 (btl tcp, vader, self) here. With the defaults both work on these
# hosts (checked at K = 2, 8 and 32), so none is applied. Should UCX need one,
# give it to --mpich-env: "UCX_TLS=tcp,self,sm" or "UCX_NET_DEVICES=eth0"
# (both work here), not UCX_TLS=tcp,self (a rank then spins in MPI_Init);
# for Open MPI, --ompi-env "OMPI_MCA_pml=ob1 OMPI_MCA_btl=tcp,self,vader".
default_mpich_env=
default_ompi_env=
builddir=
srcdir=$(cd "$here/../.." && pwd)
sizes="2 8 32"
repeat=5
mpich_env=$default_mpich_env
ompi_env=$default_ompi_env
orca_args=
ompi_if=
uts=1
wrappers=0
limit=60
while [ $# -gt 0 ]; do
    case $1 in
        --builddir) builddir=$2; shift 2 ;;
        --srcdir) srcdir=$2; shift 2 ;;
        --sizes) sizes=$2; shift 2 ;;
        --repeat) repeat=$2; shift 2 ;;
        --mpich-env) mpich_env=$2; shift 2 ;;
        --ompi-env) ompi_env=$2; shift 2 ;;
        --orca-args) orca_args=$2; shift 2 ;;
        --ompi-if) ompi_if=$2; shift 2 ;;
        --no-uts) uts=0; shift ;;
        --wrappers) wrappers=1; shift ;;
        --limit) limit=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown option $1" ;;
    esac
done
bench_dirs
bench_whole_numbers $sizes "$repeat" "$limit"
[ -n "$sizes" ] || die "--sizes needs at least one size"
for e in $mpich_env $ompi_env; do
    [[ $e =~ ^[A-Za-z_][A-Za-z0-9_]*=[^[:space:]]*$ ]] || die "expected NAME=VALUE in --mpich-env/--ompi-env, not '$e'"
done
source_c="$srcdir/test/mpi/mpi_exchange.c"
[ -r "$source_c" ] || die "no $source_c"

bench_programs
bench_work mpi

# --- the builds --------------------------------------------------------------
# build NAME: what it is built with, the launcher to compare with, its
# settings; builds: those whose compiler is there.
declare -A cc_of=([mpich]=mpicc.mpich [openmpi]=mpicc.openmpi)
declare -A title_of=([mpich]=MPICH [openmpi]="Open MPI")
declare -A other_of=([mpich]=hydra [openmpi]=ompi)
declare -A env_of=([mpich]=$mpich_env [openmpi]=$ompi_env)
declare -A name_of=([orca]=orcarun [hydra]=mpiexec.hydra [ompi]=mpirun.openmpi)
declare -A figname_of=([orca]=orcarun [hydra]=hydra [ompi]=openmpi)
declare -A program_of=()
builds=()

echo "MPI benchmark: test/mpi/mpi_exchange (MPI_Allreduce, ring MPI_Sendrecv, MPI_Barrier), one rank per host"
echo "  orcarun:  Orca, $programs${orca_args:+; with $orca_args}"
echo "  Open MPI: $(ompi_version)"
echo "  Hydra:    $(hydra_version)"
device=$(mpichversion 2>/dev/null | sed -n 's/^MPICH Device: *//p' | tr -d '\t' || true)
ucx=$(dpkg-query -W -f '${Version}' libucx0 2>/dev/null || true)
echo "  MPICH:    device ${device:-unknown (no mpichversion)}, UCX ${ucx:-unknown}"
echo "  machine:  $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
for b in mpich openmpi; do
    cc=$(command -v "${cc_of[$b]}" || true)
    if [ -z "$cc" ]; then
        echo "  ${title_of[$b]} build: skipped, ${cc_of[$b]} is not installed"
        continue
    fi
    program_of[$b]="$work/mpi_exchange.$b"
    if ! "$cc" -O2 -o "${program_of[$b]}" "$source_c" >"$work/cc.$b" 2>&1; then
        echo "  ${title_of[$b]} build: skipped, ${cc_of[$b]} failed:"
        sed 's/^/  | /' "$work/cc.$b" | head -10
        continue
    fi
    builds+=("$b")
    echo "  ${title_of[$b]} build: ${cc_of[$b]} -O2 -> ${program_of[$b]}"
    echo "    settings, the same for orcarun and ${name_of[${other_of[$b]}]}: ${env_of[$b]:-none (the defaults of the library)}"
done
if [ ${#builds[@]} = 0 ]; then
    echo; echo "SKIP: MPI benchmark: neither mpicc.mpich nor mpicc.openmpi is installed"
    exit 0
fi

bench_need_namespaces "MPI benchmark on simulated hosts" bench-mpi
for b in "${builds[@]}"; do
    o=${other_of[$b]}
    if [ -z "${!o}" ]; then echo "note: ${name_of[$o]} is not installed; its rows stay empty"; fi
done

kmax=0
for k in $sizes; do [ "$k" -gt "$kmax" ] && kmax=$k; done
bench_cluster mb "$kmax"

# The runs: "build:launcher" pairs, all taking turns within a round.
pairs=()
for b in "${builds[@]}"; do
    pairs+=("$b:orca")
    o=${other_of[$b]}
    [ -z "${!o}" ] || pairs+=("$b:$o")
done
# mpi_cmd BUILD LAUNCHER K: the whole command line into array `cmd`.
mpi_cmd() {
    local b=$1 l=$2 k=$3 settings=() extra=()
    [ "$l" != orca ] || read -r -a extra <<<"$orca_args"
    cmd_of "$l" "$k" "${extra[@]}"
    read -r -a settings <<<"${env_of[$b]}"
    [ ${#settings[@]} = 0 ] || cmd=(env "${settings[@]}" "${cmd[@]}")
    cmd+=("${program_of[$b]}" times)
}

# The output check: exactly K right rank lines, hosts h2..hK+1 one each.
bench_check_output() { # OUT K
    awk -v n="$2" -v uts="$uts" '
        function bad(why) { if (first == "") first = why; wrong++ }
        $1 == "times" { next }  # each rank'"'"'s own MPI_Init and MPI_Finalize (own_mpi_ms)
        { lines++ }
        $1 != "rank" || NF != 6 { bad("not a rank line: \"" $0 "\""); next }
        {
            split($2, rn, "/"); r = rn[1]; size = rn[2]
            s = $3; sub(/^allreduce=/, "", s); l = $4; sub(/^ring=/, "", l); h = $6; sub(/^host=/, "", h)
            why = ""
            if (r !~ /^[0-9]+$/ || r + 0 >= n) why = "no rank " r " in a job of " n
            else if (size != n) why = "size " size ", not " n
            else if (s != n * (n + 1) / 2) why = "allreduce=" s ", not " n * (n + 1) / 2
            else if (l != (r + n - 1) % n) why = "ring=" l ", not " (r + n - 1) % n
            else if ($5 != "barrier=ok") why = $5
            else if (seen[r]++) why = "rank " r " twice"
            else if (uts == 1 && (h !~ /^h[0-9]+$/ || substr(h, 2) + 0 < 2 || substr(h, 2) + 0 > n + 1)) why = "host " h " is not one of h2..h" n + 1
            else if (uts == 1 && host[h]++) why = "two ranks on " h
            if (why != "") { bad(why ": \"" $0 "\""); next }
            right++
        }
        END {
            if (right == n && lines == n) { printf "%d rank lines, all right\n", n; exit 0 }
            printf "%d of %d rank lines right, %d lines of output", right, n, lines
            if (first != "") printf "; first wrong: %s", first
            print ""
            exit 1
        }' "$1"
}
# own_mpi_ms OUT: the slowest rank's own MPI_Init + MPI_Finalize, from the
# program's "times R init_ms=I finalize_ms=F" lines: what the MPI library
# itself costs, whoever launched it. The job's wall time minus it is the
# launcher's own overhead (start-up, wire-up, teardown).
own_mpi_ms() {
    awk '$1 == "times" { i = $3; f = $4; sub(/^init_ms=/, "", i); sub(/^finalize_ms=/, "", f)
            if (i + f > most) most = i + f; n++ }
        END { if (n) printf "%.1f\n", most; else print "-" }' "$1"
}
# The first error lines of a failed run: its stderr without orcarun's
# --timing report (or, if nothing else is there, the start of its stdout).
bench_fail_excerpt() { # ERR [OUT]
    local shown
    shown=$(awk '/^(timing \(ms since orcarun started\)|orcad start-up \(ms)/ { skip = 1; next }
        skip && /^  / { next } { skip = 0 } n++ < 8' "$1")
    if [ -n "$shown" ]; then echo "$shown"; else echo "(no error output; stdout:)"; head -n 4 "${2:-$work/out}"; fi
}
# orcarun's --timing phases as "name ms" (name with _ for spaces).
phase_names="all_daemons_up command_started command_ended teardown_done"
phases() {
    awk -v names=" $phase_names " '/^  [a-z]/ && $NF ~ /^[0-9.]+$/ {
        v = $NF; $NF = ""; n = $0; gsub(/^ +| +$/, "", n); gsub(/ +/, "_", n)
        if (index(names, " " n " ")) print n, v }' "$1"
}

# --- the runs -------------------------------------------------------------------
banner "runs: wall ms of [env SETTINGS] LAUNCHER ... -n K mpi_exchange on h1, median of $repeat (plus 1 warm-up round)"
t_runs=$EPOCHREALTIME
for k in $sizes; do
    for p in "${pairs[@]}"; do : >"$work/ms.${p/:/.}.$k"; done
    for b in "${builds[@]}"; do for ph in $phase_names; do : >"$work/phase.$b.$k.$ph"; done; done
    for ((r = 0; r <= repeat; r++)); do
        for ((j = 0; j < ${#pairs[@]}; j++)); do
            p=${pairs[$(((j + r) % ${#pairs[@]}))]}
            b=${p%%:*} l=${p#*:}
            mpi_cmd "$b" "$l" "$k"
            ms=$(run_one "$h1" "$b-${figname_of[$l]}-k$k" "$k" "${cmd[@]}" 2>"$work/run.err")
            # A failure's report: on stderr now, and kept for the summary.
            if [ -s "$work/run.err" ]; then cat "$work/run.err" >&2; cat "$work/run.err" >>"$work/fail.log"; fi
            # A good run that still wrote errors (beyond --timing): noted.
            if [ "$ms" != fail ] && [ -n "$(bench_fail_excerpt "$work/err" /dev/null | grep -v '^(no error output')" ]; then
                label="$b-${figname_of[$l]}-k$k"
                grep -qxF -- "$label" "$work/noisy" 2>/dev/null || cp "$work/err" "$work/noisy.$label.err"
                echo "$label" >>"$work/noisy"
            fi
            [ "$r" = 0 ] && continue # warm-up
            echo "$ms" >>"$work/ms.$b.$l.$k"
            if [ "$ms" != fail ]; then
                own=$(own_mpi_ms "$work/out")
                [ "$own" = - ] || {
                    echo "$own" >>"$work/own.$b.$l.$k"
                    awk -v w="$ms" -v o="$own" 'BEGIN { printf "%.1f\n", w - o }' >>"$work/overhead.$b.$l.$k"
                }
            fi
            if [ "$l" = orca ] && [ "$ms" != fail ]; then
                phases "$work/err" | while read -r ph v; do echo "$v" >>"$work/phase.$b.$k.$ph"; done
            fi
        done
    done
    echo "  K=$k done ($(awk -v a="$t_runs" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }') s so far)"
done

# --- the tables -------------------------------------------------------------------
: >"$work/figures"
for b in "${builds[@]}"; do
    o=${other_of[$b]}
    banner "${title_of[$b]} build (${cc_of[$b]}), settings: ${env_of[$b]:-none}; median of $repeat runs"
    printf '%5s  %-15s %10s %17s %7s %15s\n' K launcher "median ms" "min..max ms" failed "orcarun/other"
    for k in $sizes; do
        declare -A med=()
        for l in orca "$o"; do
            f="$work/ms.$b.$l.$k"
            if [ ! -e "$f" ]; then
                med[$l]=-
                printf '%5s  %-15s %10s %17s %7s %15s\n' "$k" "${name_of[$l]}" - - "-" "(not installed)"
                continue
            fi
            grep -v fail "$f" >"$f.good" || true
            med[$l]=$(median <"$f.good")
            nf=$(grep -c fail "$f" || true)
            range=-
            [ ! -s "$f.good" ] || range="$(sort -g "$f.good" | head -1)..$(maxof <"$f.good")"
            rt=
            [ "$l" = orca ] || rt=$(ratio "${med[orca]}" "${med[$l]}")
            printf '%5s  %-15s %10s %17s %7s %15s\n' "$k" "${name_of[$l]}" "${med[$l]}" "$range" "$nf/$repeat" "$rt"
            figure "mpi_${b}_k${k}_${figname_of[$l]}" "${med[$l]}" ms >>"$work/figures"
        done
        figure "mpi_${b}_k${k}_ratio_orca_${figname_of[$o]}" "$(ratio "${med[orca]}" "${med[$o]}")" ratio >>"$work/figures"
        unset med
    done
    echo "  (failed: runs left out of the median; a ratio below 1 means orcarun is faster)"
    echo "  the launcher's own overhead: wall time minus the slowest rank's own MPI_Init + MPI_Finalize"
    echo "  (printed by the program: the MPI library's cost, whoever launched it), medians of the good runs:"
    printf '%5s  %-15s %13s %12s %15s\n' K launcher "MPI own ms" "overhead ms" "orcarun/other"
    for k in $sizes; do
        declare -A ovh=()
        for l in orca "$o"; do
            [ -s "$work/overhead.$b.$l.$k" ] || { ovh[$l]=-; continue; }
            ovh[$l]=$(median <"$work/overhead.$b.$l.$k")
            rt=
            [ "$l" = orca ] || rt=$(ratio "${ovh[orca]}" "${ovh[$l]}")
            printf '%5s  %-15s %13s %12s %15s\n' "$k" "${name_of[$l]}" "$(median <"$work/own.$b.$l.$k")" "${ovh[$l]}" "$rt"
            figure "mpi_${b}_k${k}_overhead_${figname_of[$l]}" "${ovh[$l]}" ms >>"$work/figures"
        done
        [ "${ovh[$o]:--}" = - ] ||
            figure "mpi_${b}_k${k}_overhead_ratio_orca_${figname_of[$o]}" "$(ratio "${ovh[orca]}" "${ovh[$o]}")" ratio >>"$work/figures"
        unset ovh
    done
    echo "  orcarun --timing, ms since orcarun started, median of its good runs:"
    printf '    %-16s' phase; for k in $sizes; do printf '%10s' "K=$k"; done; echo
    for ph in $phase_names; do
        printf '    %-16s' "${ph//_/ }"
        for k in $sizes; do printf '%10s' "$(median <"$work/phase.$b.$k.$ph")"; done
        echo
    done
    k=${sizes%% *}
    echo "  invocations (K=$k shown; -hosts/--host lists h2..hK+1; run on h1 under timeout $limit):"
    for l in orca "$o"; do
        [ "$l" = orca ] || [ -n "${!o}" ] || continue
        mpi_cmd "$b" "$l" "$k"
        echo "    ${name_of[$l]}: ${cmd[*]}" | sed "s|${orca_env[*]} ||"
    done
done

# --- failures -------------------------------------------------------------------
if [ -s "$work/failures" ]; then
    banner "failed runs (warm-up included; every one is also reported on stderr as it happens)"
    for label in $(awk '!seen[$0]++' "$work/failures"); do
        n=$(grep -cxF -- "$label" "$work/failures")
        st=$(sed -n "s/^run failed: $label: exit status \([0-9]*\),.*/\1/p" "$work/fail.log" | sort -n | uniq -c |
            awk '{ printf "%s%s x%s", (NR > 1 ? ", " : ""), $2, $1 }')
        echo "  $label: $n run(s), exit status $st; the first one:"
        sed -n "s/^run failed: $label: exit status [0-9]*, \(.*\)/    \1/p" "$work/fail.log" | awk 'NR == 1'
        bench_fail_excerpt "$work/fail.$label.0.err" "$work/fail.$label.0.out" | sed 's/^/    | /'
    done
fi

if [ -s "$work/noisy" ]; then
    banner "good runs (right output, exit status 0) that wrote error output anyway (warm-up included)"
    for label in $(awk '!seen[$0]++' "$work/noisy"); do
        echo "  $label: $(grep -cxF -- "$label" "$work/noisy") run(s); the first one's:"
        bench_fail_excerpt "$work/noisy.$label.err" /dev/null | sed 's/^/    | /'
    done
fi

echo
cat "$work/figures"
echo
failed_runs_line
figure mpi_bench_failed_runs "$(wc -l <"$work/failures")" runs
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }'; }
echo "total: $(since "$t_start") s (the runs $(since "$t_runs") s)"
