#!/bin/bash
# orcarun end to end with plm/local (test/lib/orcarun_local.sh): CPU
# binding on this host's real processors. Each rank prints the affinity
# mask it runs with (taskset -p on itself), and it must be what
# --report-bindings said: with --bind-to core, --map-by core, pe=N, under
# `taskset`, and with no binding at all. Maps this host cannot hold and
# malformed options fail with one message and start no rank.
. "$(dirname "$0")/../../lib/orcarun_local.sh"

# The last CPU this test may use (the mask of the suite's own shell).
LAST_CPU=$(taskset -pc $$ | sed 's/.*: //; s/.*[,-]//')

# with_synthetic_hwloc DESCRIPTION CMD...: CMD with hwloc seeing the
# synthetic machine DESCRIPTION. A list in HWLOC_COMPONENTS (the sanitized
# runs set -pci) makes hwloc ignore HWLOC_SYNTHETIC unless the list names
# the synthetic component too.
with_synthetic_hwloc() {
    HWLOC_COMPONENTS="${HWLOC_COMPONENTS:+$HWLOC_COMPONENTS,}synthetic" HWLOC_SYNTHETIC="$1" "${@:2}"
}

# reported_cpus: "RANK CPU CPU..." for each --report-bindings line of stderr.
reported_cpus() { reported_rank_cpus "$T/err"; }

# expect_masks_as_reported COUNT: COUNT ranks ran, and each one's mask is
# the one --report-bindings printed for it.
expect_masks_as_reported() {
    local reported
    reported=$(reported_cpus)
    [ "$(grep -c . <<<"$reported")" -eq "$1" ] || { show_output; fail "expected $1 --report-bindings lines"; }
    if [ "$(rank_cpus "$T/out" | sort)" != "$(sort <<<"$reported")" ]; then
        show_output
        fail "the ranks' own masks are not the ones --report-bindings printed:
$reported"
    fi
}

bind_to_core_as_reported() {
    setup
    orc -n "$CORES" --bind-to core --report-bindings sh -c "$MASK_COMMAND"
    expect_status 0
    expect_masks_as_reported "$CORES"
    # One core each, in order: rank 0 on the first CPU this host lets it use.
    expect_match err "^orcarun: rank 0 on $HOST_RE \(daemon 1\): bound to core 0 \(CPUs [0-9]+\): \[B"
    done_case
}

# --map-by core binds to the core without --bind-to (as mpirun); an
# explicit --bind-to none leaves the rank on every CPU.
map_by_core_binds_to_the_core() {
    setup
    orc -n 1 --map-by core --report-bindings sh -c "$MASK_COMMAND"
    expect_status 0
    expect_masks_as_reported 1
    expect_match err "bound to core 0 "
    orc -n 1 --map-by core --bind-to none --report-bindings sh -c "$MASK_COMMAND"
    expect_status 0
    expect_match err "^orcarun: rank 0 on $HOST_RE \(daemon 1\): not bound \(CPUs [0-9,-]+\)$"
    expect_masks_as_reported 1
    done_case
}

# Every other resource of --map-by, with and without its modifiers, and
# --rank-by over a resource map: each rank's own mask is the one
# --report-bindings printed, and the binding is the one the map implies.
every_map_form_as_reported() {
    setup
    local form bound
    while IFS='|' read -r form bound; do
        # shellcheck disable=SC2086
        orc --mca plm_local_num_nodes 2 -N 1 $form --report-bindings sh -c "$MASK_COMMAND"
        expect_status 0
        expect_masks_as_reported 2
        expect_match err "^orcarun: rank 1 on $HOST_RE#2 \(daemon 2\): $bound"
    done <<'FORMS'
--map-by hwthread|bound to hwthread 
--map-by numa|bound to numa 0 
--map-by package|bound to package 0 
--map-by socket:oversubscribe|bound to package 0 
--map-by core --rank-by node|bound to core 0 
--map-by numa --bind-to core|bound to core 0 
--map-by hwthread --bind-to none|not bound 
FORMS
    done_case
}

# Without any option nothing is bound, and the daemon loads no hwloc.
no_binding_by_default() {
    setup
    orc -n 1 --report-bindings sh -c "$MASK_COMMAND"
    expect_status 0
    expect_match err "not bound"
    expect_masks_as_reported 1
    [ "$(rank_cpus "$T/out")" = "0 $(cpu_words "$(taskset -pc $$ | sed 's/.*: //')")" ] ||
        fail "the rank's mask is not this shell's"
    done_case
}

