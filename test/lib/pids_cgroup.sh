# A pids cgroup of a test's own, to make fork() fail on purpose (a task
# limit the job cannot see coming, as systemd's TasksMax= or a
# container's). Source after testcase.sh. Made under cgroup v1's pids
# hierarchy, or under the v2 hierarchy when its root hands the pids
# controller down; nothing of the machine's own cgroups is changed.
#   pids_cgroup_make NAME   sets PIDS_CG to a new cgroup (pids.max "max"),
#                           or skips the case saying why
#   pids_cgroup_remove      SIGKILLs whatever is still in it and removes it

pids_cgroup_make() {
    local root=
    if [ -w /sys/fs/cgroup/pids ] && [ -f /sys/fs/cgroup/pids/cgroup.procs ]; then
        root=/sys/fs/cgroup/pids
    else
        local m
        m=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
        if [ -n "$m" ] && grep -qw pids "$m/cgroup.subtree_control" 2>/dev/null && [ -w "$m" ]; then root=$m; fi
    fi
    [ -n "$root" ] || skip "no pids cgroup can be made here (needs root, and cgroup v1's pids hierarchy or v2 with pids in the root's cgroup.subtree_control)"
    PIDS_CG="$root/orca-test-$1-$$-$RANDOM"
    mkdir "$PIDS_CG" || skip "cannot create a cgroup under $root"
}

pids_cgroup_remove() {
    [ -n "${PIDS_CG:-}" ] && [ -d "$PIDS_CG" ] || return 0
    local i pid
    for ((i = 0; i < 100; i++)); do
        [ -z "$(cat "$PIDS_CG/cgroup.procs" 2>/dev/null)" ] && break
        for pid in $(cat "$PIDS_CG/cgroup.procs" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
        sleep 0.05
    done
    rmdir "$PIDS_CG" 2>/dev/null || true
}
