#!/bin/bash
# Real MPI programs under orcarun: test/mpi/mpi_exchange.c, built here with
# each flavour's compiler (FLAVOURS below), run by orcarun and served by
# orcad's pmi components (pmi/simple for MPICH: the PMI-1/PMI-2 wire
# protocol on PMI_FD, collectives up the routing tree to orcarun and back).
# Every rank takes part in an MPI_Allreduce, a ring MPI_Sendrecv and an
# MPI_Barrier and prints "rank R/N allreduce=S ring=L barrier=ok host=H".
#   local.*   simulated nodes (plm/local, plm_local_num_nodes), no root:
#             1, 2 and 4 nodes, 1 to 4 ranks, a 2-level radix tree, and
#             the collectives in --report-routes / --timing; Open MPI
#             reading the node's topology from pmi/pmix;
#   netns.*   simulated hosts (network namespaces of contrib/netcluster,
#             orcarun in h1, plm/rsh through `netcluster exec`): 2 x 1,
#             3 x 2 and 2 x 4 ranks; hosts that all have the same virbr0
#             and docker0, whose first link drops TCP, that have only IPv6;
#             the same traits once more with the MPI data plane forced
#             onto TCP over the link that works (*_tcp, see FLAVOUR);
#   fail.*    MPI_Abort, an exit without MPI_Finalize, a rank SIGKILLed
#             while the others wait in a collective (also across hosts);
#   nompi.*   programs that know no PMI: served where they may start one.
# Every case checks each rank's line (exactly once, with the right sum
# and left neighbour, no MISMATCH), where each rank ran, orcarun's exit
# status and message, and afterwards: no process of the job (orcarun,
# agents, orcad, ranks), no socket of it (its usock names on this host;
# any socket of an orcad or orcarun in a namespace host), no file in the
# TMPDIR the job was given. Needs mpicc.mpich (skips without it); the
# netns cases need root (they skip elsewhere). One case per section
# prints its wall time on a FIGURE line.
#
# By hand: ORCA_TEST_BUILDDIR=BUILD ORCA_TEST_SRCDIR=SRC
# ORCA_MCA_mca_base_help_path=SRC/framework/help bash orcarun_mpi_test.sh [CASE...]
# (CASE as printed without the suite and flavour: local.k4_n4, netns.ipv6_only, ...)
. "$(dirname "$0")/../lib/testcase.sh"
. "$(dirname "$0")/../lib/netns.sh"
. "$(dirname "$0")/../lib/orcarun.sh"
. "$(dirname "$0")/../lib/proc_figures.sh"

if [ -z "${ORCA_TEST_BUILDDIR:-}" ] || [ -z "${ORCA_TEST_SRCDIR:-}" ]; then
    echo "ORCA_TEST_BUILDDIR and ORCA_TEST_SRCDIR must be set (run via make check)" >&2
    exit 1
fi

SUITE=OrcarunMpi
MPI_SOURCE="$ORCA_TEST_SRCDIR/test/mpi/mpi_exchange.c"

# --- the MPI flavours ----------------------------------------------------------------------------
# Everything that differs between MPI implementations is here; a flavour
# is one entry of FLAVOURS and its FLAVOUR[NAME.*] keys:
#   cc         the compiler wrapper that builds mpi_exchange
#   component  the pmi component that serves its ranks (the case skips
#              when it is not built)
#   env        NAME=VALUE words every run of the flavour needs (none yet)
#   tcp_env    NAME=VALUE words that put the MPI data plane on TCP over
#              the one interface %s: ranks in different namespaces of one
#              machine otherwise talk through shared memory, which no
#              network trait touches.
# MPICH on Debian is ch4:ucx. UCX (1.13) sees every namespace as the same
# machine and uses sysv/cma between them; with UCX_TLS=tcp,self alone it
# opens a lane on every interface: on hosts with identical virbr0/docker0
# it connects to the peer's 172.17.0.1 or 192.168.122.1, which is its own
# host's ("Connection refused"), and MPI_Init fails ("Destination is
# unreachable"); with a first link that drops TCP it waits on that lane
# for ever. UCX_NET_DEVICES picks the interface that works
# (UCX_TLS=tcp,self UCX_NET_DEVICES=eth0). But UCX's TCP disconnect in
# MPI_Finalize sometimes waits for a peer already blocked in the PMI
# barrier, which does not progress UCX: a hang of MPICH/UCX, not of the
# launcher, seen even with 2 ranks on a loaded machine; so MPICH has no
# tcp_env and its *_tcp cases skip (Open MPI's btl/tcp runs them).
# orcarun forwards no environment by itself (no -x): UCX_* reach the ranks
# because orcad inherits orcarun's environment, through plm/local and
# through `netcluster exec` (ip netns exec keeps it), not through ssh.
#   direct_env NAME=VALUE words that make the ranks fetch each other's
#              data on demand (a direct modex) instead of in MPI_Init's
#              fence; empty: the flavour's PMI has none (the case skips).
# Open MPI (4.1, pml ob1 here) finds its PMIx server through pmi/pmix.
# Its btl/tcp connects over every interface a peer published: on hosts
# with the same virbr0/docker0 addresses it would dial its own host's
# bridge and wait for ever, as it does under mpirun. Under orcarun it gets
# OMPI_MCA_btl_tcp_if_include from its host's daemon (the data plane), so
# no case here names an interface: that is what the cases check. A case
# may choose a transport (btl tcp between namespaces on one machine,
# where shared memory would otherwise carry everything), never an
# interface.
FLAVOURS=(mpich openmpi)
declare -A FLAVOUR=(
    [mpich.cc]=mpicc.mpich
    [mpich.component]=simple
    [mpich.env]=""
    [mpich.tcp_env]=""
    [mpich.direct_env]=""
    [openmpi.cc]=mpicc.openmpi
    [openmpi.component]=pmix
    [openmpi.env]=""
    [openmpi.tcp_env]="OMPI_MCA_pml=ob1 OMPI_MCA_btl=tcp,self"
    [openmpi.direct_env]="OMPI_MCA_pmix_base_async_modex=1 OMPI_MCA_pmix_base_collect_data=0"
)

