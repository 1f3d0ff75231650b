#!/bin/bash
# The job's own traffic on the interface its daemons verified: real
# programs whose libraries choose interfaces by themselves, run by orcarun
# on namespace hosts (contrib/netcluster, orcarun in h1, plm/rsh through
# `netcluster exec`) without any interface variable set by hand:
#   torch.*      Debian's python3-torch, torch.distributed with gloo and
#                init_process_group from env://, 2 hosts x 2 ranks: hosts
#                whose own names resolve to 127.0.1.1 (Gloo binds to what
#                the host name resolves to), and hosts with the same
#                virbr0/docker0 whose first link drops TCP;
#   user.*       a user's GLOO_SOCKET_IFNAME is honoured and reported, and
#                warned about where it has no route to another host;
#   ucx.*, fi.*  ucx_perftest (UCX_TLS=tcp) and fi_pingpong -p tcp, server
#                on rank 0, client dialing MASTER_ADDR, on the bridges and
#                firewalled-link cluster;
#   mesh.*       the full-mesh check (--mesh-check): every pair connects on
#                a clean cluster; one black-holed host pair is named, both
#                ways, and no rank starts.
# Each checks every rank's line, the data-plane section of
# --report-routes, status 0 and that nothing of the job is left.
#
# By hand: ORCA_TEST_BUILDDIR=BUILD ORCA_TEST_SRCDIR=SRC bash orcarun_data_plane_test.sh
. "$(dirname "$0")/../lib/testcase.sh"
. "$(dirname "$0")/../lib/netns.sh"
. "$(dirname "$0")/../lib/orcarun.sh"

PYTHON=/usr/bin/python3  # Debian's, with python3-torch (a pyenv python3 on PATH lacks it)
TORCH_PROGRAM="$ORCA_TEST_SRCDIR/test/integration/torch_allreduce.py"
BRIDGES_AND_DROP=(--virbr --docker --second-link --drop-tcp h1:eth0 --drop-tcp h2:eth0 --drop-tcp h3:eth0)

# dsetup OPTIONS...: a 3-host cluster (h1 runs orcarun) with OPTIONS.
dsetup() {
    P=$(new_cluster --hosts 3 "$@")
    run_dir
}

# djob NAME N ARGS...: orcarun in h1 runs N ranks on h2:2,h3:2 with ARGS
# and --report-routes; sets rc.
djob() {
    local name=$1 n=$2; shift 2
    orun_start "$name" "$P" h1 --mca plm_rsh_agent "$(agent "$P")" --host h2:2,h3:2 --report-routes -n "$n" "$@"
    rc=0
    orun_wait "$name" 90 || rc=$?
}

# dclean NAME: nothing of the job is left in the cluster.
dclean() { expect_clean "$P" h1 h2 h3; }

skip_without_torch() {
    "$PYTHON" -c 'import torch.distributed' 2>/dev/null || skip "$PYTHON cannot import torch.distributed (Debian python3-torch)"
}

# expect_torch_lines NAME HOSTNAMES...: 4 lines, rank R (by slot: 0,1 on
# h2, 2,3 on h3) with sum 10, its local rank and node, and the host name
# it ran on (HOSTNAMES: the names of h2 and h3).
expect_torch_lines() {
    local name=$1 h2=$2 h3=$3 r line
    for r in 0 1 2 3; do
        line="rank $r/4 sum=10 local=$((r % 2))/2 node=$((r / 2)) master=$MASTER host=$([ $r -lt 2 ] && echo "$h2" || echo "$h3")"
        grep -qxF "$line" "$RUN_DIR/$name.out" || fail "no line \"$line\":
$(orun_output "$name")"
    done
    [ "$(wc -l <"$RUN_DIR/$name.out")" -eq 4 ] || fail "stdout is not exactly the 4 ranks' lines:
$(orun_output "$name")"
}

# master_of NAME: MASTER_ADDR:MASTER_PORT as rank 0 printed it.
master_of() { sed -n 's/^rank 0\/4 .* master=\([^ ]*\) .*/\1/p' "$RUN_DIR/$1.out"; }

