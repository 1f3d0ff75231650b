#!/bin/sh
# orcad_startup_probe.sh: stands in for orcad (--mca plm_base_daemon) in
# run-launch-bench.sh's start-up breakdown: it runs the real orcad under
# strace -f with a seccomp filter, so only the few system calls that mark
# orcad's phases stop the process (execve, poll, getdents64, socket,
# connect, clone, exit_group: some 30 calls in all), each with a wall-clock
# time stamp:
#   ORCAD_PROBE_DAEMON  the real orcad program (required)
#   ORCAD_PROBE_DIR     where each daemon writes orcad.<host> (strace -ttt);
#                       <host> is $NETNS_AGENT_HOST (set by netns-rsh-agent),
#                       or the pid when there is none
# Standard input (the bootstrap) passes through to orcad.
set -eu
: "${ORCAD_PROBE_DAEMON:?}" "${ORCAD_PROBE_DIR:?}"
exec strace -f --seccomp-bpf -ttt -o "$ORCAD_PROBE_DIR/orcad.${NETNS_AGENT_HOST:-$$}" \
    -e trace=execve,poll,getdents64,socket,connect,clone,clone3,vfork,exit_group \
    "$ORCAD_PROBE_DAEMON" "$@"
