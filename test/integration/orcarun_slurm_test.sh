#!/bin/bash
# orcarun inside a real Slurm allocation (test/lib/slurm.sh: slurmctld in
# h1, one slurmd in each of h2..h5, munged in the root namespace; Debian's
# 22.05). The clients (salloc, sbatch) run in h1, as a user on a login node
# would run them; orcarun is the build tree's. Cases:
#  - `salloc -N 4 orcarun hostname` runs on the four nodes with no --host,
#    the daemons started by plm/slurm as one srun step;
#  - `sbatch --wait` of a script running `orcarun -n 8` over 4 nodes of 2
#    slots gives two ranks on each node; orcarun inside a job step (srun
#    --pty bash) takes the allocation's CPUs as slots; a site's
#    SLURM_EXPORT_ENV=NONE does not keep the bootstrap from the daemons;
#  - --host naming a subset of the allocation; ranks may use every CPU of
#    their node's allocation, and with --bind-to core run on the CPUs
#    --report-bindings names, and the user's own srun steps start while
#    the daemons' step runs (it overlaps); each rank's SLURM_PROCID and
#    the other task variables describe the rank, not its orcad; MPI
#    programs (MPICH and Open MPI) run; a radix-1 routing tree (each
#    daemon's parent is the one before it, its contact relayed on srun's
#    standard input), also with a bootstrap too large for the environment;
#  - a daemon SIGKILLed, and one SIGTERMed whose ranks have children, while
#    the job runs: orcarun names that node, exits 1, and nothing is left on
#    any node (no orcad, srun, rank or child), no step in squeue;
#  - orcarun SIGKILLed: the step is cancelled and nothing is left, while
#    the allocation itself lives on;
#  - srun missing from PATH, and a malformed SLURM_JOB_NODELIST: clear
#    errors (plm/slurm and --mca plm rsh named; the value quoted);
#  - --mca plm rsh inside the allocation still starts the daemons through
#    the agent;
#  - srun's options are asked of srun (--help) once per srun file: later
#    jobs take them from the user's cache, a changed srun is asked again,
#    a garbled cache is replaced, plm_slurm_srun_cache false asks every
#    time and leaves the cache alone;
#  - a DVM (orcadvm start --daemonize, status, stop) on the allocation.
# After every case no process of the case (found by its marker in
# /proc/*/environ, which srun passes to every task) is left. Needs root
# and Slurm; skips with the reason elsewhere.
#
# By hand: ORCA_TEST_SRCDIR=SRC ORCA_TEST_BUILDDIR=BUILD bash orcarun_slurm_test.sh [CASE...]
. "$(dirname "$0")/../lib/testcase.sh"
. "$(dirname "$0")/../lib/slurm.sh"
. "$(dirname "$0")/../lib/orcarun.sh"

SUITE=OrcarunSlurm
NODES=4
NETCLUSTER=${NETCLUSTER:-$SLURM_NETCLUSTER}
CASE_TMP=$(mktemp -d)
chmod 0755 "$CASE_TMP"
START_LOG=$(mktemp)
START_ERROR=""
trap 'slurm_cleanup; rm -rf "$CASE_TMP" "$START_LOG"' EXIT
trap 'exit 130' INT TERM

# Every orcarun (and so every daemon: srun passes the environment on) runs
# with the build tree's components and help texts and no param files.
# The cache of srun's options goes to the case's directory, not root's home.
export XDG_CACHE_HOME="$CASE_TMP/xdg-cache"
export ORCA_MCA_mca_base_component_path="$ORCA_ALL_COMPONENTS" \
    ORCA_MCA_mca_base_help_path="$ORCA_TEST_SRCDIR/framework/help" \
    ORCA_MCA_mca_base_param_files=none ORCA_MCA_mca_base_override_param_file=none

need_cluster() {
    [ -z "$START_ERROR" ] || fail "Slurm did not start:
$START_ERROR"
    [ -n "${ORCA_SLURM_DIR:-}" ] && [ -d "$ORCA_SLURM_DIR" ] || fail "the cluster was stopped already"
}

