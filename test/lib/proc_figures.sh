# What a process costs, read from /proc, for tests that bound memory and
# CPU time; source after netns.sh (oob_pid needs its oob_start records).

CLK_TCK=$(getconf CLK_TCK)

# proc_status_kb PID FIELD: a kB figure of /proc/PID/status (VmRSS, VmHWM).
proc_status_kb() {
    local v
    v=$(awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status" 2>/dev/null)
    [ -n "$v" ] || fail "process $1 is gone (no /proc/$1/status)"
    echo "$v"
}

# proc_rss_kb PID: the resident set (VmRSS) in kB.
proc_rss_kb() { proc_status_kb "$1" VmRSS; }

# proc_cpu_ms PID: user + system CPU time so far (/proc/PID/stat fields 14
# and 15), in milliseconds.
proc_cpu_ms() {
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || fail "process $1 is gone (no /proc/$1/stat)"
    # Fields after "pid (comm) ": the command may hold spaces and parentheses.
    local -a f
    read -r -a f <<<"${stat##*) }"
    # f[0] is field 3 (state): utime is field 14, stime field 15.
    echo $(((f[11] + f[12]) * 1000 / CLK_TCK))
}

# oob_pid NAME: the pid of the oob_peer that `oob_start NAME` started: the
# child of netcluster's shell that became the program through exec (sh,
# then the libtool wrapper, then oob_peer), not its `ip netns exec` parent.
# Waits up to 5 s for the exec to happen.
oob_pid() {
    local parent=${_oob_jobs[$1]:-} pid i
    [ -n "$parent" ] || fail "no process $1 is running"
    for ((i = 0; i < 100; i++)); do
        pid=$(pgrep -P "$parent" | head -1)
        if [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = oob_peer ]; then
            echo "$pid"
            return 0
        fi
        sleep 0.05
    done
    fail "cannot find the oob_peer process of $1 (netcluster's pid $parent)"
}

# figure NAME=VALUE...: prints the measured figures of a case, one line
# ("FIGURE <case>: name=value ..."), for quoting.
figure() { echo "FIGURE ${FIGURE_CASE:-${FUNCNAME[1]}}: $*"; }

# proc_fd_count PID: how many descriptors the process has open.
proc_fd_count() {
    [ -d "/proc/$1/fd" ] || fail "process $1 is gone (no /proc/$1/fd)"
    find "/proc/$1/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l
}

# proc_hwm_kb PID: the peak resident set so far (VmHWM) in kB.
proc_hwm_kb() { proc_status_kb "$1" VmHWM; }

# proc_listen_port PID ADDRESS: the port of the process's TCP listener on
# the IPv4 ADDRESS (or on 0.0.0.0), from its network namespace's
# /proc/PID/net/tcp and the socket inodes among its descriptors; nothing
# if it has none.
proc_listen_port() {
    local pid=$1 addr=$2 inodes
    inodes=$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 -lname 'socket:*' -printf '%l\n' 2>/dev/null |
        sed -nE 's/^socket:\[([0-9]+)\]$/\1/p' | tr '\n' ' ')
    [ -n "$inodes" ] || return 0
    # The kernel prints the address as a host-order (little-endian) word.
    local hex; hex=$(awk -F. '{ printf "%02X%02X%02X%02X", $4, $3, $2, $1 }' <<<"$addr")
    local port
    port=$(awk -v want="$hex" -v inodes=" $inodes" '
        NR > 1 && $4 == "0A" {
            split($2, local, ":")
            if ((local[1] == want || local[1] == "00000000") && index(inodes, " " $10 " ")) { print local[2]; exit }
        }' "/proc/$pid/net/tcp")
    [ -z "$port" ] || echo $((16#$port))
}

# rss_bound_kb KB: a bound of KB on RSS (or its growth) for this build.
# Under ASan (ORCA_TEST_SANITIZED=yes) redzones and shadow memory make
# every allocation cost more, and freed memory stays resident in ASan's
# quarantine (32 MiB, set by the test environment): there the bound is
# three times KB plus twice the quarantine.
rss_bound_kb() {
    if [ "${ORCA_TEST_SANITIZED:-no}" = yes ]; then echo $(($1 * 3 + 2 * 32 * 1024)); else echo "$1"; fi
}
