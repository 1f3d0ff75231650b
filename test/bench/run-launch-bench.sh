#!/bin/bash
# run-launch-bench.sh: how long orcarun takes to launch a job, against Open
# MPI 4.1 (mpirun.openmpi) and MPICH Hydra (mpiexec.hydra), in the same run,
# on the same simulated hosts, through the same rsh-style agent.
#
# Hosts are network namespaces (contrib/netcluster): h1 runs the launcher,
# h2..hK+1 one daemon each (orcad, orted, hydra_pmi_proxy). All three
# launchers reach a host through test/bench/netns-rsh-agent, called like
# ssh as `AGENT HOST COMMAND...` (it runs `ip netns exec PREFIX-HOST sh -c
# COMMAND`, stdin passed through). Each host, h1 too, also gets a UTS
# namespace with its own host name, as real hosts have: with the one host
# name the namespaces share, Open MPI fails at random ("ORTE does not know
# how to route a message") and Hydra's proxies cannot resolve mpiexec's
# host (--no-uts shows it; Hydra then needs -localhost h1). Sections:
#   1. simulated nodes, plm/local, no namespaces: orcarun alone, N daemons
#      on this host (--mca plm_local_num_nodes N -n N hostname)
#   2. launch: wall time of `LAUNCHER ... -n K hostname`, one rank per host,
#      median of --repeat runs (after one warm-up round), the launchers
#      taking turns within each round; and the CPU those runs took (median)
#   3. flat vs tree spawn at K = --tree-size with an agent that sleeps
#      --delay seconds per call (like an ssh handshake)
#   4. peak RSS of each daemon (VmHWM sampled from /proc during a `sleep`
#      job: on 4 plm/local simulated nodes, then at K = the largest size)
#      and of each launcher (GNU time's maximum resident set)
#   5. start-up phases: orcarun --timing (median over section 2's runs),
#      and, with strace, each orcad's own phases from time-stamped system
#      calls (a one-off traced run: strace slows the traced calls a little)
#   2b. dvm: `orcarun --dvm -n K hostname` on a DVM that orcadvm started
#      once over the largest K's hosts (same agent), median of --repeat,
#      against section 2's cold orcarun and Hydra launches
#   6. the data plane: orcarun with the address gather and choice
#      (orcarun_data_plane all, the default, and the round asked for:
#      hostname itself needs none) against without (none), and
#      with --mesh-check, taking turns, at each K and at --local-sizes'
#      largest N simulated nodes; ratios, and the mesh check's own time
# Output: tables, and one "FIGURE name value unit" line per figure.
# Every launcher call runs under `timeout`; the script removes the
# namespaces it made on exit (also on failure, INT and TERM).
# Without root or network namespaces it runs section 1 and prints a SKIP
# line for the rest (exit 0).
#
# A benchmark: it prints figures and fails only when a launcher cannot
# launch at all (a run that fails is reported, and left out of the median).
set -euo pipefail
shopt -s inherit_errexit
export LC_ALL=C

me=${0##*/}

usage() {
    cat <<USAGE
Usage: $me --builddir DIR [OPTIONS]
  --builddir DIR        the build tree (orcarun, orcad, components)
  --srcdir DIR          the source tree (contrib/netcluster, framework/help,
                        test/bench); default: two levels above this script
  --sizes "K..."        hosts per job, one rank each (default "8 32 64")
  --repeat N            timed runs per size and launcher (default 5)
  --local-sizes "N..."  simulated nodes with plm/local (default "16 64 256 1024")
  --local-repeat N      runs per simulated size (default 5)
  --tree-size K         hosts of the flat/tree comparison (default 64)
  --tree-radix R        routed_radix_radix of its tree (default 8)
  --tree-repeat N       runs per variant (default 3)
  --delay SECONDS       agent latency per call in that comparison (default 0.1)
  --rss-seconds S       how long the RSS job sleeps (default 2)
  --ompi-if IF          add --mca oob_tcp_if_include IF to Open MPI (default: none)
  --no-uts              hosts keep this machine's host name (no UTS namespaces;
                        Open MPI then fails at random, Hydra needs -localhost)
  --wrappers            run orcarun/orcad through the libtool wrappers
                        (default: the real programs in .libs, LD_LIBRARY_PATH set)
  --limit SECONDS       timeout of each launcher call (default 60)
  --only LIST           comma-separated sections to run: local,launch,dvm,tree,rss,startup,data
USAGE
}

here=$(cd "$(dirname "$0")" && pwd)
# die, argument checks, figures, the cluster, timed runs, launcher commands.
. "$here/bench_lib.sh"
builddir=
srcdir=$(cd "$here/../.." && pwd)
sizes="8 32 64"
repeat=5
local_sizes="16 64 256 1024"
local_repeat=5
tree_size=64
tree_radix=8
tree_repeat=3
delay=0.1
rss_seconds=2
ompi_if=
uts=1
wrappers=0
limit=60
only=local,launch,dvm,tree,rss,startup,data
while [ $# -gt 0 ]; do
    case $1 in
        --builddir) builddir=$2; shift 2 ;;
        --srcdir) srcdir=$2; shift 2 ;;
        --sizes) sizes=$2; shift 2 ;;
        --repeat) repeat=$2; shift 2 ;;
        --local-sizes) local_sizes=$2; shift 2 ;;
        --local-repeat) local_repeat=$2; shift 2 ;;
        --tree-size) tree_size=$2; shift 2 ;;
        --tree-radix) tree_radix=$2; shift 2 ;;
        --tree-repeat) tree_repeat=$2; shift 2 ;;
        --delay) delay=$2; shift 2 ;;
        --rss-seconds) rss_seconds=$2; shift 2 ;;
        --ompi-if) ompi_if=$2; shift 2 ;;
        --wrappers) wrappers=1; shift ;;
        --no-uts) uts=0; shift ;;
        --limit) limit=$2; shift 2 ;;
        --only) only=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown option $1" ;;
    esac