# The flavour the current case runs (set by the suite loop).
F=

# flavour_env: the current flavour's own settings, exported (a case runs
# in a subshell: they end with it); orcarun, orcad and ranks inherit them.
flavour_env() {
    local kv
    for kv in ${FLAVOUR[$F.env]}; do export "${kv?}"; done
    return 0
}

# flavour_tcp_env: the flavour's TCP-only data plane (a transport, never
# an interface), exported; skips the case for a flavour that has none
# that works.
flavour_tcp_env() {
    [ -n "${FLAVOUR[$F.tcp_env]}" ] ||
        skip "the $F flavour has no TCP-only data plane that ends reliably (MPICH/UCX over TCP hangs in MPI_Finalize now and then: not the launcher)"
    local kv
    for kv in ${FLAVOUR[$F.tcp_env]}; do export "${kv?}"; done
    return 0
}

# The program of the current flavour, built by the suite before its cases.
MPI_BIN_DIR=$(mktemp -d)
prog() { echo "$MPI_BIN_DIR/$F/mpi_exchange"; }

# The suite's directory goes when the script ends, with what netns.sh
# tears down (its EXIT trap, kept).
_netns_exit_trap=$(trap -p EXIT)
_netns_exit_trap=${_netns_exit_trap#"trap -- '"}
_netns_exit_trap=${_netns_exit_trap%"' EXIT"}
trap 'rm -rf "$MPI_BIN_DIR"; eval "$_netns_exit_trap"' EXIT

# This host's name (gethostname): what every rank prints as host=, on
# simulated nodes and in namespaces alike (netcluster makes no UTS
# namespace); simulated node i is "$HOST#i" in orcarun's messages.
HOST=$(uname -n)
HOST_RE=$(sed 's/[][\.*^$+?(){}|]/\\&/g' <<<"$HOST")
CORES=$(getconf _NPROCESSORS_ONLN)

now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }

# --- checks shared by every case -------------------------------------------------------------------
# A case's orcarun NAME writes $RUN_DIR/NAME.out and .err (orcarun.sh's
# expect_err, orun_output and expect_ok read them there).

# expect_mpi_lines NAME N: stdout is exactly N lines, one per rank R:
# "rank R/N allreduce=N(N+1)/2 ring=(R-1) mod N barrier=ok host=HOST",
# HOST this machine's name, or with UTS_HOSTS=K (hosts with their own
# UTS namespace, ranks by node on h2..) the rank's host's.
UTS_HOSTS=
expect_mpi_lines() {
    local name=$1 n=$2 out="$RUN_DIR/$1.out" r count sum=$(($2 * ($2 + 1) / 2)) line
    ! grep -q MISMATCH "$out" || fail "a rank's check failed (MISMATCH):
$(orun_output "$name")"
    for ((r = 0; r < n; r++)); do
        line="rank $r/$n allreduce=$sum ring=$(((r + n - 1) % n)) barrier=ok host=$HOST"
        [ -z "$UTS_HOSTS" ] || line="${line%host=*}host=h$((r % UTS_HOSTS + 2))"
        count=$(grep -cxF "$line" "$out" || true)
        [ "$count" -eq 1 ] || fail "rank $r's line \"$line\" is there $count times, not once:
$(orun_output "$name")"
    done
    # (MPMD cases' ranks print an "appnum" line each too.)
    [ "$(grep -vc '^appnum ' "$out")" -eq "$n" ] || fail "stdout has $(wc -l <"$out") lines, not the $n ranks' lines:
$(orun_output "$name")"
}

# expect_where NAME EXPECTED: the "where R PLACE" lines the ranks printed
# on stderr (the WHERE_* wrappers), sorted, are EXPECTED sorted.
expect_where() {
    local got; got=$(grep -E '^where ' "$RUN_DIR/$1.err" | sort)
    [ "$got" = "$(sort <<<"$2")" ] || fail "the ranks ran at
$got
not at
$2
$(orun_output "$1")"
}

# expect_status NAME RC EXPECTED.
expect_status() {
    [ "$2" -eq "$3" ] || fail "orcarun $1 ended with $(exit_text "$2"), not $3:
$(orun_output "$1")"
}

