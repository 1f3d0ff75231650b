#!/bin/bash
# orcarun and orcad across simulated hosts (network namespaces built with
# contrib/netcluster): orcarun runs inside host h1, plm/rsh reaches the
# other hosts through `netcluster exec PREFIX` as its agent. Which route
# carries each daemon (--report-routes) when hosts share virbr0/docker0
# addresses, when the first link drops TCP, on IPv6 only; the routing
# tree and tree spawn; daemons, orcarun and hosts lost mid-job; hosts and
# daemons that cannot be started. Every case checks the output, the exit
# status, and that no process and no listener of the job is left. Needs root.
. "$(dirname "$0")/../lib/testcase.sh"
. "$(dirname "$0")/../lib/netns.sh"
. "$(dirname "$0")/../lib/orcarun.sh"

# The command that tells where each rank runs: "RANK NAMESPACE".
WHERE=(sh -c 'echo "$ORCA_RANK $(ip netns identify)"')

# where_lines PREFIX FIRST COUNT: what WHERE prints for COUNT ranks mapped
# by node on hosts hFIRST, hFIRST+1, ...
where_lines() {
    local p=$1 first=$2 n=$3 r
    for ((r = 0; r < n; r++)); do echo "$r $p-h$((first + r))"; done
}

# --- the route report --------------------------------------------------------------------------

# route_line NAME VPID: the "daemon VPID on ..." line of orcarun NAME's
# route report.
route_line() {
    local l; l=$(grep -E "^  daemon $2 on " "$RUN_DIR/$1.err" | head -1)
    [ -n "$l" ] || fail "orcarun $1 reported no route of daemon $2:
$(orun_output "$1")"
    echo "$l"
}

# expect_route NAME VPID HOST PARENT ROUTE-REGEX: daemon VPID runs on HOST,
# its parent is PARENT ("orcarun" or "daemon N"), and the route it chose
# (the text after "PARENT: ") matches ROUTE-REGEX.
expect_route() {
    local name=$1 v=$2 h=$3 parent=$4 re=$5 l
    l=$(route_line "$name" "$v")
    [[ $l =~ ^\ \ daemon\ $v\ on\ $h(\ \[[^]]*\])?\ -\>\ (orcarun|daemon\ [0-9]+):\ (.*)$ ]] ||
        fail "daemon $v is not reported on $h: \"$l\""
    [ "${BASH_REMATCH[2]}" = "$parent" ] || fail "daemon $v's parent is ${BASH_REMATCH[2]}, not $parent: \"$l\""
    local route=${BASH_REMATCH[3]}
    grep -qE -- "$re" <<<"$route" || fail "daemon $v on $h was carried by \"$route\", not /$re/"
}

# re_quote TEXT: TEXT with the dots of an address escaped for a regex.
re_quote() { sed 's/[].[]/\\&/g' <<<"$1"; }

# tcp_route_re LOCAL REMOTE: the regex of a chosen TCP route between two
# addresses (IPv6 without brackets).
tcp_route_re() {
    local l=$1 r=$2
    [[ $l == *:* ]] && l="[$l]"
    [[ $r == *:* ]] && r="[$r]"
    echo "^tcp: $(re_quote "$l"):[0-9]+ -> $(re_quote "$r"):[0-9]+; chosen: "
}

# --- 1, 2: one host -----------------------------------------------------------------------------

# Only lo and virbr0: plm/local starts the daemon, which reaches orcarun
# over usock or loopback TCP, never virbr0.
single_host_without_link() {
    local p; p=$(new_cluster --hosts 1 --no-link --virbr)
    run_dir
    local rc=0 name
    name=$(in_host "$p" h1 hostname)
    orun_run job "$p" h1 --report-routes -n 2 hostname || rc=$?
    expect_ok job $rc
    expect_stdout job "$name
$name"
    expect_err job '^routes \(1 daemon, routed/[a-z]+, plm/local\):$'
    expect_route job 1 "$name" orcarun '^(usock: local -> @orca/|tcp: (127\.0\.0\.1|\[::1\]):[0-9]+ -> (127\.0\.0\.1|\[::1\]):)'
    ! grep -q '192\.168\.122\.1' <<<"$(route_line job 1)" || fail "the daemon went over virbr0: $(route_line job 1)"
    expect_clean "$p" h1
}