# Under taskset the daemon may use one CPU: the rank is bound within it,
# and a second rank that would need another core is refused before any
# rank starts.
within_the_daemons_cpus() {
    setup
    taskset -c "$LAST_CPU" true || skip "taskset cannot bind here"
    local cmd=(taskset -c "$LAST_CPU")
    ORCA_TEST_MARKER="$M" orcarun_env "${cmd[@]}" timeout -k 5 120 "$ORCARUN" -n 1 --bind-to core --report-bindings \
        sh -c "$MASK_COMMAND" >"$T/out" 2>"$T/err" </dev/null && status=0 || status=$?
    expect_status 0
    expect_stdout "0 $LAST_CPU"
    expect_masks_as_reported 1
    ORCA_TEST_MARKER="$M" orcarun_env "${cmd[@]}" timeout -k 5 120 "$ORCARUN" -n 2 --oversubscribe --bind-to core \
        sh -c 'touch "$0/rank.$ORCA_RANK"' "$T" >"$T/out" 2>"$T/err" </dev/null && status=0 || status=$?
    # --oversubscribe lets two ranks share the one core.
    expect_status 0
    ORCA_TEST_MARKER="$M" orcarun_env "${cmd[@]}" timeout -k 5 120 "$ORCARUN" -n 2 --host "$HOST:2" --bind-to core \
        sh -c 'touch "$0/refused.$ORCA_RANK"' "$T" >"$T/out" 2>"$T/err" </dev/null && status=0 || status=$?
    expect_failure
    expect_text err "host $HOST cannot hold its 2 ranks at 1 of its cores each: it
has 1 cores its daemon may use, in 1 node(s)"
    [ -z "$(ls "$T" | grep refused)" ] || fail "a rank started although the map was refused"
    done_case
}

# hwloc sees a machine of 16 cores (HWLOC_SYNTHETIC), but the daemon may
# use only this host's CPUs: a binding beyond them is refused, naming
# what it has.
binding_beyond_the_allocation() {
    setup
    with_synthetic_hwloc "core:16 pu:1" orc -n 8 --host "$HOST:8" --bind-to core sh -c 'touch "$0/rank.$ORCA_RANK"' "$T"
    expect_failure
    expect_text err "host $HOST cannot hold its 8 ranks at 1 of its cores each"
    expect_match err "has [0-9]+ cores its daemon may use"
    [ ! -e "$T/rank.0" ] || fail "a rank started although the map was refused"
    done_case
}

# pe=N: N cores a rank, and OMP_NUM_THREADS=N unless the user set it.
cpus_per_rank_sets_the_thread_hint() {
    setup
    [ "$CORES" -ge 2 ] || skip "pe=2 needs 2 cores"
    orc -n 1 --cpus-per-rank 2 --report-bindings sh -c 'echo "threads $OMP_NUM_THREADS"; '"$MASK_COMMAND"
    expect_status 0
    expect_line out "threads 2"
    expect_match err "bound to core 0-1 "
    grep -v threads "$T/out" >"$T/masks"
    [ "$(rank_cpus "$T/masks")" = "$(reported_cpus)" ] || { show_output; fail "the rank's mask is not the reported one"; }
    orc -n 1 --map-by core:pe=2 -x OMP_NUM_THREADS=7 sh -c 'echo "threads $OMP_NUM_THREADS"'
    expect_status 0
    expect_stdout "threads 7"
    done_case
}

# Simulated nodes share this host's cores: each node places its own ranks
# from its first core, which is why nothing is bound by default.
simulated_nodes_each_from_their_first_core() {
    setup
    orc --mca plm_local_num_nodes 2 -N 1 --bind-to core --report-bindings sh -c "$MASK_COMMAND"
    expect_status 0
    expect_masks_as_reported 2
    expect_match err "^orcarun: rank 0 on $HOST_RE#1 \(daemon 1\): bound to core 0 "
    expect_match err "^orcarun: rank 1 on $HOST_RE#2 \(daemon 2\): bound to core 0 "
    done_case
}

