#!/bin/bash
# orcarun through a real ssh: an OpenSSH sshd inside each simulated host
# (network namespaces built with contrib/netcluster), keys made by the test,
# and orcarun in h1 starting its daemons on h2..h5 with plm/rsh's default
# agent words `ssh -x -o BatchMode=yes` (plus only -F for the test's own
# ssh_config). Flat and tree spawn, a refused key, an unknown host name,
# connections that die mid-job, and the job secret kept off every command
# line and environment. After every case nothing of the job may be left on
# any host. Needs root, sshd, ssh and ssh-keygen; skips with a message
# elsewhere.
#
# Nothing outside the test's namespaces and its temporary directory is
# touched: keys, sshd_config, ssh_config and known_hosts live in a mktemp
# directory, ssh reads only that ssh_config (-F; with -F ssh neither reads
# nor creates ~/.ssh), and sshd logs to a file (-e), records no login (no
# tty, no PAM) and runs no ~/.ssh/rc. The one exception is sshd's
# privilege separation directory /run/sshd (see ensure_privsep_dir).
. "$(dirname "$0")/../lib/testcase.sh"
. "$(dirname "$0")/../lib/netns.sh"
. "$(dirname "$0")/../lib/orcarun.sh"

SSHD=/usr/sbin/sshd
HOSTS=5                      # h1 runs orcarun; h2..h5 run sshd and the daemons
DEFAULT_AGENT="ssh -x -o BatchMode=yes"
ORCAD_BINARIES="$ORCA_TEST_BUILDDIR/framework/tools/orcad/.libs"

# Script-wide state. Cases run in subshells: every sshd they start is
# recorded (pid per line) in a file the parent shell reads at teardown.
SSH_DIR=""
_sshd_pids=$(mktemp)
_privsep_fd=""

# --- teardown ----------------------------------------------------------------

# Kills every sshd listener the test started, by the pid recorded before it
# exec'd, and waits until each is gone. A pid is only signalled while it is
# still our sshd (its command line names our directory), never a reused pid.
_sshd_stop_all() {
    local pid i alive
    _ours() { [ -n "$SSH_DIR" ] && tr '\0' ' ' 2>/dev/null <"/proc/$1/cmdline" | grep -qF -- "$SSH_DIR/"; }
    _live() { local s; s=$(sed -E 's/.*\) (.).*/\1/' "/proc/$1/stat" 2>/dev/null) && [ "$s" != Z ]; }
    while read -r pid; do _ours "$pid" && kill -TERM "$pid" 2>/dev/null; done <"$_sshd_pids"
    for ((i = 0; i < 40; i++)); do
        alive=0
        while read -r pid; do _live "$pid" && _ours "$pid" && alive=1; done <"$_sshd_pids"
        [ $alive = 0 ] && break
        sleep 0.05
    done
    while read -r pid; do _ours "$pid" && kill -KILL "$pid" 2>/dev/null; done <"$_sshd_pids"
    : >"$_sshd_pids"
}

_ssh_cleanup() {
    _sshd_stop_all
    _oob_stop_all
    _netns_destroy_all
    rm -f "$_netns_registry" "$_oob_pids" "$_oob_dirs" "$_sshd_pids"
    [ -n "$SSH_DIR" ] && rm -rf "$SSH_DIR"
    release_privsep_dir
}

# Whether any live sshd runs on this machine (zombies of ours, not yet
# reaped by a late init, do not count).
_other_sshd_runs() {
    local pid s
    for pid in $(pgrep -x sshd 2>/dev/null); do
        s=$(sed -E 's/.*\) (.).*/\1/' "/proc/$pid/stat" 2>/dev/null) || continue
        [ -n "$s" ] && [ "$s" != Z ] && return 0
    done
    return 1
}
trap _ssh_cleanup EXIT
# After every case: its sshds, its namespaces (with everything in them).
teardown_case() { _sshd_stop_all; _oob_stop_all; _netns_destroy_all; }

# --- keys and configuration (once per run) ---------------------------------------

# sshd needs its privilege separation directory, /run/sshd: a standard, empty,
# root-owned directory the openssh-server package normally has systemd (or
# the init script) create at boot. Without a running sshd service it may be
# missing; then the test creates it (the one path outside its own directory
# and namespaces it makes) and removes it at exit. An existing one is left
# alone. Runs of this test may overlap: each holds a shared lock on the
# directory while it runs, and the run that made it writes its device and
# inode to $PRIVSEP_MARK. Whichever run ends last (gets the lock alone)
# removes the directory if it is still the one a run made and no sshd
# outside this test runs.
PRIVSEP_MARK=/tmp/orcarun_ssh_test.run-sshd.made
ensure_privsep_dir() {
    local attempt
    for attempt in 1 2 3 4 5; do
        if [ ! -d /run/sshd ] && mkdir -m 0755 /run/sshd 2>/dev/null; then
            stat -c %d:%i /run/sshd >"$PRIVSEP_MARK"
        fi
        # (Long-lived children, sshd and orcarun, get it closed: {_privsep_fd}<&-.)
        exec {_privsep_fd}</run/sshd || continue
        flock -s "$_privsep_fd"
        # Still the directory at /run/sshd, not one another run removed
        # between our check and our lock?
        [ "$(stat -c %d:%i /run/sshd 2>/dev/null)" = "$(stat -L -c %d:%i "/proc/$$/fd/$_privsep_fd")" ] && return 0
        exec {_privsep_fd}<&-
        _privsep_fd=""
    done
    return 1
}

release_privsep_dir() {
    [ -n "$_privsep_fd" ] || return 0
    if [ -f "$PRIVSEP_MARK" ] && flock -x -n "$_privsep_fd" &&
        [ "$(cat "$PRIVSEP_MARK")" = "$(stat -c %d:%i /run/sshd 2>/dev/null)" ] && ! _other_sshd_runs; then
        rmdir /run/sshd 2>/dev/null && rm -f "$PRIVSEP_MARK"
    fi
    exec {_privsep_fd}<&-
    _privsep_fd=""
}

