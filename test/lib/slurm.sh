# A real Slurm (slurmctld, slurmd, munged; Debian's 22.05) on simulated
# hosts, for integration tests; source after testcase.sh. Needs root,
# network namespaces (contrib/netcluster), unshare and nsenter.
#
#   slurm_available        returns 0 if Slurm can run here; else prints the
#                          reason (for a skip) and returns 1
#   slurm_prefix           prints a netcluster prefix no cluster has now:
#                          "s" + 4 digits of the test's pid + a counter
#   slurm_start PREFIX NODES
#                          a netcluster PREFIX of NODES+1 hosts, each with its
#                          own hostname (netcluster --uts): h1 runs slurmctld
#                          (and the clients), h2..h(NODES+1) run one slurmd
#                          each; munged runs in the root namespace. Writes
#                          slurm.conf and cgroup.conf in a new directory,
#                          starts the daemons and waits (bounded) until
#                          `sinfo` shows every node idle. Returns 1 with a
#                          message on stderr (and the daemons' log tails) when
#                          something does not come up; call slurm_stop then
#                          too (from the trap). One cluster at a time.
#   slurm_await_idle [SECONDS]
#                          waits (up to SECONDS, default 60) until sinfo shows
#                          every node idle: a job just ended may leave its
#                          nodes completing for a moment, and the next salloc
#                          would get other ones. Returns 1 with a message
#                          naming what sinfo printed.
#   slurm_exec CMD...      CMD in h1 with SLURM_CONF set and no other SLURM_*
#                          variable of the caller's environment
#   slurm_exec_on HOST CMD...  the same in another host of the cluster
#   slurm_stop             scancels every job of the cluster, stops the
#                          slurmds, slurmctld and munged by their recorded pids
#                          and waits until they are gone, destroys the
#                          namespaces and removes the directory. Idempotent;
#                          for traps: stops every cluster slurm_start began in
#                          this script, also those started in a case's
#                          subshell, also half-started ones.
#   slurm_cleanup          slurm_stop, and removes the library's own
#                          registry file: for the script's EXIT trap
#   slurm_nodes            the slurmd nodes' names, one per line (h2, h3, ...)
#   slurm_conf             the path of slurm.conf;  slurm_dir: its directory
#   slurm_pids             "NAME PID" for every daemon started (munged,
#                          slurmctld, slurmd.hI)
#   slurm_pid NAME         the pid of one of them
#   slurm_wrapper_pids     the pids of the netcluster processes that started
#                          slurmctld and the slurmds (they end with them)
#   slurm_logs [LINES]     the last LINES (30) lines of every daemon's log
#   slurm_leftovers PREFIX DIR
#                          what of a cluster is left: live processes whose
#                          command line names DIR, processes in PREFIX's
#                          namespaces, the namespaces, UTS files, DIR itself
#
# After slurm_start: ORCA_SLURM_PREFIX, ORCA_SLURM_DIR, ORCA_SLURM_CONF and
# ORCA_SLURM_NODES (array). Settings, read by slurm_start:
#   ORCA_SLURM_CPUS           CPUs= of every node (2)
#   ORCA_SLURM_EXTRA_CONF     lines appended to slurm.conf
#   ORCA_SLURM_START_TIMEOUT  seconds to wait for idle nodes (60)
#   ORCA_SLURM_KEEP           if set, slurm_stop leaves the directory (logs)
# (ORCA_ names, not SLURM_ ones: the Slurm clients read SLURM_* variables.)
#
# Everything lives in the cluster's namespaces and in the directory
# (mktemp -d, mode 0711 because munged wants its socket's ancestors
# searchable by everyone): munged's key, socket, pid, seed and log; every
# daemon's state, spool, pid and log files. The daemons run in the
# foreground (-D, -F) and the pid recorded is the daemon's own (recorded by
# `sh -c 'echo $$ ...; exec ...'`), signalled only while its command line
# still names the directory.
#
# What Slurm needs here (Debian 12, Slurm 22.05):
#   - munged runs as root in the root namespace with its own key and
#     --socket; a filesystem socket works across network namespaces, and
#     slurm.conf names it (AuthInfo=socket=..., used by auth/munge and
#     cred/munge). munged runs without --force as root, but refuses a
#     socket directory that is not searchable by all ("execute
#     permissions for all required").
#   - slurmctld must see its own name (h1) as its hostname, or it does
#     not take the SlurmctldHost role; srun's `hostname` in a task should
#     print the node's name: hence netcluster --uts.
#   - `ip netns exec` mounts a fresh /sys without the cgroup hierarchies,
#     and Slurm 22.05's cgroup autodetection then fails: cgroup.conf says
#     CgroupPlugin=cgroup/v1; nothing constrains with cgroups
#     (proctrack/linuxproc, jobacct_gather/none). task/affinity binds a
#     step's tasks to its CPUs, as production sites do (task/none would
#     also work, but then srun warns about every --cpu-bind, and plm/slurm
#     gives --cpu-bind=none).
#   - the clients (srun, salloc, sbatch, sinfo, squeue, scancel) run inside
#     a host (slurm_exec), never in the root namespace.
#   - SlurmdParameters=config_overrides: a node is not drained when its
#     hardware differs from CPUs= (sockets, cores, memory).
#   - MinJobAge=5: `sbatch --wait` sleeps 2 s before it first polls the
#     job and multiplies its interval by 4 (2, 8, 32 s, ...) while the
#     interval is below MinJobAge / 2 (integer division): with the default
#     300 a job of a second is seen done after 10 s, one of 11 s after 42 s;
#     with MinJobAge < 6 sbatch polls every 2 s. 22.05 takes no value below 2
#     ("MinJobAge must be at least 2"), and a finished job's record must
#     outlive sbatch's poll interval (else sbatch says "Job N no longer
#     found" and exits 0 whatever the job's status): 5 leaves 3 s to spare.
#     Finished jobs stay visible (scontrol show job) at least 5 s.
#   - SchedulerParameters=batch_sched_delay=0 schedules a batch job at the
#     next scheduler pass (within 1 s) instead of up to 3 s later. The very
#     first pass comes about 3 s after slurmctld starts.
#   - ReturnToService=2 and short SlurmdTimeout (20), MessageTimeout (5),
#     KillWait (2): a node that was down comes back when its slurmd
#     registers, a job's steps are killed 2 s after SIGTERM.