done
bench_dirs
bench_whole_numbers $sizes $local_sizes "$repeat" "$local_repeat" "$tree_size" "$tree_radix" "$tree_repeat" "$limit" "$rss_seconds"
[[ $delay =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--delay takes seconds, e.g. 0.1"
want() { [[ ,$only, == *,$1,* ]]; }

# --- programs ---------------------------------------------------------------
bench_programs
probe="$srcdir/test/bench/orcad_startup_probe.sh"
gnu_time=
[ -x /usr/bin/time ] && /usr/bin/time -f %M -o /dev/null true 2>/dev/null && gnu_time=/usr/bin/time
have_strace=0
command -v strace >/dev/null && strace -f --seccomp-bpf -o /dev/null -e trace=execve true 2>/dev/null && have_strace=1

# The RSS sampler (section 4) stops once rss.stop exists.
dvm_pid=
bench_on_exit() {
    [ -e "$work/rss.stop" ] || touch "$work/rss.stop" 2>/dev/null || true
    [ -z "$dvm_pid" ] || kill "$dvm_pid" 2>/dev/null || true  # its daemons end with it
}
bench_work launch

# --- helpers ----------------------------------------------------------------
# phases FILE: orcarun's --timing lines as "name ms" (name with _ for spaces).
phase_names="agents_started first_daemon_up all_daemons_up command_started command_ended teardown_done"
phases() {
    awk -v names=" $phase_names " '/^  [a-z]/ && $NF ~ /^[0-9.]+$/ {
        v = $NF; $NF = ""; n = $0; gsub(/^ +| +$/, "", n); gsub(/ +/, "_", n)
        if (index(names, " " n " ")) print n, v }' "$1"
}

echo "Launch benchmark: orcarun (Orca, $programs)"
echo "  Open MPI: $(ompi_version)"
echo "  Hydra:    $(hydra_version)"
echo "  machine:  $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"

# --- 1. simulated nodes (plm/local) ----------------------------------------
if want local; then
    banner "1. simulated nodes: orcarun --mca plm_local_num_nodes N -n N hostname (plm/local, routed/radix default), median of $local_repeat"
    echo "  (cpu: user+system time of orcarun and everything it waited for, i.e. all orcads and ranks, per daemon;"
    echo "   bare: the processes such a job cannot do without, N of them each starting hostname, $(nproc) at a time:"
    echo "   seq N | xargs -P $(nproc) -n 1 sh -c 'hostname; :', in the same rounds; it is this machine's floor:"
    echo "   what fork, exec and exit cost here, whatever launcher runs the job)"
    printf '%6s %10s %12s %10s %10s %14s %12s %10s %10s\n' N "wall ms" "per daemon" "agents ms" "all up ms" "cpu/daemon ms" "slowest ms" \
        "bare ms" "orca/bare"
    for n in $local_sizes; do
        cmd=("${orca_env[@]}" "$orcarun" --timing --mca plm_base_daemon "$orcad" --mca plm_local_num_nodes "$n"
            -n "$n" hostname)
        bare=(sh -c "seq $n | xargs -P $(nproc) -n 1 sh -c 'hostname; :' bare")
        : >"$work/local.ms"; : >"$work/local.agents"; : >"$work/local.up"; : >"$work/local.cpu"; : >"$work/local.bare"
        for ((r = 1; r <= local_repeat; r++)); do
            ms=$(run_one "" "bare-$n" "$n" "${bare[@]}")
            [ "$ms" = fail ] || echo "$ms" >>"$work/local.bare"
            ms=$(run_one "" "local-$n" "$n" "${cmd[@]}")
            [ "$ms" = fail ] && continue
            echo "$ms" >>"$work/local.ms"
            awk -v n="$n" '{ printf "%.2f\n", $1 / n }' "$work/out.cpu" >>"$work/local.cpu"
            phases "$work/err" | awk '$1 == "agents_started" { print $2 }' >>"$work/local.agents"
            phases "$work/err" | awk '$1 == "all_daemons_up" { print $2 }' >>"$work/local.up"
        done
        m=$(median <"$work/local.ms")
        per=$(awk -v m="$m" -v n="$n" 'BEGIN { if (m + 0 > 0) printf "%.2f", m / n; else print "-" }')
        cpu=$(median <"$work/local.cpu")
        slowest=$(maxof <"$work/local.ms")
        b=$(median <"$work/local.bare")
        printf '%6s %10s %12s %10s %10s %14s %12s %10s %10s\n' "$n" "$m" "$per" "$(median <"$work/local.agents")" \
            "$(median <"$work/local.up")" "$cpu" "$slowest" "$b" "$(ratio "$m" "$b")"
        figure "local_n${n}_orcarun" "$m" ms
        figure "local_n${n}_slowest" "$slowest" ms
        figure "local_n${n}_per_daemon" "$per" ms
        figure "local_n${n}_cpu_per_daemon" "$cpu" ms
        figure "local_n${n}_bare" "$b" ms
        figure "local_n${n}_ratio_orca_bare" "$(ratio "$m" "$b")" ratio
    done
    echo "  invocation: ${cmd[*]:${#orca_env[@]}}"
fi

# --- namespaces -------------------------------------------------------------
need_ns=0
for s in launch tree rss startup data; do want $s && need_ns=1; done
[ $need_ns = 1 ] || exit 0
bench_need_namespaces "launch benchmark on simulated hosts" bench-launch
[ -n "$hydra" ] || echo "note: mpiexec.hydra is not installed; its columns stay empty"
[ -n "$ompi" ] || echo "note: mpirun.openmpi is not installed; its columns stay empty"

kmax=$tree_size
for k in $sizes; do [ "$k" -gt "$kmax" ] && kmax=$k; done
bench_cluster lb "$kmax"

launchers=(orca held)
[ -n "$hydra" ] && launchers+=(hydra)
[ -n "$ompi" ] && launchers+=(ompi)
# Each launcher must put one rank on each of the K hosts: the ranks print
# their host's address (10.200.0.<i>), which must be K different ones, none h1's.
ksmall=${sizes%% *}
banner "check: each launcher runs one rank on each of $ksmall hosts"
for l in "${launchers[@]}"; do
    cmd_of "$l" "$ksmall"
    rc_ms=$(timed "$h1" "$work/out" "$work/err" "${cmd[@]}" ip -4 -o addr show dev eth0)
    got=$(grep -oE 'inet 10\.200\.0\.[0-9]+' "$work/out" | sort -u | grep -vc 'inet 10\.200\.0\.1$' || true)
    if [ "${rc_ms%% *}" = 0 ] && [ "$got" = "$ksmall" ] && [ "$(wc -l <"$work/out")" = "$ksmall" ]; then
        echo "  $l: ok (${rc_ms#* } ms)"
    else
        echo "  $l: FAILED (exit ${rc_ms%% *}, $got distinct daemon hosts):"
        sed 's/^/  | /' "$work/out" "$work/err" | tail -20
        die "$l cannot launch on the simulated hosts; the invocation was: ${cmd[*]}"
    fi
done

# --- 2. launch time -----------------------------------------------------------
if want launch; then
    banner "2. launch: wall ms of LAUNCHER ... -n K hostname, one rank per host, median of $repeat (plus 1 warm-up round)"
    for k in $sizes; do
        for l in "${launchers[@]}"; do : >"$work/launch.$l.$k"; : >"$work/cpu.$l.$k"; done
        for p in $phase_names; do : >"$work/phase.$k.$p"; done
        for ((r = 0; r <= repeat; r++)); do
            # The launchers take turns, the first one changing every round.
            for ((j = 0; j < ${#launchers[@]}; j++)); do
                l=${launchers[$(((j + r) % ${#launchers[@]}))]}
                cmd_of "$l" "$k"
                ms=$(run_one "$h1" "launch-$l-$k" "$k" "${cmd[@]}" hostname)
                [ "$r" = 0 ] && continue # warm-up
                echo "$ms" >>"$work/launch.$l.$k"
                [ "$ms" = fail ] || cat "$work/out.cpu" >>"$work/cpu.$l.$k"
                if [ "$l" = orca ] && [ "$ms" != fail ]; then
                    phases "$work/err" | while read -r p v; do echo "$v" >>"$work/phase.$k.$p"; done
                fi
            done
        done
    done
    printf '%5s %11s %11s %11s %11s %12s %14s %11s\n' K "orcarun ms" "held ms" "hydra ms" "openmpi ms" "orca/hydra" \
        "orca/openmpi" "orca/held"
    for k in $sizes; do
        declare -A med=()
        for l in orca held hydra ompi; do
            if [ -s "$work/launch.$l.$k" ]; then
                med[$l]=$(grep -v fail "$work/launch.$l.$k" | median)
                nf=$(grep -c fail "$work/launch.$l.$k" || true)
                [ "$nf" = 0 ] || med[$l]="${med[$l]}(${nf}F)"
            else
                med[$l]=-
            fi
        done
        rh=$(ratio "${med[orca]%%(*}" "${med[hydra]%%(*}")
        ro=$(ratio "${med[orca]%%(*}" "${med[ompi]%%(*}")
        rd=$(ratio "${med[orca]%%(*}" "${med[held]%%(*}")
        printf '%5s %11s %11s %11s %11s %12s %14s %11s\n' "$k" "${med[orca]}" "${med[held]}" "${med[hydra]}" "${med[ompi]}" \
            "$rh" "$ro" "$rd"
        figure "launch_k${k}_orcarun" "${med[orca]%%(*}" ms
        figure "launch_k${k}_orcarun_held" "${med[held]%%(*}" ms
        figure "launch_k${k}_ratio_orca_held" "$rd" ratio
        figure "launch_k${k}_hydra" "${med[hydra]%%(*}" ms
        figure "launch_k${k}_openmpi" "${med[ompi]%%(*}" ms
        figure "launch_k${k}_ratio_orca_hydra" "$rh" ratio
        figure "launch_k${k}_ratio_orca_openmpi" "$ro" ratio
        unset med
    done
    echo "  (nF: n runs failed and are left out; ratios below 1 mean orcarun is faster; held: orcarun with"
    echo "   --mca orcarun_start_early false, its ranks started once every daemon is up, as before that variable)"
    echo "  min / max of the runs:"
    for k in $sizes; do
        line="    K=$k"
        for l in "${launchers[@]}"; do
            line+="  $l $(grep -v fail "$work/launch.$l.$k" | sort -g | head -1)..$(grep -v fail "$work/launch.$l.$k" | maxof)"
        done
        echo "$line"
    done
    echo "  invocations (K=$ksmall shown; -hosts/--host lists h2..hK+1; run on h1 under timeout $limit):"
    for l in "${launchers[@]}"; do cmd_of "$l" "$ksmall"; echo "    $l: ${cmd[*]} hostname" | sed "s|${orca_env[*]} ||"; done
    # CPU: this machine's CPUs run every simulated host, so the CPU a launch
    # costs bounds its wall time once there are more hosts than CPUs. Each
    # timed run above also counted it (timed's OUT.cpu): user + system time
    # of the launcher and everything it waited for (agents, daemons, ranks).
    echo "  CPU, median of the same runs (user+sys ms, 1 ms resolution, of the launcher and all it waited for: agents,"
    echo "  daemons, ranks; $(nproc) CPUs here run every simulated host; 'agent alone': K calls of AGENT hI true, median of 3):"
    printf '%5s %18s %18s %18s %18s\n' K "orcarun" "hydra" "openmpi" "agent alone"
    for k in $sizes; do
        declare -A c=()
        for l in "${launchers[@]}"; do
            c[$l]=-
            [ -s "$work/cpu.$l.$k" ] && c[$l]=$(median <"$work/cpu.$l.$k")
            case $l in orca) ln=orcarun ;; ompi) ln=openmpi ;; *) ln=$l ;; esac
            figure "cpu_k${k}_$ln" "${c[$l]}" ms
        done
        # The agent alone: K calls of `AGENT hI true`, one after another.
        : >"$work/cpu.agent.$k"
        for r in 1 2 3; do
            ms=$(run_one "$h1" "cpu-agent-$k" 0 \
                bash -c 'for ((i = 2; i <= $1 + 1; i++)); do "$0" "h$i" true; done' "$agent" "$k")
            [ "$ms" = fail ] || cat "$work/out.cpu" >>"$work/cpu.agent.$k"
        done
        ag=-
        [ -s "$work/cpu.agent.$k" ] && ag=$(median <"$work/cpu.agent.$k")
        figure "cpu_k${k}_agent_alone" "$ag" ms
        per() { awk -v v="$1" -v k="$k" 'BEGIN { if (v + 0 > 0) printf "%s (%.1f/host)", v, v / k; else print "-" }'; }
        printf '%5s %18s %18s %18s %18s\n' "$k" "$(per "${c[orca]:--}")" "$(per "${c[hydra]:--}")" "$(per "${c[ompi]:--}")" "$(per "$ag")"
        figure "cpu_k${k}_ratio_orca_hydra" "$(ratio "${c[orca]}" "${c[hydra]:--}")" ratio
        unset c
    done >"$work/cpu.table"
    grep -v '^FIGURE' "$work/cpu.table"
    grep '^FIGURE' "$work/cpu.table"
    echo "  (a process no ancestor waits for is not counted: Open MPI's orteds are left out once mpirun stops"
    echo "   waiting for their agents, so its figure can be short of the real cost)"
fi

# --- 2b. jobs on a DVM ------------------------------------------------------
# on_h1 CMD...: CMD in h1's namespace, with h1's host name (as timed runs it).
on_h1() { ip netns exec "$prefix-$h1" unshare --uts bash -c 'echo "$0" >/proc/sys/kernel/hostname && exec "$@"' "$h1" "$@"; }
if want dvm; then
    kd=${sizes##* }
    for k in $sizes; do [ "$k" -gt "$kd" ] && kd=$k; done
    [ -x "$orcadvm" ] || die "no $orcadvm (build it first)"
    banner "2b. dvm: orcarun --dvm -n K hostname on a DVM started once over $kd hosts (orcadvm start, the same agent), median of $repeat (plus 1 warm-up)"
    dvm_run="$work/dvm-run"
    mkdir -m 700 "$dvm_run"
    t=$EPOCHREALTIME
    on_h1 env XDG_RUNTIME_DIR="$dvm_run" "${orca_env[@]}" "$orcadvm" start --mca plm_rsh_agent "$agent" \
        --mca plm_base_daemon "$orcad" --host "$(hosts_list "$kd")" >"$work/dvm.out" 2>"$work/dvm.err" </dev/null &
    dvm_pid=$!
    for ((i = 0; i < limit * 20; i++)); do
        grep -q '^orcadvm: DVM .* is up' "$work/dvm.out" 2>/dev/null && break
        kill -0 "$dvm_pid" 2>/dev/null || die "orcadvm start ended: $(cat "$work/dvm.err")"
        sleep 0.05
    done
    grep -q 'is up' "$work/dvm.out" || die "the DVM did not come up on $kd hosts: $(cat "$work/dvm.err")"
    echo "  the DVM is up on $kd hosts in $(elapsed "$t") s (to its ready line, polled every 50 ms)"
    printf '%5s %11s %11s %11s %12s %12s\n' K "dvm ms" "orcarun ms" "hydra ms" "dvm/orcarun" "dvm/hydra"
    for k in $sizes; do
        : >"$work/launch.dvm.$k"
        for ((r = 0; r <= repeat; r++)); do
            ms=$(run_one "$h1" "dvm-$k" "$k" env XDG_RUNTIME_DIR="$dvm_run" "${orca_env[@]}" "$orcarun" --dvm -n "$k" hostname)
            [ "$r" = 0 ] || echo "$ms" >>"$work/launch.dvm.$k"
        done
        declare -A med=()
        for l in dvm orca hydra; do
            med[$l]=-
            [ -s "$work/launch.$l.$k" ] && med[$l]=$(grep -v fail "$work/launch.$l.$k" | median)
        done
        printf '%5s %11s %11s %11s %12s %12s\n' "$k" "${med[dvm]}" "${med[orca]}" "${med[hydra]}" \
            "$(ratio "${med[dvm]}" "${med[orca]}")" "$(ratio "${med[dvm]}" "${med[hydra]}")"
        figure "dvm_k${k}" "${med[dvm]}" ms
        figure "dvm_k${k}_ratio_hydra" "$(ratio "${med[dvm]}" "${med[hydra]}")" ratio
        unset med
    done
    echo "  (orcarun and hydra: section 2's medians, cold launches of the same job; - where section 2 did not run)"
    on_h1 env XDG_RUNTIME_DIR="$dvm_run" "${orca_env[@]}" "$orcadvm" stop >/dev/null 2>&1 || kill "$dvm_pid" 2>/dev/null || true
    wait "$dvm_pid" 2>/dev/null || true
    dvm_pid=
fi

# --- 3. flat vs tree spawn -------------------------------------------------
if want tree; then
    k=$tree_size
    banner "3. flat vs tree spawn, K=$k, the agent sleeping $delay s per call, median of $tree_repeat"
    variants=("orca-flat|orca|--mca plm_rsh_tree_spawn 0"
        "orca-tree-r$tree_radix|orca|--mca plm_rsh_tree_spawn 1 --mca routed_radix_radix $tree_radix"
        "orca-flat-cap8|orca|--mca plm_rsh_tree_spawn 0 --mca plm_rsh_num_concurrent 8"
        "orca-tree-r$tree_radix-cap8|orca|--mca plm_rsh_tree_spawn 1 --mca routed_radix_radix $tree_radix --mca plm_rsh_num_concurrent 8"
        "orca-flat-held|held|--mca plm_rsh_tree_spawn 0"
        "orca-flat-cap8-held|held|--mca plm_rsh_tree_spawn 0 --mca plm_rsh_num_concurrent 8")
    [ -n "$hydra" ] && variants+=("hydra-flat|hydra|")
    [ -n "$ompi" ] && variants+=("openmpi-default|ompi|" "openmpi-radix$tree_radix|ompi|--mca routed_radix $tree_radix"
        "openmpi-flat|ompi|--mca plm_rsh_no_tree_spawn 1")
    printf '%-22s %10s %12s   %s\n' variant "wall ms" "all up ms" "options"
    for v in "${variants[@]}"; do
        IFS='|' read -r name l extra <<<"$v"
        read -r -a ex <<<"$extra"
        cmd_of "$l" "$k" "${ex[@]}"
        : >"$work/tree.ms"; : >"$work/tree.up"
        for ((r = 1; r <= tree_repeat; r++)); do
            ms=$(run_one "$h1" "tree-$name" "$k" env NETNS_AGENT_DELAY="$delay" "${cmd[@]}" hostname)
            [ "$ms" = fail ] && continue
            echo "$ms" >>"$work/tree.ms"
            case $l in orca | held) phases "$work/err" | awk '$1 == "all_daemons_up" { print $2 }' >>"$work/tree.up" ;; esac
        done
        m=$(median <"$work/tree.ms")
        up=$(median <"$work/tree.up")
        printf '%-22s %10s %12s   %s\n' "$name" "$m" "$up" "${extra:-(defaults)}"
        figure "tree_k${k}_${name//-/_}" "$m" ms
    done
    echo "  (Open MPI 4.1's default is tree spawn over routed_radix 64: with K<=64 every orted is mpirun's child, i.e. flat;"
    echo "   plm_rsh_num_concurrent defaults: orcarun 128, Open MPI 128; Hydra starts every proxy at once;"
    echo "   -held: --mca orcarun_start_early false, every rank started once every daemon is up)"
fi

# --- 4. peak RSS ---------------------------------------------------------------
# rss_sampler OUT COMM: until $work/rss.stop exists, every 50 ms, the
# VmHWM, VmRSS and RssAnon (kB, the largest seen) of every process named
# COMM in this cluster's namespaces; writes "pid hwm rss anon" per process.
declare -A ours=()
for ((i = 1; i <= kmax + 1; i++)); do
    ino=$(stat -L -c %i "/run/netns/$prefix-h$i" 2>/dev/null) && ours["net:[$ino]"]=1
done
# peak_update PID: raises hwm[PID], rss[PID] and anon[PID] (kB, the
# caller's associative arrays) to what /proc/PID/status says now; builtins
# only: a sampler must not fork for every process at every tick.
peak_update() {
    local k v _
    while read -r k v _; do
        case $k in
            VmHWM:) [ "$v" -gt "${hwm[$1]:-0}" ] && hwm[$1]=$v ;;
            VmRSS:) [ "$v" -gt "${rss[$1]:-0}" ] && rss[$1]=$v ;;
            RssAnon:) [ "$v" -gt "${anon[$1]:-0}" ] && anon[$1]=$v ;;
        esac
    done 2>/dev/null <"/proc/$1/status" || true
}
rss_sampler() {
    local out=$1 comm=$2 p n
    declare -A hwm=() rss=() anon=() known=()
    while [ ! -e "$work/rss.stop" ] && kill -0 $$ 2>/dev/null; do
        for p in $(pgrep -x "$comm" 2>/dev/null || true); do
            if [ -z "${known[$p]:-}" ]; then
                n=$(readlink "/proc/$p/ns/net" 2>/dev/null) || continue
                if [ -n "${ours[$n]:-}" ]; then known[$p]=1; else known[$p]=0; fi
            fi
            [ "${known[$p]}" = 1 ] || continue
            peak_update "$p"
        done
        sleep 0.05
    done
    for p in "${!hwm[@]}"; do echo "$p ${hwm[$p]} ${rss[$p]:-0} ${anon[$p]:-0}"; done >"$out"
}
# local_rss N: the peak VmHWM and RssAnon (kB) of each orcad of a plm/local
# job of N simulated nodes running `sleep $rss_seconds`, sampled every 50
# ms (the daemons are that orcarun's children); "pid hwm anon" per daemon.
local_rss() {
    local n=$1 p runner
    declare -A hwm=() rss=() anon=()
    "${orca_env[@]}" "$orcarun" --mca plm_base_daemon "$orcad" --mca plm_local_num_nodes "$n" \
        sleep "$rss_seconds" >/dev/null 2>&1 </dev/null &
    runner=$!
    while kill -0 "$runner" 2>/dev/null; do
        for p in $(pgrep -x -P "$runner" orcad 2>/dev/null || true); do
            peak_update "$p"
        done
        sleep 0.05
    done
    wait "$runner" || true
    for p in "${!hwm[@]}"; do echo "$p ${hwm[$p]} ${anon[$p]:-0}"; done
}
if want rss; then
    k=${sizes##* }
    banner "4. peak RSS, 4 simulated nodes (plm/local) and K=$k, command 'sleep $rss_seconds' (daemons: VmHWM sampled from /proc every 50 ms; launcher: GNU time %M)"
    echo "  (HWM: peak resident set, shared library pages included; anon: peak RssAnon, the daemon's private memory)"
    local_rss 4 >"$work/rss.local4"
    mib() { awk '{ printf "%.1f\n", $1 / 1024 }'; }
    echo "  plm/local, 4 simulated nodes: $(wc -l <"$work/rss.local4")/4 orcads seen, VmHWM max $(awk '{ print $2 }' "$work/rss.local4" | maxof | mib) MiB, median $(awk '{ print $2 }' "$work/rss.local4" | median | mib) MiB, RssAnon median $(awk '{ print $3 }' "$work/rss.local4" | median | mib) MiB"
    figure rss_orcad_local4_max_hwm "$(awk '{ print $2 }' "$work/rss.local4" | maxof | mib)" MiB
    figure rss_orcad_local4_median_hwm "$(awk '{ print $2 }' "$work/rss.local4" | median | mib)" MiB
    figure rss_orcad_local4_median_anon "$(awk '{ print $3 }' "$work/rss.local4" | median | mib)" MiB
    printf '%-8s %-16s %8s %12s %12s %13s %14s\n' launcher daemon seen "max HWM MiB" "med HWM MiB" "med anon MiB" "launcher MiB"
    for l in "${launchers[@]}"; do
        case $l in orca) comm=orcad ;; hydra) comm=hydra_pmi_proxy ;; ompi) comm=orted ;; esac
        cmd_of "$l" "$k"
        rm -f "$work/rss.stop" "$work/maxrss"
        rss_sampler "$work/rss.$l" "$comm" &
        sampler=$!
        tm=()
        [ -z "$gnu_time" ] || tm=("$gnu_time" -f %M -o "$work/maxrss")
        ms=$(run_one "$h1" "rss-$l" 0 "${tm[@]}" "${cmd[@]}" sleep "$rss_seconds")
        touch "$work/rss.stop"
        wait "$sampler" || true
        seen=$(wc -l <"$work/rss.$l")
        hmax=$(awk '{ print $2 }' "$work/rss.$l" | maxof | mib)
        hmed=$(awk '{ print $2 }' "$work/rss.$l" | median | mib)
        amed=$(awk '{ print $4 }' "$work/rss.$l" | median | mib)
        lr=-
        [ -s "$work/maxrss" ] && lr=$(tail -1 "$work/maxrss" | mib)
        printf '%-8s %-16s %8s %12s %12s %13s %14s\n' "$l" "$comm" "$seen/$k" "$hmax" "$hmed" "$amed" "$lr"
        [ "$ms" = fail ] && echo "  (the $l run failed: its figures are not meaningful)"
        figure "rss_${comm}_max_hwm" "$hmax" MiB
        figure "rss_${comm}_median_hwm" "$hmed" MiB
        figure "rss_${comm}_median_anon" "$amed" MiB
        case $l in orca) ln=orcarun ;; hydra) ln=mpiexec_hydra ;; ompi) ln=mpirun_openmpi ;; esac
        figure "rss_${ln}_max" "$lr" MiB
    done