# expect_one_rank_named NAME: orcarun blamed exactly one rank.
expect_one_rank_named() {
    local c; c=$(grep -c '^orcarun: rank ' "$RUN_DIR/$1.err" || true)
    [ "$c" -eq 1 ] || fail "orcarun named $c ranks, not one:
$(orun_output "$1")"
}

# expect_no_crash NAME: no daemon (or agent) reported a crash on the way:
# agents relay "[orcad HOST] ... Segmentation fault" when their orcad dies.
expect_no_crash() {
    local c
    c=$(grep -E 'Segmentation fault|Bus error|Illegal instruction|[0-9] Aborted|core dumped|AddressSanitizer|runtime error:' \
        "$RUN_DIR/$1.err" || true)
    [ -z "$c" ] || fail "something crashed during orcarun $1:
$c
$(orun_output "$1")"
}

# expect_tmpdir_empty: nothing of the job is left in the TMPDIR it was given.
expect_tmpdir_empty() {
    local left; left=$(find "$RUN_DIR/tmp" -mindepth 1 2>/dev/null)
    [ -z "$left" ] || fail "files left in the job's TMPDIR:
$left"
}

# rank_pid MARKER RANK: the pid of rank RANK (the program, after the
# wrapper's exec) among the processes of MARKER, told by ORCA_RANK.
rank_pid() {
    local pid
    for pid in $(processes_with_marker "$1" | cut -d' ' -f1); do
        [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = mpi_exchange ] || continue
        tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "ORCA_RANK=$2" && echo "$pid"
    done
    return 0
}

# await_out NAME REGEX [SECONDS]: waits (default 30 s) until orcarun NAME's
# stdout has a line matching REGEX; fails if orcarun ends first (its pid:
# orun_start's job in a namespace case, orcarun_start's otherwise).
await_out() {
    local name=$1 pattern=$2 limit=${3:-30} i pid
    pid=${_run_jobs[$1]:-${ORCARUN_PID:-}}
    for ((i = 0; i < limit * 20; i++)); do
        grep -qE -- "$pattern" "$RUN_DIR/$name.out" 2>/dev/null && return 0
        [ -z "$pid" ] || kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    grep -qE -- "$pattern" "$RUN_DIR/$name.out" 2>/dev/null && return 0
    fail "orcarun $name printed no line matching /$pattern/ within $limit s:
$(orun_output "$name")"
}

# --- cases on simulated nodes (plm/local) -------------------------------------------------------------

# WHERE_LOCAL PROGRAM ARGS...: the rank says where it runs ("where R node
# NODE" on stderr), then becomes PROGRAM (exec: same pid, same PMI_FD).
WHERE_LOCAL=(sh -c 'echo "where $ORCA_RANK node $ORCA_NODE" >&2; exec "$0" "$@"')

# lsetup: the case's directory (RUN_DIR = T, removed when the case ends,
# with whatever of the case still runs: test/lib/orcarun.sh), its marker,
# the job's TMPDIR, the flavour's settings.
lsetup() {
    local_case_setup "mpi-$F"
    RUN_DIR=$T
    mkdir "$RUN_DIR/tmp"
    flavour_env
}

# lstart NAME ARGS...: orcarun ARGS in the background (--report-routes
# always: the job id is in its usock names); lwait NAME [SECONDS] sets rc.
lstart() {
    local name=$1; shift
    TMPDIR="$RUN_DIR/tmp" ORCA_TEST_MARKER="$M" orcarun_start "$RUN_DIR/$name.out" "$RUN_DIR/$name.err" \
        --report-routes "$@"
}
lwait() {
    rc=0
    orcarun_wait "${2:-60}" || rc=$?
}
lrun() { lstart "$@"; lwait "$1"; }

# over K N: sets OVER to --oversubscribe when N ranks do not fit the
# slots of K simulated nodes (the cores, shared among them, at least one
# each), else to nothing.
over() {
    local slots=$((CORES / $1)); [ "$slots" -ge 1 ] || slots=1
    OVER=()
    [ "$2" -le $(($1 * slots)) ] || OVER=(--oversubscribe)
}

# where_nodes K N: where N ranks mapped by node on K nodes run.
where_nodes() { local r; for ((r = 0; r < $2; r++)); do echo "where $r node $((r % $1))"; done; }

# lclean NAME: nothing of the job is left: no process, no usock name of
# its job on this host, no TMPDIR file.
lclean() {
    expect_nothing_left "$M" 10
    local job
    job=$(grep -oE -- '-> @orca/[0-9]+\.' "$RUN_DIR/$1.err" | head -1 | sed -E 's/.*@orca\/([0-9]+)\./\1/')
    [ -n "$job" ] || fail "orcarun $1 reported no usock route (no job id):
$(orun_output "$1")"
    local left; left=$(grep -F "@orca/$job." /proc/net/unix || true)
    [ -z "$left" ] || fail "sockets of job $job left:
$left"
    expect_tmpdir_empty
}