# Makes $SSH_DIR: a client key, one host key per host, authorized_keys with
# the client key, an empty authorized_keys, an sshd_config per host, a
# known_hosts that names every host with its own key, and the ssh_config.
make_ssh_dir() {
    SSH_DIR=$(mktemp -d) || return 1
    ssh-keygen -q -t ed25519 -N '' -C orca-test-client -f "$SSH_DIR/id_ed25519" || return 1
    cp "$SSH_DIR/id_ed25519.pub" "$SSH_DIR/authorized_keys"
    : >"$SSH_DIR/authorized_keys.empty"
    local i
    : >"$SSH_DIR/known_hosts"
    for ((i = 1; i <= HOSTS; i++)); do
        ssh-keygen -q -t ed25519 -N '' -C "orca-test-h$i" -f "$SSH_DIR/host_key.h$i" || return 1
        echo "h$i,10.200.0.$i $(cut -d' ' -f1,2 "$SSH_DIR/host_key.h$i.pub")" >>"$SSH_DIR/known_hosts"
        # ListenAddress and PidFile come on the command line (start_sshd).
        cat >"$SSH_DIR/sshd_config.h$i" <<EOF
HostKey $SSH_DIR/host_key.h$i
AuthorizedKeysFile $SSH_DIR/authorized_keys
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
StrictModes no
UsePAM no
UseDNS no
PermitTTY no
PermitUserRC no
PermitUserEnvironment no
PrintMotd no
PrintLastLog no
X11Forwarding no
AllowAgentForwarding no
AllowTcpForwarding no
LoginGraceTime 20
LogLevel INFO
EOF
    done
    # Everything ssh reads. The host keys are known in advance, so nothing is
    # ever written (StrictHostKeyChecking yes, no UpdateHostKeys); sshd
    # listens on IPv4, so ssh asks only for that.
    cat >"$SSH_DIR/ssh_config" <<EOF
Host *
  IdentityFile $SSH_DIR/id_ed25519
  IdentitiesOnly yes
  IdentityAgent none
  UserKnownHostsFile $SSH_DIR/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  UpdateHostKeys no
  CheckHostIP no
  AddressFamily inet
  ConnectTimeout 10
  ControlMaster no
  ControlPath none
  LogLevel ERROR
EOF
    AGENT="$DEFAULT_AGENT -F $SSH_DIR/ssh_config"
}

# --- per case: a cluster with sshd on h2..h5 ------------------------------------

addr_of() { echo "10.200.0.${1#h}"; }

# start_sshd HOST [SSHD-OPTIONS...]: sshd in HOST of the case's cluster, in
# the background; its log goes to $CASE_DIR/sshd.HOST.log. The recorded pid
# is the one sshd gets (the shell execs it).
start_sshd() {
    local h=$1; shift
    local addr; addr=$(addr_of "$h")
    "$NETCLUSTER" exec "$P" "$h" sh -c 'echo $$ >>"$0"; exec "$@"' "$_sshd_pids" \
        "$SSHD" -D -e -f "$SSH_DIR/sshd_config.$h" -o "ListenAddress=$addr" -o "PidFile=$CASE_DIR/sshd.$h.pid" "$@" \
        </dev/null >>"$CASE_DIR/sshd.$h.log" 2>&1 {_privsep_fd}<&- &
}

# await_sshd HOST: waits (10 s) until HOST's sshd listens on port 22.
await_sshd() {
    local h=$1 addr i
    addr=$(addr_of "$h")
    for ((i = 0; i < 200; i++)); do
        in_host "$P" "$h" ss -Hltn 2>/dev/null | grep -qF " $addr:22 " && return 0
        sleep 0.05
    done
    fail "sshd on $h does not listen on $addr:22 after 10 s:
$(cat "$CASE_DIR/sshd.$h.log" 2>/dev/null)"
}