fi

# --- 5. start-up phases --------------------------------------------------------
if want startup; then
    banner "5. start-up phases"
    if want launch; then
        echo "orcarun --timing, ms since orcarun started, median of section 2's runs:"
        printf '%-18s' phase; for k in $sizes; do printf '%10s' "K=$k"; done; echo
        for p in $phase_names; do
            printf '%-18s' "${p//_/ }"
            for k in $sizes; do
                v=$(median <"$work/phase.$k.$p")
                printf '%10s' "$v"
                figure "timing_k${k}_${p}" "$v" ms >>"$work/figures.timing"
            done
            echo
        done
        cat "$work/figures.timing"
    fi
    # Exec to main without strace: `PROGRAM --help` returns as soon as main
    # runs; /bin/true is the cost of fork, exec and exit alone.
    exec_cost() {
        local i s e
        for ((i = 0; i < 21; i++)); do
            s=$EPOCHREALTIME; "$@" >/dev/null 2>&1 || true; e=$EPOCHREALTIME
            awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f\n", (e - s) * 1000 }'
        done | median
    }
    t_true=$(exec_cost /bin/true)
    t_orcad=$(exec_cost "${orca_env[@]}" "$orcad" --help)
    t_env=$(exec_cost "${orca_env[@]}" /bin/true)
    echo
    echo "exec -> main without strace (median of 21): 'orcad --help' $t_orcad ms, the same env + /bin/true $t_env ms"
    echo "  (/bin/true alone $t_true ms): orcad's dynamic linking and static initialisation cost about $(awk -v a="$t_orcad" -v b="$t_env" 'BEGIN { printf "%.1f", a - b }') ms"
    figure orcad_exec_to_main_untraced "$(awk -v a="$t_orcad" -v b="$t_env" 'BEGIN { printf "%.2f", a - b }')" ms
    if [ $have_strace = 1 ] && [ -x "$probe" ]; then
        # probe_report DIR T0 AGENTLOG: each orcad's phases from its trace.
        probe_report() {
            local dir=$1 t0=$2 log=$3 f host call
            for f in "$dir"/orcad.*; do
                host=${f##*/orcad.}
                call=
                [ -n "$log" ] && call=$(awk -v h="$host" '$2 == h { print $1; exit }' "$log")
                awk -v call="${call:-0}" -v t0="$t0" '
                    NR == 1 { pid = $1 }
                    $1 != pid { next }
                    !exec && $3 ~ /^execve\(/ { exec = $2 }
                    !main && $3 ~ /^poll\(\[\{fd=0,/ { main = $2 }
                    !comp && $3 ~ /^getdents64\(/ { comp = $2 }
                    !inv && $3 ~ /^socket\(AF_NETLINK/ { inv = $2 }
                    inv && !oob && $3 ~ /^socket\(AF_(UNIX|INET|INET6),/ { oob = $2 }
                    !conn && $3 ~ /^connect\(/ && $0 !~ /nscd/ { conn = $2 }
                    conn && !rank && $3 ~ /^(clone|clone3|vfork)\(/ { rank = $2 }
                    END {
                        if (!exec || !main || !comp || !inv || !oob || !conn) { print "incomplete"; exit }
                        printf "%.2f %.2f %.2f %.2f %.2f %.2f %.2f %.2f %.2f %.2f %.2f\n",
                            call ? (exec - call) * 1000 : -1, (main - exec) * 1000, (comp - main) * 1000,
                            (inv - comp) * 1000, (oob - inv) * 1000, (conn - oob) * 1000,
                            rank ? (rank - conn) * 1000 : -1, (conn - exec) * 1000,
                            call ? (call - t0) * 1000 : -1, (exec - t0) * 1000, (conn - t0) * 1000
                    }' "$f"
            done
        }
        # print_probe FILE LABEL
        print_probe() {
            local f=$1 label=$2 i
            local names=("agent call -> exec" "exec -> main" "main -> component scan" "component load"
                "inventory + crypto set-up" "oob open" "1st message -> rank" "exec -> 1st message"
                "agent called at" "orcad exec'd at" "1st message at")
            local keys=(agent_to_exec exec_to_main bootstrap_settings component_load inventory oob_open
                wireup_to_rank exec_to_first_message agent_called_at exec_at first_message_at)
            echo "  $label: $(grep -vc incomplete "$f") daemons traced$(grep -q incomplete "$f" && echo ", $(grep -c incomplete "$f") incomplete traces")"
            printf '    %-26s %9s %9s %9s\n' phase median min max
            for i in "${!names[@]}"; do
                local col=$((i + 1)) vals
                vals=$(grep -v incomplete "$f" | awk -v c=$col '$c >= 0 { print $c }')
                [ -n "$vals" ] || continue
                printf '    %-26s %9s %9s %9s\n' "${names[$i]}" "$(median <<<"$vals")" \
                    "$(sort -g <<<"$vals" | head -1)" "$(maxof <<<"$vals")"
                figure "orcad_${3}_${keys[$i]}" "$(median <<<"$vals")" ms >>"$work/figures.probe"
            done
        }
        echo
        echo "orcad's own phases from time-stamped system calls (strace -f --seccomp-bpf, ~30 traced calls per daemon;"
        echo "test/bench/orcad_startup_probe.sh as plm_base_daemon). Markers: execve; main = orcad's poll for its"
        echo "bootstrap on fd 0; component scan = first getdents64 of a component directory (before it: waiting for"
        echo "and decoding the bootstrap and settings); inventory = first netlink socket (component load before it);"
        echo "oob open = first listening socket (the reachable inventory, netlink dumps and sysfs reads, and the"
        echo "crypto set-up before it); 1st message = connect to the parent; rank = the fork of the rank (after"
        echo "wire-up and the launch command). Times 'at' are ms since orcarun started."
        : >"$work/figures.probe"
        # Unloaded: one daemon, plm/local (no agent), three runs.
        : >"$work/probe1.txt"
        for ((r = 1; r <= 3; r++)); do
            d="$work/probe1.$r"; mkdir -p "$d"
            cmd=("${orca_env[@]}" "$orcarun" --timing --mca plm_base_daemon "$probe" -n 1 true)
            ms=$(run_one "" probe-local 0 \
                env ORCAD_PROBE_DAEMON="$orcad" ORCAD_PROBE_DIR="$d" "${cmd[@]}")
            t0=$(awk '{ print $2 }' "$work/out.when")
            probe_report "$d" "$t0" "" >>"$work/probe1.txt"
        done
        print_probe "$work/probe1.txt" "one daemon alone (plm/local, -n 1, 3 runs; no agent)" local1
        # Loaded: K daemons in the namespaces through the agent (its calls logged).
        k=${sizes##* }
        d="$work/probeK"; mkdir -p "$d"
        cmd_of orca "$k"
        for i in "${!cmd[@]}"; do [ "${cmd[$i]}" = "$orcad" ] && cmd[i]=$probe; done
        ms=$(run_one "$h1" probe-ns "$k" env ORCAD_PROBE_DAEMON="$orcad" ORCAD_PROBE_DIR="$d" \
            NETNS_AGENT_LOG="$d/agent.log" "${cmd[@]}" hostname)
        t0=$(awk '{ print $2 }' "$work/out.when")
        probe_report "$d" "$t0" "$d/agent.log" >"$work/probeK.txt"
        print_probe "$work/probeK.txt" "K=$k daemons on namespace hosts (one traced run, wall $ms ms; agent calls logged)" k$k
        echo "    that run's orcarun --timing:"
        sed -n 's/^  /      /p' "$work/err" | grep -E 'agents|daemon|command|teardown' || true
        cat "$work/figures.probe"
        echo "  Not visible without instrumenting orcad: within 'main -> component scan', waiting for the bootstrap"
        echo "  vs decoding it; after the 1st message, the handshake round trip (the report leaves with it) vs waiting for the others."
    else
        echo "  (strace with --seccomp-bpf not available: orcad's own phases are not measured; --timing only)"
    fi
fi

# --- 6. the data plane ---------------------------------------------------------
# timing_of FILE NAME: one phase of orcarun --timing in FILE, in ms.
timing_of() { awk -v n="$2" '{ l = $0; sub(/ +[0-9.]+$/, "", l); gsub(/^ +/, "", l) } l == n { print $NF }' "$1"; }
if want data; then
    banner "6. the data plane: wall ms of orcarun ... hostname with orcarun_data_plane none / all / all + --mesh-check, median of $repeat"
    # hostname reads no data-plane variable: orcarun_data_plane_round=auto
    # would leave the round out of every variant; "all" asks for it.
    printf '%8s %10s %10s %10s %12s %12s %12s %14s\n' size "none ms" "all ms" "mesh ms" "all/none" "mesh/none" "choice ms" "mesh check ms"
    data_variants=("none|--mca orcarun_data_plane none" "all|--mca orcarun_data_plane_round always" "mesh|--mesh-check")
    data_run() { # SIZE-LABEL HOST EXPECT WORDS...: one variant round; appends to $work/data.*
        local label=$1 host=$2 expect=$3; shift 3
        local v name extra ms
        for v in "${data_variants[@]}"; do
            IFS='|' read -r name extra <<<"$v"
            read -r -a ex <<<"$extra"
            ms=$(run_one "$host" "data-$name-$label" "$expect" "$@" "${ex[@]}" hostname)
            echo "$ms" >>"$work/data.$label.$name"
            if [ "$name" = all ] && [ "$ms" != fail ]; then
                awk -v a="$(timing_of "$work/err" "all daemons up")" -v b="$(timing_of "$work/err" "data plane chosen")" \
                    'BEGIN { if (a != "" && b != "") printf "%.1f\n", b - a }' >>"$work/data.$label.choice"
            fi
            if [ "$name" = mesh ] && [ "$ms" != fail ]; then
                awk -v a="$(timing_of "$work/err" "data plane chosen")" -v b="$(timing_of "$work/err" "mesh checked")" \
                    'BEGIN { if (a != "" && b != "") printf "%.1f\n", b - a }' >>"$work/data.$label.check"
            fi
        done
    }
    data_row() { # LABEL
        local n a m c q
        # Every run of a variant may have failed: no median then, not an exit.
        ok_runs() { grep -v fail "$1" || true; }
        n=$(ok_runs "$work/data.$1.none" | median); a=$(ok_runs "$work/data.$1.all" | median)
        m=$(ok_runs "$work/data.$1.mesh" | median); c=$(median <"$work/data.$1.check")
        q=$(median <"$work/data.$1.choice")
        printf '%8s %10s %10s %10s %12s %12s %12s %14s\n' "$1" "$n" "$a" "$m" "$(ratio "$a" "$n")" "$(ratio "$m" "$n")" "$q" "$c"
        figure "data_plane_${1}_none" "$n" ms
        figure "data_plane_${1}_all" "$a" ms
        figure "data_plane_${1}_ratio_all_none" "$(ratio "$a" "$n")" ratio
        figure "data_plane_${1}_choice" "$q" ms
        figure "data_plane_${1}_mesh_check" "$c" ms
    }
    for k in $sizes; do
        : >"$work/data.k$k.none"; : >"$work/data.k$k.all"; : >"$work/data.k$k.mesh"; : >"$work/data.k$k.check"; : >"$work/data.k$k.choice"
        cmd_of orca "$k" --timing
        for ((r = 0; r <= repeat; r++)); do data_run "k$k" "$h1" "$k" "${cmd[@]}"; done
        data_row "k$k"
    done
    n=${local_sizes##* }
    : >"$work/data.n$n.none"; : >"$work/data.n$n.all"; : >"$work/data.n$n.mesh"; : >"$work/data.n$n.check"; : >"$work/data.n$n.choice"
    for ((r = 0; r < local_repeat; r++)); do
        data_run "n$n" "" "$n" "${orca_env[@]}" "$orcarun" --timing --mca plm_base_daemon "$orcad" \
            --mca plm_local_num_nodes "$n" -n "$n"
    done
    data_row "n$n"
    echo "  (kK: K namespace hosts, one daemon and rank each; nN: N simulated nodes on this host, one distinct host:"
    echo "   one question, no mesh; choice ms: from 'all daemons up' to 'data plane chosen' in --timing of the all runs,"
    echo "   the round's own time; mesh check ms: from 'data plane chosen' to 'mesh checked')"
fi

echo
failed_runs_line
figure launch_bench_failed_runs "$(wc -l <"$work/failures")" runs
