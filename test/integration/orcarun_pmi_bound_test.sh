#!/bin/bash
# One rank floods the job's PMI data, and no orcad grows without limit
# (issue 19): on 2 simulated nodes (plm/local, no root), rank 0 puts fresh
# keys and enters a collective, over and over, while rank 1 only enters
# the collectives; every orcad keeps (pmi/simple) or hands its PMIx
# library (pmi/pmix) all of the job's data. The job must end with the
# message naming the bound (pmi_base_max_job_bytes / _keys) and the rank
# (pmi/simple) or host (pmi/pmix) whose data passed it, a status other
# than 0, and nothing left behind, while each orcad's peak RSS (VmHWM,
# read from /proc while the job runs) stays under a bound.
#   simple_bytes  PMI-1 on PMI_FD (test/integration/pmi1_flood.py): 4096
#                 puts of 1000 bytes a barrier, bound 16M;
#   simple_keys   the same with 1-byte values and a bound of 10000 keys;
#   simple_within a job that stays under the default bound ends well;
#   pmix_bytes    PMIx_Put + PMIx_Commit + PMIx_Fence collecting the data
#                 (test/integration/pmix_flood, linked with libpmix): 64
#                 puts of 16 KiB a fence, bound 8M (under the sanitizers
#                 4 KiB and 2M). libpmix sends each
#                 node's data so far at every fence, so the job's data
#                 grows by 1, 2, 3 ... MiB a fence.
# Every case prints its figures on a FIGURE line. Only /proc is measured,
# never the wall clock.
#
# By hand: ORCA_TEST_BUILDDIR=BUILD ORCA_TEST_SRCDIR=SRC
# ORCA_MCA_mca_base_help_path=SRC/framework/help bash orcarun_pmi_bound_test.sh [CASE...]
. "$(dirname "$0")/../lib/testcase.sh"

. "$(dirname "$0")/../lib/orcarun.sh"
# For figure and rss_bound_kb (its oob helpers, which need netns.sh, are not used).
. "$(dirname "$0")/../lib/proc_figures.sh"

SUITE=OrcarunPmiBound
PMI1_FLOOD="$ORCA_TEST_SRCDIR/test/integration/pmi1_flood.py"
PMIX_FLOOD="$ORCA_TEST_BUILDDIR/test/integration/pmix_flood"
HOST=$(uname -n)
HOST_RE=$(sed 's/[][\.*^$+?(){}|]/\\&/g' <<<"$HOST")

# --- bounds ----------------------------------------------------------------------------------

# Peak RSS (VmHWM) of each orcad, start-up included. An orcad serving a
# job stays near 10 MiB on its own, or 35 MiB once pmi/pmix's server and
# the ranks' PMIx connections are up (measured: 9 and 32-39 MiB). With
# the job's bound of 16M (pmi/simple) or 8M (pmi/pmix) it keeps at most
# that much data, with each collective's copies in flight (libpmix makes
# its own) and what the allocator keeps of them (measured: 52 and 75 MiB
# for the orcad of the flooding rank, 40 and 55 for the other); 64 MiB
# more than an idle daemon leaves room for that. Without the bound the
# same jobs took them to 390 MiB each (pmi/simple, all 40 barriers), and
# to 580 and 340 MiB (pmi/pmix, before the job hung: a node's fence data
# past 16 MiB cannot be sent).
SIMPLE_RSS_MIB=$((10 + 64))
PMIX_RSS_MIB=$((35 + 64))
# The collectives a flooding rank makes at most: far more than the bound
# lets through, few enough that a build without the bound ends too.
ROUNDS=40

# --- helpers -----------------------------------------------------------------------------------

# sample_peaks: each orcad's VmHWM now, into PEAK_KB[vpid] when higher
# (its pid found once, by the case's marker, into ORCAD[vpid]).
sample_peaks() {
    local v hwm
    for v in 1 2; do
        [ -n "${ORCAD[$v]:-}" ] || ORCAD[$v]=$(orcad_pid "$M" "$v")
        [ -n "${ORCAD[$v]}" ] || continue
        hwm=$(awk '$1 == "VmHWM:" { print $2 }' "/proc/${ORCAD[$v]}/status" 2>/dev/null || true)
        [ -z "$hwm" ] || [ "$hwm" -le "${PEAK_KB[$v]:-0}" ] || PEAK_KB[$v]=$hwm
    done
}

# flood_job NAME ORCARUN-ARGS...: orcarun on 2 simulated nodes, 2 ranks by
# node, in the background, rank 1 lingering (FLOOD_LINGER: it ignores
# SIGTERM, and orcarun kills it 2 s after the job's failure). Samples each
# orcad's VmHWM every 50 ms while the job runs, and once more when orcarun
# said the job passed its bound: the daemons still run then (they wait
# for rank 1), and VmHWM is their peak so far. Sets PEAK_KB[vpid] to each
# orcad's highest VmHWM seen and prints it, then waits for orcarun and
# sets rc.
flood_job() {
    local name=$1; shift
    local_case_setup "pmi-bound-$name"
    mkdir "$T/tmp"
    declare -gA PEAK_KB=() ORCAD=()
    FLOOD_LINGER=1 TMPDIR="$T/tmp" ORCA_TEST_MARKER="$M" orcarun_start "$T/out" "$T/err" \
        --mca plm_local_num_nodes 2 -n 2 --map-by node --mca orcarun_kill_grace 2 "$@"
    local i
    for ((i = 0; i < 1200; i++)); do
        sample_peaks
        if grep -q "over the bound" "$T/err" 2>/dev/null; then
            sample_peaks
            break
        fi
        kill -0 "$ORCARUN_PID" 2>/dev/null || break
        sleep 0.05
    done
    figure "orcad1_hwm_kb=${PEAK_KB[1]:-} orcad2_hwm_kb=${PEAK_KB[2]:-}"
    rc=0
    orcarun_wait 60 || rc=$?
}