# The host's only link (a Wi-Fi, say) is deleted while the job runs: the
# daemon on the same host never depended on it.
single_host_link_deleted_mid_job() {
    local p; p=$(new_cluster --hosts 1)
    run_dir
    local name; name=$(in_host "$p" h1 hostname)
    orun_start job "$p" h1 --report-routes -n 2 sh -c 'sleep 3; hostname'
    await_err job '^  daemon 1 on '
    await_ranks job "$p" sleep h1
    sleep 1
    in_host "$p" h1 ip link del eth0
    local rc=0
    orun_wait job 30 || rc=$?
    expect_ok job $rc
    expect_stdout job "$name
$name"
    expect_route job 1 "$name" orcarun '^(usock: local -> |tcp: (127\.0\.0\.1|\[::1\]):)'
    expect_clean "$p" h1
}

# --- 3, 4, 5: which route carries each daemon ---------------------------------------------------

# Every host has virbr0 192.168.122.1 and docker0 172.17.0.1, the same
# addresses everywhere: each daemon must reach orcarun over eth0.
shared_bridge_addresses_are_not_routes() {
    local p; p=$(new_cluster --hosts 9 --virbr --docker)
    run_dir
    local rc=0 v
    orun_run job "$p" h1 --mca plm_rsh_agent "$(agent "$p")" --host "$(hosts_list 2 9)" --report-routes \
        -n 8 --map-by node "${WHERE[@]}" || rc=$?
    expect_ok job $rc
    expect_stdout job "$(where_lines "$p" 2 8)"
    for ((v = 1; v <= 8; v++)); do
        expect_route job $v "h$((v + 1))" orcarun "$(tcp_route_re "10.200.0.$((v + 1))" 10.200.0.1)"
        ! grep -qE '(192\.168\.122\.1|172\.17\.0\.1):[0-9]+;' <<<"$(route_line job $v)" ||
            fail "daemon $v used a bridge address: $(route_line job $v)"
    done
    expect_clean "$p" $(all_hosts 9)
}

# TCP on every host's eth0 is silently dropped; eth1 works: every daemon's
# connection to orcarun goes over eth1.
dropped_first_link_daemons_use_second() {
    local p; p=$(new_cluster --hosts 4 --second-link --drop-tcp h1:eth0 --drop-tcp h2:eth0 --drop-tcp h3:eth0 \
        --drop-tcp h4:eth0)
    run_dir
    local rc=0 v
    orun_run job "$p" h1 --mca plm_rsh_agent "$(agent "$p")" --host "$(hosts_list 2 4)" --report-routes \
        -n 3 --map-by node "${WHERE[@]}" || rc=$?
    expect_ok job $rc
    expect_stdout job "$(where_lines "$p" 2 3)"
    for ((v = 1; v <= 3; v++)); do
        expect_route job $v "h$((v + 1))" orcarun "$(tcp_route_re "10.201.0.$((v + 1))" 10.201.0.1)"
    done
    expect_clean "$p" $(all_hosts 4)
}

ipv6_only_hosts() {
    local p; p=$(new_cluster --hosts 3 --ipv6-only)
    run_dir
    local rc=0 v
    orun_run job "$p" h1 --mca plm_rsh_agent "$(agent "$p")" --host h2,h3 --report-routes \
        -n 2 --map-by node "${WHERE[@]}" || rc=$?
    expect_ok job $rc
    expect_stdout job "$(where_lines "$p" 2 2)"
    for ((v = 1; v <= 2; v++)); do
        expect_route job $v "h$((v + 1))" orcarun "$(tcp_route_re "fd00:10:200::$((v + 1))" fd00:10:200::1)"
    done
    expect_clean "$p" $(all_hosts 3)
}

# --- 6: the routing tree and tree spawn ---------------------------------------------------------

