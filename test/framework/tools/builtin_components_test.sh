#!/bin/bash
# The components built into orcarun and orcad (configure
# --enable-builtin-components, the default): neither program needs a
# shared object of the build, both take the components linked into them
# and never open those files, and a component built outside the tree,
# against the installed headers only, still loads into orcarun and every
# daemon from the component path. In a build with
# --disable-builtin-components the same job runs on the files, as before.
. "$(dirname "$0")/../../lib/testcase.sh"
. "$(dirname "$0")/../../lib/orcarun.sh"

BUILTIN=0
if builtin_components_configured; then BUILTIN=1; fi

setup() { local_case_setup builtin-components-test; }

# job ARGS...: a two-node plm/local job of `hostname`, mca verbose, with
# ARGS before the command; stdout in $T/out, stderr in $T/err.
job() {
    local status=0
    ORCA_TEST_MARKER="$M" run_orcarun "$T/out" "$T/err" --mca plm_local_num_nodes 2 \
        --mca mca_base_verbose 1 "$@" -n 2 hostname || status=$?
    if [ "$status" -ne 0 ]; then
        cat "$T/err" >&2
        fail "orcarun failed with status $status"
    fi
    [ "$(sort -u "$T/out")" = "$(uname -n)" ] || { cat "$T/out" >&2; fail "the ranks did not print this host's name"; }
    [ "$(wc -l <"$T/out")" -eq 2 ] || fail "expected 2 lines of output"
}

# daemon_lines PATTERN: how many of the daemons' (not orcarun's) log lines
# match the extended PATTERN; orcarun_lines PATTERN: how many of orcarun's.
daemon_lines() {
    grep -E '^\[orcad [^]]*\] \[orcad:[0-9]+\] mca: ' "$T/err" | grep -cE -- "$1" || true
}
orcarun_lines() {
    grep -E '^\[orcarun:[0-9]+\] mca: ' "$T/err" | grep -cE -- "$1" || true
}

case_links_no_library_of_the_build() {
    [ "$BUILTIN" = 1 ] || skip "configured with --disable-builtin-components"
    local program libs
    for program in "$ORCARUN" "$ORCAD"; do
        libs=$(ldd "$program") || fail "ldd $program failed"
        # libm too: every daemon's exec would map it for one libstdc++ routine.
        if grep -E 'liborca|libstdc\+\+|libgcc_s|libm\.so' <<<"$libs"; then
            fail "$program still needs the shared objects above"
        fi
        grep -q 'libevent_core' <<<"$libs" ||
            fail "$program should share libevent with the components (event bases cross their ABI): $libs"
    done
}

case_programs_take_their_builtins_and_leave_the_files() {
    setup
    job
    if [ "$BUILTIN" = 1 ]; then
        [ "$(daemon_lines 'loaded component oob/tcp [0-9.]+ from \(built in\) oob/tcp$')" -eq 2 ] ||
            { cat "$T/err" >&2; fail "each daemon should take oob/tcp built in"; }
        [ "$(orcarun_lines 'loaded component plm/local [0-9.]+ from \(built in\) plm/local$')" -eq 1 ] ||
            { cat "$T/err" >&2; fail "orcarun should take plm/local built in"; }
        [ "$(orcarun_lines "skipped .*/mca_plm_local\.so: it is shadowed by the component built into this program$")" -eq 1 ] ||
            { cat "$T/err" >&2; fail "orcarun should leave mca_plm_local.so unopened"; }
        [ "$(daemon_lines "skipped .*/mca_oob_tcp\.so: it is shadowed by the component built into this program$")" -eq 2 ] ||
            { cat "$T/err" >&2; fail "each daemon should leave mca_oob_tcp.so unopened"; }
        [ "$(daemon_lines 'from /.*\.so$')" -eq 0 ] ||
            { cat "$T/err" >&2; fail "a daemon of a hostname job loaded a component file"; }
    else
        [ "$(daemon_lines 'loaded component oob/tcp [0-9.]+ from /.*/mca_oob_tcp\.so$')" -eq 2 ] ||
            { cat "$T/err" >&2; fail "each daemon should load oob/tcp from its file"; }
        [ "$(daemon_lines 'built in')" -eq 0 ] && [ "$(orcarun_lines 'built in')" -eq 0 ] ||
            fail "without built-in components a program said it had one"
    fi
    done_case
}