SLURM_NETCLUSTER="${NETCLUSTER:-${ORCA_TEST_SRCDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}/contrib/netcluster/netcluster}"
# The directory of every cluster slurm_start began, a line each: cases run
# in subshells, and the parent's trap must find what they started.
_slurm_registry=$(mktemp)

# --- small helpers ----------------------------------------------------------

_slurm_state() { sed -E 's/.*\) (.).*/\1/' "/proc/$1/stat" 2>/dev/null; }
# _slurm_live PID: PID runs (exists and is no zombie).
_slurm_live() { local s; s=$(_slurm_state "$1") && [ -n "$s" ] && [ "$s" != Z ]; }
# _slurm_ours PID DIR: PID's command line names DIR (not a reused pid).
_slurm_ours() { tr '\0' ' ' 2>/dev/null <"/proc/$1/cmdline" | grep -qF -- "$2/"; }

# _slurm_env: "env -u VAR ..." for every SLURM_* variable in the environment
# (a test run inside a Slurm job must not hand its job to the clients).
_slurm_env() {
    local v words=(env)
    for v in $(compgen -e); do
        case $v in SLURM_*) words+=(-u "$v") ;; esac
    done
    printf '%s\n' "${words[@]}"
}

_slurm_in() {
    local host=$1; shift
    [ -n "${ORCA_SLURM_CONF:-}" ] || { echo "slurm: no cluster (slurm_start first)" >&2; return 1; }
    local envw; mapfile -t envw < <(_slurm_env)
    "$SLURM_NETCLUSTER" exec "$ORCA_SLURM_PREFIX" "$host" "${envw[@]}" SLURM_CONF="$ORCA_SLURM_CONF" "$@"
}

slurm_exec() { _slurm_in h1 "$@"; }
slurm_exec_on() { _slurm_in "$@"; }
slurm_nodes() { printf '%s\n' "${ORCA_SLURM_NODES[@]}"; }
slurm_conf() { echo "$ORCA_SLURM_CONF"; }
slurm_dir() { echo "$ORCA_SLURM_DIR"; }
slurm_pids() { cat "$ORCA_SLURM_DIR/pids" 2>/dev/null || true; }
slurm_wrapper_pids() { cat "$ORCA_SLURM_DIR/wrappers" 2>/dev/null || true; }
slurm_pid() { awk -v n="$1" '$1 == n { print $2; exit }' "$ORCA_SLURM_DIR/pids" 2>/dev/null; }