# --map-by ppr:N:RESOURCE: the map is made from what each daemon reports
# of its processors, printed (--display-map) before any rank starts, and
# each rank runs where --report-bindings says. ppr:1:core on 2 simulated
# nodes: one rank a core on each, local rank k on core k. A synthetic
# machine of 2 packages of one CPU each (CPUs 0 and 1, this host's):
# ppr:1:package binds rank 0 to CPU 0 and rank 1 to CPU 1. A job beyond
# what the objects hold, or far too large for this host, is refused before
# any rank starts.
ranks_per_object() {
    setup
    orc --mca plm_local_num_nodes 2 --map-by ppr:1:core --display-map --report-bindings sh -c "$MASK_COMMAND"
    expect_status 0
    local n
    n=$(grep -c '^orcarun: rank ' "$T/err")
    [ "$n" -ge 2 ] && [ $((n % 2)) -eq 0 ] || { show_output; fail "expected one rank a core on each of 2 nodes"; }
    expect_masks_as_reported "$n"
    expect_line err "orcarun: map of $n ranks on 2 hosts (--map-by ppr:1:core):"
    expect_match err "^  $HOST_RE#2 \([0-9]+ slots?\): ranks? $((n / 2))(-$((n - 1)))?$"
    expect_match err "^orcarun: rank $((n / 2)) on $HOST_RE#2 \(daemon 2\): bound to core 0 "
    orc --map-by ppr:1:core -n $((n + 1)) sh -c 'touch "$0/rank.$ORCA_RANK"' "$T"
    expect_failure
    expect_text err "-n $((n + 1)) asks for more processes than --map-by ppr:1:core on 1 host(s) can hold"
    [ ! -e "$T/rank.0" ] || fail "a rank started although the map was refused"
    # A ppr far too large for this host is refused once its size is known,
    # before any rank starts: a million ranks a core need more task ids or
    # memory than there are (or, on a host of many cores, more ranks than
    # one job may have).
    orc --map-by ppr:1048576:core --oversubscribe sh -c 'touch "$0/rank.$ORCA_RANK"' "$T"
    expect_status 1
    expect_match err "^orcarun: (the job cannot fit this host: 1 daemon \(1 on this host, with [0-9]+ ranks there\).* need [0-9]+ where (kernel\.pid_max|kernel\.threads-max|the memory available)|the job would have [0-9]+ processes \(from --map-by ppr:1048576:core\))"
    [ ! -e "$T/rank.0" ] || fail "a rank started although the job could not fit"
    if grep -q "cannot fit this host" "$T/err"; then
        expect_match err "^No rank was started; the daemons end\. To run it, "
    fi
    [ "$LAST_CPU" -ge 1 ] && taskset -pc $$ | grep -qE ': 0[-,]' || skip "the synthetic case needs CPUs 0 and 1"
    with_synthetic_hwloc "package:2 core:1 pu:1" orc --map-by ppr:1:package --report-bindings sh -c "$MASK_COMMAND"
    expect_status 0
    expect_masks_as_reported 2
    expect_match err "^orcarun: rank 1 on $HOST_RE \(daemon 1\): bound to package 1 \(CPUs 1\): \[\.\]\[B\]$"
    done_case
}

# Malformed values: one message each, and no daemon starts.
bad_binding_options() {
    setup
    local args
    while IFS='|' read -r args expected; do
        # shellcheck disable=SC2086
        orc $args true
        expect_failure
        expect_text err "$expected"
        [ ! -s "$T/out" ] || fail "orcarun $args printed on stdout"
    done <<'CASES'
--map-by core:pe=0 -n 1|"0" is not a number of CPUs per rank from 1 to 4096
--cpus-per-rank 2 --map-by core:pe=3 -n 1|CPUs per rank were given as 2 already; give one count
--map-by numa:bogus -n 1|"bogus" is none of the modifiers pe=N, span and oversubscribe
--map-by board -n 1|"board" is none of slot, node, hwthread, core, numa, package and ppr:N:RESOURCE
--bind-to banana -n 1|it takes none, hwthread, core, numa or package (socket)
--bind-to core:overload-allowed -n 1|without modifiers
--map-by ppr:2:board -n 1|"board" is none of node, hwthread, core, numa and package (socket)
--map-by ppr:0:core -n 1|"0" is not a number of ranks from 1 to
--map-by ppr:2 -n 1|ppr takes a count and a resource
-N 2 --map-by ppr:1:core|are two mappings; give one
CASES
    done_case
}

CASES=(bind_to_core_as_reported map_by_core_binds_to_the_core every_map_form_as_reported no_binding_by_default within_the_daemons_cpus
       binding_beyond_the_allocation cpus_per_rank_sets_the_thread_hint simulated_nodes_each_from_their_first_core
       ranks_per_object bad_binding_options)

# Arguments, if any, name the cases to run (by hand: bash orcarun_binding_test.sh CASE...).
run_orcarun_suite "$@"
