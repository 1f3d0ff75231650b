#!/bin/bash
# Network faults under a running job, on simulated hosts (network
# namespaces built with contrib/netcluster; orcarun in h1, plm/rsh through
# `netcluster exec`, daemons 1, 2, 3 on h2, h3, h4 in a radix-2 tree:
# daemon 3 on h4 is a leaf below daemon 1 on h2, daemon 2 on h3 a leaf
# below orcarun). While the ranks sleep, one host's link is black-holed
# at the switch (nft drops every frame to and from its port, the link
# stays up), a leaf's orcad is stopped (SIGSTOP), or a host loses every
# address but loopback. The ranks are shells with a child (sleep), so
# that ending only each rank's own process is not enough. Each case
# checks: orcarun exits with status 1 (a daemon failed), names the host
# that was cut off and no other, prints no rank output; afterwards no
# process of the job (orcarun, agents, orcad, ranks), no orcad/orcarun
# socket (TCP or Unix, listening or not) in any host, and no file in the
# TMPDIR the job was given is left, and once the case removes its
# cluster no namespace or /etc/netns entry of it is. The heartbeat and
# reconnect settings are tightened (FAST below) so that each loss is
# declared within about 2 s. Every case prints its timings on FIGURE
# lines. Needs root; skips elsewhere.
. "$(dirname "$0")/../lib/testcase.sh"
. "$(dirname "$0")/../lib/netns.sh"
. "$(dirname "$0")/../lib/orcarun.sh"
. "$(dirname "$0")/../lib/proc_figures.sh"

# Loss detection for the job, forwarded by orcarun to every daemon.
# A silent connection is dropped after heartbeat x misses = 600 ms; the
# peer is then declared lost after retries + 1 = 2 rounds of connects of
# at most 500 ms each, 100 ms apart: about 1.7 s after the fault in all
# (defaults: 2 s + 4 x 5 s + 1.4 s, some 23 s).
FAST=(--mca oob_tcp_heartbeat 200 --mca oob_tcp_heartbeat_misses 3 --mca oob_tcp_connect_timeout 500
      --mca oob_tcp_retries 1 --mca oob_tcp_retry_backoff 100)
# How long orcarun may take to end the job after the fault: the loss
# (1.7 s), the drain of the other ranks (at most 3 s) and the teardown,
# with room for a loaded machine and a sanitized build.
END_LIMIT=20

# now_ms: the wall clock in ms.
now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }

# fault_job P SPAWN: starts the job (orcarun "job" in h1) with tree spawn
# SPAWN (0 or 1), waits until every rank sleeps, and checks the tree.
fault_job() {
    local p=$1 spawn=$2
    mkdir "$RUN_DIR/tmp"
    TMPDIR="$RUN_DIR/tmp" orun_start job "$p" h1 --mca plm_rsh_agent "$(agent_of_lost_daemons "$p")" "${FAST[@]}" \
        --mca routed radix --mca routed_radix_radix 2 --mca plm_rsh_tree_spawn "$spawn" \
        --mca plm_rsh_tree_spawn_min_daemons 1 --host h2,h3,h4 --report-routes -n 3 --map-by node sh -c 'sleep 100; true'
    await_ranks job "$p" sleep h2 h3 h4
    # The tree is as the header says.
    local v parent
    for v in 1 2 3; do
        parent=orcarun; [ $v = 3 ] && parent="daemon 1"
        expect_err job "^  daemon $v on h$((v + 1))( \\[[^]]*\\])? -> $parent: tcp: "
    done
}