# local_job K N [ORCARUN-ARGS...]: N ranks by node on K simulated nodes;
# every rank's line and place, status 0, nothing left. Sets T0/T1 (ms).
local_job() {
    local k=$1 n=$2; shift 2
    lsetup
    T0=$(now_ms)
    over "$k" "$n"
    lrun job --mca plm_local_num_nodes "$k" -n "$n" "${OVER[@]}" --map-by node "$@" \
        "${WHERE_LOCAL[@]}" "$(prog)"
    T1=$(now_ms)
    expect_ok job $rc
    expect_mpi_lines job "$n"
    expect_where job "$(where_nodes "$k" "$n")"
    lclean job
}

local_k1_n1() { local_job 1 1; }
local_k1_n2() { local_job 1 2; }
local_k1_n4() { local_job 1 4; }
local_k2_n2() { local_job 2 2; }
local_k2_n4() { local_job 2 4; }
local_k4_n4() {
    local_job 4 4
    figure "wall=$((T1 - T0))ms (orcarun's start to its exit, 4 simulated nodes x 1 rank)"
}

# A radix-2 tree over 4 daemons: 3 and 4 below daemon 1, so the
# collective's data cross two levels up and down.
local_k4_radix2() {
    local_job 4 4 --mca routed radix --mca routed_radix_radix 2
    expect_err job '^routes \(4 daemons, routed/radix, plm/local\):$'
    local v to
    for v in 1 2 3 4; do
        to=orcarun; [ $v -ge 3 ] && to="daemon 1"
        expect_err job "^  daemon $v on $HOST_RE#$v -> $to: usock: "
    done
}

# --report-routes --timing: the collectives' section and their timing lines.
local_k4_timing() {
    local_job 4 4 --timing
    expect_err job '^collectives \([0-9]+, each up the routing tree and back down, [0-9]+ hops? each way\):$'
    local pmi=${FLAVOUR[$F.component]}
    expect_err job "^  pmi/$pmi collective 0: [0-9]+ keys, [0-9]+ bytes, released to 4 daemons\$"
    expect_err job "^  pmi/$pmi fence 0 +[0-9]+\\.[0-9]"
    # As many fence timings as collectives.
    local c f
    c=$(grep -cE "^  pmi/$pmi collective [0-9]+: " "$RUN_DIR/job.err" || true)
    f=$(grep -cE "^  pmi/$pmi fence [0-9]+ " "$RUN_DIR/job.err" || true)
    [ "$c" -eq "$f" ] || fail "$c collectives but $f fence timings:
$(orun_output job)"
}

# The ranks fetch each other's data on demand (the flavour's direct_env):
# each request goes to the daemon of the rank asked about and back
# (--mca pmi_base_verbose 1 logs it). 3 nodes, so requests cross daemons.
local_k3_direct_modex() {
    [ -n "${FLAVOUR[$F.direct_env]}" ] || skip "the $F flavour's PMI has no direct modex"
    local kv
    for kv in ${FLAVOUR[$F.direct_env]}; do export "${kv?}"; done
    local_job 3 3 --mca pmi_base_verbose 1
    grep -qE "direct modex: rank [0-9]+'s data asked of node [0-9]+" "$RUN_DIR/job.err" ||
        fail "no direct modex request was logged:
$(orun_output job)"
}

# The program run as itself, not through WHERE_LOCAL's sh: orcarun must
# read from its ELF alone whether its ranks may speak PMIx
# (orcarun_pmix_server=auto). Open MPI's libmpi: every daemon serves them.
# MPICH's libmpich, which speaks PMI-1/2: no daemon starts the PMIx
# server, whatever libmpich and the ucx libraries under it import (execvp,
# dlopen), and the ranks still wire up over pmi/simple.
local_k2_unwrapped() {
    lsetup
    over 2 2
    lrun job --mca plm_local_num_nodes 2 -n 2 "${OVER[@]}" --map-by node --mca pmi_base_verbose 1 "$(prog)"
    expect_ok job $rc
    expect_mpi_lines job 2
    if [ "$F" = openmpi ]; then
        expect_err job "pmi: a PMIx server: .*/mpi_exchange links libmpi\.so"
        if grep -q "pmi/pmix does not serve this job" "$RUN_DIR/job.err"; then
            fail "a daemon left pmi/pmix out for an Open MPI program:
$(orun_output job)"
        fi
    else
        expect_err job "pmi: no PMIx server: .*/mpi_exchange .* through libmpich\.so[.0-9]*, a PMI-1/2 client"
        local n; n=$(grep -c "pmi/pmix does not serve this job (orcarun_pmix_server)" "$RUN_DIR/job.err" || true)
        [ "$n" -eq 2 ] || fail "$n daemons of 2 left pmi/pmix out for an MPICH program:
$(orun_output job)"
    fi
    lclean job
}

# Open MPI reads the node's topology from pmi/pmix (hwloc XML) instead of
# discovering it again in every rank; with pmi_pmix_share_topology false
# it discovers it (the case can fail both ways).
local_k1_shared_topology() {
    [ "$F" = openmpi ] || skip "the $F flavour does not read a topology from its PMI"
    lsetup
    lrun job --mca plm_local_num_nodes 1 -n 1 -x OMPI_MCA_hwloc_base_verbose=1 "$(prog)"
    expect_ok job $rc
    expect_err job "hwloc:base loading topology from XML"
    ! grep -q "hwloc:base discovering topology" "$RUN_DIR/job.err" || fail "the rank discovered the topology itself:
$(orun_output job)"
    lclean job
    lrun own --mca plm_local_num_nodes 1 -n 1 --mca pmi_pmix_share_topology false -x OMPI_MCA_hwloc_base_verbose=1 "$(prog)"
    expect_ok own $rc
    expect_err own "hwloc:base discovering topology"
    lclean own
}