routed_direct() {
    local p; p=$(new_cluster --hosts 4)
    run_dir
    local rc=0 v
    orun_run job "$p" h1 --mca plm_rsh_agent "$(agent "$p")" --mca routed direct --host "$(hosts_list 2 4)" \
        --report-routes -n 3 --map-by node "${WHERE[@]}" || rc=$?
    expect_ok job $rc
    expect_stdout job "$(where_lines "$p" 2 3)"
    expect_err job '^routes \(3 daemons, routed/direct, plm/rsh\):$'
    for ((v = 1; v <= 3; v++)); do
        expect_route job $v "h$((v + 1))" orcarun "$(tcp_route_re "10.200.0.$((v + 1))" 10.200.0.1)"
    done
    expect_clean "$p" $(all_hosts 4)
}

# agent_namespaces PREFIX: for every agent of the case that runs now (a
# `netcluster exec PREFIX HOST` process), "HOST NAMESPACE-IT-RUNS-IN".
agent_namespaces() {
    local p=$1 pid args h
    while read -r pid args; do
        [[ $args =~ netcluster\ exec\ $p\ (h[0-9]+)\ .*orcad ]] || continue
        h=${BASH_REMATCH[1]}
        echo "$h $(ip netns identify "$pid" 2>/dev/null)"
    done < <(processes_with_marker "$RUN_MARKER")
}

# radix_case TREE-SPAWN [ORCARUN-ARGS...]: 7 daemons on h2..h8 in a tree
# of fan-out 2 (daemon v's parent is (v-1)/2); with tree spawn each
# daemon's children are started by their parent, inside its host.
radix_case() {
    local spawn=$1; shift
    local p; p=$(new_cluster --hosts 8)
    run_dir
    local spawn_args=(--mca plm_rsh_tree_spawn 0) header='plm/rsh\):$'
    if [ "$spawn" = 1 ]; then
        spawn_args=(--mca plm_rsh_tree_spawn 1 --mca plm_rsh_tree_spawn_min_daemons 1)
        header='plm/rsh, tree spawn\):$'
    fi
    orun_start job "$p" h1 --mca plm_rsh_agent "$(agent "$p")" --mca routed radix --mca routed_radix_radix 2 \
        "${spawn_args[@]}" "$@" --host "$(hosts_list 2 8)" --report-routes \
        -n 7 --map-by node sh -c 'while [ ! -e "$0/go" ]; do sleep 0.05; done; echo "$ORCA_RANK $(ip netns identify)"' \
        "$RUN_DIR"
    await_err job '^  daemon 7 on '
    # Every agent is still running (it lives as long as its daemon): the
    # ranks wait for the scan, which a loaded machine can make slow.
    local agents; agents=$(agent_namespaces "$p" | sort)
    touch "$RUN_DIR/go"
    local rc=0 v parent expected_agents=
    orun_wait job 60 || rc=$?
    expect_ok job $rc
    expect_stdout job "$(where_lines "$p" 2 7)"
    expect_err job "^routes \\(7 daemons, routed/radix, $header"
    for ((v = 1; v <= 7; v++)); do
        parent=$(((v - 1) / 2))
        if [ $parent = 0 ]; then
            expect_route job $v "h$((v + 1))" orcarun "$(tcp_route_re "10.200.0.$((v + 1))" 10.200.0.1)"
        else
            expect_route job $v "h$((v + 1))" "daemon $parent" \
                "$(tcp_route_re "10.200.0.$((v + 1))" "10.200.0.$((parent + 1))")"
        fi
        if [ "$spawn" = 1 ]; then
            expected_agents+="h$((v + 1)) $p-h$((parent + 1))"$'\n'
        else
            expected_agents+="h$((v + 1)) $p-h1"$'\n'
        fi
    done
    expected_agents=$(sort <<<"${expected_agents%$'\n'}")
    [ "$agents" = "$expected_agents" ] || fail "the agents (HOST NAMESPACE) ran as
$agents
not as
$expected_agents"
    expect_clean "$p" $(all_hosts 8)
}