# The case's marker: in the environment of everything it starts.
new_marker() { MARK="slurm-$1-$$-$RANDOM"; }

# client NAME SECONDS CMD...: CMD in h1 with the case's marker, under a
# timeout; stdout to $CASE_TMP/NAME.out, stderr to .err; returns its status.
client() {
    local name=$1 limit=$2; shift 2
    ORCA_TEST_MARKER=$MARK slurm_exec timeout -k 5 "$limit" "$@" \
        </dev/null >"$CASE_TMP/$name.out" 2>"$CASE_TMP/$name.err"
}

# client_start NAME SECONDS CMD...: the same in the background ($CLIENT_PID).
client_start() {
    local name=$1 limit=$2; shift 2
    ORCA_TEST_MARKER=$MARK slurm_exec timeout -k 5 "$limit" "$@" \
        </dev/null >"$CASE_TMP/$name.out" 2>"$CASE_TMP/$name.err" &
    CLIENT_PID=$!
}

# client_wait SECONDS: waits for the background client; its status.
client_wait() {
    local i
    for ((i = 0; i < $1 * 20; i++)); do
        kill -0 "$CLIENT_PID" 2>/dev/null || break
        sleep 0.05
    done
    kill -0 "$CLIENT_PID" 2>/dev/null && fail "the client still runs after $1 s:
$(output_of "$CASE_NAME")"
    local rc=0
    wait "$CLIENT_PID" || rc=$?
    return "$rc"
}

output_of() {
    echo "--- stdout:"
    cat "$CASE_TMP/$1.out" 2>/dev/null || true
    echo "--- stderr:"
    tail -n 60 "$CASE_TMP/$1.err" 2>/dev/null || true
    echo "--- squeue -s:"
    slurm_exec squeue -s 2>&1 || true
}

# expect_status NAME WANT GOT
expect_status() {
    [ "$3" -eq "$2" ] || fail "$1 exited with $3, not $2:
$(output_of "$1")"
}

# expect_sorted_stdout NAME LINE...: its stdout, sorted, is exactly LINEs.
expect_sorted_stdout() {
    local name=$1; shift
    local want got
    want=$(printf '%s\n' "$@" | sort)
    got=$(sort "$CASE_TMP/$name.out")
    [ "$got" = "$want" ] || fail "$name printed (sorted):
$got
and not:
$want
$(output_of "$name")"
}

expect_in_err() {
    grep -qE -- "$2" "$CASE_TMP/$1.err" || fail "$1's stderr does not match /$2/:
$(output_of "$1")"
}

# no_steps: squeue shows no job step of the cluster.
no_steps() {
    local steps i
    for ((i = 0; i < 100; i++)); do
        steps=$(slurm_exec squeue -h -s -o '%i %j' 2>&1) || true
        [ -z "$steps" ] && return 0
        sleep 0.1
    done
    fail "job steps left in squeue: $steps"
}

# marked COMM [ARG]: pids of live processes with the case's marker named
# COMM (with ARG as their first argument, if given).
marked() {
    processes_with_marker "$MARK" |
        awk -v c="$1" -v a="${2:-}" '{ n = split($2, p, "/"); if (p[n] == c && (a == "" || $3 == a)) print $1 }'
}

# await_marked COMM N [ARG]: waits (30 s) until N processes COMM (ARG) of
# the case run.
await_marked() {
    local i n
    for ((i = 0; i < 300; i++)); do
        n=$(marked "$1" "${3:-}" | wc -l)
        [ "$n" -ge "$2" ] && return 0
        sleep 0.1
    done
    fail "$n of $2 processes $1 run after 30 s:
$(output_of "$CASE_NAME")
--- marked:
$(processes_with_marker "$MARK")"
}

# The pid of the orcad of the case in HOST.
orcad_of() {
    local pid
    for pid in $(pids_in "$ORCA_SLURM_PREFIX" "$1" '^(lt-)?orcad$'); do
        grep -qsa -- "ORCA_TEST_MARKER=$MARK" "/proc/$pid/environ" && { echo "$pid"; return 0; }
    done
    fail "no orcad of the case runs in $1"
}