# --- failures on simulated nodes ---------------------------------------------------------------------

# Rank 1 (on node 2 of 2) calls MPI_Abort(3): orcarun exits 3 naming it.
fail_abort() {
    lsetup
    over 2 4
    lrun job --mca plm_local_num_nodes 2 -n 4 "${OVER[@]}" --map-by node "$(prog)" abort 1 3
    expect_status job $rc 3
    expect_err job "^orcarun: rank 1 on $HOST_RE#2 aborted the job with status 3"
    expect_one_rank_named job
    ! grep -qE '^rank [0-9]+/' "$RUN_DIR/job.out" || fail "a rank finished although the job was aborted:
$(orun_output job)"
    lclean job
}

# Rank 1 exits 0 after the exchange and MPI_Barrier, without
# MPI_Finalize: the others would wait for it in MPI_Finalize for ever;
# orcarun ends the job with status 1, naming it.
fail_unfinished() {
    lsetup
    over 2 4
    lrun job --mca plm_local_num_nodes 2 -n 4 "${OVER[@]}" --map-by node "$(prog)" unfinished 1
    expect_status job $rc 1
    expect_err job "^orcarun: rank 1 on $HOST_RE#2 exited with status 0 after it initialized MPI \\(PMI\\)"
    expect_one_rank_named job
    lclean job
}

# Rank 1 sleeps after MPI_Init (the others wait in MPI_Allreduce) and is
# SIGKILLed: orcarun exits 137 naming it, the other ranks go.
fail_killed() {
    lsetup
    local t0 t1
    over 2 4
    lstart job --mca plm_local_num_nodes 2 -n 4 "${OVER[@]}" --map-by node "$(prog)" hang 1
    await_out job '^rank 1 hangs$'
    local victim; victim=$(rank_pid "$M" 1)
    [ -n "$victim" ] && [ "$(wc -w <<<"$victim")" -eq 1 ] || fail "cannot tell rank 1's process (pids: '$victim'):
$(processes_with_marker "$M")"
    t0=$(now_ms)
    kill -KILL "$victim"
    lwait job 30
    t1=$(now_ms)
    expect_status job $rc 137
    expect_err job "^orcarun: rank 1 on $HOST_RE#2 was killed by signal 9"
    expect_one_rank_named job
    [ "$(cat "$RUN_DIR/job.out")" = "rank 1 hangs" ] || fail "stdout is not only rank 1's \"hangs\":
$(orun_output job)"
    lclean job
    figure "kill_to_exit=$((t1 - t0))ms (rank 1 SIGKILLed to orcarun's exit, 2 simulated nodes x 2 ranks)"
}

# --- programs without MPI (flavour-free) ------------------------------------------------------------

# pmi/simple serves every rank, which need not speak PMI: each sees its
# own PMI_RANK, and hostname runs as ever.
nompi_pmi_rank() {
    local_case_setup mpi-nompi
    RUN_DIR=$T; mkdir "$RUN_DIR/tmp"
    over 2 4
    lrun job --mca plm_local_num_nodes 2 -n 4 "${OVER[@]}" --map-by node sh -c 'echo $PMI_RANK'
    expect_ok job $rc
    expect_stdout job "0
1
2
3"
    lclean job
}

# hostname links no PMI or PMIx library and runs nothing else: no daemon
# starts libpmix's server or serves PMI-1/2 for it (each says so at
# pmi_base_verbose 1), and no rank gets a PMIx or PMI variable. A shell
# may run an MPI program: it gets both, also after a `hostname` (MPMD).
nompi_hostname() {
    local_case_setup mpi-nompi
    RUN_DIR=$T; mkdir "$RUN_DIR/tmp"
    over 2 2
    lrun job --mca plm_local_num_nodes 2 -n 2 "${OVER[@]}" --map-by node --mca pmi_base_verbose 1 hostname
    expect_ok job $rc
    expect_stdout job "$HOST
$HOST"
    expect_err job "pmi: no PMIx server: .*/hostname links no PMIx client library and cannot run or load another program"
    local n; n=$(grep -c "pmi/pmix does not serve this job (orcarun_pmix_server)" "$RUN_DIR/job.err" || true)
    [ "$n" -eq 2 ] || fail "$n daemons of 2 said they leave pmi/pmix out:
$(orun_output job)"
    expect_err job "pmi: no PMI-1/2 server: .*/hostname links no PMI client library and cannot run or load another program"
    n=$(grep -c "pmi/simple does not serve this job (orcarun_pmi_simple_server)" "$RUN_DIR/job.err" || true)
    [ "$n" -eq 2 ] || fail "$n daemons of 2 said they leave pmi/simple out:
$(orun_output job)"
    lclean job
    lrun env --mca plm_local_num_nodes 2 -n 2 "${OVER[@]}" --map-by node printenv
    expect_ok env $rc
    if grep -qE '^PMIX?_' "$RUN_DIR/env.out"; then
        fail "a rank of a job without a PMI or PMIx server got their variables:
$(grep -E '^PMIX?_' "$RUN_DIR/env.out")"
    fi
    lclean env
    lrun shell --mca plm_local_num_nodes 2 -n 2 "${OVER[@]}" --map-by node --mca pmi_base_verbose 1 \
        sh -c 'env | grep -c "^PMIX_NAMESPACE="'
    expect_ok shell $rc
    expect_stdout shell "1
1"
    expect_err shell "pmi: a PMIx server: .*/sh may run or load another program \\(sh imports exec"
    expect_err shell "pmi: a PMI-1/2 server: .*/sh may run or load another program \\(sh imports exec"
    lclean shell
    # MPMD: the servers and the data plane's variables follow every
    # program, not the first one only.
    lrun mpmd --mca plm_local_num_nodes 2 "${OVER[@]}" --map-by node -n 1 hostname \
        : -n 1 sh -c 'env | grep -c "^PMIX_NAMESPACE="; env | grep -c "^PMI_FD="; env | grep -c "^GLOO_SOCKET_IFNAME="'
    expect_ok mpmd $rc
    [ "$(sort "$RUN_DIR/mpmd.out" | tr '\n' ' ')" = "1 1 1 $HOST " ] || fail "the second program of an MPMD job
did not get its PMI servers and the data plane's variables:
$(orun_output mpmd)"
    lclean mpmd
}