# ssh_cluster [HOST=SSHD-OPTION...]: the case's cluster P (hosts h1..h5,
# names h1..h5 resolve inside), its directory CASE_DIR, and an sshd on each
# of h2..h5. HOST=OPTION adds `-o OPTION` to that host's sshd.
ssh_cluster() {
    P=$(new_cluster --hosts "$HOSTS") || fail "cannot create the cluster"
    # Prefixes repeat from case to case (the registry empties at teardown).
    CASE_DIR=$(mktemp -d "$SSH_DIR/case.XXXXXX") || fail "mktemp -d failed"
    declare -gA _extra=()
    local a
    for a in "$@"; do _extra[${a%%=*}]=${a#*=}; done
    local i
    for ((i = 2; i <= HOSTS; i++)); do
        if [ -n "${_extra[h$i]:-}" ]; then start_sshd "h$i" -o "${_extra[h$i]}"; else start_sshd "h$i"; fi
    done
    for ((i = 2; i <= HOSTS; i++)); do await_sshd "h$i"; done
    JOB_PID=""
    trap _case_reap EXIT
}

# The case's orcarun, if it still runs when the case ends (the namespaces,
# and everything in them, go at teardown).
_case_reap() {
    if [ -n "${JOB_PID:-}" ]; then
        kill -TERM "$JOB_PID" 2>/dev/null || true
        wait "$JOB_PID" 2>/dev/null || true
    fi
}

# The orcarun command in h1: the build tree's components and help texts
# (forwarded to every daemon in the bootstrap), no param files, no job
# secret from the caller's environment, the default agent words plus -F.
_orcarun_in_h1() {
    orcarun_env env -u ORCA_JOB_SECRET -u ORCA_JOB_SECRET_FD \
        "$NETCLUSTER" exec "$P" h1 timeout -k 5 60 "$ORCARUN" --mca plm_rsh_agent "$AGENT" "$@" {_privsep_fd}<&-
}

# orcarun_ssh NAME ARGS...: orcarun ARGS in h1, in the foreground; stdout and
# stderr to $CASE_DIR/NAME.out and .err. Returns its status.
orcarun_ssh() {
    local name=$1; shift
    _orcarun_in_h1 "$@" >"$CASE_DIR/$name.out" 2>"$CASE_DIR/$name.err" </dev/null
}

# orcarun_ssh_bg NAME ARGS...: the same in the background (JOB_PID).
orcarun_ssh_bg() {
    local name=$1; shift
    _orcarun_in_h1 "$@" >"$CASE_DIR/$name.out" 2>"$CASE_DIR/$name.err" </dev/null &
    JOB_PID=$!
}

# orcarun_wait SECONDS: waits for the background orcarun; returns its
# status. Fails the case if it still runs after SECONDS.
orcarun_wait() {
    local limit=$1 i rc=0
    for ((i = 0; i < limit * 20; i++)); do
        kill -0 "$JOB_PID" 2>/dev/null || break
        sleep 0.05
    done
    kill -0 "$JOB_PID" 2>/dev/null && fail "orcarun still runs after $limit s:
$(job_output job)"
    wait "$JOB_PID" || rc=$?
    JOB_PID=""
    return $rc
}

# job_output NAME: what orcarun printed, and the sshd logs, for messages.
job_output() {
    echo "--- orcarun stdout:"
    cat "$CASE_DIR/$1.out" 2>/dev/null || true
    echo "--- orcarun stderr:"
    tail -n 80 "$CASE_DIR/$1.err" 2>/dev/null || true
    local f
    for f in "$CASE_DIR"/sshd.*.log; do
        [ -e "$f" ] || continue
        echo "--- $(basename "$f" .log):"
        tail -n 20 "$f"
    done
}

# --- processes in the hosts ---------------------------------------------------

_state_of() { sed -E 's/.*\) (.).*/\1/' "/proc/$1/stat" 2>/dev/null; }
_comm_of() { cat "/proc/$1/comm" 2>/dev/null; }
_args_of() { tr '\0' ' ' 2>/dev/null <"/proc/$1/cmdline"; }

# host_pids HOST: the live processes inside HOST, except the sshd listeners
# the test started: sshd sessions, orcad, ranks, ssh clients, orcarun.
host_pids() {
    local pid s
    for pid in $(ip netns pids "$P-$1" 2>/dev/null); do
        grep -qx "$pid" "$_sshd_pids" && continue
        s=$(_state_of "$pid") || continue
        [ -n "$s" ] && [ "$s" != Z ] && echo "$pid"
    done
}

# leftovers: "HOST: pid comm args" for every process host_pids finds, and
# every orcad or orcarun listener (ss), in h1..h5.
leftovers() {
    local i pid l
    for ((i = 1; i <= HOSTS; i++)); do
        for pid in $(host_pids "h$i"); do echo "h$i: $pid ($(_comm_of "$pid")) $(_args_of "$pid")"; done
        l=$(orca_listeners_in "$P" "h$i")
        [ -z "$l" ] || sed "s/^/h$i: listener: /" <<<"$l"
    done
}

# expect_cluster_clean [SECONDS]: within SECONDS (default 10) no orcad, rank,
# agent, sshd session or listener of the job is left on any host.
expect_cluster_clean() {
    local limit=${1:-10} i left
    for ((i = 0; i < limit * 10; i++)); do
        left=$(leftovers)
        [ -z "$left" ] && return 0
        sleep 0.1
    done
    fail "left on the hosts $limit s after the job:
$left"
}

_ppid_of() { sed -nE 's/^PPid:[[:space:]]+//p' "/proc/$1/status" 2>/dev/null; }

# _is_rank PID COMM: PID is named COMM and its parent is not. A rank's own
# child between fork and exec (sh forking its sleep) bears the rank's name
# too; counted, it let the wait end while a daemon was still starting, since
# ranks start as their own daemon comes up (orcarun_start_early).
_is_rank() {
    [ "$(_comm_of "$1")" = "$2" ] && [ "$(_comm_of "$(_ppid_of "$1")")" != "$2" ]
}

# await_ranks COMM COUNT [SECONDS]: waits (default 20 s) until COUNT
# processes named COMM (_is_rank) run on h2..h5; fails at once if orcarun
# ends first.
await_ranks() {
    local comm=$1 count=$2 limit=${3:-20} i n=0 h pid
    for ((i = 0; i < limit * 10; i++)); do
        kill -0 "$JOB_PID" 2>/dev/null || fail "orcarun ended before $count $comm ranks ran:
$(job_output job)"
        n=0
        for h in h2 h3 h4 h5; do
            for pid in $(host_pids "$h"); do _is_rank "$pid" "$comm" && n=$((n + 1)); done
        done
        [ "$n" -ge "$count" ] && return 0
        sleep 0.1
    done
    fail "$count $comm ranks did not start within $limit s ($n did):
$(job_output job)
$(leftovers)"
}

# pid_in HOST PATTERN: the first process inside HOST whose command line
# matches the extended regex.
pid_in() {
    local pid
    for pid in $(host_pids "$1"); do
        _args_of "$pid" | grep -qE -- "$2" && { echo "$pid"; return 0; }
    done
    fail "no process in $1 matches /$2/:
$(leftovers)"
}

# named_in HOST NAME: the pid of the process named NAME (or libtool's
# lt-NAME) inside HOST, told by its name: orcad from its keeper
# (orcad-keeper), whose command line is the same, and orcarun from the
# `timeout` that runs it.
named_in() {
    local pid
    for pid in $(host_pids "$1"); do
        case $(_comm_of "$pid") in "$2" | "lt-$2") echo "$pid"; return 0 ;; esac
    done
    fail "no $2 runs in $1:
$(leftovers)"
}
orcad_in() { named_in "$1" orcad; }

# --- what a job printed ---------------------------------------------------------

# Each rank prints its rank, its host's eth0 address and $SSH_CONNECTION
# (client address and port, server address and port), which its orcad got
# from the sshd session that started it.
RANK_REPORT=(sh -c 'echo "$ORCA_RANK $(ip -o -4 addr show eth0 | awk "{print \$4}") $SSH_CONNECTION"')

# parent_of ERR VPID: "orcarun" or the parent daemon's vpid, from the
# --report-routes line of daemon VPID (on h(VPID+1)); checks that line:
# a tcp connection from that host's address to its parent's address.
parent_of() {
    local err=$1 v=$2 h="h$(($2 + 1))" line parent paddr
    line=$(grep -E "^  daemon $v on " "$CASE_DIR/$err.err" | head -1)
    [ -n "$line" ] || fail "no route line for daemon $v:
$(job_output "$err")"
    [[ $line =~ ^\ \ daemon\ $v\ on\ $h(\ \[[^]]*\])?\ -\>\ (orcarun|daemon\ ([0-9]+)):\ tcp:\ ([0-9.]+):[0-9]+\ -\>\ ([0-9.]+):[0-9]+ ]] ||
        fail "daemon $v's route is not a tcp connection from $h: \"$line\""
    parent=${BASH_REMATCH[2]#daemon }
    [ "${BASH_REMATCH[4]}" = "$(addr_of "$h")" ] || fail "daemon $v's connection is not from $h's address: \"$line\""
    if [ "$parent" = orcarun ]; then paddr=10.200.0.1; else paddr=$(addr_of "h$((parent + 1))"); fi
    [ "${BASH_REMATCH[5]}" = "$paddr" ] || fail "daemon $v's connection does not go to its parent at $paddr: \"$line\""
    echo "$parent"
}