# pmi/pmix opens libpmix only when a daemon starts a PMIx server: orcarun,
# which loads every component for its variables, never maps it, nor (with
# built-in components) liborca or libstdc++; a daemon of a job with a
# PMIx server does map it, and serves it (the ranks find its directory).
case_libpmix_is_mapped_only_where_a_server_runs() {
    setup
    ORCA_TEST_MARKER="$M" orcarun_start "$T/out" "$T/err" --mca plm_local_num_nodes 2 \
        --mca orcarun_pmix_server always -n 2 sh -c 'test -n "$PMIX_SERVER_URI41$PMIX_SERVER_URI4$PMIX_SERVER_URI3" && exec sleep 30'
    # The rank becomes `sleep` only once it found its PMIx server.
    local daemon; daemon=$(daemon_running sleep)
    [ -n "$daemon" ] || { cat "$T/err" >&2; fail "no orcad with a rank that found its PMIx server was seen"; }
    local launcher_maps daemon_maps
    launcher_maps=$(shared_objects_of "$ORCARUN_PID")
    daemon_maps=$(shared_objects_of "$daemon")
    kill -INT "$ORCARUN_PID"
    orcarun_wait 30 || true
    ! grep -E '/lib(pmix|munge)\.' <<<"$launcher_maps" || fail "orcarun mapped libpmix, which it never calls"
    grep -q '/libpmix\.' <<<"$daemon_maps" || fail "the daemon of a PMIx job did not map libpmix:
$daemon_maps"
    if [ "$BUILTIN" = 1 ]; then
        ! grep -E '/(liborca|libstdc\+\+)\.' <<<"$launcher_maps$daemon_maps" ||
            fail "a program with built-in components mapped a library of the build"
    fi
    done_case
}

# orca_info, which loads the files, says which components orcarun and
# orcad carry instead, all of them; in a build without, it says nothing.
case_orca_info_names_them() {
    setup
    local out line
    out=$(orcarun_env "$ORCA_TEST_BUILDDIR/framework/tools/orca_info/orca_info") || fail "orca_info failed: $out"
    line=$(grep '^Built into orcarun and orcad' <<<"$out" || true)
    if [ "$BUILTIN" = 1 ]; then
        local c
        for c in oob/tcp oob/usock plm/local plm/rsh plm/slurm pmi/pmix pmi/simple ras/hostfile ras/slurm \
            reachable/netlink reachable/weighted routed/direct routed/radix; do
            grep -qE "[:,] $c(,|$)" <<<"$line" || fail "orca_info does not name $c as built in: $line"
        done
    else
        [ -z "$line" ] || fail "without built-in components orca_info said: $line"
    fi
}

# contrib/examples/oob-null, built as its Makefile builds it (headers only,
# no library), in a directory of its own at the end of the path.
case_an_out_of_tree_component_loads_everywhere() {
    setup
    local dir="$T/components"
    mkdir "$dir"
    ${CC:-cc} -std=c11 -Wall -Wextra -fPIC -fvisibility=hidden -I"$ORCA_TEST_SRCDIR/framework/include" -shared \
        -o "$dir/mca_oob_null.so" "$ORCA_TEST_SRCDIR/contrib/examples/oob-null/oob_null.c" ||
        fail "cannot build contrib/examples/oob-null"
    ORCA_ALL_COMPONENTS="$ORCA_ALL_COMPONENTS:$dir" job
    [ "$(daemon_lines "loaded component oob/null [0-9.]+ from $dir/mca_oob_null\.so$")" -eq 2 ] ||
        { cat "$T/err" >&2; fail "each daemon should load oob/null from $dir"; }
    [ "$(orcarun_lines "loaded component oob/null [0-9.]+ from $dir/mca_oob_null\.so$")" -eq 1 ] ||
        { cat "$T/err" >&2; fail "orcarun should load oob/null from $dir"; }
    done_case
}

done_case() { expect_nothing_left "$M" 10; }

CASES=(links_no_library_of_the_build programs_take_their_builtins_and_leave_the_files
       libpmix_is_mapped_only_where_a_server_runs orca_info_names_them an_out_of_tree_component_loads_everywhere)
# Arguments, if any, name the cases to run.
for c in "${@:-${CASES[@]}}"; do run_case "BuiltinComponents.$c" "case_$c"; done
finish_cases