# --- cases on namespace hosts (plm/rsh through netcluster exec) -----------------------------------------

# WHERE_NETNS PROGRAM ARGS...: as WHERE_LOCAL, with the namespace.
WHERE_NETNS=(sh -c 'echo "where $ORCA_RANK $(ip netns identify)" >&2; exec "$0" "$@"')

# nsetup OPTIONS...: a cluster (netcluster create OPTIONS) in P, the case's
# directory and marker (run_dir), the job's TMPDIR, the flavour's settings.
nsetup() {
    P=$(new_cluster "$@")
    run_dir
    mkdir "$RUN_DIR/tmp"
    flavour_env
}

# nstart NAME HOSTS N ARGS...: orcarun in h1 runs N ranks by node on HOSTS
# (h2:SLOTS,...) with ARGS; nwait NAME [SECONDS] sets rc.
nstart() {
    local name=$1 hosts=$2 n=$3; shift 3
    TMPDIR="$RUN_DIR/tmp" orun_start "$name" "$P" h1 --mca plm_rsh_agent "$(agent "$P")" --host "$hosts" \
        --report-routes -n "$n" --map-by node "$@"
}
nwait() {
    rc=0
    orun_wait "$1" "${2:-60}" || rc=$?
}

# where_hosts K N: where N ranks mapped by node on h2..h(K+1) run.
where_hosts() { local r; for ((r = 0; r < $2; r++)); do echo "where $r $P-h$((r % $1 + 2))"; done; }

# nclean NAME K: nothing of the job is left in the cluster of K rank hosts
# (and h1): no process, no listener, no socket of an orcad or orcarun, no
# @orca/ name, no TMPDIR file; no daemon crashed.
nclean() {
    local name=$1 k=$2 h left
    expect_no_crash "$name"
    expect_clean "$P" $(all_hosts $((k + 1)))
    for h in $(all_hosts $((k + 1))); do
        left=$(in_host "$P" "$h" ss -Hanp 2>/dev/null | grep -E '"(lt-)?(orcad|orcarun)"' || true)
        left+=$(in_host "$P" "$h" grep -F '@orca/' /proc/net/unix || true)
        [ -z "$left" ] || fail "sockets left in $h:
$left"
    done
    expect_tmpdir_empty
}

# netns_job K PER [CREATE-OPTIONS...]: PER ranks on each of K hosts (h2..),
# orcarun in h1; every rank's line and host, status 0, nothing left.
netns_job() {
    local k=$1 per=$2; shift 2
    nsetup --hosts $((k + 1)) "$@"
    local n=$((k * per)) hosts
    hosts=$(hosts_list 2 $((k + 1)) | sed "s/\\(h[0-9]*\\)/\\1:$per/g")
    T0=$(now_ms)
    nstart job "$hosts" "$n" "${WHERE_NETNS[@]}" "$(prog)"
    nwait job
    T1=$(now_ms)
    expect_ok job $rc
    expect_mpi_lines job "$n"
    expect_where job "$(where_hosts "$k" "$n")"
    nclean job "$k"
}

netns_2x1() { netns_job 2 1; }
netns_3x2() {
    netns_job 3 2
    figure "wall=$((T1 - T0))ms (orcarun's start to its exit, 3 namespace hosts x 2 ranks)"
}
netns_2x4() { netns_job 2 4; }