# expect_job_ran NAME TREE: orcarun NAME ran 4 ranks, rank r on h(r+2) with
# its daemon started by ssh from its parent's host, and reported 4 daemons
# over tcp (TREE: "tree spawn" is in the header, else it is not).
expect_job_ran() {
    local name=$1 tree=$2 header v parent from r line
    local spawn=""
    [ "$tree" != tree ] || spawn=", tree spawn"
    header="^routes \(4 daemons, routed/[a-z]+, plm/rsh$spawn\):$"
    grep -qE -- "$header" "$CASE_DIR/$name.err" || fail "no route report /$header/:
$(job_output "$name")"
    [ "$(grep -cE '^  daemon [0-9]+ on ' "$CASE_DIR/$name.err")" -eq 4 ] || fail "not 4 daemons in the route report:
$(job_output "$name")"
    [ "$(wc -l <"$CASE_DIR/$name.out")" -eq 4 ] || fail "not 4 lines of output:
$(job_output "$name")"
    for v in 1 2 3 4; do
        parent=$(parent_of "$name" "$v")
        if [ "$parent" = orcarun ]; then from=10.200.0.1; else from=$(addr_of "h$((parent + 1))"); fi
        r=$((v - 1))
        line=$(grep -E "^$r " "$CASE_DIR/$name.out" || true)
        local here lr laddr lfrom lport lto lsport
        here=$(addr_of "h$((v + 1))")
        read -r lr laddr lfrom lport lto lsport <<<"$line" || true
        [ "$lr $laddr $lfrom $lto $lsport" = "$r $here/24 $from $here 22" ] && [[ $lport =~ ^[0-9]+$ ]] ||
            fail "rank $r did not run on h$((v + 1)) under an ssh session from $from (its parent, $parent): \"$line\"
$(job_output "$name")"
        grep -q "Accepted publickey for root from $from " "$CASE_DIR/sshd.h$((v + 1)).log" ||
            fail "h$((v + 1))'s sshd accepted no key from $from:
$(job_output "$name")"
    done
}

# --- cases -------------------------------------------------------------------

# 1. Flat: orcarun starts all four daemons, with the orcad it finds itself
# (the build tree's libtool wrapper).
flat_launch_runs_every_rank_on_its_host() {
    ssh_cluster
    local rc=0
    orcarun_ssh job --report-routes --host h2,h3,h4,h5 -n 4 "${RANK_REPORT[@]}" || rc=$?
    [ $rc -eq 0 ] || fail "orcarun exited with $rc:
$(job_output job)"
    expect_job_ran job flat
    ! grep -qE -- '-> daemon [0-9]' "$CASE_DIR/job.err" || fail "a flat launch routed through a daemon:
$(job_output job)"
    expect_cluster_clean
}

# 2. Tree spawn: daemon 1 (h2) starts daemons 3 and 4 through ssh itself;
# the daemon program is named explicitly (plm_base_daemon).
tree_spawn_starts_daemons_from_daemons() {
    ssh_cluster
    local rc=0
    orcarun_ssh job --report-routes --mca plm_rsh_tree_spawn 1 --mca plm_rsh_tree_spawn_min_daemons 1 \
        --mca routed_radix_radix 2 --mca plm_base_daemon "$ORCAD" --host h2,h3,h4,h5 -n 4 "${RANK_REPORT[@]}" || rc=$?
    [ $rc -eq 0 ] || fail "orcarun exited with $rc:
$(job_output job)"
    grep -qE '^  daemon [0-9]+ on h[0-9]+( \[[^]]*\])? -> daemon 1: tcp: ' "$CASE_DIR/job.err" ||
        fail "no daemon has daemon 1 as its parent:
$(job_output job)"
    expect_job_ran job tree
    expect_cluster_clean
}

# 3. h5's sshd does not hold the key: orcarun fails, names h5 and quotes ssh.
# Flat: orcarun's own agent fails; tree: daemon 1's agent on h2 does.
expect_refused_key_reported() {
    local rc=0
    orcarun_ssh job "$@" --host h2,h3,h4,h5 -n 4 hostname || rc=$?
    [ $rc -ne 0 ] || fail "orcarun exited with 0 although h5 refuses the key:
$(job_output job)"
    grep -qE 'daemon on h5 \(vpid 4\) failed' "$CASE_DIR/job.err" || fail "orcarun does not name h5 as the failed daemon:
$(job_output job)"
    grep -qF 'Permission denied (publickey)' "$CASE_DIR/job.err" || fail "orcarun does not quote ssh's Permission denied:
$(job_output job)"
    grep -qE 'Connection closed by authenticating user root|Failed publickey|authenticating user root' "$CASE_DIR/sshd.h5.log" ||
        fail "h5's sshd saw no refused login:
$(job_output job)"
    expect_cluster_clean
}

refused_key_fails_flat_launch() {
    ssh_cluster "h5=AuthorizedKeysFile=$SSH_DIR/authorized_keys.empty"
    expect_refused_key_reported
}

refused_key_fails_tree_spawn() {
    ssh_cluster "h5=AuthorizedKeysFile=$SSH_DIR/authorized_keys.empty"
    expect_refused_key_reported --mca plm_rsh_tree_spawn 1 --mca plm_rsh_tree_spawn_min_daemons 1 --mca routed_radix_radix 2
    grep -q "Connection closed by authenticating user root 10.200.0.2 " "$CASE_DIR/sshd.h5.log" ||
        fail "with tree spawn h5 was not tried from h2 (daemon 1):
$(job_output job)"
}