# _slurm_bin NAME: the path of a program (sbin directories too).
_slurm_bin() { PATH=$PATH:/usr/sbin:/sbin command -v "$1"; }

slurm_available() {
    if [ "$(id -u)" -ne 0 ]; then echo "Slurm in namespace hosts needs root"; return 1; fi
    local t
    for t in slurmctld slurmd slurmstepd srun salloc sbatch sinfo squeue scancel munged munge unmunge unshare nsenter ss; do
        _slurm_bin "$t" >/dev/null 2>&1 || {
            echo "$t is not installed (packages slurmctld, slurmd, slurm-client, munge, util-linux, iproute2)"
            return 1
        }
    done
    "$SLURM_NETCLUSTER" probe || { echo "cannot create network namespaces here (needs root and ip netns)"; return 1; }
    unshare --uts true 2>/dev/null || { echo "cannot create UTS namespaces here (unshare --uts)"; return 1; }
    return 0
}

slurm_prefix() {
    local n=0 p
    while :; do
        p=$(printf 's%04d%03d' $(($$ % 10000)) "$n")
        ip netns list 2>/dev/null | grep -q "^$p-" || { echo "$p"; return 0; }
        n=$((n + 1))
        [ $n -lt 1000 ] || { echo "slurm: no free prefix" >&2; return 1; }
    done
}

