#!/bin/bash
# Out-of-band messaging under hostile or unlucky conditions, between real
# Orca processes (test/oob/oob_peer) and small attack clients
# (test/integration/oob_attack.py) on simulated hosts (network namespaces
# built with contrib/netcluster): what a listener spends on connections that
# have not proven the job secret (memory, CPU, descriptors), what an
# authenticated peer can make it allocate, connection races that must not
# end in reconnects, how soon a dead, stopped or unreachable peer is
# reported, what strangers may hold of the handshake slots, and (with
# orcarun, test/lib/orcarun.sh) that another local user's connections to a
# job's Unix sockets take none. Every bounded case prints its measurements
# on a "FIGURE" line. Needs root.
#
# By hand, against another build: ORCA_TEST_BUILDDIR=BUILD ORCA_TEST_SRCDIR=SRC
# ORCA_MCA_mca_base_help_path=SRC/framework/help bash oob_hostile_test.sh [CASE...]
. "$(dirname "$0")/../lib/testcase.sh"
. "$(dirname "$0")/../lib/netns.sh"
. "$(dirname "$0")/../lib/proc_figures.sh"
. "$(dirname "$0")/../lib/orcarun.sh"

OOB_ATTACK="$(cd "$(dirname "$0")" && pwd)/oob_attack.py"
MIB=$((1024 * 1024))
declare -A _attack_jobs=()

# --- helpers ---------------------------------------------------------------------------------

# now_ms: the wall clock in milliseconds (the clock of oob_peer's PROGRESS lines).
now_ms() { date +%s%3N; }

# wait_line FILE REGEX SECONDS: waits until FILE has a line matching the
# extended regex; prints the time it was seen (now_ms), or returns 1.
wait_line() {
    local file=$1 pattern=$2 limit=$3 i
    for ((i = 0; i < limit * 50; i++)); do
        if grep -qE -- "$pattern" "$file" 2>/dev/null; then now_ms; return 0; fi
        sleep 0.02
    done
    return 1
}

# attack_start NAME PREFIX HOST SUBCOMMAND ARGS...: oob_attack.py in HOST, in
# the background, with the job secret in its environment; its output goes
# to $OOB_DIR/NAME.att. It ends by itself (bounded holds), and teardown
# kills whatever runs in the namespaces.
attack_start() {
    local name=$1 p=$2 h=$3; shift 3
    ORCA_JOB_SECRET=${ORCA_JOB_SECRET:-$ORCA_TEST_JOB_SECRET} \
        "$NETCLUSTER" exec "$p" "$h" python3 "$OOB_ATTACK" "$@" >"$OOB_DIR/$name.att" 2>&1 &
    _attack_jobs[$name]=$!
}

# attack_await NAME REGEX [SECONDS]: waits (default 30 s) for a line of the
# attacker's output; prints it.
attack_await() {
    wait_line "$OOB_DIR/$1.att" "$2" "${3:-30}" >/dev/null || fail "attacker $1 printed no line matching /$2/:
$(cat "$OOB_DIR/$1.att")"
    grep -E -- "$2" "$OOB_DIR/$1.att" | tail -1
}

# attack_release NAME: ends the attacker's hold (it closes its sockets) and
# waits for it.
attack_release() {
    touch "$OOB_DIR/$1.release"
    attack_await "$1" '^RELEASED( |$)' 30 >/dev/null
    wait "${_attack_jobs[$1]}" 2>/dev/null || true
}

# field TEXT KEY: the value of KEY=VALUE in TEXT.
field() { sed -nE "s/.*(^| )$2=([^ ]*).*/\2/p" <<<"$1"; }

# start_listener PREFIX HOST ARGS...: 1.2 alone on HOST (no peers), up for up
# to two minutes; sets L_PORT (its port on 10.200.0.2) and L_PID, and
# leaves it a moment to settle before a baseline is read.
start_listener() {
    local p=$1 h=$2; shift 2
    oob_start 1.2 "$p" "$h" --mca oob tcp "$@" --name 1.2 --uri-file "$OOB_DIR/1.2.uri" --expect 1 \
        --timeout-ms 120000
    L_PORT=$(tcp_port_of "$(oob_uri 1.2)" 10.200.0.2)
    L_PID=$(oob_pid 1.2)
    sleep 0.3
}

# start_pair PREFIX H1 H2 COUNT ARGS...: 1.1 on H1 waits for 1.2's URI (in
# 1.2.later, written by release_pair) before it sends COUNT messages; 1.2 on H2
# listens at once (oob_peer reads its peer files before its event loop
# runs). Both linger for a minute after the exchange, so that the listener
# can still be measured. Sets L_PORT and L_PID as start_listener does.
start_pair() {
    local p=$1 h1=$2 h2=$3 n=$4; shift 4
    oob_start 1.1 "$p" "$h1" --mca oob tcp "$@" --name 1.1 --uri-file "$OOB_DIR/1.1.uri" \
        --peer-file 1.2="$OOB_DIR/1.2.later" --send "1.2:$n:64" --linger-ms 60000 --timeout-ms 90000
    oob_start 1.2 "$p" "$h2" --mca oob tcp "$@" --name 1.2 --uri-file "$OOB_DIR/1.2.uri" \
        --peer-file 1.1="$OOB_DIR/1.1.uri" --expect "$n" --linger-ms 60000 --timeout-ms 90000
    L_PORT=$(tcp_port_of "$(oob_uri 1.2)" 10.200.0.2)
    L_PID=$(oob_pid 1.2)
    sleep 0.3
}