# 3b. USER@HOST (Open MPI's hostfile form): the user goes to ssh with the
# host. As root on h2 and h3 the job runs; as a user h3 does not have, h3's
# sshd names that user and orcarun names the daemon on orcanobody@h3.
user_before_the_host_reaches_ssh() {
    ssh_cluster
    local rc=0
    orcarun_ssh job --host root@h2,root@h3 -n 2 hostname || rc=$?
    [ $rc -eq 0 ] || fail "orcarun exited with $rc:
$(job_output job)"
    [ "$(wc -l <"$CASE_DIR/job.out")" -eq 2 ] || fail "not 2 ranks' output:
$(job_output job)"
    local h
    for h in h2 h3; do
        grep -q "Accepted publickey for root from 10.200.0.1 " "$CASE_DIR/sshd.$h.log" ||
            fail "$h's sshd accepted no login as root:
$(job_output job)"
    done
    rc=0
    orcarun_ssh job --host root@h2,orcanobody@h3 -n 2 hostname || rc=$?
    [ $rc -ne 0 ] || fail "orcarun exited with 0 as a user h3 does not have:
$(job_output job)"
    grep -q "Invalid user orcanobody from 10.200.0.1" "$CASE_DIR/sshd.h3.log" ||
        fail "h3's sshd was not asked for user orcanobody:
$(job_output job)"
    grep -qE 'the daemon on orcanobody@h3 \(vpid 2\) failed' "$CASE_DIR/job.err" ||
        fail "orcarun does not name orcanobody@h3:
$(job_output job)"
    expect_cluster_clean
}

# 4. A host name that does not resolve: orcarun fails, names it and quotes
# ssh's resolver error.
unknown_host_is_reported() {
    ssh_cluster
    local rc=0
    orcarun_ssh job --host h2,nosuchhost -n 2 hostname || rc=$?
    [ $rc -ne 0 ] || fail "orcarun exited with 0 with nosuchhost in --host:
$(job_output job)"
    grep -qE 'daemon on nosuchhost \(vpid 2\) failed' "$CASE_DIR/job.err" ||
        fail "orcarun does not name nosuchhost as the failed daemon:
$(job_output job)"
    grep -qF 'Could not resolve hostname nosuchhost' "$CASE_DIR/job.err" ||
        fail "orcarun does not quote ssh's resolution error:
$(job_output job)"
    expect_cluster_clean
}

# Open MPI's plm_rsh_args (horovodrun passes "-p PORT" there) reach ssh
# after plm_rsh_agent's words: a port no sshd listens on fails the job
# naming it, and ssh's own words are quoted.
rsh_args_reach_the_agent() {
    ssh_cluster
    local rc=0
    orcarun_ssh job --mca plm_rsh_args "-p 1" --host h2 -n 1 hostname || rc=$?
    [ $rc -ne 0 ] || fail "orcarun exited with 0 with ssh sent to port 1:
$(job_output job)"
    grep -qF 'port 1: Connection refused' "$CASE_DIR/job.err" ||
        fail "orcarun does not quote ssh's refusal on port 1:
$(job_output job)"
    rc=0
    orcarun_ssh job --mca plm_rsh_args "-p 22" --host h2 -n 1 hostname || rc=$?
    [ $rc -eq 0 ] || fail "orcarun with plm_rsh_args \"-p 22\" exited with $rc:
$(job_output job)"
    expect_cluster_clean
}

# ssh prints its messages with "\r\n" line ends (its log goes to a terminal
# in raw mode, as it may be one). An agent's line is quoted as one line:
# the "\r" belongs to the line end, not a character to show as "\x0d".
agent_messages_are_quoted_without_a_carriage_return() {
    ssh_cluster "h5=AuthorizedKeysFile=$SSH_DIR/authorized_keys.empty"
    local rc=0
    orcarun_ssh job --host h2,h3,h4,h5 -n 4 hostname || rc=$?
    [ $rc -ne 0 ] || fail "orcarun exited with 0 although h5 refuses the key"
    grep -qF 'Permission denied (publickey)' "$CASE_DIR/job.err" || fail "no Permission denied:
$(job_output job)"
    ! grep -qF 'Permission denied (publickey).\x0d' "$CASE_DIR/job.err" ||
        fail "ssh's line end shows as \"\\x0d\" in orcarun's messages:
$(grep -F 'Permission denied' "$CASE_DIR/job.err")"
    expect_cluster_clean
}