radix_tree_without_tree_spawn() { radix_case 0; }
radix_tree_with_tree_spawn() { radix_case 1; }
# Two agents at a time: a daemon below another says hello to its parent,
# not to orcarun, and its report coming up the tree must still free its
# agent's turn (else the launch stalled at the first two levels).
radix_tree_two_agents_at_a_time() { radix_case 0 --mca plm_rsh_num_concurrent 2; }

# --- 7: faults ----------------------------------------------------------------------------------

# A daemon killed mid-job: orcarun ends the job and names its host.
daemon_killed_mid_job() {
    local p; p=$(new_cluster --hosts 4)
    run_dir
    orun_start job "$p" h1 --mca plm_rsh_agent "$(agent "$p")" --host "$(hosts_list 2 4)" -n 3 --map-by node sleep 100
    await_ranks job "$p" sleep h2 h3 h4
    local victim; victim=$(orcad_in "$p" h3)
    kill -KILL "$victim"
    local rc=0
    orun_wait job 30 || rc=$?
    expect_failed job $rc
    expect_err job 'the daemon on h3 \(vpid 2\) failed'
    expect_no_stdout job
    expect_clean "$p" $(all_hosts 4)
}

# An interior daemon of the tree (daemon 1 on h2, parent of daemons 3, 4
# and, through 3, 7) killed mid-job, with tree spawn: its subtree goes too.
interior_daemon_killed() {
    local p; p=$(new_cluster --hosts 8)
    run_dir
    orun_start job "$p" h1 --mca plm_rsh_agent "$(agent "$p")" --mca routed radix --mca routed_radix_radix 2 \
        --mca plm_rsh_tree_spawn 1 --mca plm_rsh_tree_spawn_min_daemons 1 --host "$(hosts_list 2 8)" \
        -n 7 --map-by node sleep 100
    await_ranks job "$p" sleep $(all_hosts 8 | tail -n +2)
    local victim; victim=$(orcad_in "$p" h2)
    kill -KILL "$victim"
    local rc=0
    orun_wait job 30 || rc=$?
    expect_failed job $rc
    expect_err job 'the daemon on h2 \(vpid 1\) failed'
    expect_no_stdout job
    expect_clean "$p" $(all_hosts 8)
}

# orcarun killed: every daemon and rank on every host goes by itself.
orcarun_killed() {
    local p; p=$(new_cluster --hosts 4)
    run_dir
    orun_start job "$p" h1 --mca plm_rsh_agent "$(agent "$p")" --host "$(hosts_list 2 4)" -n 3 --map-by node sleep 100
    await_ranks job "$p" sleep h2 h3 h4
    local victim; victim=$(orun_pid job)
    kill -KILL "$victim"
    local rc=0
    orun_wait job 10 || rc=$?
    [ $rc -eq 137 ] || fail "orcarun was killed, yet it ended with $(exit_text $rc):
$(orun_output job)"
    expect_no_stdout job
    expect_clean "$p" $(all_hosts 4)
}

# SIGINT: forwarded to the ranks; orcarun exits 130 and leaves nothing.
sigint_ends_the_job() {
    local p; p=$(new_cluster --hosts 3)
    run_dir
    orun_start job "$p" h1 --mca plm_rsh_agent "$(agent "$p")" --host h2,h3 -n 2 --map-by node sleep 100
    await_ranks job "$p" sleep h2 h3
    local victim; victim=$(orun_pid job)
    kill -INT "$victim"
    local rc=0
    orun_wait job 30 || rc=$?
    [ $rc -eq 130 ] || fail "after SIGINT orcarun ended with $(exit_text $rc), not 130:
$(orun_output job)"
    expect_no_stdout job
    expect_clean "$p" $(all_hosts 3)
}

# --- 8: a host gone silent ----------------------------------------------------------------------