torch_loopback_names() {
    skip_without_torch
    dsetup --uts --loopback-names
    # What Gloo would bind to without Orca: the host name's address.
    local seen
    seen=$(in_host "$P" h2 "$PYTHON" -c 'import socket; print(socket.gethostbyname(socket.gethostname()))')
    [ "$seen" = 127.0.1.1 ] || fail "h2's own name resolves to '$seen' in h2, not to 127.0.1.1"
    djob job 4 "$PYTHON" "$TORCH_PROGRAM"
    expect_ok job $rc
    MASTER=$(master_of job)
    [[ $MASTER =~ ^10\.200\.0\.2:[0-9]+$ ]] || fail "MASTER_ADDR:PORT is '$MASTER', not h2's 10.200.0.2 and a port:
$(orun_output job)"
    expect_torch_lines job h2 h3
    expect_err job '^  h2: eth0 10\.200\.0\.2/24: reaches 1 of 1 other host; its oob connection succeeded; MASTER_ADDR'
    dclean job
}

torch_bridges_and_dropped_link() {
    skip_without_torch
    dsetup "${BRIDGES_AND_DROP[@]}"
    djob job 4 "$PYTHON" "$TORCH_PROGRAM"
    expect_ok job $rc
    MASTER=$(master_of job)
    [[ $MASTER =~ ^10\.201\.0\.2:[0-9]+$ ]] || fail "MASTER_ADDR:PORT is '$MASTER', not h2's eth1 10.201.0.2:
$(orun_output job)"
    expect_torch_lines job "$(uname -n)" "$(uname -n)"
    expect_err job '^  h3: eth1 10\.201\.0\.3/24: reaches 1 of 1 other host'
    dclean job
}

# The user's GLOO_SOCKET_IFNAME (eth1, which works) is what the ranks get,
# and the report says the gloo family was left to the user.
user_gloo_wins() {
    skip_without_torch
    dsetup --second-link
    GLOO_SOCKET_IFNAME=eth1 djob job 4 sh -c 'echo "gloo=$GLOO_SOCKET_IFNAME nccl=$NCCL_SOCKET_IFNAME" >&2; exec "$0" "$@"' \
        "$PYTHON" "$TORCH_PROGRAM"
    expect_ok job $rc
    [ "$(grep -c '^gloo=eth1 nccl==eth0$' "$RUN_DIR/job.err")" -eq 4 ] || fail "the ranks did not all get the user's gloo=eth1 and Orca's nccl==eth0:
$(orun_output job)"
    expect_err job "^    the user's \\(orcad's environment\\): GLOO_SOCKET_IFNAME=eth1; that family is left alone"
    dclean job
}

# A user's setting that cannot reach: docker0 is every host's own bridge.
# The user still wins (the ranks get it), and each host warns.
user_setting_without_route_warns() {
    dsetup --virbr --docker
    # Forwarded with -x this time (the other case inherits it).
    djob job 2 --map-by node -x GLOO_SOCKET_IFNAME=docker0 sh -c 'echo "gloo=$GLOO_SOCKET_IFNAME"'
    expect_ok job $rc
    expect_err job "^  the user's \\(forwarded to every rank\\): GLOO_SOCKET_IFNAME=docker0; that family is left alone$"
    [ "$(grep -c '^gloo=docker0$' "$RUN_DIR/job.out")" -eq 2 ] || fail "the ranks did not get the user's docker0:
$(orun_output job)"
    expect_err job "^    warning: the user's GLOO_SOCKET_IFNAME=docker0 has no route from here to h3$"
    expect_err job "^    warning: the user's GLOO_SOCKET_IFNAME=docker0 has no route from here to h2$"
    dclean job
}

# pair_job SERVER CLIENT: a two-rank job whose rank 0 runs SERVER and rank
# 1 runs CLIENT once the server listens on MASTER_PORT (rank 0 sees it in
# its host's socket table and leaves a file in $RUN_DIR; 30 s at most):
# neither client (fi_pingpong, ucx_perftest) tries again when refused, and
# a fixed pause was too short on a loaded machine. Both words expand
# MASTER_ADDR and MASTER_PORT in the rank's shell.
pair_job() {
    local ready="$RUN_DIR/server-listens"
    rm -f "$ready"
    djob job 2 --map-by node sh -c '
        i=0
        if [ "$RANK" = 0 ]; then
            eval "$0" &
            server=$!
            until ss -Hltn "sport = :$MASTER_PORT" | grep -q . || [ $i -ge 300 ]; do i=$((i + 1)); sleep 0.1; done
            touch "$2"
            wait $server
        else
            until [ -e "$2" ] || [ $i -ge 300 ]; do i=$((i + 1)); sleep 0.1; done
            eval "$1"
        fi' "$1" "$2" "$ready"
}