slurm_logs() {
    local lines=${1:-30} f
    [ -n "${ORCA_SLURM_DIR:-}" ] || return 0
    for f in "$ORCA_SLURM_DIR"/log/*; do
        [ -s "$f" ] || continue
        # A daemon's stdout and stderr (NAME.out) repeat its log file (-D
        # copies the log there); they matter when there is no log file.
        case $f in *.out) [ ! -s "${f%.out}.log" ] || continue ;; esac
        echo "--- ${f#"$ORCA_SLURM_DIR"/} (last $lines lines):"
        tail -n "$lines" "$f"
    done
}

# _slurm_fail MESSAGE: the message, what sinfo says and the log tails, on
# stderr; returns 1.
_slurm_fail() {
    {
        echo "slurm: $*"
        if [ -n "${ORCA_SLURM_PREFIX:-}" ] && ip netns list 2>/dev/null | grep -qE "^$ORCA_SLURM_PREFIX-h1( |$)"; then
            echo "--- sinfo -N:"
            slurm_exec timeout -k 2 10 sinfo -N 2>&1 || true
        fi
        slurm_logs 30
    } >&2
    return 1
}

# _slurm_daemon NAME HOST CMD...: CMD in HOST in the background (its output
# to log/NAME.out); records "NAME PID" of the daemon itself and waits until
# that pid is known.
_slurm_daemon() {
    local name=$1 host=$2; shift 2
    local d=$ORCA_SLURM_DIR
    # shellcheck disable=SC2016  # $$ and $0 are the inner shell's
    "$SLURM_NETCLUSTER" exec "$ORCA_SLURM_PREFIX" "$host" sh -c 'echo $$ >"$0"; exec "$@"' "$d/run/$name.spid" \
        "$@" </dev/null >>"$d/log/$name.out" 2>&1 &
    _slurm_wrappers+=($!)
    echo $! >>"$d/wrappers"
    local i
    for ((i = 0; i < 200; i++)); do
        [ -s "$d/run/$name.spid" ] && break
        sleep 0.05
    done
    [ -s "$d/run/$name.spid" ] || { _slurm_fail "$name did not start in $host"; return 1; }
    echo "$name $(cat "$d/run/$name.spid")" >>"$d/pids"
}

# _slurm_check_alive: fails (with the logs) if a started daemon has died.
_slurm_check_alive() {
    local name pid
    while read -r name pid; do
        _slurm_live "$pid" || { _slurm_fail "$name (pid $pid) died"; return 1; }
    done <"$ORCA_SLURM_DIR/pids"
}

_slurm_write_conf() {
    local d=$ORCA_SLURM_DIR i h addr
    local ctl_addr; ctl_addr=$("$SLURM_NETCLUSTER" addr "$ORCA_SLURM_PREFIX" h1 eth0)
    [ -n "$ctl_addr" ] || { echo "slurm: h1 has no address" >&2; return 1; }
    {
        cat <<EOF
# Written by test/lib/slurm.sh for one test run; see there.
ClusterName=orca$ORCA_SLURM_PREFIX
SlurmctldHost=h1($ctl_addr)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool/%n
SlurmctldPidFile=$d/run/slurmctld.pid
SlurmdPidFile=$d/run/slurmd.%n.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.%n.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$d/plugstack.conf
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmdParameters=config_overrides
SlurmctldTimeout=10
SlurmdTimeout=20
MessageTimeout=5
KillWait=2
InactiveLimit=0
MinJobAge=5
SchedulerParameters=batch_sched_delay=0
EOF
        for h in "${ORCA_SLURM_NODES[@]}"; do
            addr=$("$SLURM_NETCLUSTER" addr "$ORCA_SLURM_PREFIX" "$h" eth0)
            [ -n "$addr" ] || { echo "slurm: $h has no address" >&2; return 1; }
            echo "NodeName=$h NodeAddr=$addr CPUs=${ORCA_SLURM_CPUS:-2} State=UNKNOWN"
        done
        echo "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
        [ -z "${ORCA_SLURM_EXTRA_CONF:-}" ] || printf '%s\n' "$ORCA_SLURM_EXTRA_CONF"
    } >"$d/slurm.conf" || return 1
    echo "CgroupPlugin=cgroup/v1" >"$d/cgroup.conf"
    : >"$d/plugstack.conf"
}

_slurm_start_munged() {
    local m=$ORCA_SLURM_DIR/munge i
    mkdir -m 0755 "$m" || return 1
    if _slurm_bin mungekey >/dev/null; then
        "$(_slurm_bin mungekey)" -c -k "$m/munge.key" -b 1024 >/dev/null 2>&1
    fi
    [ -s "$m/munge.key" ] || dd if=/dev/urandom of="$m/munge.key" bs=128 count=1 status=none || return 1
    chmod 0400 "$m/munge.key"
    # -F: in the foreground (logs to stderr); $! is munged itself.
    "$(_slurm_bin munged)" -F --socket="$m/munge.sock" --key-file="$m/munge.key" --log-file="$ORCA_SLURM_DIR/log/munged.log" \
        --pid-file="$m/munged.pid" --seed-file="$m/munged.seed" </dev/null >>"$ORCA_SLURM_DIR/log/munged.log" 2>&1 &
    echo "munged $!" >>"$ORCA_SLURM_DIR/pids"
    _slurm_wrappers+=($!)
    for ((i = 0; i < 100; i++)); do
        if [ -S "$m/munge.sock" ] && munge -n -S "$m/munge.sock" 2>/dev/null | unmunge -S "$m/munge.sock" >/dev/null 2>&1; then
            return 0
        fi
        _slurm_check_alive || return 1
        sleep 0.1
    done
    _slurm_fail "munged does not answer on $m/munge.sock after 10 s"
}

# _slurm_await_listen HOST PORT NAME SECONDS
_slurm_await_listen() {
    local host=$1 port=$2 name=$3 limit=$4 i
    for ((i = 0; i < limit * 5; i++)); do
        "$SLURM_NETCLUSTER" exec "$ORCA_SLURM_PREFIX" "$host" ss -Hltn 2>/dev/null | grep -qE "[:.]$port " && return 0
        _slurm_check_alive || return 1
        sleep 0.2
    done
    _slurm_fail "$name in $host does not listen on port $port after $limit s"
}

slurm_start() {
    local prefix=$1 nodes=$2 i
    if ! [[ ${nodes:-} =~ ^[0-9]+$ ]] || [ "$nodes" -lt 1 ]; then
        echo "slurm_start PREFIX NODES (NODES >= 1)" >&2
        return 1
    fi
    if [ -n "${ORCA_SLURM_DIR:-}" ] && [ -d "$ORCA_SLURM_DIR" ]; then
        echo "slurm: a cluster runs already ($ORCA_SLURM_PREFIX); slurm_stop first" >&2
        return 1
    fi
    ORCA_SLURM_PREFIX=$prefix
    ORCA_SLURM_DIR=$(mktemp -d "${TMPDIR:-/tmp}/orca-slurm.XXXXXX") || return 1
    ORCA_SLURM_CONF=$ORCA_SLURM_DIR/slurm.conf
    ORCA_SLURM_NODES=()
    _slurm_wrappers=()
    _slurm_starter=$BASHPID
    for ((i = 2; i <= nodes + 1; i++)); do ORCA_SLURM_NODES+=("h$i"); done
    # Recorded first, so that slurm_stop cleans up a half-started cluster.
    echo "$ORCA_SLURM_DIR" >>"$_slurm_registry"
    echo "$prefix" >"$ORCA_SLURM_DIR/prefix"
    : >"$ORCA_SLURM_DIR/pids"
    : >"$ORCA_SLURM_DIR/wrappers"
    chmod 0711 "$ORCA_SLURM_DIR"
    mkdir -p "$ORCA_SLURM_DIR"/{state,run,log,spool} || return 1
    "$SLURM_NETCLUSTER" create "$prefix" --hosts $((nodes + 1)) --uts >&2 ||
        { echo "slurm: cannot create the netcluster $prefix" >&2; return 1; }
    _slurm_write_conf || return 1
    _slurm_start_munged || return 1
    _slurm_daemon slurmctld h1 "$(_slurm_bin slurmctld)" -D -f "$ORCA_SLURM_CONF" || return 1
    _slurm_await_listen h1 6817 slurmctld 30 || return 1
    local h
    for h in "${ORCA_SLURM_NODES[@]}"; do
        mkdir -p "$ORCA_SLURM_DIR/spool/$h"
        _slurm_daemon "slurmd.$h" "$h" "$(_slurm_bin slurmd)" -D -N "$h" -f "$ORCA_SLURM_CONF" || return 1
    done
    slurm_await_idle "${ORCA_SLURM_START_TIMEOUT:-60}"
}

slurm_await_idle() {
    # Every node idle (not idle*, not drained, not down, not completing).
    local limit=${1:-60} out="" bad h i
    for ((i = 0; i < limit * 10; i++)); do
        out=$(slurm_exec timeout -k 2 10 sinfo -h -N -o '%N %T' 2>&1) || true
        bad=0
        for h in "${ORCA_SLURM_NODES[@]}"; do
            grep -qx "$h idle" <<<"$out" || bad=1
        done
        [ $bad = 0 ] && return 0
        _slurm_check_alive || return 1
        sleep 0.1
    done
    _slurm_fail "not every node is idle after $limit s; sinfo -h -N -o '%N %T' printed:
$out"
}

# --- teardown ---------------------------------------------------------------

# _slurm_kill DIR PID...: TERM to each PID that is still ours, up to 10 s
# for them to go, then KILL and up to 5 s more.
_slurm_kill() {
    local d=$1; shift
    local pid i alive
    for pid in "$@"; do _slurm_live "$pid" && _slurm_ours "$pid" "$d" && kill -TERM "$pid" 2>/dev/null; done
    for ((i = 0; i < 300; i++)); do
        alive=0
        for pid in "$@"; do _slurm_live "$pid" && _slurm_ours "$pid" "$d" && { alive=1; break; }; done
        [ $alive = 0 ] && return 0
        [ "$i" -ne 200 ] || for pid in "$@"; do _slurm_ours "$pid" "$d" && kill -KILL "$pid" 2>/dev/null; done
        sleep 0.05
    done
    echo "slurm: daemons of $d still run after SIGKILL: $*" >&2
    return 0
}

# _slurm_stop_one DIR
_slurm_stop_one() {
    local d=$1 p="" slurmds=() ctl="" mng="" wrappers=() name pid
    [ -n "$d" ] || return 0
    p=$(cat "$d/prefix" 2>/dev/null) || p=""
    while read -r name pid; do
        case $name in
            slurmd.*) slurmds+=("$pid") ;;
            slurmctld) ctl=$pid ;;
            munged) mng=$pid ;;
        esac
    done 2>/dev/null <"$d/pids"
    # Jobs first, while the daemons run: squeue lists pending, running and
    # completing jobs; wait (15 s at most) until none is left.
    if [ -n "$ctl" ] && _slurm_live "$ctl" && _slurm_ours "$ctl" "$d" && [ -n "$p" ]; then
        local envw jobs i
        mapfile -t envw < <(_slurm_env)
        _slurm_sq() { "$SLURM_NETCLUSTER" exec "$p" h1 "${envw[@]}" SLURM_CONF="$d/slurm.conf" timeout -k 2 10 "$@" </dev/null 2>/dev/null; }
        jobs=$(_slurm_sq squeue -h -o %A) || jobs=""
        if [ -n "$jobs" ]; then
            # shellcheck disable=SC2086
            _slurm_sq scancel $jobs || true
            for ((i = 0; i < 75; i++)); do
                jobs=$(_slurm_sq squeue -h -o %A) || break
                [ -z "$jobs" ] && break
                sleep 0.2
            done
        fi
    fi
    [ ${#slurmds[@]} -eq 0 ] || _slurm_kill "$d" "${slurmds[@]}"
    [ -z "$ctl" ] || _slurm_kill "$d" "$ctl"
    [ -z "$mng" ] || _slurm_kill "$d" "$mng"
    # The netcluster processes that started the daemons end with them.
    [ -f "$d/wrappers" ] && mapfile -t wrappers <"$d/wrappers"
    [ ${#wrappers[@]} -eq 0 ] || _slurm_kill "$d" "${wrappers[@]}"
    # Reap the netcluster wrappers (and munged) if this shell started them.
    if [ "${_slurm_starter:-}" = "$BASHPID" ] && [ "$d" = "${ORCA_SLURM_DIR:-}" ]; then
        for pid in "${_slurm_wrappers[@]}"; do wait "$pid" 2>/dev/null || true; done
        _slurm_wrappers=()
    fi
    # Whatever else runs in the hosts (slurmstepd, tasks) goes with them.
    [ -z "$p" ] || "$SLURM_NETCLUSTER" destroy "$p" >/dev/null 2>&1 || true
    if [ -z "${ORCA_SLURM_KEEP:-}" ]; then
        rm -rf "$d"
    else
        echo "slurm: kept $d" >&2
    fi
}

slurm_stop() {
    local d dirs=()
    if [ -f "$_slurm_registry" ]; then mapfile -t dirs <"$_slurm_registry"; fi
    if [ -n "${ORCA_SLURM_DIR:-}" ] && ! printf '%s\n' "${dirs[@]}" | grep -qxF -- "$ORCA_SLURM_DIR"; then
        dirs+=("$ORCA_SLURM_DIR")
    fi
    for d in "${dirs[@]}"; do
        [ -n "$d" ] || continue
        [ -e "$d" ] || [ -n "${ORCA_SLURM_KEEP:-}" ] || continue
        _slurm_stop_one "$d"
    done
    # Empty (not removed: cases in subshells append to it).
    [ ! -f "$_slurm_registry" ] || : >"$_slurm_registry"
    ORCA_SLURM_PREFIX="" ORCA_SLURM_DIR="" ORCA_SLURM_CONF=""
    ORCA_SLURM_NODES=()
    return 0
}

# slurm_cleanup: slurm_stop, then removes the registry file (for the
# script's EXIT trap; nothing can be started after it).
slurm_cleanup() { slurm_stop; rm -f "$_slurm_registry"; }

slurm_leftovers() {
    local p=$1 d=$2 pid n
    # (One grep over every command line; then a closer look at the few.)
    for pid in $(grep -laF -- "$d/" /proc/[0-9]*/cmdline 2>/dev/null | cut -d/ -f3); do
        [ "$pid" = "$BASHPID" ] && continue
        _slurm_live "$pid" && _slurm_ours "$pid" "$d" &&
            echo "process $pid ($(cat "/proc/$pid/comm" 2>/dev/null)): $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"
    done
    for n in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$p-"); do
        echo "namespace $n"
        for pid in $(ip netns pids "$n" 2>/dev/null); do
            _slurm_live "$pid" && echo "process $pid ($(cat "/proc/$pid/comm" 2>/dev/null)) in $n"
        done
    done
    for n in /run/netcluster/"$p"-*.uts; do [ -e "$n" ] && echo "UTS file $n"; done
    [ ! -e "$d" ] || echo "directory $d"
    return 0
}