# output: what orcarun printed, for messages.
output() {
    echo "--- stdout:"
    tail -n 20 "$T/out"
    echo "--- stderr:"
    tail -n 40 "$T/err"
}

# expect_bound_message REGEX VARIABLE: orcarun failed with the bound's
# message: REGEX (what passed it) and the variable to set.
expect_bound_message() {
    [ "$rc" -ne 0 ] || fail "orcarun exited with status 0 although the job passed the bound:
$(output)"
    # The message wraps: join its lines.
    local text; text=$(tr '\n' ' ' <"$T/err")
    grep -qE -- "$1" <<<"$text" || fail "orcarun did not say /$1/:
$(output)"
    grep -qF -- "--mca $2 " <<<"$text" || fail "orcarun did not name the variable $2 with an example:
$(output)"
}

# expect_rss_under MIB: each orcad was seen, its peak under MIB (the
# sanitizers' allowance added: rss_bound_kb).
expect_rss_under() {
    local bound_kb v; bound_kb=$(rss_bound_kb $(($1 * 1024)))
    for v in 1 2; do
        [ -n "${PEAK_KB[$v]:-}" ] || fail "the orcad of daemon $v was never seen running:
$(output)"
        [ "${PEAK_KB[$v]}" -le "$bound_kb" ] ||
            fail "the orcad of daemon $v reached a peak RSS of $((PEAK_KB[$v] / 1024)) MiB, over $((bound_kb / 1024)) MiB"
    done
}

# --- cases ---------------------------------------------------------------------------------------

simple_bytes() {
    FLOOD_ROUNDS=$ROUNDS flood_job simple --mca pmi_base_max_job_bytes 16M /usr/bin/python3 "$PMI1_FLOOD"
    expect_bound_message "pmi/simple data would reach [0-9]+ bytes with the puts of rank 0 on $HOST_RE#1, over the bound of 16777216 bytes" \
        pmi_base_max_job_bytes
    expect_rss_under "$SIMPLE_RSS_MIB"
    ! grep -q "rank 0 done" "$T/out" || fail "the flooding rank got through every barrier:
$(output)"
    expect_nothing_left "$M" 10
}

simple_keys() {
    FLOOD_ROUNDS=$ROUNDS FLOOD_VALUE_BYTES=1 flood_job keys --mca pmi_base_max_job_keys 10000 \
        /usr/bin/python3 "$PMI1_FLOOD"
    expect_bound_message "pmi/simple data would reach 1228[0-9] keys with the puts of rank 0 on $HOST_RE#1, over the bound of 10000 keys" \
        pmi_base_max_job_keys
    expect_rss_under "$SIMPLE_RSS_MIB"
    expect_nothing_left "$M" 10
}

# Two barriers of 4096 puts (8 MB) are far below the default bound.
simple_within() {
    FLOOD_ROUNDS=2 flood_job within /usr/bin/python3 "$PMI1_FLOOD"
    [ "$rc" -eq 0 ] || fail "a job under the default bound ended with status $rc:
$(output)"
    [ "$(sort "$T/out")" = "flood: rank 0 done
flood: rank 1 done" ] || fail "not every rank got through:
$(output)"
    expect_nothing_left "$M" 10
}

# Under the sanitizers a quarter of the data (4 KiB values, bound 2M): the
# same fences reach the bound, and libpmix's copies of each, made with
# ASan's allocator, took 140 s of a loaded CI instead of 5.
if [ "${ORCA_TEST_SANITIZED:-no}" = yes ]; then
    PMIX_VALUE_BYTES=4096 PMIX_BOUND_MIB=2
else
    PMIX_VALUE_BYTES=16384 PMIX_BOUND_MIB=8
fi

pmix_bytes() {
    [ -x "$PMIX_FLOOD" ] || fail "$PMIX_FLOOD is not built"
    FLOOD_ROUNDS=$ROUNDS FLOOD_VALUE_BYTES=$PMIX_VALUE_BYTES flood_job pmix --mca pmi_base_max_job_bytes "${PMIX_BOUND_MIB}M" "$PMIX_FLOOD"
    expect_bound_message "pmi/pmix data would reach [0-9]+ bytes with the data from the daemon on $HOST_RE#1, over the bound of $((PMIX_BOUND_MIB << 20)) bytes" \
        pmi_base_max_job_bytes
    expect_rss_under "$PMIX_RSS_MIB"
    ! grep -q "rank 0 done" "$T/out" || fail "the flooding rank got through every fence:
$(output)"
    expect_nothing_left "$M" 10
}

CASES=(simple_bytes simple_keys simple_within pmix_bytes)
if [ "$#" -eq 0 ]; then set -- "${CASES[@]}"; fi
for c in "$@"; do FIGURE_CASE=$c run_case "$SUITE.$c" "$c"; done
finish_cases
