#!/bin/bash
# run-failover-bench.sh: how long an oob/tcp stream stalls when the link
# carrying it turns into a black hole. Needs root, iproute2 and nft.
#
# Two simulated hosts (contrib/netcluster, --second-link: eth0 10.200.0.x and
# eth1 10.201.0.x, both with IPv6 on eth0). 1.1 on h1 streams small
# messages to 1.2 on h2 at a steady rate (--batch messages every
# --interval-ms); 1.2 prints "PROGRESS <n> <ms>" every --progress-every
# messages. Once the stream runs, an nft table on h2 (the receiver) drops
# every packet in and out of the interface that carries the stream (or,
# with --drop addresses, only the packets between the connection's two
# addresses); the link itself stays up, so nothing tells the processes.
# Figures, per run:
#   stall            the longest gap between consecutive PROGRESS lines
#   drop->reconnect  from the drop to the sender's next "connected to 1.2
#                    over" log line (oob_base_verbose 10)
#   drop->resume     from the drop to the end of the longest gap
# and then "failover stall: N ms (oob_tcp_heartbeat=..., misses=...)", N the
# median of the runs (of an even number of runs, the lower middle one). It
# removes everything it made on exit (EXIT/INT/TERM; should it be SIGKILLed,
# bench_lib.sh's watcher still removes the namespaces). Without root or
# network namespaces it prints a SKIP line (exit 0).
#
# A benchmark: it prints figures and never fails on a time.
set -euo pipefail
shopt -s inherit_errexit
export LC_ALL=C

me=${0##*/}

usage() {
    cat <<USAGE
Usage: $me --builddir DIR [OPTIONS]
  --builddir DIR      the build tree (test/oob/oob_peer, components, framework/tools/orca_info)
  --srcdir DIR        the source tree (contrib/netcluster, framework/help);
                      default: two levels above this script
  --repeat N          runs (default 3)
  --batch N           messages per tick (default 100)
  --interval-ms MS    milliseconds between ticks (default 10)
  --progress-every N  PROGRESS line every N messages at the receiver (default 100)
  --before-drop-ms MS stream this long before the drop (default 2000)
  --after-drop-ms MS  and at most this long after it (default 30000)
  --drop link|addresses
                      drop everything on the stream's interface (default), or only
                      the packets between the connection's two addresses
  --mca NAME VALUE    for both processes (e.g. --mca oob_tcp_heartbeat 200); repeatable
USAGE
}

here=$(cd "$(dirname "$0")" && pwd)
# die, argument checks, the median, the namespace check, cleanup.
. "$here/bench_lib.sh"
builddir=
srcdir=$(cd "$here/../.." && pwd)
repeat=3
batch=100
interval=10
every=100
before_ms=2000
after_ms=30000
drop=link
mca=()
while [ $# -gt 0 ]; do
    case $1 in
        --builddir) builddir=$2; shift 2 ;;
        --srcdir) srcdir=$2; shift 2 ;;
        --repeat) repeat=$2; shift 2 ;;
        --batch) batch=$2; shift 2 ;;
        --interval-ms) interval=$2; shift 2 ;;
        --progress-every) every=$2; shift 2 ;;
        --before-drop-ms) before_ms=$2; shift 2 ;;
        --after-drop-ms) after_ms=$2; shift 2 ;;
        --drop) drop=$2; shift 2 ;;
        --mca) mca+=(--mca "$2" "$3"); shift 3 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown option $1" ;;
    esac
done
bench_dirs
bench_whole_numbers "$repeat" "$batch" "$interval" "$every" "$before_ms" "$after_ms"
case $drop in link|addresses) ;; *) die "--drop takes link or addresses" ;; esac

bench_netcluster
bench_need_namespaces "failover benchmark" bench-failover
command -v nft >/dev/null || die "nft is not installed"
peer="$builddir/test/oob/oob_peer"
info="$builddir/framework/tools/orca_info/orca_info"
[ -x "$peer" ] || die "no $peer (build it with 'make test/oob/oob_peer')"
# Components from the build tree (the oob and reachable ones), help text
# from the source tree, no param files.
bench_orca_env "$builddir/components/reachable/netlink/.libs:$builddir/components/reachable/weighted/.libs:$builddir/components/oob/tcp/.libs:$builddir/components/oob/usock/.libs"
ORCA_JOB_SECRET=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
export ORCA_JOB_SECRET

# The settings both processes run with, as orca_info sees them.
setting() {
    local v
    v=$("${orca_env[@]}" "$info" "${mca[@]}" --param oob tcp --parsable 2>/dev/null | sed -n "s/^mca:oob:tcp:param:oob_tcp_$1:value://p")
    echo "${v:-?}"
}
heartbeat=$(setting heartbeat)
misses=$(setting heartbeat_misses)
user_timeout=$(setting user_timeout)

bench_work failover
bench_prefix fo

now_ms() { date +%s%3N; }

# wait_for FILE REGEX MS: polls every 10 ms; prints now_ms when seen, or returns 1.
wait_for() {
    local end=$(($(now_ms) + $3))
    while [ "$(now_ms)" -lt "$end" ]; do
        if grep -qE -- "$2" "$1" 2>/dev/null; then now_ms; return 0; fi
        sleep 0.01
    done
    return 1
}