# 6. The job secret reaches the daemons on their standard input only: while
# the ranks run, every agent's command line is exactly the default agent
# words, -F, the host and the orcad path; every orcad's is just the orcad
# path; no process in any host has ORCA_JOB_SECRET in its environment or a
# run of 32 hex digits (the secret is 64) on its command line.
expect_secret_kept_off_command_lines() {
    local ssh_count=$1; shift
    # The ranks last until the scan is over: a fixed sleep can end before a
    # slow machine has read every host's processes.
    orcarun_ssh_bg job "$@" --host h2,h3,h4,h5 -n 4 sh -c 'until [ -e "$0" ]; do sleep 0.1; done' "$CASE_DIR/scanned"
    await_ranks sh 4
    local i pid comm args words w h orcads=0 agents=0 want
    for ((i = 1; i <= HOSTS; i++)); do
        for pid in $(host_pids "h$i"); do
            # A process may end between the listing and the reading (the
            # ranks' own sleeps do, every 0.1 s); under set -e an unchecked
            # failed read ended the case with no message.
            comm=$(_comm_of "$pid") || continue
            args=$(_args_of "$pid") || continue
            mapfile -d '' -t words 2>/dev/null <"/proc/$pid/cmdline" || continue
            [ ${#words[@]} -gt 0 ] || continue  # gone meanwhile
            if grep -qzE '^ORCA_JOB_SECRET(_FD)?=' "/proc/$pid/environ" 2>/dev/null; then
                fail "h$i: $pid ($comm) has a job secret in its environment: $args"
            fi
            if grep -qE '[0-9a-fA-F]{32}' <<<"$args"; then
                fail "h$i: $pid ($comm) has 32 hex digits on its command line: $args"
            fi
            if [ "$comm" = ssh ]; then
                agents=$((agents + 1))
                h=${words[6]:-}
                want="$AGENT $h $ORCAD"
                [[ $h =~ ^h[2-5]$ ]] && [ "${words[*]}" = "$want" ] && [ ${#words[@]} -eq 8 ] ||
                    fail "h$i: an agent's command line is not \"$DEFAULT_AGENT -F ... HOST $ORCAD\": $args"
            elif grep -q 'orcad' <<<"$args"; then
                # The remote shell (bash -c PATH), the libtool wrapper
                # (/bin/bash PATH) or the daemon itself.
                local rest=()
                for w in "${words[@]}"; do
                    case $w in sh | bash | /bin/sh | /bin/bash | /usr/bin/bash | -c) ;; *) rest+=("$w") ;; esac
                done
                [ ${#rest[@]} -eq 1 ] && { [ "${rest[0]}" = "$ORCAD" ] || [ "${rest[0]}" = "$ORCAD_BINARIES/orcad" ] ||
                    [ "${rest[0]}" = "$ORCAD_BINARIES/lt-orcad" ]; } ||
                    fail "h$i: an orcad command line holds more than the orcad path: $args"
                case $comm in orcad | lt-orcad) orcads=$((orcads + 1)) ;; esac
                [ "$i" -ne 1 ] || fail "an orcad runs in h1, where only orcarun should: $args"
            fi
        done
    done
    [ $orcads -eq 4 ] || fail "$orcads orcad processes, not 4:
$(leftovers)"
    [ $agents -eq "$ssh_count" ] || fail "$agents ssh agents, not $ssh_count:
$(leftovers)"
    : >"$CASE_DIR/scanned"
    local rc=0
    orcarun_wait 30 || rc=$?
    [ $rc -eq 0 ] || fail "orcarun exited with $rc:
$(job_output job)"
    expect_cluster_clean
}

secret_stays_off_command_lines_flat() {
    ssh_cluster
    expect_secret_kept_off_command_lines 4
}

secret_stays_off_command_lines_tree_spawn() {
    ssh_cluster
    expect_secret_kept_off_command_lines 4 --mca plm_rsh_tree_spawn 1 --mca plm_rsh_tree_spawn_min_daemons 1 \
        --mca routed_radix_radix 2
}

# --- connections that die mid-job ---------------------------------------------------

# expect_job_failed_for HOST PATTERN: orcarun (background) ends non-zero
# within 20 s, naming the daemon on HOST and printing PATTERN; then nothing
# is left on any host.
expect_job_failed_for() {
    local host=$1 pattern=$2 rc=0
    orcarun_wait 20 || rc=$?
    [ $rc -ne 0 ] || fail "orcarun exited with 0 although the connection to $host died:
$(job_output job)"
    grep -qE "daemon on $host \(vpid [0-9]+\) failed" "$CASE_DIR/job.err" ||
        fail "orcarun does not name the daemon on $host:
$(job_output job)"
    grep -qE -- "$pattern" "$CASE_DIR/job.err" || fail "orcarun does not say /$pattern/:
$(job_output job)"
    expect_cluster_clean
}

# The sshd session on h3 (the server end of the connection) dies: ssh on h1
# ends, and orcad on h3, whose stdin came from that session, ends with its
# rank.
remote_session_death_ends_its_daemon() {
    ssh_cluster
    orcarun_ssh_bg job --host h2,h3,h4,h5 -n 4 sleep 30
    await_ranks sleep 4
    kill -KILL "$(pid_in h3 '^sshd: root@notty')"
    # ssh's own word, or the daemon's report that its stdin closed, whichever
    # reaches orcarun first (orcarun then ends the agent).
    expect_job_failed_for h3 'Connection to h3 closed by remote host|its standard input \(from the agent that started this daemon\) closed'
}

# The ssh client for h4 (in h1) dies: sshd on h4 sees the connection close,
# and orcad there ends with its rank.
agent_death_ends_the_remote_daemon() {
    ssh_cluster
    orcarun_ssh_bg job --host h2,h3,h4,h5 -n 4 sleep 30
    await_ranks sleep 4
    kill -KILL "$(pid_in h1 "^ssh .* h4 ")"
    # Either orcarun hears of the agent's end first, or the daemon (whose
    # oob connection still works) reports that its stdin closed.
    expect_job_failed_for h4 'the agent was killed by signal 9|its standard input \(from the agent that started this daemon\) closed'
}

# Tree spawn: the session of daemon 1 (h2) dies; its own agents to h4 and h5
# go with it, and so do the daemons there.
tree_spawn_parent_death_ends_its_subtree() {
    ssh_cluster
    orcarun_ssh_bg job --mca plm_rsh_tree_spawn 1 --mca plm_rsh_tree_spawn_min_daemons 1 --mca routed_radix_radix 2 \
        --host h2,h3,h4,h5 -n 4 sleep 30
    await_ranks sleep 4
    kill -KILL "$(pid_in h2 '^sshd: root@notty')"
    # ssh's own word, or the daemon's report that its stdin closed, whichever
    # reaches orcarun first (orcarun then ends the agent).
    expect_job_failed_for h2 'Connection to h2 closed by remote host|its standard input \(from the agent that started this daemon\) closed'
}

# orcad on h3 is SIGKILLed: sshd, not orcarun, is its parent, and its
# rank's parent-death signal reaches only the rank's own process. Its
# keeper, beside it on h3, kills the rank's process group, so the rank's
# background child goes too; nothing is left on any host.
daemon_killed_takes_its_ranks_background_children() {
    ssh_cluster
    orcarun_ssh_bg job --host h2,h3,h4,h5 -n 4 sh -c 'sleep 37 & wait'
    await_ranks sleep 4
    kill -KILL "$(orcad_in h3)"
    expect_job_failed_for h3 'its daemon ended early|the oob lost the daemon on h3'
}

# orcarun itself is killed: its agents see their stdin close, and every
# remote orcad and rank ends.
killed_orcarun_leaves_nothing_behind() {
    ssh_cluster
    orcarun_ssh_bg job --host h2,h3,h4,h5 -n 4 sleep 30
    await_ranks sleep 4
    kill -KILL "$(named_in h1 orcarun)"
    local rc=0
    orcarun_wait 20 || rc=$?
    [ $rc -eq 137 ] || fail "orcarun was killed, yet timeout exited with $rc:
$(job_output job)"
    expect_cluster_clean
}

# 14. ssh passes no environment: the variables orcarun forwards still reach
# every rank on h2..h5, byte for byte (-x NAME=VALUE, -genv, -x NAME and
# -x 'PREFIX*'), and one it does not forward does not.
forwarded_variables_reach_remote_ranks() {
    ssh_cluster
    local value=$'two  words "dq" \'sq\' \\ a=b==\nsecond\tline \xc3\xa9\n' rc=0 r f
    FWD_HERE=$value FWD_P_1=one FWD_P_2="two 2" FWD_NOT_FORWARDED=x \
        orcarun_ssh job --host h2,h3,h4,h5 -n 4 -x "FWD_A=$value" -genv FWD_B "$value" -x FWD_HERE -x 'FWD_P_*' \
        sh -c 'for v in FWD_A FWD_B FWD_HERE; do printenv "$v" >"$0/$v.$ORCA_RANK"; done
               echo "$ORCA_RANK $FWD_P_1|$FWD_P_2|${FWD_NOT_FORWARDED-unset}|${SSH_CONNECTION:+under ssh}"' "$CASE_DIR" ||
        rc=$?
    [ $rc -eq 0 ] || fail "orcarun exited with $rc:
$(job_output job)"
    [ "$(sort "$CASE_DIR/job.out")" = "0 one|two 2|unset|under ssh
1 one|two 2|unset|under ssh
2 one|two 2|unset|under ssh
3 one|two 2|unset|under ssh" ] || fail "the ranks did not see the forwarded variables:
$(job_output job)"
    # printenv adds a newline.
    for r in 0 1 2 3; do
        for f in FWD_A FWD_B FWD_HERE; do
            printf '%s\n' "$value" | cmp -s - "$CASE_DIR/$f.$r" ||
                fail "rank $r's $f is not the value forwarded: $(od -c "$CASE_DIR/$f.$r" | head -5)"
        done
    done
    expect_cluster_clean
}

# A DVM through ssh: orcadvm start --daemonize in h1 keeps a daemon on each
# of h2..h5 (started by the default agent words), returns once they are up;
# status names the four hosts, each daemon up; jobs run there: one rank on
# each host (four distinct addresses), and an MPI program of each flavour
# installed, its collectives through the DVM across the hosts; stop returns
# once the DVM is gone, and nothing is left on any host, nor its contact
# file.
ORCADVM="$ORCA_TEST_BUILDDIR/framework/tools/orcadvm/orcadvm"
orcadvm_in_h1() {
    orcarun_env env -u ORCA_JOB_SECRET -u ORCA_JOB_SECRET_FD XDG_RUNTIME_DIR="$CASE_DIR/run" \
        "$NETCLUSTER" exec "$P" h1 timeout -k 5 60 "$ORCADVM" "$@" {_privsep_fd}<&-
}
# dvm_job NAME ARGS...: orcarun --dvm ARGS in h1, the DVM of $CASE_DIR/run;
# stdout and stderr to $CASE_DIR/NAME.out and .err. Returns its status.
dvm_job() {
    local name=$1; shift
    orcarun_env env -u ORCA_JOB_SECRET -u ORCA_JOB_SECRET_FD XDG_RUNTIME_DIR="$CASE_DIR/run" \
        "$NETCLUSTER" exec "$P" h1 timeout -k 5 60 "$ORCARUN" --dvm "$@" \
        >"$CASE_DIR/$name.out" 2>"$CASE_DIR/$name.err" </dev/null {_privsep_fd}<&-
}
dvm_jobs_through_ssh() {
    local rc=0 flavour program n
    dvm_job hosts -n 4 ip -4 -o addr show dev eth0 || rc=$?
    [ $rc -eq 0 ] || fail "the DVM job exited with $rc: $(cat "$CASE_DIR/hosts.out" "$CASE_DIR/hosts.err")"
    n=$(grep -oE 'inet [0-9.]+' "$CASE_DIR/hosts.out" | sort -u | wc -l)
    [ "$n" = 4 ] && [ "$(wc -l <"$CASE_DIR/hosts.out")" = 4 ] ||
        fail "not one rank on each of the 4 hosts: $(cat "$CASE_DIR/hosts.out" "$CASE_DIR/hosts.err")"
    for flavour in mpich openmpi; do
        command -v "mpicc.$flavour" >/dev/null || { echo "mpicc.$flavour is not installed: no $flavour job through ssh"; continue; }
        program="$CASE_DIR/mpi_exchange.$flavour"
        "mpicc.$flavour" -o "$program" "$ORCA_TEST_SRCDIR/test/mpi/mpi_exchange.c" >"$CASE_DIR/cc.out" 2>&1 ||
            fail "mpicc.$flavour failed: $(cat "$CASE_DIR/cc.out")"
        chmod 755 "$CASE_DIR" "$program"
        rc=0
        dvm_job "$flavour" -n 4 "$program" || rc=$?
        [ $rc -eq 0 ] || fail "the $flavour DVM job exited with $rc: $(cat "$CASE_DIR/$flavour.out" "$CASE_DIR/$flavour.err")"
        [ "$(grep -c '^rank [0-3]/4 allreduce=10 ring=[0-3] barrier=ok ' "$CASE_DIR/$flavour.out")" = 4 ] ||
            fail "the $flavour ranks' lines: $(cat "$CASE_DIR/$flavour.out" "$CASE_DIR/$flavour.err")"
    done
    dvm_torch_jobs_at_once
}
# Two torch.distributed jobs of 2 ranks at once (unchanged torchrun-style
# programs, env://): one runs on h2 and h3, the other on h4 and h5, and
# each one's MASTER_ADDR is its own rank 0's host's eth0 (10.200.0.2 and
# 10.200.0.4), with a port free there: each all_reduce sums 1 + 2.
dvm_torch_jobs_at_once() {
    local python=/usr/bin/python3 pids=() i rc masters
    "$python" -c 'import torch.distributed' 2>/dev/null ||
        { echo "$python cannot import torch.distributed (Debian python3-torch): no torch job through ssh"; return 0; }
    for i in 0 1; do
        dvm_job "torch$i" -n 2 "$python" "$ORCA_TEST_SRCDIR/test/integration/torch_allreduce.py" &
        pids+=($!)
    done
    for i in 0 1; do
        rc=0
        wait "${pids[i]}" || rc=$?
        [ $rc -eq 0 ] || fail "torch job $i exited with $rc: $(cat "$CASE_DIR/torch$i.out" "$CASE_DIR/torch$i.err")"
        [ "$(grep -c '^rank [01]/2 sum=3 ' "$CASE_DIR/torch$i.out")" = 2 ] ||
            fail "torch job $i's ranks' lines: $(cat "$CASE_DIR/torch$i.out" "$CASE_DIR/torch$i.err")"
    done
    masters=$(sed -n 's/^rank 0\/2 .* master=\([0-9.]*\):[1-9][0-9]* .*/\1/p' "$CASE_DIR"/torch[01].out | sort | tr '\n' ' ')
    [ "$masters" = "10.200.0.2 10.200.0.4 " ] || fail "the two jobs' torch masters are '$masters', not h2's and h4's eth0:
$(cat "$CASE_DIR"/torch[01].out)"
}
dvm_start_status_jobs_stop_through_ssh() {
    ssh_cluster
    mkdir -m 700 "$CASE_DIR/run"
    local rc=0 i pid
    orcadvm_in_h1 start --daemonize --mca plm_rsh_agent "$AGENT" --host h2,h3,h4,h5 \
        >"$CASE_DIR/start.out" 2>"$CASE_DIR/start.err" </dev/null || rc=$?
    [ $rc -eq 0 ] || fail "orcadvm start exited with $rc: $(cat "$CASE_DIR/start.out" "$CASE_DIR/start.err")"
    grep -qE "^orcadvm: DVM [0-9]+ is up on 4 host\(s\); contact file $CASE_DIR/run/orca/dvm\.[0-9]+$" \
        "$CASE_DIR/start.out" || fail "no ready line: $(cat "$CASE_DIR/start.out" "$CASE_DIR/start.err")"
    for i in 2 3 4 5; do orcad_in "h$i" >/dev/null; done
    pid=$(named_in h1 orcadvm)
    rc=0
    orcadvm_in_h1 status >"$CASE_DIR/status.out" 2>"$CASE_DIR/status.err" </dev/null || rc=$?
    [ $rc -eq 0 ] || fail "orcadvm status exited with $rc: $(cat "$CASE_DIR/status.err")"
    grep -qx "hosts     4 (4 daemon(s) up)" "$CASE_DIR/status.out" || fail "status: $(cat "$CASE_DIR/status.out")"
    for i in 2 3 4 5; do
        grep -qE "^  h$i  [0-9]+ slot\(s\)  up$" "$CASE_DIR/status.out" || fail "status: no h$i: $(cat "$CASE_DIR/status.out")"
    done
    dvm_jobs_through_ssh
    rc=0
    orcadvm_in_h1 stop >"$CASE_DIR/stop.out" 2>"$CASE_DIR/stop.err" </dev/null || rc=$?
    [ $rc -eq 0 ] || fail "orcadvm stop exited with $rc: $(cat "$CASE_DIR/stop.out" "$CASE_DIR/stop.err")"
    grep -qx "orcadvm: DVM $pid stopped" "$CASE_DIR/stop.out" || fail "stop: $(cat "$CASE_DIR/stop.out")"
    expect_cluster_clean
    [ -z "$(ls -A "$CASE_DIR/run/orca")" ] || fail "contact files left: $(ls -A "$CASE_DIR/run/orca")"
}

CASES=(flat_launch_runs_every_rank_on_its_host tree_spawn_starts_daemons_from_daemons rsh_args_reach_the_agent
       refused_key_fails_flat_launch refused_key_fails_tree_spawn user_before_the_host_reaches_ssh unknown_host_is_reported
       secret_stays_off_command_lines_flat secret_stays_off_command_lines_tree_spawn
       remote_session_death_ends_its_daemon agent_death_ends_the_remote_daemon
       tree_spawn_parent_death_ends_its_subtree daemon_killed_takes_its_ranks_background_children
       killed_orcarun_leaves_nothing_behind
       agent_messages_are_quoted_without_a_carriage_return forwarded_variables_reach_remote_ranks
       dvm_start_status_jobs_stop_through_ssh)

# Arguments, if any, name the cases to run (by hand: bash orcarun_ssh_test.sh CASE...).
[ $# -eq 0 ] || CASES=("$@")

skip_all() {
    local c
    for c in "${CASES[@]}"; do skip_case "OrcarunSsh.$c" "$1"; done
    exit 0
}

skip_cases_when_sanitized OrcarunSsh "orcarun_netns_test launches through the same plm/rsh and orcad code; sshd adds none of ours" "${CASES[@]}"
if ! netns_available; then skip_all "cannot create network namespaces here (needs root and ip netns)"; fi
for tool in "$SSHD" ssh ssh-keygen; do
    command -v "$tool" >/dev/null 2>&1 || skip_all "$tool is not installed (openssh-server and openssh-client)"
done
for tool in "$ORCARUN" "$ORCAD"; do
    [ -x "$tool" ] || { echo "no $tool: build the tree first (make)" >&2; exit 1; }
done
make_ssh_dir || { echo "cannot make the keys and configuration in a temporary directory" >&2; exit 1; }
ensure_privsep_dir || skip_all "sshd has no privilege separation directory /run/sshd, and it cannot be made"
if ! check=$("$SSHD" -t -f "$SSH_DIR/sshd_config.h2" -o ListenAddress=127.0.0.1 -o "PidFile=$SSH_DIR/t.pid" 2>&1); then
    skip_all "sshd rejects the test's configuration here: $check"
fi
# Plain ssh from h1 to h2 first: when that cannot work here (root's account
# locked, say), no case can, and the cases are skipped with the reason.
preflight() {
    P=$(new_cluster --hosts 2) || { echo "cannot create a cluster"; exit 1; }
    CASE_DIR="$SSH_DIR/preflight"
    mkdir -p "$CASE_DIR"
    start_sshd h2
    await_sshd h2
    local out
    out=$(in_host "$P" h1 $AGENT h2 echo ssh-works </dev/null 2>&1) || true
    [ "$out" = ssh-works ] || { echo "\`$AGENT h2 echo ssh-works\` in h1 printed: $out"; cat "$CASE_DIR/sshd.h2.log"; exit 1; }
}
if ! why=$( (set -e; preflight) 2>&1); then
    teardown_case
    skip_all "ssh into a namespace host with the test's keys does not work here: $why"
fi
teardown_case
for c in "${CASES[@]}"; do run_case "OrcarunSsh.$c" "$c"; done
finish_cases