# release_pair COUNT [SECONDS]: lets 1.1 start and checks that the exchange
# of start_pair completed within SECONDS (default 20): both idle, every
# message in order, no ERROR.
release_pair() {
    local n=$1 limit=${2:-20}
    cp "$OOB_DIR/1.2.uri" "$OOB_DIR/1.2.tmp" && mv "$OOB_DIR/1.2.tmp" "$OOB_DIR/1.2.later"
    local t0 t1
    t0=$(now_ms)
    t1=$(wait_line "$OOB_DIR/1.1.out" '^(IDLE|ERROR)' "$limit") || fail "the exchange did not complete within $limit s:
$(oob_output 1.1)
$(oob_output 1.2)"
    wait_line "$OOB_DIR/1.2.out" '^(IDLE|ERROR)' 5 >/dev/null || true
    ! grep -q '^ERROR' "$OOB_DIR/1.1.out" "$OOB_DIR/1.2.out" || fail "an ERROR line:
$(oob_output 1.1)
$(oob_output 1.2)"
    oob_expect 1.2 "^RECEIVED $n from 1\.1 in order$"
    EXCHANGE_MS=$((t1 - t0))
}

# alive NAME: the process still runs (the listener, 1.2: its pid is $L_PID).
alive() { kill -0 "$L_PID" 2>/dev/null || fail "$1 died:
$(oob_output "$1")"; }

# --- 1. memory before (and after) authentication ----------------------------------------------

# 16 connections that never authenticate, each announcing a Data frame of
# 64 MiB - 1 (under the default oob_tcp_max_msg_size) and keeping the
# socket open: before the handshake only handshake frames are read, so the
# listener closes each at its header and allocates nothing for it.
unauthenticated_data_headers_cost_nothing() {
    local p; p=$(new_cluster --hosts 2)
    oob_dir
    start_listener "$p" h2
    local rss0 cpu0 line rss1 cpu1
    rss0=$(proc_rss_kb "$L_PID")
    cpu0=$(proc_cpu_ms "$L_PID")
    attack_start hdr "$p" h1 connect 10.200.0.2 "$L_PORT" --count 16 --what header --length $((64 * MIB - 1)) \
        --settle 1 --hold-file "$OOB_DIR/hdr.release" --hold 60
    line=$(attack_await hdr '^READY')
    rss1=$(proc_rss_kb "$L_PID")
    cpu1=$(proc_cpu_ms "$L_PID")
    alive 1.2
    attack_release hdr
    figure "rss_before_kb=$rss0 rss_held_kb=$rss1 rss_growth_kb=$((rss1 - rss0)) cpu_ms=$((cpu1 - cpu0))" \
        "connections=$(field "$line" opened) closed_by_listener=$(field "$line" closed) (bound: growth < $(rss_bound_kb 16384) kB, all 16 closed)"
    [ $((rss1 - rss0)) -lt "$(rss_bound_kb 16384)" ] || fail "16 unauthenticated 64 MiB headers grew the listener's RSS by $((rss1 - rss0)) kB"
    [ "$(field "$line" opened)" = 16 ] || fail "not all 16 attackers connected: $line"
    [ "$(field "$line" closed)" = 16 ] || fail "the listener left $(field "$line" open) of 16 connections open\
 after a Data header before any handshake (only handshake frames may come first): $line"
    alive 1.2
}

# oob_tcp_max_msg_size 1G, and one unauthenticated header announcing
# 1 GiB - 1: neither memory nor CPU time follow the claim.
unauthenticated_gigabyte_header_costs_nothing() {
    local p; p=$(new_cluster --hosts 2)
    oob_dir
    start_listener "$p" h2 --mca oob_tcp_max_msg_size 1G
    local rss0 cpu0 line rss1 cpu1
    rss0=$(proc_rss_kb "$L_PID")
    cpu0=$(proc_cpu_ms "$L_PID")
    attack_start hdr "$p" h1 connect 10.200.0.2 "$L_PORT" --count 1 --what header --length $((1024 * MIB - 1)) \
        --settle 1 --hold-file "$OOB_DIR/hdr.release" --hold 60
    line=$(attack_await hdr '^READY')
    rss1=$(proc_rss_kb "$L_PID")
    cpu1=$(proc_cpu_ms "$L_PID")
    alive 1.2
    attack_release hdr
    figure "rss_before_kb=$rss0 rss_held_kb=$rss1 rss_growth_kb=$((rss1 - rss0)) cpu_ms=$((cpu1 - cpu0))" \
        "closed_by_listener=$(field "$line" closed) (bound: growth < $(rss_bound_kb 16384) kB, cpu < 500 ms)"
    [ $((rss1 - rss0)) -lt "$(rss_bound_kb 16384)" ] || fail "one unauthenticated 1 GiB header grew the listener's RSS by $((rss1 - rss0)) kB"
    [ $((cpu1 - cpu0)) -lt 500 ] || fail "one unauthenticated 1 GiB header cost the listener $((cpu1 - cpu0)) ms of CPU"
    alive 1.2
}

# A client that knows the secret (full handshake) announces 64 MiB - 1,
# sends 4 KiB of it and stalls: the listener holds what arrived plus a
# bounded step (at most 8 MiB), not the announced size.
authenticated_stalled_message_costs_what_arrived() {
    local p; p=$(new_cluster --hosts 2)
    oob_dir
    start_listener "$p" h2
    local rss0 line rss1
    rss0=$(proc_rss_kb "$L_PID")
    attack_start stall "$p" h1 stall 10.200.0.2 "$L_PORT" --as 1.1 --to 1.2 --length $((64 * MIB - 1)) --send 4096 \
        --hold-file "$OOB_DIR/stall.release" --hold 60
    line=$(attack_await stall '^(READY|FAILED)')
    [[ $line == READY* ]] || fail "the authenticated client got no connection: $line
$(cat "$OOB_DIR/stall.att")
$(oob_output 1.2)"
    sleep 1
    rss1=$(proc_rss_kb "$L_PID")
    alive 1.2
    attack_release stall
    figure "rss_before_kb=$rss0 rss_held_kb=$rss1 rss_growth_kb=$((rss1 - rss0)) protocol=$(field "$line" version)" \
        "(bound: growth < $(rss_bound_kb 24576) kB)"
    [ $((rss1 - rss0)) -lt "$(rss_bound_kb 24576)" ] || fail "an authenticated 64 MiB header with 4 KiB behind it grew the listener's RSS by\
 $((rss1 - rss0)) kB"
}

# --- 2. per-peer state before the key is proven -----------------------------------------------

# 20,000 HELLOs, each from another process name of the job, none of them
# going further: the listener keeps nothing keyed by a claimed name.
claimed_names_leave_no_state() {
    local p; p=$(new_cluster --hosts 2)
    oob_dir
    start_listener "$p" h2
    local rss0 t0 line rss1 t1
    rss0=$(proc_rss_kb "$L_PID")
    t0=$(now_ms)
    attack_start hellos "$p" h1 hellos 10.200.0.2 "$L_PORT" --count 20000 --to 1.2 --job 1 --first-vpid 1000 \
        --parallel 8
    line=$(attack_await hellos '^HELLOS' 120)
    t1=$(now_ms)
    sleep 1
    rss1=$(proc_rss_kb "$L_PID")
    alive 1.2
    figure "rss_before_kb=$rss0 rss_after_kb=$rss1 rss_growth_kb=$((rss1 - rss0)) elapsed_ms=$((t1 - t0))" \
        "${line#HELLOS } (bound: growth < $(rss_bound_kb 6144) kB)"
    [ "$(field "$line" challenged)" -ge 19000 ] || fail "the listener did not challenge most HELLOs: $line
$(cat "$OOB_DIR/hellos.att")"
    [ $((rss1 - rss0)) -lt "$(rss_bound_kb 6144)" ] || fail "20,000 HELLOs with distinct names grew the listener's RSS by $((rss1 - rss0)) kB"
}

# --- 3. a cap on pending connections -------------------------------------------------------------

# 1,000 connections from one host, one byte each, held open: the listener
# keeps at most oob_tcp_max_pending_per_source (32) of them, spends little
# memory on them and gives it back, and a process on another host still
# gets through meanwhile.
pending_connections_are_capped() {
    local p; p=$(new_cluster --hosts 3)
    oob_dir
    start_pair "$p" h3 h2 100
    local rss0 line rss1 rss2
    rss0=$(proc_rss_kb "$L_PID")
    attack_start flood "$p" h1 connect 10.200.0.2 "$L_PORT" --count 1000 --what byte --settle 1 \
        --hold-file "$OOB_DIR/flood.release" --hold 60
    line=$(attack_await flood '^READY' 60)
    rss1=$(proc_rss_kb "$L_PID")
    local established
    established=$(in_host "$p" h2 ss -Htn state established "( sport = :$L_PORT )" | grep -c '10\.200\.0\.1:' || true)
    alive 1.2
    release_pair 100 20
    attack_release flood
    sleep 1.5
    rss2=$(proc_rss_kb "$L_PID")
    alive 1.2
    figure "rss_before_kb=$rss0 rss_held_kb=$rss1 rss_closed_kb=$rss2 held_growth_kb=$((rss1 - rss0))" \
        "closed_growth_kb=$((rss2 - rss0)) attackers=$(field "$line" opened) open_after_1s=$(field "$line" open)" \
        "established_at_listener=$established legit_exchange_ms=$EXCHANGE_MS" \
        "(bounds: held growth < $(rss_bound_kb 24576) kB, after close < $(rss_bound_kb 8192) kB, open <= 48)"
    [ "$(field "$line" opened)" -ge 900 ] || fail "fewer than 900 of 1000 attackers connected: $line"
    [ "$(field "$line" open)" -le 48 ] || fail "$(field "$line" open) of the attacker's connections from one host were\
 still open after a second (oob_tcp_max_pending_per_source is 32): $line"
    [ $((rss1 - rss0)) -lt "$(rss_bound_kb 24576)" ] || fail "1,000 pending connections grew the listener's RSS by $((rss1 - rss0)) kB"
    [ $((rss2 - rss0)) -lt "$(rss_bound_kb 8192)" ] || fail "after 1,000 pending connections closed, the listener's RSS is still\
 $((rss2 - rss0)) kB above its start"
}

# --- 4. out of descriptors ---------------------------------------------------------------------

# The listener at RLIMIT_NOFILE 64 (soft = hard, so raising the soft limit
# cannot help) and 150 idle connections from 6 addresses (25 each: under
# both caps, so none is closed for being too many): it must not spin on
# accept while it cannot take more, and it serves again once they close.
out_of_descriptors_does_not_spin() {
    local p; p=$(new_cluster --hosts 2)
    local i sources=
    for i in 101 102 103 104 105 106; do
        in_host "$p" h1 ip addr add "10.200.0.$i/24" dev eth0
        sources+=${sources:+,}10.200.0.$i
    done
    oob_dir
    start_pair "$p" h1 h2 100 --mca oob_tcp_handshake_timeout 30000
    prlimit --pid "$L_PID" --nofile=64:64
    local line cpu0 cpu1
    attack_start idle "$p" h1 connect 10.200.0.2 "$L_PORT" --count 150 --what none --sources "$sources" --settle 0.5 \
        --hold-file "$OOB_DIR/idle.release" --hold 60
    line=$(attack_await idle '^READY' 60)
    cpu0=$(proc_cpu_ms "$L_PID")
    sleep 3
    cpu1=$(proc_cpu_ms "$L_PID")
    alive 1.2
    local fds; fds=$(find "/proc/$L_PID/fd" -mindepth 1 -maxdepth 1 | wc -l)
    attack_release idle
    sleep 0.5
    release_pair 100 20
    figure "cpu_ms_in_3s=$((cpu1 - cpu0)) listener_fds=$fds connections=$(field "$line" opened)" \
        "closed_by_listener=$(field "$line" closed) legit_exchange_ms=$EXCHANGE_MS (bound: cpu < 300 ms)"
    [ "$(field "$line" opened)" -ge 140 ] || fail "fewer than 140 of 150 idle connections connected: $line"
    [ $((cpu1 - cpu0)) -lt 300 ] || fail "out of descriptors with idle connections waiting, the listener burnt\
 $((cpu1 - cpu0)) ms of CPU in 3 s"
}

# --- 5. connection races end in one connection ---------------------------------------------------

# Two hosts with two links, IPv4 and IPv6 (4+ candidate addresses), the
# candidates dialled without waiting (oob_tcp_connect_stagger 0) while the
# receiver is held (SIGSTOP) for up to a second, so that several
# handshakes run at once when it goes on: both ends keep the same
# connection, and 100,000 messages go over exactly one. Three times.
simultaneous_candidates_keep_one_connection() {
    local p; p=$(new_cluster --hosts 2 --second-link)
    local round n=100000 summary=
    for round in 1 2 3; do
        oob_dir
        local args=(--mca oob tcp --mca oob_tcp_connect_stagger 0 --mca oob_base_verbose 20)
        oob_start 1.2 "$p" h2 "${args[@]}" --name 1.2 --uri-file "$OOB_DIR/1.2.uri" --peer-file 1.1="$OOB_DIR/1.1.uri" \
            --expect $n --timeout-ms 30000
        oob_uri 1.2 >/dev/null
        # 1.2 busy for a moment while 1.1 dials: its kernel completes every
        # TCP connect, and all the handshakes run at once when it goes on.
        local pid2; pid2=$(oob_pid 1.2)
        kill -STOP "$pid2"
        oob_start 1.1 "$p" h1 "${args[@]}" --name 1.1 --uri-file "$OOB_DIR/1.1.uri" --peer-file 1.2="$OOB_DIR/1.2.uri" \
            --send 1.2:$n:64 --timeout-ms 30000
        local i
        for ((i = 0; i < 50; i++)); do
            [ "$(grep -c 'tcp: handshake with 1\.2 over ' "$OOB_DIR/1.1.err" || true)" -ge 3 ] && break
            sleep 0.02
        done
        sleep 0.1
        kill -CONT "$pid2"
        local rc1=0 rc2=0
        oob_wait 1.1 40 || rc1=$?
        oob_wait 1.2 40 || rc2=$?
        local attempts sent_conn recv_conn bad
        attempts=$(grep -c 'tcp: connecting to 1\.2 at ' "$OOB_DIR/1.1.err" || true)
        # The engine's line for every established connection (not "already connected to").
        sent_conn=$(grep -cE ': connected to 1\.2 over .*\(resending' "$OOB_DIR/1.1.err" || true)
        recv_conn=$(grep -cE ': connected to 1\.1 over .*\(resending' "$OOB_DIR/1.2.err" || true)
        bad=$(grep -hcE 'write failed|replaced by|a duplicate of' "$OOB_DIR/1.1.err" "$OOB_DIR/1.2.err" |
            awk '{ s += $1 } END { print s + 0 }')
        summary+=" round$round:attempts=$attempts,sender_connected=$sent_conn,receiver_connected=$recv_conn,replaced_or_duplicate=$bad"
        [ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] || fail "round $round: 1.1 $rc1, 1.2 $rc2:
$(oob_output 1.1)
$(oob_output 1.2)"
        oob_expect 1.2 "^RECEIVED $n from 1\.1 in order$"
        [ "$attempts" -ge 2 ] || fail "round $round: 1.1 dialled only $attempts address(es), no race:
$(oob_output 1.1)"
        if [ "$sent_conn" -ne 1 ] || [ "$recv_conn" -ne 1 ] || [ "$bad" -ne 0 ]; then
            figure "$summary (bound: exactly one connection, no replaced/duplicate/write failed, every round)"
            fail "round $round: 1.1 was connected to 1.2 $sent_conn times (1.2 to 1.1: $recv_conn times);\
 replaced/duplicate/write-failed lines: $bad
$(grep -hE 'connected to 1\.[12] over|write failed|replaced by|a duplicate of|closed: ' "$OOB_DIR/1.1.err" "$OOB_DIR/1.2.err" | head -30)"
        fi
        _oob_reap
    done
    figure "$summary (bound: exactly one connection, no replaced/duplicate/write failed, every round)"
}

# --- 6. an idle peer's death -------------------------------------------------------------------

# idle_pair PREFIX ARGS...: 1.1 on h1 sends 10 messages to 1.2 on h2, both
# confirm, and both stay idle on their event loops (--linger-ms).
idle_pair() {
    local p=$1; shift
    oob_start 1.2 "$p" h2 --mca oob tcp --mca oob_base_verbose 10 "$@" --name 1.2 --uri-file "$OOB_DIR/1.2.uri" \
        --peer-file 1.1="$OOB_DIR/1.1.uri" --expect 10 --linger-ms 90000 --timeout-ms 20000
    oob_start 1.1 "$p" h1 --mca oob tcp --mca oob_base_verbose 10 "$@" --name 1.1 --uri-file "$OOB_DIR/1.1.uri" \
        --peer-file 1.2="$OOB_DIR/1.2.uri" --send 1.2:10:64 --linger-ms 90000 --timeout-ms 20000
    oob_await 1.1 '^(IDLE|ERROR)' 20
    oob_await 1.2 '^(IDLE|ERROR)' 20
    ! grep -q '^ERROR' "$OOB_DIR/1.1.out" "$OOB_DIR/1.2.out" || fail "an ERROR before the peers were idle:
$(oob_output 1.1)
$(oob_output 1.2)"
    oob_expect 1.2 '^RECEIVED 10 from 1\.1 in order$'
    sleep 0.5  # the last acknowledgements
}

# await_lost LIMIT T0: waits up to LIMIT s for 1.1's "ERROR lost 1.2" line;
# prints the milliseconds since T0, or fails.
await_lost() {
    local t1
    t1=$(wait_line "$OOB_DIR/1.1.out" '^ERROR lost 1\.2' "$1") || return 1
    echo $((t1 - $2))
}

# Nothing unacknowledged, and the peer is killed: its kernel closes the
# connection, it is gone, and 1.1 must say so within 15 s.
killed_idle_peer_is_reported_lost() {
    local p; p=$(new_cluster --hosts 2)
    oob_dir
    idle_pair "$p"
    local pid t0 ms
    pid=$(oob_pid 1.2)
    t0=$(now_ms)
    kill -KILL "$pid"
    if ! ms=$(await_lost 15 "$t0"); then
        figure "reported_ms=none_within_15000 (bound: 15000 ms)"
        fail "1.1 did not report 1.2 lost within 15 s of SIGKILL while idle:
$(oob_output 1.1)"
    fi
    figure "reported_ms=$ms (bound: 15000 ms)"
    oob_expect 1.1 '^ERROR lost 1\.2: '
}

# Nothing unacknowledged, and the peer is stopped (its kernel keeps the
# connection and answers connects): heartbeat 200 ms x 3, one retry round
# of 1 s and a handshake timeout of 1 s mean about 3 s; the bound is 10 s.
stopped_idle_peer_is_reported_lost() {
    local p; p=$(new_cluster --hosts 2)
    oob_dir
    local quick=(--mca oob_tcp_heartbeat 200 --mca oob_tcp_heartbeat_misses 3 --mca oob_tcp_retries 1
                 --mca oob_tcp_connect_timeout 1000 --mca oob_tcp_handshake_timeout 1000)
    idle_pair "$p" "${quick[@]}"
    local pids t0 ms rc=0
    pids=$(ip netns pids "$p-h2")
    t0=$(now_ms)
    kill -STOP $pids
    ms=$(await_lost 10 "$t0") || rc=1
    kill -CONT $pids 2>/dev/null || true
    if [ $rc -ne 0 ]; then
        figure "reported_ms=none_within_10000 (bound: 10000 ms)"
        fail "1.1 did not report 1.2 lost within 10 s of SIGSTOP while idle:
$(oob_output 1.1)"
    fi
    figure "reported_ms=$ms (bound: 10000 ms)"
}

# --- 9. failure paths that were slow or said the wrong thing -------------------------------------

# Hosts whose only addresses besides loopback are bridges with the same
# addresses everywhere (virbr0, docker0, and their IPv6 link-local
# addresses): nothing can reach 1.2, and 1.1 says so at once, never
# dialling a bridge's fe80:: address.
bridges_only_peer_is_lost_at_once() {
    local p; p=$(new_cluster --hosts 2 --no-link --virbr --docker)
    oob_dir
    oob_start 1.2 "$p" h2 --mca oob tcp --mca oob_base_verbose 20 --name 1.2 --uri-file "$OOB_DIR/1.2.uri" \
        --expect 10 --timeout-ms 60000
    local uri; uri=$(oob_uri 1.2)
    grep -q '\[\?fe80' <<<"$uri" || fail "1.2 advertises no fe80:: address, so this case tests nothing: $uri"
    oob_start 1.1 "$p" h1 --mca oob tcp --mca oob_base_verbose 20 --name 1.1 --uri-file "$OOB_DIR/1.1.uri" \
        --peer-file 1.2="$OOB_DIR/1.2.uri" --send 1.2:10:64 --timeout-ms 60000
    local t0 t1
    t0=$(wait_line "$OOB_DIR/1.1.out" '^URI ' 20) || fail "1.1 did not start:
$(oob_output 1.1)"
    # Waits longer than the bound, to measure the old behaviour too.
    t1=$(wait_line "$OOB_DIR/1.1.out" '^ERROR' 30) || t1=
    local dialled; dialled=$(grep -c 'connecting to 1\.2 at \[fe80' "$OOB_DIR/1.1.err" || true)
    local reported=none_within_30000
    [ -z "$t1" ] || reported=$((t1 - t0))
    figure "reported_ms=$reported fe80_attempts=$dialled (bound: 3000 ms, no fe80 attempt)"
    [ -n "$t1" ] || fail "1.1 did not report 1.2 lost within 30 s:
$(oob_output 1.1)"
    oob_expect 1.1 '^ERROR lost 1\.2: '
    [ "$dialled" -eq 0 ] || fail "1.1 dialled 1.2's bridge link-local addresses:
$(grep 'connecting to 1\.2 at' "$OOB_DIR/1.1.err" | head -5)"
    [ $((t1 - t0)) -le 3000 ] || fail "1.1 took $((t1 - t0)) ms to report 1.2 lost"
}

# One round (oob_tcp_retries 0) of 1 s in which nothing succeeds: the TCP
# connects of h2's eth0 are dropped, and the ones on eth1 reach a stopped
# process that never answers the HELLO. The round's deadline ends them all;
# the log must not say that another address won.
aborted_round_does_not_claim_a_winner() {
    local p; p=$(new_cluster --hosts 2 --second-link --drop-tcp h2:eth0)
    oob_dir
    oob_start 1.2 "$p" h2 --mca oob tcp --name 1.2 --uri-file "$OOB_DIR/1.2.uri" --expect 10 --timeout-ms 60000
    oob_uri 1.2 >/dev/null
    sleep 0.3
    local pids; pids=$(ip netns pids "$p-h2")
    kill -STOP $pids
    oob_start 1.1 "$p" h1 --mca oob tcp --mca oob_tcp_retries 0 --mca oob_tcp_connect_timeout 1000 \
        --mca oob_base_verbose 20 --name 1.1 --uri-file "$OOB_DIR/1.1.uri" --peer-file 1.2="$OOB_DIR/1.2.uri" \
        --send 1.2:10:64 --timeout-ms 20000
    local rc=0
    oob_wait 1.1 20 || rc=$?
    kill -CONT $pids 2>/dev/null || true
    local won connects
    won=$(grep -c 'another address won' "$OOB_DIR/1.1.err" || true)
    connects=$(grep -c 'handshake with 1\.2 over' "$OOB_DIR/1.1.err" || true)
    figure "tcp_connected_attempts=$connects claimed_winner_lines=$won (bound: 0 such lines)"
    [ $rc -ne 0 ] || fail "1.1 finished although 1.2 was stopped:
$(oob_output 1.1)"
    oob_expect 1.1 '^ERROR lost 1\.2: '
    [ "$connects" -ge 1 ] || fail "no attempt reached the handshake, so this case tests nothing:
$(oob_output 1.1)"
    [ "$won" -eq 0 ] || fail "no attempt succeeded, yet 1.1 logged that another address won:
$(grep 'another address won' "$OOB_DIR/1.1.err")"
}

# Heartbeat 2000 ms x 3: a peer stopped during a slow stream is declared
# silent after at most 6 s (+1 s of slack), whenever the stop falls. It is
# stopped 300 ms after a multiple of 2 s from the connection, the worst
# moment for a check that only runs every period.
stopped_streaming_peer_is_silent_within_misses() {
    local p; p=$(new_cluster --hosts 2)
    oob_dir
    local hb=(--mca oob tcp --mca oob_base_verbose 10 --mca oob_tcp_heartbeat 2000 --mca oob_tcp_heartbeat_misses 3)
    oob_start 1.2 "$p" h2 "${hb[@]}" --name 1.2 --uri-file "$OOB_DIR/1.2.uri" --peer-file 1.1="$OOB_DIR/1.1.uri" \
        --expect 1000000 --timeout-ms 40000
    oob_start 1.1 "$p" h1 "${hb[@]}" --name 1.1 --uri-file "$OOB_DIR/1.1.uri" --peer-file 1.2="$OOB_DIR/1.2.uri" \
        --send 1.2:1000000:64 --batch 10 --interval-ms 20 --timeout-ms 40000
    local t_conn
    t_conn=$(wait_line "$OOB_DIR/1.1.err" 'connected to 1\.2 over ' 20) || fail "1.1 did not connect:
$(oob_output 1.1)"
    local stop_at=$((t_conn + 4300)) now
    now=$(now_ms)
    [ "$now" -lt "$stop_at" ] || fail "too slow to time the stop (the machine is very busy)"
    sleep "$(printf '%d.%03d' $(((stop_at - now) / 1000)) $(((stop_at - now) % 1000)))"
    local pids; pids=$(ip netns pids "$p-h2")
    kill -STOP $pids
    local t_stop; t_stop=$(now_ms)
    local seen rc=0
    seen=$(wait_line "$OOB_DIR/1.1.err" 'closed: silent for [0-9]+ ms' 15) || rc=1
    kill -CONT $pids 2>/dev/null || true
    [ $rc -eq 0 ] || fail "1.1 never declared 1.2 silent:
$(oob_output 1.1)"
    local silent
    silent=$(sed -nE 's/.*closed: silent for ([0-9]+) ms.*/\1/p' "$OOB_DIR/1.1.err" | head -1)
    figure "silent_ms=$silent noticed_after_stop_ms=$((seen - t_stop)) stopped_after_connect_ms=$((t_stop - t_conn))" \
        "(bound: silent < 7000 ms)"
    [ "$silent" -lt 7000 ] || fail "with oob_tcp_heartbeat 2000 x 3, 1.2 was declared silent only after $silent ms"
}

# --- 10. strangers' share of the handshake slots ---------------------------------------------

# 8 source addresses on h1 ask for every handshake slot of 1.2 (32 each,
# 256 in all: oob_tcp_max_pending_per_source and oob_tcp_max_pending),
# send nothing and, every 0.1 s, open again whatever the listener closed;
# no handshake times out meanwhile (oob_tcp_handshake_timeout 60 s). Then
# 1.1 on h3, an address 1.2 has never seen (a daemon's first connect),
# connects and sends 100 messages: it must get in at once. Strangers hold
# at most oob_tcp_max_pending - oob_tcp_pending_reserve (192) slots.
strangers_from_eight_addresses_leave_a_daemon_room() {
    local p; p=$(new_cluster --hosts 3)
    local i sources=
    for i in $(seq 101 108); do
        in_host "$p" h1 ip addr add "10.200.0.$i/24" dev eth0
        sources+=${sources:+,}10.200.0.$i
    done
    oob_dir
    start_pair "$p" h3 h2 100 --mca oob_tcp_handshake_timeout 60000
    local line fds0 fds1 cpu0 cpu1
    fds0=$(proc_fd_count "$L_PID")
    attack_start hold "$p" h1 connect 10.200.0.2 "$L_PORT" --count 256 --what none --sources "$sources" --settle 1 \
        --keep --hold-file "$OOB_DIR/hold.release" --hold 60
    line=$(attack_await hold '^READY' 60)
    sleep 0.5  # a few rounds of reconnects
    fds1=$(proc_fd_count "$L_PID")
    cpu0=$(proc_cpu_ms "$L_PID")
    local rc=0
    ( release_pair 100 20 ) || rc=$?
    cpu1=$(proc_cpu_ms "$L_PID")
    alive 1.2
    attack_release hold
    local end; end=$(grep '^RELEASED' "$OOB_DIR/hold.att" | tail -1)
    figure "attackers=$(field "$line" opened) open_after_1s=$(field "$line" open) listener_fds_before=$fds0" \
        "listener_fds_held=$fds1 ${end#RELEASED } cpu_ms_during_exchange=$((cpu1 - cpu0))" \
        "legit_exchange=$([ $rc -eq 0 ] && echo ok || echo failed) (bounds: open <= 192, the exchange completes)"
    [ "$(field "$line" opened)" -ge 250 ] || fail "fewer than 250 of the 256 connections connected: $line"
    [ $rc -eq 0 ] || fail "a process on a new address could not reach 1.2 while 8 addresses held its handshake slots:
$(oob_output 1.1)
$(grep -E 'max_pending|handshake slot' "$OOB_DIR/1.2.err" | head -5)"
    [ "$(field "$line" open)" -le 192 ] || fail "strangers hold $(field "$line" open) handshake slots\
 (at most oob_tcp_max_pending - oob_tcp_pending_reserve = 192): $line"
}

# A python3 that user nobody can run (a shim under /root is not one).
python_for_nobody() {
    local py
    for py in "$(command -v python3)" /usr/bin/python3 /usr/local/bin/python3; do
        [ -x "$py" ] && setpriv --reuid=nobody --regid=nogroup --clear-groups "$py" -c '' 2>/dev/null && {
            echo "$py"
            return 0
        }
    done
    return 1
}

# Another user (nobody), from 10 processes, keeps 300 connections open to
# every usock listener of a job (their abstract names are in
# /proc/net/unix for anyone): orcarun's first, then each orcad's as it
# appears, opening again every 0.25 s what the listener closed. The job
# (plm/local, 4 simulated nodes, ranks that take 2 s) starts its daemons
# only once the attacker holds orcarun's listener, and must run as if
# nobody were there: a connection of another uid takes no handshake slot
# (no descriptor stays open for it), and each process says so at most
# once a second, counting the refusals it did not log. (Before: 256 of
# the 300 held orcarun's every slot, and the daemons were refused.)
other_users_take_no_usock_slot() {
    command -v setpriv >/dev/null || skip "no setpriv to run the attacker as another user"
    id nobody >/dev/null 2>&1 || skip "no user nobody to attack as"
    local py; py=$(python_for_nobody) || skip "no python3 that user nobody can run"
    local_case_setup oob-hostile-usock
    chmod 755 "$T"  # the attacker (nobody) looks for its release file there
    local orcad="$ORCA_TEST_BUILDDIR/framework/tools/orcad/orcad"
    printf '#!/bin/sh\nwhile [ ! -e %s/gate ]; do sleep 0.02; done\nexec %s "$@"\n' "$T" "$orcad" >"$T/gated-orcad"
    chmod 755 "$T/gated-orcad"
    ORCA_TEST_MARKER=$M orcarun_start "$T/out" "$T/err" --mca plm_local_num_nodes 4 \
        --mca plm_base_daemon "$T/gated-orcad" --oversubscribe -n 4 sh -c 'sleep 2; hostname'
    local name= i
    for ((i = 0; i < 200 && ${#name} == 0; i++)); do
        name=$(awk -v pid="$ORCARUN_PID" '$8 ~ ("^@orca/[0-9]+\\.0/" pid "/") { print $8; exit }' /proc/net/unix)
        [ -n "$name" ] || sleep 0.05
    done
    [ -n "$name" ] || fail "orcarun has no usock listener in /proc/net/unix:
$(cat "$T/err")"
    local job=${name#@orca/}
    job=${job%%.*}
    local fds0 cpu0 t0
    fds0=$(proc_fd_count "$ORCARUN_PID")
    cpu0=$(proc_cpu_ms "$ORCARUN_PID")
    t0=$(now_ms)
    ORCA_TEST_MARKER=$M setpriv --reuid=nobody --regid=nogroup --clear-groups "$py" "$OOB_ATTACK" usock \
        --match "^@orca/$job\\." --ready "^@orca/$job\\.0/$ORCARUN_PID/" --count 300 --processes 10 --keep-period 0.25 \
        --hold-file "$T/release" --hold 90 >"$T/attack" 2>&1 &
    wait_line "$T/attack" '^(READY|Traceback)' 30 >/dev/null && grep -q '^READY' "$T/attack" ||
        fail "the attacker did not get going:
$(cat "$T/attack")"
    sleep 1  # four rounds of reconnects before any daemon starts
    local fds1; fds1=$(proc_fd_count "$ORCARUN_PID")
    touch "$T/gate"
    local rc=0 cpu1
    cpu1=$(proc_cpu_ms "$ORCARUN_PID")
    orcarun_wait 60 || rc=$?
    touch "$T/release"
    wait_line "$T/attack" '^RELEASED' 30 >/dev/null || fail "the attacker did not end:
$(cat "$T/attack")"
    local t1 end; t1=$(now_ms)
    end=$(grep '^RELEASED' "$T/attack")
    local lines refused per_process worst
    lines=$(grep -c 'connection of uid 65534' "$T/err" || true)
    # Lines per process, told by the "[orcarun:PID]" / "[orcad:PID]" tag of each.
    per_process=$(grep -oE '\[orca(run|d):[0-9]+\] oob: usock: refused a connection of uid 65534' "$T/err" |
        cut -d' ' -f1 | sort | uniq -c | awk '{ print $1 }')
    worst=$(sort -n <<<"$per_process" | tail -1)
    # Each line stands for itself and the refusals it says it did not log.
    refused=$(sed -nE 's/.*connection of uid 65534.*\(([0-9]+) more since.*/\1/p' "$T/err" | awk '{ s += $1 } END { print s + 0 }')
    refused=$((refused + lines))
    local seconds=$(((t1 - t0 + 999) / 1000))
    figure "job_status=$rc orcarun_fds_before=$fds0 orcarun_fds_attacked=$fds1 ${end#RELEASED }" \
        "refusal_lines=$lines processes_logging=$(wc -w <<<"$per_process") most_lines_of_one=${worst:-0}" \
        "refusals_counted=$refused attack_seconds=$seconds orcarun_cpu_ms_before_daemons=$((cpu1 - cpu0))" \
        "(bounds: status 0, fds held < 16, cpu before the daemons < 500 ms, lines of one process <= seconds + 1)"
    [ $rc -eq 0 ] || fail "the job failed ($rc) while another user held its usock listeners:
$(head -20 "$T/err")"
    [ "$(grep -c . "$T/out")" -eq 4 ] || fail "not 4 ranks' output:
$(cat "$T/out")"
    [ $((fds1 - fds0)) -lt 16 ] || fail "orcarun held $((fds1 - fds0)) more descriptors while another user connected to it"
    [ $((cpu1 - cpu0)) -lt 500 ] || fail "refusing another user's connections for a second cost orcarun $((cpu1 - cpu0)) ms of CPU"
    [ "$(field "$end" attempts)" -ge 600 ] || fail "the attacker made only $(field "$end" attempts) connections: $end"
    [ "$lines" -ge 1 ] || fail "no process said it refused another user's connections:
$(head -20 "$T/err")"
    [ "$(wc -w <<<"$per_process")" -ge 2 ] || fail "no orcad said it refused another user's connections:
$(grep 'connection of uid 65534' "$T/err" | head -10)"
    [ "$worst" -le $((seconds + 1)) ] || fail "one process logged $worst lines about refused connections in $seconds s:
$(grep 'connection of uid 65534' "$T/err" | head -10)"
    [ "$refused" -gt "$lines" ] || fail "the refusal lines count no refusal they did not log:
$(grep 'connection of uid 65534' "$T/err" | head -5)"
}

CASES=(unauthenticated_data_headers_cost_nothing unauthenticated_gigabyte_header_costs_nothing
       authenticated_stalled_message_costs_what_arrived claimed_names_leave_no_state pending_connections_are_capped
       out_of_descriptors_does_not_spin simultaneous_candidates_keep_one_connection killed_idle_peer_is_reported_lost
       stopped_idle_peer_is_reported_lost bridges_only_peer_is_lost_at_once aborted_round_does_not_claim_a_winner
       stopped_streaming_peer_is_silent_within_misses strangers_from_eight_addresses_leave_a_daemon_room
       other_users_take_no_usock_slot)

# Arguments, if any, name the cases to run (by hand: bash oob_hostile_test.sh CASE...).
[ $# -eq 0 ] || CASES=("$@")

if ! netns_available; then
    for c in "${CASES[@]}"; do skip_case "OobHostile.$c" "cannot create network namespaces here (needs root and ip netns)"; done
    exit 0
fi
[ -x "$OOB_PEER" ] || { echo "no $OOB_PEER: run make check (or make test/oob/oob_peer) first" >&2; exit 1; }
command -v python3 >/dev/null || {
    for c in "${CASES[@]}"; do skip_case "OobHostile.$c" "no python3 for the attack clients"; done
    exit 0
}
for c in "${CASES[@]}"; do FIGURE_CASE=$c run_case "OobHostile.$c" "$c"; done
finish_cases