# one_run N: prints "stall drop_to_reconnect drop_to_resume" (ms; "-" if unseen).
one_run() {
    local run=$1 d="$work/run$1"
    mkdir -p "$d"
    "$netcluster" destroy "$prefix" >/dev/null 2>&1 || true
    "$netcluster" create "$prefix" --hosts 2 --second-link >&2
    # Enough messages for the whole run at the nominal rate, and a timeout past it.
    local total=$(((before_ms + after_ms) / interval * batch + batch)) timeout=$((before_ms + after_ms + 20000))
    local common=(--mca oob tcp --mca oob_base_verbose 10 "${mca[@]}")
    "$netcluster" exec "$prefix" h2 "${orca_env[@]}" "$peer" "${common[@]}" --name 1.2 --uri-file "$d/1.2.uri" \
        --peer-file 1.1="$d/1.1.uri" --expect "$total" --progress-every "$every" --timeout-ms "$timeout" \
        >"$d/1.2.out" 2>"$d/1.2.err" &
    "$netcluster" exec "$prefix" h1 "${orca_env[@]}" "$peer" "${common[@]}" --name 1.1 --uri-file "$d/1.1.uri" \
        --peer-file 1.2="$d/1.2.uri" --send "1.2:$total:64" --batch "$batch" --interval-ms "$interval" \
        --timeout-ms "$timeout" >"$d/1.1.out" 2>"$d/1.1.err" &
    wait_for "$d/1.2.out" '^PROGRESS ' 20000 >/dev/null || die "run $run: the stream did not start:
$(cat "$d/1.1.out" "$d/1.1.err" "$d/1.2.out" "$d/1.2.err" | tail -40)"
    sleep "$((before_ms / 1000)).$(printf '%03d' $((before_ms % 1000)))"
    # The connection carrying the stream, as the receiver sees it.
    local route local_addr remote_addr ifname
    route=$(grep -m1 '^ROUTE 1\.1 tcp: ' "$d/1.2.out" | cut -d' ' -f4-)
    [[ $route =~ ^\[?([0-9a-f.:]+)\]?:[0-9]+\ \<-\ \[?([0-9a-f.:]+)\]?:[0-9]+$ ]] ||
        die "run $run: not a tcp route at 1.2: \"$route\""
    local_addr=${BASH_REMATCH[1]} remote_addr=${BASH_REMATCH[2]}
    local family=ip; [[ $local_addr != *:* ]] || family=ip6
    ifname=$("$netcluster" exec "$prefix" h2 ip -o addr show to "$local_addr" | awk '{ print $2; exit }')
    [ -n "$ifname" ] || die "run $run: no interface of h2 has $local_addr"
    local before_conn; before_conn=$(grep -cE ': connected to 1\.2 over ' "$d/1.1.err" || true)
    local match=""
    if [ "$drop" = addresses ]; then
        match="$family saddr $remote_addr $family daddr $local_addr"
        local match_out="$family saddr $local_addr $family daddr $remote_addr"
    fi
    "$netcluster" exec "$prefix" h2 nft -f - <<NFT
table inet orcabench {
    chain in { type filter hook input priority 0; policy accept; iifname "$ifname" ${match} drop; }
    chain out { type filter hook output priority 0; policy accept; oifname "$ifname" ${match_out:-} drop; }
}
NFT
    local t_drop; t_drop=$(now_ms)
    echo "run $run: dropping $drop of $ifname on h2 (stream $remote_addr -> $local_addr) at $t_drop" >&2
    local t_reconn=-
    local end=$((t_drop + after_ms))
    while [ "$(now_ms)" -lt "$end" ]; do
        if [ "$(grep -cE ': connected to 1\.2 over ' "$d/1.1.err" || true)" -gt "$before_conn" ]; then
            t_reconn=$(now_ms)
            break
        fi
        grep -q '^ERROR' "$d/1.1.out" && break
        sleep 0.01
    done
    # Let the stream run on for a second after the reconnection, then stop.
    [ "$t_reconn" = - ] || sleep 1
    "$netcluster" destroy "$prefix" >/dev/null 2>&1 || true
    # The two processes above (one_run runs in a command substitution: its
    # `wait` does not wait for bench_work's watcher, a child of the script).
    wait 2>/dev/null || true
    # The longest gap between PROGRESS lines, and where it ended.
    local gap
    gap=$(awk '$1 == "PROGRESS" && NF >= 3 { if (prev && $3 - prev > best) { best = $3 - prev; at = $3 } prev = $3 }
               END { print (best ? best : "-"), (at ? at : "-") }' "$d/1.2.out")
    local stall=${gap% *} resumed=${gap#* }
    local to_resume=-
    [ "$resumed" = - ] || [ "$resumed" -lt "$t_drop" ] || to_resume=$((resumed - t_drop))
    [ "$t_reconn" = - ] || t_reconn=$((t_reconn - t_drop))
    echo "run $run: stall ${stall} ms, drop->reconnect ${t_reconn} ms, drop->resume ${to_resume} ms" \
        "(silent: $(sed -nE 's/.*closed: (silent for [0-9]+ ms).*/\1/p' "$d/1.1.err" | head -1))" >&2
    echo "$stall $t_reconn $to_resume"
}

stalls=()
for ((r = 1; r <= repeat; r++)); do
    result=$(one_run "$r")
    stall=${result%% *}
    [ "$stall" = - ] || stalls+=("$stall")
done
stall_median=$(for s in "${stalls[@]}"; do echo "$s"; done | median low)
echo "failover stall: $stall_median ms (oob_tcp_heartbeat=$heartbeat, misses=$misses, user_timeout=$user_timeout;" \
    "runs: ${stalls[*]:-none}; $batch messages every $interval ms, drop $drop)"