teardown_case() {
    # A case that failed half-way: cancel what it left in Slurm.
    [ -n "${ORCA_SLURM_CONF:-}" ] && slurm_exec scancel --full --signal=KILL -u root >/dev/null 2>&1 || true
    rm -rf "${CASE_TMP:?}"/* 2>/dev/null || true
}

# --- cases -------------------------------------------------------------------

# A site's SLURM_EXPORT_ENV=NONE (sbatch --export=NONE) would keep the
# environment, and the bootstrap in it, from the daemons' step: plm/slurm
# gives srun --export=ALL.
export_none_does_not_strip_the_bootstrap() {
    need_cluster; new_marker exportnone
    local rc=0
    client exportnone 60 salloc -N 2 env SLURM_EXPORT_ENV=NONE "$ORCARUN" hostname || rc=$?
    expect_status exportnone 0 $rc
    expect_sorted_stdout exportnone h2 h3
    expect_nothing_left "$MARK"
}

salloc_runs_on_every_node() {
    need_cluster; new_marker every
    local rc=0
    client every 60 salloc -N 4 "$ORCARUN" --report-routes hostname || rc=$?
    expect_status every 0 $rc
    expect_sorted_stdout every h2 h3 h4 h5
    expect_in_err every '^routes \(4 daemons, routed/radix, plm/slurm\)'
    expect_nothing_left "$MARK"
    no_steps
}

sbatch_runs_eight_ranks_on_four_nodes() {
    need_cluster; new_marker sbatch
    cat >"$CASE_TMP/job.sh" <<EOF
#!/bin/sh
exec "$ORCARUN" -n 8 sh -c 'echo "rank \$ORCA_RANK on \$(hostname)"'
EOF
    chmod +x "$CASE_TMP/job.sh"
    local rc=0
    client sbatch 90 sbatch --wait -N 4 --ntasks-per-node=2 -o "$CASE_TMP/job.out" "$CASE_TMP/job.sh" || rc=$?
    expect_status sbatch 0 $rc
    local r h got
    got=$(cat "$CASE_TMP/job.out" 2>/dev/null)
    [ "$(wc -l <<<"$got")" -eq 8 ] || fail "the job printed not 8 lines:
$got"
    for r in 0 1 2 3 4 5 6 7; do grep -qx "rank $r on h[2-5]" <<<"$got" || fail "no line of rank $r:
$got"; done
    for h in h2 h3 h4 h5; do
        [ "$(grep -c " on $h\$" <<<"$got")" -eq 2 ] || fail "not two ranks on $h:
$got"
    done
    expect_nothing_left "$MARK"
    no_steps
}

# orcarun in a job step (as in `srun --pty bash`): srun has set
# SLURM_TASKS_PER_NODE to the step's one task, so the allocation's slots
# come from its CPUs; the daemons' step starts beside the one orcarun is in.
inside_a_job_step() {
    need_cluster; new_marker instep
    local rc=0
    client instep 60 salloc -N 3 --ntasks-per-node=2 srun -N 1 -n 1 --overlap "$ORCARUN" \
        sh -c 'echo "$ORCA_RANK $(hostname)"' || rc=$?
    expect_status instep 0 $rc
    expect_sorted_stdout instep "0 h2" "1 h2" "2 h3" "3 h3" "4 h4" "5 h4"
    expect_nothing_left "$MARK"
    no_steps
}

host_subset_of_the_allocation() {
    need_cluster; new_marker subset
    local rc=0
    client subset 60 salloc -N 4 "$ORCARUN" --host h3,h5 --report-routes hostname || rc=$?
    expect_status subset 0 $rc
    expect_sorted_stdout subset h3 h5
    expect_in_err subset '^routes \(2 daemons, routed/radix, plm/slurm\)'
    expect_in_err subset '^  daemon 1 on h3 -> orcarun'
    expect_in_err subset '^  daemon 2 on h5 -> orcarun'
    expect_nothing_left "$MARK"
}

# Each rank may run on every CPU the allocation has on its node: the
# daemons' step of one task per node must not narrow them to one.
ranks_get_every_allocated_cpu() {
    need_cluster; new_marker cpus
    local rc=0
    client cpus 60 salloc -N 2 --ntasks-per-node=2 "$ORCARUN" -n 4 \
        sh -c 'echo "$SLURM_JOB_CPUS_PER_NODE $(grep Cpus_allowed_list /proc/self/status | cut -f2)"' || rc=$?
    expect_status cpus 0 $rc
    local line per list n=0 part lo hi
    [ "$(wc -l <"$CASE_TMP/cpus.out")" -eq 4 ] || fail "not 4 lines:
$(output_of cpus)"
    while read -r per list; do
        per=${per%%(*}
        n=0
        for part in ${list//,/ }; do
            lo=${part%-*}; hi=${part#*-}
            n=$((n + hi - lo + 1))
        done
        [ "$n" -eq "$per" ] || fail "a rank may run on CPUs $list ($n), not on the $per CPUs of its node's allocation:
$(output_of cpus)"
    done <"$CASE_TMP/cpus.out"
    expect_nothing_left "$MARK"
}

# --bind-to core inside the allocation: each rank's own mask is what
# --report-bindings printed. (Slurm's task/affinity, as configured here,
# leaves the daemons' step unbound, srun --cpu-bind=none: each daemon may
# use its node's CPUs, and binds its ranks within them. Without
# task/cgroup no cpuset narrows that to the allocation's CPUs.)
bindings_inside_the_allocation() {
    need_cluster; new_marker bind
    local rc=0
    client bind 60 salloc -N 2 --ntasks-per-node=2 "$ORCARUN" -n 4 --bind-to core --report-bindings \
        sh -c "$MASK_COMMAND" || rc=$?
    expect_status bind 0 $rc
    local reported own
    reported=$(reported_rank_cpus "$CASE_TMP/bind.err" | sort)
    own=$(rank_cpus "$CASE_TMP/bind.out" | sort)
    [ "$(grep -c . <<<"$reported")" -eq 4 ] || fail "not 4 --report-bindings lines:
$(output_of bind)"
    [ "$own" = "$reported" ] || fail "the ranks' own masks are not the ones --report-bindings printed:
$(output_of bind)"
    expect_nothing_left "$MARK"
}

# The daemons' step overlaps the allocation (srun --overlap): the user's
# own steps still start while orcarun runs (without it, srun waits with
# "Requested nodes are busy" until the daemons end).
user_steps_run_beside_the_daemons() {
    need_cluster; new_marker beside
    local rc=0
    client beside 60 salloc -N 2 sh -c '"$0" sleep 3737 & o=$!
        i=0; while [ "$(pgrep -c -f "^sleep 3737")" -lt 1 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
        timeout 10 srun -N 2 -n 2 hostname; echo "srun: $?"; kill -TERM $o; wait $o; echo "orcarun: $?"' "$ORCARUN" || rc=$?
    expect_status beside 0 $rc
    grep -qx 'srun: 0' "$CASE_TMP/beside.out" || fail "srun did not run beside orcarun:
$(output_of beside)"
    [ "$(grep -cx 'h[23]' "$CASE_TMP/beside.out")" -eq 2 ] || fail "srun did not print both nodes:
$(output_of beside)"
    expect_nothing_left "$MARK"
    no_steps
}

# A rank inherits its orcad's environment, where srun's task variables
# describe the orcad; each rank must see them describe itself instead
# (frameworks such as PyTorch read SLURM_PROCID). The hosts are named out
# of Slurm's order: the per-node counts are in the step's order.
ranks_see_their_own_slurm_task_variables() {
    need_cluster; new_marker taskvars
    local rc=0
    client taskvars 60 salloc -N 2 --ntasks-per-node=2 "$ORCARUN" --host h3:2,h2:1 sh -c \
        'echo "$ORCA_RANK $ORCA_LOCAL_RANK $(hostname) ${SLURM_PROCID-unset} ${SLURM_LOCALID-unset} ${SLURM_NTASKS-unset} ${SLURM_GTIDS-unset} ${SLURM_STEP_TASKS_PER_NODE-unset} ${SLURM_TASK_PID-unset} ${ORCA_BOOTSTRAP-unset}"' ||
        rc=$?
    expect_status taskvars 0 $rc
    # rank local host PROCID LOCALID NTASKS GTIDS STEP_TASKS_PER_NODE TASK_PID
    # and no bootstrap (its secret) from the orcad's environment
    expect_sorted_stdout taskvars "0 0 h3 0 0 3 0,1 1,2 unset unset" "1 1 h3 1 1 3 0,1 1,2 unset unset" \
        "2 0 h2 2 0 3 2 1,2 unset unset"
    expect_nothing_left "$MARK"
}

# An MPI program of each flavour installed (MPICH through pmi/simple, Open
# MPI through pmi/pmix) under daemons srun started: allreduce, ring and
# barrier over 4 nodes of 2 ranks.
mpi_programs_under_slurm() {
    need_cluster; new_marker mpi
    local cc built=0 rc line
    for cc in mpicc.mpich mpicc.openmpi; do
        command -v "$cc" >/dev/null || continue
        built=$((built + 1))
        "$cc" -o "$CASE_TMP/${cc#mpicc.}" "$ORCA_TEST_SRCDIR/test/mpi/mpi_exchange.c" || fail "$cc failed"
        rc=0
        client "$cc" 120 salloc -N 4 --ntasks-per-node=2 env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
            "$ORCARUN" "$CASE_TMP/${cc#mpicc.}" || rc=$?
        expect_status "$cc" 0 $rc
        for r in 0 1 2 3 4 5 6 7; do
            line=$(grep "^rank $r/8 " "$CASE_TMP/$cc.out") || fail "$cc: no line of rank $r:
$(output_of "$cc")"
            [[ $line =~ allreduce=36\ ring=$(((r + 7) % 8))\ barrier=ok\ host=h[2-5]$ ]] || fail "$cc: rank $r printed: $line"
        done
    done
    [ "$built" -gt 0 ] || skip "neither mpicc.mpich nor mpicc.openmpi is installed"
    expect_nothing_left "$MARK"
}

# Radix 1: daemon v reports to daemon v-1. They all start at once, so each
# learns its parent's contact only once the parent is up, from orcarun on
# srun's standard input.
chain_tree_relays_parent_contacts() {
    need_cluster; new_marker chain
    local rc=0
    client chain 60 salloc -N 4 "$ORCARUN" --mca routed_radix_radix 1 --report-routes hostname || rc=$?
    expect_status chain 0 $rc
    expect_sorted_stdout chain h2 h3 h4 h5
    expect_in_err chain '^  daemon 1 on h2 -> orcarun: tcp: '
    expect_in_err chain '^  daemon 2 on h3 -> daemon 1: tcp: '
    expect_in_err chain '^  daemon 4 on h5 -> daemon 3: tcp: '
    expect_nothing_left "$MARK"
}

# The bootstrap rides in srun's environment up to 60 KiB; a larger one (a
# setting of 70 000 characters here, forwarded to every daemon) goes on
# srun's standard input, followed there by the relayed contacts of a
# radix-1 tree.
large_bootstrap_goes_on_standard_input() {
    need_cluster; new_marker large
    local rc=0 big
    big=$(head -c 70000 /dev/zero | tr '\0' 'a')
    client large 60 salloc -N 3 "$ORCARUN" --mca plm_rsh_agent "ssh -oSetEnv=X=$big" --mca routed_radix_radix 1 \
        --report-routes sh -c 'echo "$(hostname) ${ORCA_BOOTSTRAP-unset}"' || rc=$?
    expect_status large 0 $rc
    expect_sorted_stdout large "h2 unset" "h3 unset" "h4 unset"
    expect_in_err large '^  daemon 3 on h4 -> daemon 2: tcp: '
    expect_nothing_left "$MARK"
}

# kill_daemon_case NAME SIGNAL RANK...: a job of four ranks RANK... (one
# per node); once all run, the orcad in h3 gets SIGNAL.
kill_daemon_case() {
    local name=$1 sig=$2; shift 2
    need_cluster; new_marker "$name"
    CASE_NAME=$name
    client_start "$name" 90 salloc -N 4 "$ORCARUN" "$@"
    await_marked sleep 4 3737
    kill "-$sig" "$(orcad_of h3)"
    local rc=0
    client_wait 30 || rc=$?
    expect_status "$name" 1 $rc
    expect_in_err "$name" 'the daemon on h3 \(vpid 2\) failed'
    if grep -E 'the daemon on h[245] ' "$CASE_TMP/$name.err"; then fail "another daemon named:
$(output_of "$name")"; fi
    expect_nothing_left "$MARK" 15
    no_steps
}

daemon_killed_mid_job() { kill_daemon_case killed KILL sleep 3737; }
# SIGTERM: the daemon ends its ranks' process groups, children too.
daemon_terminated_mid_job() { kill_daemon_case terminated TERM sh -c 'sleep 3737; true'; }

orcarun_killed_cancels_the_step() {
    need_cluster; new_marker orphan
    CASE_NAME=orphan
    # The allocation outlives orcarun: only the step may go.
    client_start orphan 90 salloc -N 4 sh -c '"$0" sleep 3737 & echo $! >"$1"; wait $!; echo "orcarun ended: $?"; sleep 60' \
        "$ORCARUN" "$CASE_TMP/orcarun.pid"
    await_marked sleep 4 3737
    await_marked srun 1
    kill -KILL "$(cat "$CASE_TMP/orcarun.pid")"
    local i left
    for ((i = 0; i < 150; i++)); do
        left=$(marked orcad; marked sleep 3737; marked srun)
        [ -z "$left" ] && break
        sleep 0.1
    done
    [ -z "$left" ] || fail "15 s after orcarun was killed, still running: $left
$(processes_with_marker "$MARK")"
    no_steps
    slurm_exec squeue -h -o %i | grep -q . || fail "the allocation went too (it should outlive orcarun)"
    # The allocation's own command ends; salloc gives the allocation back.
    kill $(marked sleep 60) 2>/dev/null || true
    client_wait 30 || true
    grep -q '^orcarun ended: 137$' "$CASE_TMP/orphan.out" || fail "orcarun did not end by SIGKILL:
$(output_of orphan)"
    expect_nothing_left "$MARK"
}

srun_missing_from_path() {
    need_cluster; new_marker nosrun
    # Every program of the system but srun.
    mkdir "$CASE_TMP/bin"
    find /usr/bin -maxdepth 1 ! -name srun ! -type d -exec ln -s -t "$CASE_TMP/bin" {} +
    local rc=0
    client nosrun 60 salloc -N 2 env PATH="$CASE_TMP/bin" "$ORCARUN" hostname || rc=$?
    expect_status nosrun 1 $rc
    expect_in_err nosrun '^orcarun: plm/slurm cannot build the command that starts orcad on 2 hosts: cannot run srun: No such file or directory'
    expect_in_err nosrun -- '--mca plm rsh'
    [ ! -s "$CASE_TMP/nosrun.out" ] || fail "it printed output:
$(output_of nosrun)"
    expect_nothing_left "$MARK"
}

malformed_nodelist_is_quoted() {
    need_cluster; new_marker badlist
    local rc=0
    client badlist 60 salloc -N 2 env SLURM_JOB_NODELIST='h[2-' "$ORCARUN" hostname || rc=$?
    expect_status badlist 1 $rc
    expect_in_err badlist 'SLURM_JOB_NODELIST=h\[2- is invalid'
    expect_nothing_left "$MARK"
}

plm_rsh_inside_the_allocation() {
    need_cluster; new_marker rsh
    local rc=0
    client rsh 60 salloc -N 2 "$ORCARUN" --mca plm rsh --mca plm_rsh_agent "$(agent "$ORCA_SLURM_PREFIX")" \
        --report-routes hostname || rc=$?
    expect_status rsh 0 $rc
    expect_sorted_stdout rsh h2 h3
    expect_in_err rsh '^routes \(2 daemons, routed/radix, plm/rsh\)'
    if marked srun | grep -q .; then fail "srun ran"; fi
    expect_nothing_left "$MARK"
}

# srun passes orcarun's environment on to the daemons' step, and a rank
# inherits its daemon's: a variable forwarded with -x or -genv replaces
# that value, byte for byte, on every node.
forwarded_variables_through_srun() {
    need_cluster; new_marker fwd
    local value=$'two  words "dq" \'sq\' \\ a=b==\nsecond\tline \xc3\xa9\n' rc=0 r f
    client fwd 60 env FWD_S=orcarun FWD_T=orcarun FWD_HERE="$value" salloc -N 2 "$ORCARUN" -n 2 -x "FWD_S=$value" \
        -genv FWD_T "$value" -x FWD_HERE \
        sh -c 'for v in FWD_S FWD_T FWD_HERE; do printenv "$v" >"$0/$v.$ORCA_RANK"; done; hostname' "$CASE_TMP" || rc=$?
    expect_status fwd 0 $rc
    expect_sorted_stdout fwd h2 h3
    # printenv adds a newline.
    for r in 0 1; do
        for f in FWD_S FWD_T FWD_HERE; do
            printf '%s\n' "$value" | cmp -s - "$CASE_TMP/$f.$r" ||
                fail "rank $r's $f is not the value forwarded: $(od -c "$CASE_TMP/$f.$r" | head -5)"
        done
    done
    expect_nothing_left "$MARK"
}

# The real srun, through a script on PATH that notes each call.
srun_options_are_remembered() {
    need_cluster; new_marker cache
    local real rc=0 cache="$CASE_TMP/xdg-cache/orca/srun-options" i
    real=$(slurm_exec sh -c 'command -v srun')
    mkdir -p "$CASE_TMP/bin"
    printf '#!/bin/sh\necho "$*" >>%s\nexec %s "$@"\n' "$CASE_TMP/srun.log" "$real" >"$CASE_TMP/bin/srun"
    chmod 0755 "$CASE_TMP/bin/srun"
    run_job() { # NAME [ORCARUN-ARGS...]
        local name=$1 rc=0; shift
        # The job before may leave h2 and h3 completing for a moment: the
        # next allocation would get other nodes.
        slurm_await_idle 30 || fail "the nodes are not idle again"
        client "$name" 60 salloc -N 2 env PATH="$CASE_TMP/bin:$PATH" "$ORCARUN" "$@" hostname || rc=$?
        expect_status "$name" 0 $rc
        expect_sorted_stdout "$name" h2 h3
    }
    asked() { # N: srun --help ran N times so far
        local n
        n=$(grep -cx -- '--help' "$CASE_TMP/srun.log" || true)
        [ "$n" = "$1" ] || fail "srun --help ran $n times, not $1; srun was called with:
$(cat "$CASE_TMP/srun.log")"
    }
    run_job first
    asked 1
    [ "$(stat -c %a "$cache")" = 600 ] || fail "the cache is mode $(stat -c %a "$cache"), not 600"
    grep -q "^srun1 .* $CASE_TMP/bin/srun\$" "$cache" || fail "the cache has no line for $CASE_TMP/bin/srun:
$(cat "$cache")"
    for i in 2 3; do run_job "again$i"; done
    asked 1
    # Every launch still started the daemons' step.
    [ "$(grep -c -- '--nodes=2' "$CASE_TMP/srun.log")" = 3 ] || fail "not 3 steps:
$(cat "$CASE_TMP/srun.log")"
    # An upgrade of srun (here: its wrapper rewritten) is asked again.
    echo "# upgraded" >>"$CASE_TMP/bin/srun"
    run_job upgraded
    asked 2
    run_job upgraded_again
    asked 2
    # Set to false: asked every time, the cache left as it was.
    cp "$cache" "$CASE_TMP/cache.before"
    run_job off --mca plm_slurm_srun_cache false
    asked 3
    cmp -s "$cache" "$CASE_TMP/cache.before" || fail "plm_slurm_srun_cache false changed the cache"
    # Garbage is not believed, and is replaced by a good line.
    printf 'srun1 garbage\n\0\377\n' >"$cache"
    run_job garbled
    asked 4
    [ "$(grep -c '^srun1 [0-9]' "$cache")" = 1 ] && ! grep -q garbage "$cache" || fail "the garbled cache was not replaced:
$(od -c "$cache" | head)"
    expect_nothing_left "$MARK"
}

# A DVM inside the allocation: orcadvm start --daemonize takes the
# allocation's nodes (its daemons one srun step), status names them, a job
# on it (orcarun --dvm -N 1 hostname) runs a rank on each of them, stop
# ends them; nothing is left and no step stays in squeue.
ORCADVM="$ORCA_TEST_BUILDDIR/framework/tools/orcadvm/orcadvm"
dvm_inside_the_allocation() {
    need_cluster; new_marker dvm
    mkdir -m 700 "$CASE_TMP/run"
    local rc=0
    client dvm 90 salloc -N 4 env XDG_RUNTIME_DIR="$CASE_TMP/run" sh -c \
        '"$1" start --daemonize && "$1" status && "$2" --dvm -N 1 hostname && "$1" stop' sh "$ORCADVM" "$ORCARUN" ||
        rc=$?
    expect_status dvm 0 $rc
    grep -qE "^orcadvm: DVM [0-9]+ is up on 4 host\(s\); contact file $CASE_TMP/run/orca/dvm\.[0-9]+$" "$CASE_TMP/dvm.out" ||
        fail "no ready line: $(output_of dvm)"
    grep -qx "hosts     4 (4 daemon(s) up)" "$CASE_TMP/dvm.out" || fail "status: $(output_of dvm)"
    local h
    for h in h2 h3 h4 h5; do
        grep -qE "^  $h  [0-9]+ slot\(s\)  up$" "$CASE_TMP/dvm.out" || fail "status has no $h: $(output_of dvm)"
    done
    [ "$(grep -xE 'h[2-5]' "$CASE_TMP/dvm.out" | sort -u | wc -l)" = 4 ] && [ "$(grep -cxE 'h[2-5]' "$CASE_TMP/dvm.out")" = 4 ] ||
        fail "the DVM job did not run one rank on each node: $(output_of dvm)"
    grep -qE "^orcadvm: DVM [0-9]+ stopped$" "$CASE_TMP/dvm.out" || fail "stop: $(output_of dvm)"
    [ -z "$(ls -A "$CASE_TMP/run/orca")" ] || fail "contact files left: $(ls -A "$CASE_TMP/run/orca")"
    expect_nothing_left "$MARK"
    no_steps
}

CASES=(salloc_runs_on_every_node sbatch_runs_eight_ranks_on_four_nodes inside_a_job_step
       export_none_does_not_strip_the_bootstrap host_subset_of_the_allocation ranks_get_every_allocated_cpu
       bindings_inside_the_allocation user_steps_run_beside_the_daemons ranks_see_their_own_slurm_task_variables
       mpi_programs_under_slurm
       chain_tree_relays_parent_contacts large_bootstrap_goes_on_standard_input daemon_killed_mid_job
       daemon_terminated_mid_job orcarun_killed_cancels_the_step srun_missing_from_path
       malformed_nodelist_is_quoted plm_rsh_inside_the_allocation forwarded_variables_through_srun
       srun_options_are_remembered dvm_inside_the_allocation)
[ $# -eq 0 ] || CASES=("$@")
skip_cases_when_sanitized "$SUITE" "Slurm's daemons and srun around orcarun; plm/slurm's and ras/slurm's own code runs in their unit tests, the launch path beside it in orcarun_netns_test" "${CASES[@]}"

if ! why=$(slurm_available); then
    for c in "${CASES[@]}"; do skip_case "$SUITE.$c" "$why"; done
    exit 0
fi

P=$(slurm_prefix) || { echo "no free netcluster prefix" >&2; exit 1; }
if ! slurm_start "$P" "$NODES" 2>"$START_LOG"; then
    START_ERROR=$(cat "$START_LOG")
fi
for c in "${CASES[@]}"; do run_case "$SUITE.$c" "$c"; done
finish_cases
