# What a process costs, read from /proc, for tests that bound memory and
# CPU time; source after netns.sh (oob_pid needs its oob_start records).

CLK_TCK=$(getconf CLK_TCK)

# proc_rss_kb PID: the resident set (VmRSS) in kB.
proc_rss_kb() {
    local v
    v=$(awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null)
    [ -n "$v" ] || fail "process $1 is gone (no /proc/$1/status)"
    echo "$v"
}

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