ucx_bridges_and_dropped_link() {
    command -v ucx_perftest >/dev/null || skip "ucx_perftest is not installed (Debian ucx-utils)"
    dsetup "${BRIDGES_AND_DROP[@]}"
    UCX_TLS=tcp pair_job 'exec ucx_perftest -p $MASTER_PORT -t tag_lat -n 1000' \
        'exec ucx_perftest -p $MASTER_PORT -t tag_lat -n 1000 $MASTER_ADDR'
    expect_ok job $rc
    grep -q 'Final:' "$RUN_DIR/job.out" || fail "ucx_perftest printed no final result:
$(orun_output job)"
    expect_err job '^  h2: eth1 10\.201\.0\.2/24: '
    dclean job
}

fi_bridges_and_dropped_link() {
    command -v fi_pingpong >/dev/null || skip "fi_pingpong is not installed (Debian libfabric-bin)"
    dsetup "${BRIDGES_AND_DROP[@]}"
    pair_job 'exec fi_pingpong -p tcp -e msg -B $MASTER_PORT -I 100' 'exec fi_pingpong -p tcp -e msg -P $MASTER_PORT -I 100 $MASTER_ADDR'
    expect_ok job $rc
    grep -qE '^ *[0-9]+(k|m)? +[0-9]+' "$RUN_DIR/job.out" || fail "fi_pingpong printed no result line:
$(orun_output job)"
    dclean job
}

# mjob NAME ARGS...: orcarun in h1 runs one rank on each of h2, h3, h4
# with --mesh-check --report-routes --timing and ARGS; sets rc.
mjob() {
    local name=$1; shift
    orun_start "$name" "$P" h1 --mca plm_rsh_agent "$(agent "$P")" --host h2,h3,h4 --mesh-check --report-routes --timing "$@"
    rc=0
    orun_wait "$name" 60 || rc=$?
}

mesh_all_pairs_connect() {
    P=$(new_cluster --hosts 4 --virbr --docker)
    run_dir
    mjob job sh -c 'echo "rank $RANK ran"'
    expect_ok job $rc
    [ "$(grep -c '^rank [0-2] ran$' "$RUN_DIR/job.out")" -eq 3 ] || fail "not every rank ran:
$(orun_output job)"
    expect_err job '^  mesh checked +[0-9.]+$'
    expect_clean "$P" h1 h2 h3 h4
}

# h4 drops TCP from h3's address: h3 -> h4 times out, and so does h4 -> h3
# (h3's answer never reaches h4). h2's pairs connect.
mesh_black_holed_pair() {
    P=$(new_cluster --hosts 4)
    run_dir
    ip netns exec "$P-h4" nft -f - <<'NFT' || fail "cannot add the black hole in h4"
table inet blackhole {
    chain input {
        type filter hook input priority 0; policy accept;
        ip saddr 10.200.0.3 meta l4proto tcp drop
    }
}
NFT
    mjob job --mca orcarun_mesh_check_timeout 1 sh -c 'echo "rank $RANK ran"'
    expect_failed job $rc
    expect_err job '^orcarun: the full-mesh check found host pairs'
    expect_err job '^  h3 -> h4 10\.200\.0\.4:[0-9]+: timed out after 1000 ms$'
    expect_err job '^  h4 -> h3 10\.200\.0\.3:[0-9]+: timed out after 1000 ms$'
    ! grep -q '^  h2 -> ' "$RUN_DIR/job.err" || fail "a pair of h2 is named, but h2 reaches both:
$(orun_output job)"
    ! grep -q 'ran$' "$RUN_DIR/job.out" || fail "a rank ran although the check failed:
$(orun_output job)"
    expect_clean "$P" h1 h2 h3 h4
}

CASES=(torch_loopback_names torch_bridges_and_dropped_link user_gloo_wins user_setting_without_route_warns
       ucx_bridges_and_dropped_link fi_bridges_and_dropped_link
       mesh_all_pairs_connect mesh_black_holed_pair)
skip_cases_when_sanitized OrcarunDataPlane "every multi-host job of orcarun_netns_test gathers and chooses the data plane; these cases add PyTorch, UCX and libfabric" "${CASES[@]}"
run_netns_suite OrcarunDataPlane