# expect_lost P HOST VPID T0: orcarun ended the job with status 1 within
# END_LIMIT s of the fault at T0 (ms), naming HOST (daemon VPID) as the
# failed daemon and no other; then nothing of the job is left.
expect_lost() {
    local p=$1 host=$2 vpid=$3 t0=$4 rc=0 t1
    orun_wait job "$END_LIMIT" || rc=$?
    t1=$(now_ms)
    [ "$rc" -eq 1 ] || fail "orcarun ended with $(exit_text "$rc"), not 1 (a daemon failed):
$(orun_output job)"
    expect_err job "^orcarun: the daemon on $host \\(vpid $vpid\\) failed: "
    local blamed
    blamed=$(grep -E '^orcarun: the daemon on ' "$RUN_DIR/job.err" | grep -vE "^orcarun: the daemon on $host \\(vpid $vpid\\)" || true)
    [ -z "$blamed" ] || fail "orcarun blamed another host too:
$blamed
$(orun_output job)"
    expect_no_stdout job
    # A daemon's log line relayed whole, never torn by the end of its
    # writer: "[orcad HOST] [orcad:PID] ..." with nothing cut off.
    local torn
    torn=$(grep -E '^\[orcad [^]]*\] \[[^]]*$' "$RUN_DIR/job.err" || true)
    [ -z "$torn" ] || fail "torn lines on orcarun's stderr:
$torn
$(orun_output job)"
    expect_clean "$p" $(all_hosts 4)
    local t2; t2=$(now_ms)
    local h left
    for h in $(all_hosts 4); do
        # Any socket at all of an orcad or orcarun, and any abstract
        # socket of Orca (they live per network namespace).
        left=$(in_host "$p" "$h" ss -Hanp 2>/dev/null | grep -E '"(lt-)?(orcad|orcarun)"' || true)
        left+=$(in_host "$p" "$h" grep -F '@orca/' /proc/net/unix || true)
        [ -z "$left" ] || fail "sockets left in $h:
$left"
    done
    left=$(find "$RUN_DIR/tmp" -mindepth 1)
    [ -z "$left" ] || fail "files left in the job's TMPDIR:
$left
$(orun_output job)"
    FIGURE_CASE=${FUNCNAME[${#FUNCNAME[@]} - 3]} figure "fault to orcarun's exit $((t1 - t0)) ms, to nothing left $((t2 - t0)) ms;" \
        "orcarun said:"
    sed -n '/^orcarun: the daemon on /,$p' "$RUN_DIR/job.err" | head -8
    # The cluster goes with nothing of it left behind.
    "$NETCLUSTER" destroy "$p"
    left=$(ip netns list | awk '{print $1}' | grep -E "^$p-" || true)
    left+=$(ls -d /etc/netns/"$p"-* 2>/dev/null || true)
    [ -z "$left" ] || fail "namespaces of the case left: $left"
}

# --- a leaf's link black-holed -----------------------------------------------------------------

# blackhole P PORT: the switch drops every frame to and from PORT (the
# bridge port of a host's eth0), as a dead cable or a broken switch port
# would; the host's link stays up and keeps its addresses.
blackhole() {
    in_host "$1" sw nft -f - <<NFT || skip "nft cannot filter bridged frames here (no nf_tables bridge family)"
table bridge blackhole {
    chain forward { type filter hook forward priority -10; policy accept; iifname "$2" drop; oifname "$2" drop; }
    chain input { type filter hook input priority -10; policy accept; iifname "$2" drop; }
    chain output { type filter hook output priority -10; policy accept; oifname "$2" drop; }
}
NFT
}

# leaf_blackholed_case SPAWN: h4 (daemon 3, below daemon 1) cut off.
leaf_blackholed_case() {
    local p; p=$(new_cluster --hosts 4)
    run_dir
    fault_job "$p" "$1"
    local orcad; orcad=$(orcad_in "$p" h4)
    local t0; t0=$(now_ms)
    blackhole "$p" p4
    expect_lost "$p" h4 3 "$t0"
    process_alive "$orcad" && fail "h4's orcad (pid $orcad) still runs"
    return 0
}

leaf_link_blackholed() { leaf_blackholed_case 0; }
leaf_link_blackholed_tree_spawn() { leaf_blackholed_case 1; }

# h2 (daemon 1, the parent of daemon 3) cut off, with tree spawn: daemon
# 3's agent runs in h2, so orcarun can reach neither; h2 alone is named,
# and h4's orcad, its parent gone, ends by itself.
interior_link_blackholed_tree_spawn() {
    local p; p=$(new_cluster --hosts 4)
    run_dir
    fault_job "$p" 1
    local orcad2 orcad4; orcad2=$(orcad_in "$p" h2); orcad4=$(orcad_in "$p" h4)
    local t0; t0=$(now_ms)
    blackhole "$p" p2
    expect_lost "$p" h2 1 "$t0"
    process_alive "$orcad2" && fail "h2's orcad (pid $orcad2) still runs"
    process_alive "$orcad4" && fail "h4's orcad (pid $orcad4) still runs"
    return 0
}

# --- a leaf's daemon stopped -------------------------------------------------------------------

# h4's orcad SIGSTOPped (alive, its host fine, but silent), its rank a
# shell with a child: orcarun must end it so that it still ends its
# ranks' process groups (a SIGKILL to the daemon would leave the child).
leaf_daemon_stopped() {
    local p; p=$(new_cluster --hosts 4)
    run_dir
    fault_job "$p" 0
    local orcad; orcad=$(orcad_in "$p" h4)
    local t0; t0=$(now_ms)
    kill -STOP "$orcad"
    expect_lost "$p" h4 3 "$t0"
    process_alive "$orcad" && fail "h4's orcad (pid $orcad) still runs"
    return 0
}

# --- a host's addresses flushed ----------------------------------------------------------------

# flush_addresses P HOST: every interface of HOST but lo loses all its
# addresses (IPv4, IPv6, link-local); the links stay up.
flush_addresses() {
    local ifname
    for ifname in $(ip -n "$1-$2" -o link show | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }'); do
        [ "$ifname" = lo ] && continue
        ip -n "$1-$2" addr flush dev "$ifname"
    done
    local left
    left=$(ip -n "$1-$2" -o addr show | awk '$2 != "lo"')
    [ -z "$left" ] || fail "addresses left in $2 after the flush: $left"
}

# addresses_flushed_case HOST VPID SPAWN.
addresses_flushed_case() {
    local host=$1 vpid=$2 spawn=$3
    local p; p=$(new_cluster --hosts 4)
    run_dir
    fault_job "$p" "$spawn"
    local t0; t0=$(now_ms)
    flush_addresses "$p" "$host"
    expect_lost "$p" "$host" "$vpid" "$t0"
}

# A leaf below a daemon (h4), and one below orcarun (h3).
leaf_addresses_flushed() { addresses_flushed_case h4 3 1; }
leaf_of_orcarun_addresses_flushed() { addresses_flushed_case h3 2 0; }
# The interior daemon (h2): its subtree (h4) goes with it, and only h2 is named.
interior_addresses_flushed() { addresses_flushed_case h2 1 1; }

CASES=(leaf_link_blackholed leaf_link_blackholed_tree_spawn interior_link_blackholed_tree_spawn leaf_daemon_stopped
       leaf_addresses_flushed leaf_of_orcarun_addresses_flushed interior_addresses_flushed)

# Arguments, if any, name the cases to run (by hand: bash orcarun_faults_test.sh CASE...).
[ $# -eq 0 ] || CASES=("$@")

run_netns_suite OrcarunFaults nft
