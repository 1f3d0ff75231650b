#!/bin/bash
# A live job under attack: orcarun in host h1 runs a job on h2, h3 and h4
# (simulated hosts: network namespaces built with contrib/netcluster,
# plm/rsh through `netcluster exec`) whose ranks wait for a file the test
# writes once an attack is over. Meanwhile an attacker on h4
# (test/integration/oob_attack.py, from 16 extra addresses of h4 so that
# the total cap on connections in their handshake is reached, not only
# the per-source one) hits the oob/tcp listeners of orcarun (on h1) and of
# h2's orcad at once, with one attack per case. After each: the job ends
# with the right output and status 0 and leaves nothing behind; each
# attacked process's descriptors return to what they were before the
# attack (the listener closes what it holds by itself, while the attacker
# still holds its end); its peak RSS and the CPU time it spent stay under
# the bounds below. Every case prints its figures on "FIGURE" lines. Only
# /proc is measured, never the wall clock. Needs root.
#
# By hand, against another build: ORCA_TEST_BUILDDIR=BUILD ORCA_TEST_SRCDIR=SRC
# ORCA_MCA_mca_base_help_path=SRC/framework/help bash orcarun_hostile_test.sh [CASE...]
# (ORCA_HOSTILE_ORCARUN_ARGS="--mca oob_base_verbose 10", say, adds options
# to the job's orcarun; a failing case shows orcarun's stderr.)
. "$(dirname "$0")/../lib/testcase.sh"
. "$(dirname "$0")/../lib/netns.sh"
. "$(dirname "$0")/../lib/orcarun.sh"
. "$(dirname "$0")/../lib/proc_figures.sh"

OOB_ATTACK="$(cd "$(dirname "$0")" && pwd)/oob_attack.py"

# --- bounds ----------------------------------------------------------------------------------

# oob_tcp_handshake_timeout for the job (default 5000 ms): how long a
# connection that has not proven the secret is held. Short, so that what
# an attack leaves open is closed soon; long enough for the daemons' own
# handshakes, done before any attack starts, on a loaded 2-core machine.
HANDSHAKE_MS=2000
# How often (every 0.1 s) the descriptors are read until they are back at
# their baseline: 100 tries, 10 s, five handshake timeouts.
FD_SETTLE_TRIES=100
# Peak RSS (VmHWM) of orcarun or orcad, start-up included. Either stays
# near 10 MiB on its own (measured: 9.1 MiB before, 10.0 MiB peak with 256
# connections held); a connection in its handshake costs about 2 KiB (a
# 1 KiB read buffer and its state; the kernel's socket is not counted), and
# at most oob_tcp_max_pending (256) of them exist at once. 32 MiB leaves
# room for the allocator, and catches any cost that stays per attempt:
# 20,000 HELLOs that each kept 1 KiB would add 20 MiB.
RSS_BOUND_MIB=32
# CPU time (utime + stime) the attacked process spends from the start of
# an attack until its descriptors are back. Accepting a connection,
# answering its HELLO (a nonce and two HMACs) and closing it costs about
# 30 us (measured: 0.56 s for 20,000); the bound allows 150 us per
# connection, plus 500 ms for the job's heartbeats and the accept loop's
# wakeups around it. A process that spins, or that pays per byte claimed
# rather than per byte received, exceeds it by far.
CPU_BASE_MS=500
CPU_US_PER_CONNECTION=150
# Under ASan and UBSan (configure --enable-sanitizers) every allocation
# carries redzones and the shadow memory is resident, so RSS starts near
# 50 MiB, and instrumented code runs 2-5 times slower: the RSS bound is
# three times as large plus twice the quarantine, the CPU bounds four
# times. Freed memory waits in ASan's quarantine (256 MiB by default), so
# RSS follows what was freed, not what is live: 20,000 HELLOs free some
# 180 MiB. The job's processes get a quarantine of ASAN_QUARANTINE_MIB,
# which still catches a use after free of anything freed moments before
# and keeps the bound meaningful; with it the peak levels off at 106 MiB
# (the same after 40,000 HELLOs as after 20,000): the quarantine, and the
# allocator's caches of what it recycled from there.
ASAN_QUARANTINE_MIB=32
if [ "${ORCA_TEST_SANITIZED:-no}" = yes ]; then
    RSS_BOUND_MIB=$((RSS_BOUND_MIB * 3 + 2 * ASAN_QUARANTINE_MIB))
    CPU_BASE_MS=$((CPU_BASE_MS * 4))
    CPU_US_PER_CONNECTION=$((CPU_US_PER_CONNECTION * 4))