# Everything on h3's eth0 is dropped mid-job: orcarun notices (heartbeat),
# names h3 and ends the job; h3's orcad, cut off from its parent, must end
# too (its agent in h1 is killed at orcarun's teardown as well).
host_gone_silent() {
    local p; p=$(new_cluster --hosts 4)
    run_dir
    orun_start job "$p" h1 --mca plm_rsh_agent "$(agent_of_lost_daemons "$p")" --host "$(hosts_list 2 4)" -n 3 \
        --map-by node sleep 100
    await_ranks job "$p" sleep h2 h3 h4
    local orcad3; orcad3=$(orcad_in "$p" h3)
    in_host "$p" h3 nft -f - <<'NFT'
table inet silence {
    chain input { type filter hook input priority -10; policy accept; iifname "eth0" drop; }
    chain output { type filter hook output priority -10; policy accept; oifname "eth0" drop; }
}
NFT
    local rc=0
    orun_wait job 60 || rc=$?
    expect_failed job $rc
    expect_err job 'the daemon on h3 \(vpid 2\) failed'
    # h3's orcad is gone with the job: orcarun ends a lost daemon's agent
    # (SIGTERM to its process group, which here holds the daemon) as soon
    # as it declares it lost, rather than at the end of the teardown.
    # A signal acts asynchronously: give the kernel a moment.
    local i
    for ((i = 0; i < 50; i++)); do process_alive "$orcad3" || break; sleep 0.1; done
    process_alive "$orcad3" && fail "h3's orcad (pid $orcad3) still runs after orcarun ended
($(grep -E '^(State|TracerPid):' "/proc/$orcad3/status" | tr '\t\n' '  ')):
$(orun_output job)"
    expect_no_stdout job
    expect_clean "$p" $(all_hosts 4)
}

# --- 9: bad input -------------------------------------------------------------------------------

# A host that does not exist: the agent fails; orcarun names the host and
# quotes what the agent printed, and tears down the daemon that did start.
# The ranks print nothing: with early start, h2's rank may run before h7's
# agent fails, so a printing rank would make stdout depend on that race;
# with `true`, anything on stdout is orcarun's own.
unknown_host() {
    local p; p=$(new_cluster --hosts 2)
    run_dir
    local rc=0
    orun_run job "$p" h1 --mca plm_rsh_agent "$(agent "$p")" --host h2,h7 -n 2 --map-by node true || rc=$?
    expect_failed job $rc
    expect_err job 'the daemon on h7 \(vpid 2\) failed: its agent \(rsh\) exited with status [1-9][0-9]* before the daemon reported'
    # The agent's words, quoted in the message (not only echoed as
    # "[orcad h7] ..." while it ran).
    expect_err job "^([^[].*)?Cannot open network namespace \"$p-h7\""
    expect_no_stdout job
    expect_clean "$p" $(all_hosts 2)
}

# plm_base_daemon names no program: orcarun names the host and quotes the
# agent's error.
missing_orcad() {
    local p; p=$(new_cluster --hosts 2)
    run_dir
    local rc=0
    orun_run job "$p" h1 --mca plm_rsh_agent "$(agent "$p")" --mca plm_base_daemon /nonexistent/orcad --host h2 \
        hostname || rc=$?
    expect_failed job $rc
    expect_err job 'the daemon on h2 \(vpid 1\) failed: its agent \(rsh\) exited with status [1-9][0-9]* before the daemon reported'
    expect_err job '^([^[].*)?"?/nonexistent/orcad"?.*No such file or directory'
    expect_no_stdout job
    expect_clean "$p" $(all_hosts 2)
}

CASES=(single_host_without_link single_host_link_deleted_mid_job
       shared_bridge_addresses_are_not_routes dropped_first_link_daemons_use_second ipv6_only_hosts
       routed_direct radix_tree_without_tree_spawn radix_tree_with_tree_spawn radix_tree_two_agents_at_a_time
       daemon_killed_mid_job interior_daemon_killed orcarun_killed sigint_ends_the_job
       host_gone_silent
       unknown_host missing_orcad)

# Arguments, if any, name the cases to run (by hand: bash orcarun_netns_test.sh CASE...).
[ $# -eq 0 ] || CASES=("$@")

run_netns_suite OrcarunNetns
