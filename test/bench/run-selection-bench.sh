#!/bin/bash
# run-selection-bench.sh: runs selection_bench in network namespaces holding
# 16, 256 and 2048 veth pairs and prints how the inventory, the selection
# and the reachability matrix scale. Needs root and iproute2.
#
# For each size it creates a simulated host without links (contrib/netcluster
# create sb<pid> --hosts 1 --no-link: namespace sb<pid>-h1, lo up, IPv6 DAD
# off, and the cluster's switch sb<pid>-sw, unused), creates the veth pairs
# inside it with `ip -n NS -batch` (both ends stay in the namespace), gives
# every end its own IPv4 /30 (x.x.x.1, so the peer address .2 of that /30
# is free) and the first end of each pair an IPv6 ULA
# fdbe:0:<pair, hex>::1/64 (DAD off, so nothing is tentative; no link-local
# addresses unless --link-local), runs the program inside with `ip netns
# exec`, and destroys the cluster. It never touches the root namespace; on
# exit (EXIT/INT/TERM) bench_lib.sh's cleanup destroys what it made, as a
# watcher does should the script be SIGKILLed.
# "interfaces" = 2 * pairs + lo. Without root or network namespaces it
# prints a SKIP line (exit 0).
#
# A benchmark: it prints figures and never fails on a time.
set -euo pipefail
shopt -s inherit_errexit
export LC_ALL=C  # decimal points in printf and awk

me=${0##*/}

usage() {
    cat <<USAGE
Usage: $me [OPTIONS]
  --program PATH        the selection_bench program (default: next to this script)
  --component-dir DIR   where mca_reachable_{weighted,netlink}.so are; repeatable (required)
  --sizes "N ..."       veth pair counts (default "16 256 2048")
  --repeat N            timed runs per measurement (default 15)
  --rounds N            do everything N times (default 1), the sizes interleaved, and
                        keep for each size and measurement the round with the lowest
                        median: steadier figures on a shared or busy machine
  --no-ula              no IPv6 unique-local addresses on the veths
  --link-local          keep the IPv6 link-local address the kernel gives every veth end
                        (off by default: the entry count is then 3 * pairs + 2)
USAGE
}

here=$(cd "$(dirname "$0")" && pwd)
# die, argument checks, the namespace check, the cluster's prefix, cleanup, elapsed.
. "$here/bench_lib.sh"
srcdir=$(cd "$here/../.." && pwd)
program="$here/selection_bench"
component_dirs=()
sizes="16 256 2048"
repeat=15
rounds=1
ula=1
link_local=0
while [ $# -gt 0 ]; do
    case $1 in
        --program) program=$2; shift 2 ;;
        --component-dir) component_dirs+=("$2"); shift 2 ;;
        --sizes) sizes=$2; shift 2 ;;
        --repeat) repeat=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --no-ula) ula=0; shift ;;
        --link-local) link_local=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown option $1" ;;
    esac