fi

# --- the job -----------------------------------------------------------------------------------

# Each rank says it started (a file per rank), waits for the release file
# ($0), and prints one line naming its rank and host.
RANK_SCRIPT='touch "$0.started.$ORCA_RANK"; while [ ! -e "$0" ]; do sleep 0.05; done; echo "rank $ORCA_RANK released in $(ip netns identify)"'
# The attacker's 16 extra addresses on h4 (-s: a comma list).
ATTACK_SOURCES=$(seq -s, -f '10.200.0.%g' 101 116)

# hostile_job: a 4-host cluster, the attacker's addresses on h4, and the
# job, up and waiting; sets P (the prefix), and per target (orcarun on h1,
# orcad on h2) T_PID, T_ADDR, T_PORT and T_NAME (its process name), keyed
# by "orcarun" and "orcad".
hostile_job() {
    P=$(new_cluster --hosts 4)
    local a
    for a in ${ATTACK_SOURCES//,/ }; do in_host "$P" h4 ip addr add "$a/24" dev eth0; done
    run_dir
    declare -gA T_PID=() T_ADDR=() T_PORT=() T_NAME=() _attackers=()
    local asan=${ASAN_OPTIONS:-}
    [ "${ORCA_TEST_SANITIZED:-no}" != yes ] || asan+="${asan:+:}quarantine_size_mb=$ASAN_QUARANTINE_MIB"
    ASAN_OPTIONS=$asan orun_start job "$P" h1 --mca plm_rsh_agent "$(agent "$P")" --mca oob_tcp_handshake_timeout "$HANDSHAKE_MS" \
        ${ORCA_HOSTILE_ORCARUN_ARGS:-} --host h2,h3,h4 -n 3 --map-by node sh -c "$RANK_SCRIPT" "$RUN_DIR/release"
    local i r
    for ((i = 0; i < 600; i++)); do
        [ -e "$RUN_DIR/release.started.0" ] && [ -e "$RUN_DIR/release.started.1" ] &&
            [ -e "$RUN_DIR/release.started.2" ] && break
        kill -0 "${_run_jobs[job]}" 2>/dev/null || break
        sleep 0.05
    done
    for r in 0 1 2; do
        [ -e "$RUN_DIR/release.started.$r" ] || fail "rank $r never started:
$(orun_output job)"
    done
    T_PID[orcarun]=$(orun_pid job)
    T_ADDR[orcarun]=10.200.0.1
    T_PID[orcad]=$(orcad_in "$P" h2)
    T_ADDR[orcad]=10.200.0.2
    local t
    for t in orcarun orcad; do
        T_PORT[$t]=$(proc_listen_port "${T_PID[$t]}" "${T_ADDR[$t]}")
        [ -n "${T_PORT[$t]}" ] || fail "$t (pid ${T_PID[$t]}) has no TCP listener on ${T_ADDR[$t]}:
$(in_host "$P" "$([ $t = orcarun ] && echo h1 || echo h2)" ss -Hltnp)"
        T_NAME[$t]=$(oob_name_of "${T_PID[$t]}")
        [ -n "${T_NAME[$t]}" ] || fail "cannot tell the process name of $t (pid ${T_PID[$t]}) from its usock listener"
    done
}

# oob_name_of PID: the process name (JOB.VPID) of an Orca process, from
# the name of its usock listener (@orca/JOB.VPID/PID/...) in its network
# namespace.
oob_name_of() {
    sed -nE "s|.*@orca/([0-9]+\.[0-9]+)/$1/.*|\1|p" "/proc/$1/net/unix" 2>/dev/null | head -1
}

# fds_steady PID: the descriptor count once two readings 0.2 s apart agree.
fds_steady() {
    local a b i
    a=$(proc_fd_count "$1")
    for ((i = 0; i < 25; i++)); do
        sleep 0.2
        b=$(proc_fd_count "$1")
        [ "$a" = "$b" ] && break
        a=$b
    done
    echo "$b"
}

# measure_start: the baseline of both targets (descriptors, CPU time).
measure_start() {
    declare -gA M_FD0=() M_FDMAX=() M_CPU0=() M_RSS0=()
    local t
    for t in orcarun orcad; do
        M_FD0[$t]=$(fds_steady "${T_PID[$t]}")
        M_FDMAX[$t]=${M_FD0[$t]}
        M_RSS0[$t]=$(proc_rss_kb "${T_PID[$t]}")
        M_CPU0[$t]=$(proc_cpu_ms "${T_PID[$t]}")
    done
}

# sample_fds: notes the largest descriptor count of each target so far.
sample_fds() {
    local t n
    for t in orcarun orcad; do
        n=$(proc_fd_count "${T_PID[$t]}")
        [ "$n" -le "${M_FDMAX[$t]}" ] || M_FDMAX[$t]=$n
    done
}

# attack NAME SUBCOMMAND ARGS...: oob_attack.py SUBCOMMAND against both
# targets at once, from h4, in the background (output in
# $RUN_DIR/NAME.TARGET.att). In ARGS, @TO@ stands for the target's process
# name and @JOB@ for its job id.
attack() {
    local name=$1 sub=$2 t a; shift 2
    for t in orcarun orcad; do
        local args=()
        for a in "$@"; do
            a=${a//@TO@/${T_NAME[$t]}}
            args+=("${a//@JOB@/${T_NAME[$t]%%.*}}")
        done
        "$NETCLUSTER" exec "$P" h4 python3 "$OOB_ATTACK" "$sub" "${T_ADDR[$t]}" "${T_PORT[$t]}" "${args[@]}" \
            >"$RUN_DIR/$name.$t.att" 2>&1 &
        _attackers[$name.$t]=$!
    done
}

# attack_line NAME REGEX [SECONDS]: waits (default 60 s; a hang guard)
# until both attackers NAME printed a line matching REGEX, sampling the
# targets' descriptors meanwhile; sets LINE[orcarun] and LINE[orcad].
attack_line() {
    local name=$1 re=$2 limit=${3:-60} i t done
    declare -gA LINE=()
    for ((i = 0; i < limit * 20; i++)); do
        sample_fds
        done=1
        for t in orcarun orcad; do grep -qE -- "$re" "$RUN_DIR/$name.$t.att" 2>/dev/null || done=0; done
        [ $done = 1 ] && break
        sleep 0.05
    done
    for t in orcarun orcad; do
        LINE[$t]=$(grep -E -- "$re" "$RUN_DIR/$name.$t.att" 2>/dev/null | tail -1)
        [ -n "${LINE[$t]}" ] || fail "the attacker $name of $t printed no line matching /$re/:
$(cat "$RUN_DIR/$name.$t.att")"
    done
}

# attack_end NAME: releases the attackers NAME (if they hold) and waits for them.
attack_end() {
    local t
    touch "$RUN_DIR/$1.hold"
    for t in orcarun orcad; do wait "${_attackers[$1.$t]}" 2>/dev/null || true; done
}

# hold_args NAME: the attacker options that hold until attack_end NAME.
hold_args() { echo "--hold-file $RUN_DIR/$1.hold --hold 60"; }

# field TEXT KEY: the value of KEY=VALUE in TEXT.
field() { sed -nE "s/.*(^| )$2=([^ ]*).*/\2/p" <<<"$1"; }

# mib KB: kB as MiB with one decimal.
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

# measure_end CONNECTIONS: waits until both targets' descriptors are back
# at their baseline (at most FD_SETTLE_TRIES readings), reads their CPU
# time and peak RSS, prints the figures and checks the bounds for an
# attack of CONNECTIONS connections per target. Call it while the
# attackers still hold their connections: the listeners must let go by
# themselves.
measure_end() {
    local n=$1 t i fd1 cpu hwm bad=
    local cpu_bound=$((CPU_BASE_MS + n * CPU_US_PER_CONNECTION / 1000))
    for t in orcarun orcad; do
        for ((i = 0; i < FD_SETTLE_TRIES; i++)); do
            fd1=$(proc_fd_count "${T_PID[$t]}")
            [ "$fd1" -le "${M_FD0[$t]}" ] && break
            sleep 0.1
        done
        cpu=$(($(proc_cpu_ms "${T_PID[$t]}") - M_CPU0[$t]))
        hwm=$(proc_hwm_kb "${T_PID[$t]}")
        figure "$t: fds ${M_FD0[$t]} -> ${M_FDMAX[$t]} -> $fd1 (after $i readings, bound $FD_SETTLE_TRIES)," \
            "RSS $(mib "${M_RSS0[$t]}") MiB, peak $(mib "$hwm") MiB (bound $RSS_BOUND_MIB)," \
            "CPU $(awk -v m="$cpu" 'BEGIN { printf "%.2f", m / 1000 }') s (bound $(awk -v m="$cpu_bound" 'BEGIN { printf "%.2f", m / 1000 }'))"
        [ "$fd1" -le "${M_FD0[$t]}" ] ||
            bad+="
$t still has $fd1 descriptors open, not ${M_FD0[$t]}, $((FD_SETTLE_TRIES / 10)) s after the attack:
$(ls -l "/proc/${T_PID[$t]}/fd" 2>/dev/null | tail -n +2 | awk '{ print $NF }' | sort | uniq -c | sort -rn | head -5)"
        [ "$hwm" -le $((RSS_BOUND_MIB * 1024)) ] || bad+="
$t's peak RSS is $(mib "$hwm") MiB, above $RSS_BOUND_MIB MiB"
        [ "$cpu" -le "$cpu_bound" ] || bad+="
$t spent $cpu ms of CPU on the attack, above $cpu_bound ms"
    done
    [ -z "$bad" ] || fail "$bad
$(orun_output job)"
}

# finish_job: releases the ranks; the job must end with status 0, every
# rank's line, no sanitizer report, and nothing left in the hosts.
finish_job() {
    touch "$RUN_DIR/release"
    local rc=0
    orun_wait job 60 || rc=$?
    expect_ok job $rc
    expect_stdout job "rank 0 released in $P-h2
rank 1 released in $P-h3
rank 2 released in $P-h4"
    ! grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$RUN_DIR/job.err" ||
        fail "a sanitizer report:
$(orun_output job)"
    figure "job: status 0, $(wc -l <"$RUN_DIR/job.out") lines, $(wc -l <"$RUN_DIR/job.err") lines on stderr"
    expect_clean "$P" h1 h2 h3 h4
}

# --- the attacks -------------------------------------------------------------------------------

# a) 1,000 connections opened and held, sending nothing: the listener
# holds at most the 192 handshake slots strangers share
# (oob_tcp_max_pending - oob_tcp_pending_reserve): each one beyond takes
# the slot of the oldest of the source holding the most, which is closed
# at once; the ones it holds close when the handshake timeout passes.
idle_connections() { thousand_connections idle none; }

# b) 1,000 connections that each send 1 to 2048 random bytes: nearly
# every one is closed at its first header (an unknown frame type, reserved
# bytes set); the few shorter than a header wait for the timeout.
random_bytes() { thousand_connections noise random; }

# thousand_connections NAME WHAT: 1,000 connections, each sending WHAT
# (oob_attack.py connect --what), held until the attack ends.
thousand_connections() {
    local name=$1 what=$2 t
    hostile_job
    measure_start
    attack "$name" connect --count 1000 --what "$what" --sources "$ATTACK_SOURCES" --settle 0.5 $(hold_args "$name")
    attack_line "$name" '^READY'
    for t in orcarun orcad; do
        figure "$t: attacker: ${LINE[$t]}"
        [ "$(field "${LINE[$t]}" opened)" -ge 900 ] || fail "fewer than 900 of 1000 connections to $t connected: ${LINE[$t]}"
    done
    measure_end 1000
    attack_end "$name"
    finish_job
}

# c) Clients that stop in the middle of the handshake (a valid HELLO and,
# after the CHALLENGE, nothing; half a header; a header and half a HELLO):
# the handshake timeout closes every one while the attacker holds it.
stalled_handshakes() {
    hostile_job
    measure_start
    attack stall halfway --to @TO@ --count 30 --sources "$ATTACK_SOURCES" --settle 0.2 $(hold_args stall)
    attack_line stall '^READY'
    local t
    for t in orcarun orcad; do
        figure "$t: attacker: ${LINE[$t]}"
        [ "$(field "${LINE[$t]}" opened)" = 30 ] && [ "$(field "${LINE[$t]}" challenged)" = 10 ] ||
            fail "not every stalled client of $t got as far as planned: ${LINE[$t]}"
    done
    measure_end 30
    attack_end stall
    attack_line stall '^RELEASED'
    for t in orcarun orcad; do
        [ "$(field "${LINE[$t]}" closed_by_listener)" = 30 ] ||
            fail "$t closed only $(field "${LINE[$t]}" closed_by_listener) of 30 stalled handshakes by itself: ${LINE[$t]}"
    done
    finish_job
}

# d) The right protocol with the wrong key, 200 full attempts one after
# another: each is refused as a wrong key and closed.
wrong_key() {
    hostile_job
    measure_start
    attack wrongkey wrongkey --to @TO@ --count 200 --sources "$ATTACK_SOURCES"
    attack_line wrongkey '^WRONGKEY'
    local t
    for t in orcarun orcad; do
        figure "$t: attacker: ${LINE[$t]}"
        [ "$(field "${LINE[$t]}" refused_badkey)" = 200 ] ||
            fail "not every wrong-key handshake with $t was refused as such: ${LINE[$t]}"
    done
    measure_end 200
    attack_end wrongkey
    finish_job
}

# e) Headers claiming 4 GiB (4 GiB - 1, the most a frame's 32-bit length
# can say): a Data frame before any handshake, and a HELLO that large.
# Both are closed at their header, before a byte is allocated for them.
huge_headers() {
    hostile_job
    measure_start
    attack data connect --count 16 --what header --length 4294967295 --sources "$ATTACK_SOURCES" --settle 0.5 \
        $(hold_args data)
    attack hello connect --count 16 --what hello-header --length 4294967295 --sources "$ATTACK_SOURCES" --settle 0.5 \
        $(hold_args hello)
    local t name
    for name in data hello; do
        attack_line "$name" '^READY'
        for t in orcarun orcad; do
            figure "$t: attacker ($name header): ${LINE[$t]}"
            [ "$(field "${LINE[$t]}" opened)" = 16 ] && [ "$(field "${LINE[$t]}" closed)" = 16 ] ||
                fail "$t did not close every connection at its 4 GiB $name header at once: ${LINE[$t]}"
        done
    done
    measure_end 32
    attack_end data
    attack_end hello
    finish_job
}

# f) 20,000 HELLOs, each from another name (job.1000 ... job.20999) and
# each on its own connection, 16 at a time: each is challenged, and none
# leaves state behind (the server never inserts the name it is told).
many_hellos() {
    hostile_job
    measure_start
    attack hellos hellos --to @TO@ --job @JOB@ --count 20000 --parallel 16 --first-vpid 1000 --version 3
    attack_line hellos '^HELLOS' 120
    local t
    for t in orcarun orcad; do
        figure "$t: attacker: ${LINE[$t]}"
        [ "$(field "${LINE[$t]}" sent)" -ge 19000 ] || fail "fewer than 19,000 HELLOs reached $t: ${LINE[$t]}"
        [ "$(field "${LINE[$t]}" challenged)" -ge 19000 ] || fail "fewer than 19,000 of the HELLOs to $t were challenged: ${LINE[$t]}"
    done
    measure_end 20000
    attack_end hellos
    finish_job
}

CASES=(idle_connections random_bytes stalled_handshakes wrong_key huge_headers many_hellos)

# Arguments, if any, name the cases to run (by hand: bash orcarun_hostile_test.sh CASE...).
[ $# -eq 0 ] || CASES=("$@")
skip_cases_when_sanitized OrcarunHostile "oob_hostile_test makes the same attacks on the oob (headers, handshakes, names, a thousand sockets) under the sanitizers; these bounds are the installed build's own figures" "${CASES[@]}"

run_netns_suite OrcarunHostile python3