# expect_daemon_routes NAME K ROUTE-REGEX: every daemon's connection (the
# route report) matches ROUTE-REGEX with V for its vpid and H for its host's number.
expect_daemon_routes() {
    local v re
    for ((v = 1; v <= $2; v++)); do
        re=${3//V/$v}; re=${re//H/$((v + 1))}
        expect_err "$1" "^  daemon $v on h$((v + 1))( \\[[^]]*\\])? -> orcarun: $re"
    done
}

# Every host has virbr0 192.168.122.1 and docker0 172.17.0.1.
shared_bridges_case() {
    netns_job 2 "$1" --virbr --docker
    expect_daemon_routes job 2 'tcp: 10\.200\.0\.H:[0-9]+ -> 10\.200\.0\.1:'
}
netns_shared_bridges() { shared_bridges_case 2; }
netns_shared_bridges_tcp() { flavour_tcp_env; shared_bridges_case 1; }

# TCP arriving on eth0 is dropped on every host; eth1 works.
dropped_first_link_case() {
    netns_job 2 "$1" --second-link --drop-tcp h1:eth0 --drop-tcp h2:eth0 --drop-tcp h3:eth0
    expect_daemon_routes job 2 'tcp: 10\.201\.0\.H:[0-9]+ -> 10\.201\.0\.1:'
}
netns_dropped_first_link() { dropped_first_link_case 2; }
netns_dropped_first_link_tcp() { flavour_tcp_env; dropped_first_link_case 1; }

# Both at once: the same bridges on every host, and eth0 dropping TCP.
netns_bridges_and_dropped_link_tcp() {
    flavour_tcp_env
    netns_job 2 1 --virbr --docker --second-link --drop-tcp h1:eth0 --drop-tcp h2:eth0 --drop-tcp h3:eth0
    expect_daemon_routes job 2 'tcp: 10\.201\.0\.H:[0-9]+ -> 10\.201\.0\.1:'
    expect_err job '^  h2: eth1 10\.201\.0\.2/24: '
}

# Each host's own name resolves to 127.0.1.1 (a stock Debian host), and
# the hosts' main links are called differently (eth0, ens3, enp1s0).
netns_loopback_names_tcp() {
    flavour_tcp_env
    UTS_HOSTS=2
    netns_job 2 1 --uts --loopback-names --link-name h2:ens3 --link-name h3:enp1s0
    expect_err job '^  h2: ens3 10\.200\.0\.2/24: reaches 1 of 1 other host'
    expect_err job '^  h3: enp1s0 10\.200\.0\.3/24: reaches 1 of 1 other host'
}

# The main link carries only IPv6.
ipv6_only_case() {
    netns_job 2 "$1" --ipv6-only
    expect_daemon_routes job 2 'tcp: \[fd00:10:200::H\]:[0-9]+ -> \[fd00:10:200::1\]:'
}
netns_ipv6_only() { ipv6_only_case 2; }
netns_ipv6_only_tcp() { flavour_tcp_env; ipv6_only_case 1; }

# Rank 1 (on h3) SIGKILLed while the others wait for it in MPI_Allreduce:
# orcarun exits 137 naming it and h3; every rank on every host goes.
netns_fail_killed() {
    nsetup --hosts 3
    nstart job h2:2,h3:2 4 "$(prog)" hang 1
    await_out job '^rank 1 hangs$'
    local victim; victim=$(rank_pid "$RUN_MARKER" 1)
    [ -n "$victim" ] && [ "$(wc -w <<<"$victim")" -eq 1 ] || fail "cannot tell rank 1's process (pids: '$victim'):
$(processes_with_marker "$RUN_MARKER")"
    [ "$(ip netns identify "$victim")" = "$P-h3" ] || fail "rank 1 runs in $(ip netns identify "$victim"), not $P-h3"
    kill -KILL "$victim"
    nwait job 30
    expect_status job $rc 137
    expect_err job '^orcarun: rank 1 on h3 was killed by signal 9'
    expect_one_rank_named job
    [ "$(cat "$RUN_DIR/job.out")" = "rank 1 hangs" ] || fail "stdout is not only rank 1's \"hangs\":
$(orun_output job)"
    nclean job 2
}

# MPMD: two programs in one MPI_COMM_WORLD, the second with its own -x;
# MPI_APPNUM is 0 for the first program's ranks and 1 for the second's
# (PMI's appnum for MPICH, PMIX_APPNUM for Open MPI), ranks numbered
# across both. Also as an app file (--app), one program a line.
local_mpmd_appnum() {
    lsetup
    lrun job --mca plm_local_num_nodes 2 --oversubscribe -n 1 "$(prog)" appnum first \
        : -n 2 -x ORCA_TEST_SECOND=1 "$(prog)" appnum second
    expect_ok job $rc
    expect_mpi_lines job 3
    [ "$(grep '^appnum' "$RUN_DIR/job.out" | sort)" = "appnum 0 0 first
appnum 1 1 second
appnum 2 1 second" ] || fail "MPI_APPNUM is not each program's number:
$(orun_output job)"
    lclean job
    lsetup
    printf -- '-n 2 %s appnum one\n# the second program\n-n 1 %s appnum two\n' "$(prog)" "$(prog)" >"$RUN_DIR/apps"
    lrun job --mca plm_local_num_nodes 2 --oversubscribe --app "$RUN_DIR/apps"
    expect_ok job $rc
    expect_mpi_lines job 3
    [ "$(grep '^appnum' "$RUN_DIR/job.out" | sort)" = "appnum 0 0 one
appnum 1 0 one
appnum 2 1 two" ] || fail "--app: MPI_APPNUM is not each line's number:
$(orun_output job)"
    lclean job
}

# --- the suite --------------------------------------------------------------------------------------

LOCAL_CASES=(local_k1_n1 local_k1_n2 local_k1_n4 local_k2_n2 local_k2_n4 local_k4_n4 local_k4_radix2 local_k4_timing
             local_k3_direct_modex local_k2_unwrapped local_k1_shared_topology local_mpmd_appnum fail_abort
             fail_unfinished fail_killed)
NETNS_CASES=(netns_2x1 netns_3x2 netns_2x4
             netns_shared_bridges netns_dropped_first_link netns_ipv6_only
             netns_shared_bridges_tcp netns_dropped_first_link_tcp netns_ipv6_only_tcp
             netns_bridges_and_dropped_link_tcp netns_loopback_names_tcp
             netns_fail_killed)
NOMPI_CASES=(nompi_pmi_rank nompi_hostname)

# case_label FUNCTION: local_k1_n1 -> local.k1_n1, fail_abort -> fail.abort, ...
case_label() { echo "${1%%_*}.${1#*_}"; }

# Arguments, if any, name the cases to run (as labels: local.k4_n4, netns.ipv6_only_tcp, ...).
selected() {
    [ ${#SELECT[@]} -eq 0 ] && return 0
    local s; for s in "${SELECT[@]}"; do [ "$s" = "$(case_label "$1")" ] && return 0; done
    return 1
}
SELECT=("$@")

for program in "$ORCARUN" "$ORCAD"; do
    [ -x "$program" ] || { echo "no $program: build the tree (make) first" >&2; exit 1; }
done

netns_why=
netns_available || netns_why="cannot create network namespaces here (needs root and ip netns)"

# build_flavour: compiles mpi_exchange with the flavour's compiler into
# the suite's directory.
build_flavour() {
    mkdir -p "$MPI_BIN_DIR/$F"
    local out
    out=$("${FLAVOUR[$F.cc]}" -O1 -o "$MPI_BIN_DIR/$F/mpi_exchange" "$MPI_SOURCE" 2>&1) ||
        fail "${FLAVOUR[$F.cc]} could not build $MPI_SOURCE:
$out"
}

start=$(date +%s%3N)
ran=0
any_compiler=
for F in "${FLAVOURS[@]}"; do command -v "${FLAVOUR[$F.cc]}" >/dev/null && any_compiler=1; done
for F in "${FLAVOURS[@]}"; do
    why=
    command -v "${FLAVOUR[$F.cc]}" >/dev/null || why="${FLAVOUR[$F.cc]} is not installed (the $F flavour's MPI compiler)"
    if [ -z "$why" ] && ! ls "$ORCA_TEST_BUILDDIR/components/pmi/${FLAVOUR[$F.component]}/.libs/"mca_pmi_*.so >/dev/null 2>&1; then
        why="pmi/${FLAVOUR[$F.component]}, which serves $F programs, is not built"
    fi
    if [ -z "$why" ]; then
        run_case "$SUITE.$F.build" build_flavour
        [ -x "$MPI_BIN_DIR/$F/mpi_exchange" ] || why="mpi_exchange did not build with ${FLAVOUR[$F.cc]} (see $SUITE.$F.build)"
    fi
    for c in "${LOCAL_CASES[@]}" "${NETNS_CASES[@]}"; do
        selected "$c" || continue
        name="$SUITE.$F.$(case_label "$c")"
        case_why=$why
        [ -n "$case_why" ] || [[ $c != netns_* ]] || case_why=$netns_why
        # The network-shape variants run the choice the 2x1 case runs, pure
        # code the normal build's run covers; under ASan they cost minutes.
        if [ -z "$case_why" ] && [ "${ORCA_TEST_SANITIZED:-no}" = yes ] && [[ $c == netns_* ]] &&
            [ "$c" != netns_2x1 ] && [ "$c" != netns_fail_killed ]; then
            case_why="under the sanitizers: a network-shape variant of netns.2x1, which runs"
        fi
        # Likewise the sizes of one local job: the same PMI server and
        # collectives as local.k2_n2 and local.k4_radix2, which run.
        if [ -z "$case_why" ] && [ "${ORCA_TEST_SANITIZED:-no}" = yes ] &&
            [[ $c == local_k1_n1 || $c == local_k1_n2 || $c == local_k1_n4 || $c == local_k2_n4 || $c == local_k4_n4 ]]; then
            case_why="under the sanitizers: a size variant of local.k2_n2 and local.k4_radix2, which run"
        fi
        if [ -n "$case_why" ]; then skip_case "$name" "$case_why"; continue; fi
        FIGURE_CASE=$name run_case "$name" "$c"
        ran=$((ran + 1))
    done
done
for c in "${NOMPI_CASES[@]}"; do
    selected "$c" || continue
    name="$SUITE.$(case_label "$c")"
    if [ -z "$any_compiler" ]; then
        skip_case "$name" "no MPI compiler of any flavour is installed (${FLAVOURS[*]}): the whole suite is skipped"
        continue
    fi
    FIGURE_CASE=$name run_case "$name" "$c"
    ran=$((ran + 1))
done
echo "$SUITE: $ran cases run in $(($(date +%s%3N) - start)) ms"
finish_cases