done
[ ${#component_dirs[@]} -gt 0 ] || die "give the component directories with --component-dir"
bench_whole_numbers "$repeat" "$rounds" $sizes
for s in $sizes; do
    [ "$s" -le 16000 ] || die "--sizes takes pair counts 1..16000, not '$s'"
done
sizes=$(printf '%s\n' $sizes | sort -n -u | xargs)  # the ratios compare against the largest
[ -n "$sizes" ] || die "--sizes is empty"
[ -x "$program" ] || die "no program at $program (build it with 'make test/bench/selection_bench' or give --program)"
# Help text for error messages: the source tree's, unless set already.
export ORCA_MCA_mca_base_help_path=${ORCA_MCA_mca_base_help_path:-$srcdir/framework/help}
command -v ip >/dev/null || die "iproute2 (ip) is not installed"

bench_netcluster
# Root, and namespaces at all (a container without CAP_SYS_ADMIN has none).
bench_need_namespaces "selection benchmark" bench
bench_work selection
bench_prefix sb

# The /30 of veth end e (0-based): 10.128.0.0 + 4e, our address is .1 of it.
end_address() {
    local x=$(( 4 * $1 + 1 ))
    echo "10.$(( 128 + (x >> 16) )).$(( (x >> 8) & 255 )).$(( x & 255 ))/30"
}

# build NS PAIRS: fills the namespace; sets build_s[PAIRS] to the seconds taken.
build() {
    local ns=$1 pairs=$2 i t0
    local links="$work/links.$pairs" addrs="$work/addrs.$pairs"
    t0=$EPOCHREALTIME
    # (netcluster made the namespace with lo up and IPv6 DAD off.)
    if [ $link_local = 0 ]; then
        # New links get no IPv6 link-local address (addr_gen_mode none).
        ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.addr_gen_mode=1
    fi
    : > "$links"
    : > "$addrs"
    for (( i = 0; i < pairs; i++ )); do
        echo "link add vb$i type veth peer name vc$i" >> "$links"
        {
            echo "address add $(end_address $(( 2 * i ))) dev vb$i"
            echo "address add $(end_address $(( 2 * i + 1 ))) dev vc$i"
            [ $ula = 0 ] || printf 'address add fdbe:0:%x::1/64 dev vb%d nodad\n' "$i" "$i"
            echo "link set vb$i up"
            echo "link set vc$i up"
        } >> "$addrs"
    done
    ip -n "$ns" -batch "$links"
    ip -n "$ns" -batch "$addrs"
    build_s[$pairs]=$(elapsed "$t0")
}

declare -A median minimum per_if
all_measures=(inventory selection matrix_weighted matrix_netlink)
done_sizes=()
declare -A entries_of links_of build_s run_s
t_all=$EPOCHREALTIME
# lower A B: A is below B, or B is empty (nothing kept yet).
lower() { [ -z "$2" ] || awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

for (( round = 1; round <= rounds; round++ )); do
  [ "$rounds" = 1 ] || echo "=== round $round of $rounds"
  for pairs in $sizes; do
    ns="$prefix-h1"
    interfaces=$(( 2 * pairs + 1 ))
    # Figures from a busy machine are not comparable: show the load.
    echo "== $pairs veth pairs ($interfaces interfaces) in namespace $ns (load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs)"
    "$netcluster" create "$prefix" --hosts 1 --no-link >&2 || die "cannot create namespace $ns"
    build "$ns" "$pairs"
    echo "   namespace built in ${build_s[$pairs]} s"

    args=(--repeat "$repeat" --expect-interfaces "$interfaces" --pairs "$pairs")
    for d in "${component_dirs[@]}"; do args+=(--component-dir "$d"); done
    out="$work/out.$pairs"
    t0=$EPOCHREALTIME
    # In the background so that a signal is handled at once (the trap then
    # kills what runs in the namespace); not in the background, bash would
    # wait for the program first.
    ip netns exec "$ns" "$program" "${args[@]}" | tee "$out" | sed 's/^/   /' &
    wait $! || die "$program failed with $pairs pairs (see above)"
    run_s[$pairs]=$(elapsed "$t0")
    echo "   measured in ${run_s[$pairs]} s"

    line=$(grep '^interfaces=' "$out" | head -n1) || die "no result line from $program"
    # Every <name>_median_ms=V is followed by <name>_min_ms and then by
    # per_interface_us=W for it. Keep the round with the lowest median.
    unset new_median new_min new_per_if
    declare -A new_median new_min new_per_if
    while read -r key value; do
        case $key in
            entries) entries_of[$pairs]=$value ;;
            links) links_of[$pairs]=$value ;;
            *_median_ms) current=${key%_median_ms}; new_median[$current]=$value ;;
            *_min_ms) new_min[${key%_min_ms}]=$value ;;
            per_interface_us) new_per_if[$current]=$value ;;
        esac
    done < <(tr ' ' '\n' <<<"$line" | sed -n 's/^\([a-z_]*\)=\(.*\)$/\1 \2/p')
    for m in "${all_measures[@]}"; do
        [ -n "${new_median[$m]:-}" ] || die "no $m figure in the result line of $program"
        if lower "${new_median[$m]}" "${median[$pairs,$m]:-}"; then
            median[$pairs,$m]=${new_median[$m]}
            per_if[$pairs,$m]=${new_per_if[$m]}
        fi
        if lower "${new_min[$m]}" "${minimum[$pairs,$m]:-}"; then
            minimum[$pairs,$m]=${new_min[$m]}
        fi
    done

    "$netcluster" destroy "$prefix"
    [ "$round" != 1 ] || done_sizes+=("$pairs")
  done
done

total=$(elapsed "$t_all")

echo
if [ "$rounds" = 1 ]; then
    echo "Summary: median of $repeat runs in ms, and per interface in us (median / interfaces;"
else
    echo "Summary: median of $repeat runs in ms (the lowest of $rounds rounds), and per interface in us (median / interfaces;"
fi
echo "interfaces = 2 x pairs + lo; entries = addresses in the inventory; 64 peers x 2 addresses):"
printf '  %6s %10s %7s' "" "" ""
for m in "${all_measures[@]}"; do printf ' %21s' "$m"; done
printf ' %8s %8s\n' "" ""
printf '  %6s %10s %7s' pairs interfaces entries
for m in "${all_measures[@]}"; do printf ' %12s %8s' "median ms" "us/if"; done
printf ' %8s %8s\n' "build s" "run s"
for p in "${done_sizes[@]}"; do
    printf '  %6s %10s %7s' "$p" "${links_of[$p]}" "${entries_of[$p]}"
    for m in "${all_measures[@]}"; do
        printf ' %12.3f %8.2f' "${median[$p,$m]}" "${per_if[$p,$m]}"
    done
    printf ' %8s %8s\n' "${build_s[$p]}" "${run_s[$p]}"
done

if [ ${#done_sizes[@]} -ge 2 ]; then
    largest=${done_sizes[-1]}
    echo
    echo "Per-interface cost at $largest pairs divided by the cost at a smaller size."
    echo "~1 means the cost grows linearly with the interfaces; > 1 faster than linearly;"
    echo "< 1 a fixed cost (sockets, 128 route lookups) spread over more interfaces."
    echo "The same ratio from the fastest run of each size is shown too: it is less"
    echo "sensitive to a busy machine. (Labels, from the median: linear for 0.67..1.5;"
    echo "these are figures, not a pass/fail check.)"
    for p in "${done_sizes[@]}"; do
        [ "$p" != "$largest" ] || continue
        for m in "${all_measures[@]}"; do
            awk -v big="$largest" -v small="$p" -v m="$m" -v a="${per_if[$largest,$m]}" -v b="${per_if[$p,$m]}" \
                -v amin="${minimum[$largest,$m]}" -v bmin="${minimum[$p,$m]}" \
                -v nbig="${links_of[$largest]}" -v nsmall="${links_of[$p]}" 'BEGIN {
                r = b > 0 ? a / b : 0
                rmin = bmin > 0 ? (amin / nbig) / (bmin / nsmall) : 0
                verdict = r > 1.5 ? "super-linear" : (r < 0.67 ? "sub-linear (fixed cost amortised)" : "linear")
                printf "  %-16s %5s vs %-5s ratio %6.2f  (fastest runs: %5.2f)  %s\n", m, big, small, r, rmin, verdict
            }'
        done
    done
fi
echo
echo "Whole run: $total s"
