# bench_lib.sh: what the namespace-host benchmarks (run-launch-bench.sh,
# run-mpi-bench.sh, run-slurm-bench.sh, run-failover-bench.sh,
# run-selection-bench.sh) share. Sourced, after `set -euo pipefail`, by a
# script that has set `me` (its name, for messages) and defines usage().
#
# Variables it reads (set them before calling what uses them):
#   builddir srcdir   the build and source trees
#   wrappers          1: orcarun/orcad through the libtool wrappers
#   limit             timeout of each timed command, seconds
#   uts               1: every simulated host gets its own host name
#                     (bench_need_namespaces: 0 when unset)
#   ompi_if           --mca oob_tcp_if_include for mpirun ("" for none)
# Variables it sets: netcluster (bench_netcluster); netcluster agent orcarun
#   orcad orcadvm programs components orca_env ompi hydra (bench_programs);
#   orca_env (bench_orca_env); work prefix (bench_work); prefix
#   (bench_prefix); NETNS_AGENT_PREFIX NETNS_AGENT_UTS h1 (bench_cluster).
# A script may define bench_on_exit (run first on exit),
# bench_check_output OUT EXPECT and bench_fail_excerpt ERR (see run_one).

die() { echo "$me: $*" >&2; exit 1; }

# --- arguments --------------------------------------------------------------
# bench_whole_numbers V...: each V a whole number >= 1, or die.
bench_whole_numbers() {
    local v
    for v in "$@"; do
        [[ $v =~ ^[1-9][0-9]*$ ]] || die "expected a whole number >= 1, not '$v'"
    done
}
# bench_dirs: --builddir was given; builddir and srcdir made absolute.
bench_dirs() {
    [ -n "$builddir" ] || { usage >&2; die "give the build tree with --builddir"; }
    builddir=$(cd "$builddir" && pwd)
    srcdir=$(cd "$srcdir" && pwd)
}

# --- programs ---------------------------------------------------------------
# is_elf FILE: FILE is an executable program, not a libtool wrapper script.
is_elf() { [ -x "$1" ] && [ "$(head -c 4 "$1" | tail -c 3)" = ELF ]; }
# needs_build_library PROGRAM: PROGRAM (an ELF file) links liborca, which
# only the build tree's framework/.libs holds (no wrapper sets the path).
needs_build_library() {
    is_elf "$1" || return 1
    LC_ALL=C readelf -d "$1" 2>/dev/null | grep -q 'NEEDED.*\[liborca\.so'
}

# bench_netcluster: netcluster, the source tree's contrib/netcluster.
bench_netcluster() {
    netcluster="$srcdir/contrib/netcluster/netcluster"
    [ -x "$netcluster" ] || die "no $netcluster"
}
# bench_orca_env COMPONENT_PATH [VAR=VALUE...]: orca_env, the `env ...`
# words Orca runs under: VAR=VALUE... (a LD_LIBRARY_PATH, say), the
# component path, the source tree's help text (unless
# ORCA_MCA_mca_base_help_path is set) and no param files.
bench_orca_env() {
    local path=$1; shift
    orca_env=(env "$@"
        "ORCA_MCA_mca_base_component_path=$path"
        "ORCA_MCA_mca_base_help_path=${ORCA_MCA_mca_base_help_path:-$srcdir/framework/help}"
        ORCA_MCA_mca_base_param_files=none ORCA_MCA_mca_base_override_param_file=none)
}

# bench_programs: netcluster, the agent, orcarun and orcad (the real programs
# in .libs unless wrappers=1 or they are missing), the component path,
# orca_env (the `env ...` words Orca runs under: its settings come from the
# build tree only, no param files), and Open MPI's and Hydra's launchers
# ("" when not installed).
# Orca runs as `make install` lays it out, as Hydra and Open MPI do here:
# its component files in one directory (test/bench/components in the build
# tree, links to each component's module, as pkglibdir holds them), and no
# LD_LIBRARY_PATH unless the programs need the build tree's liborca
# (--disable-builtin-components, or the libtool wrappers). The build
# tree's thirteen .libs directories and the library path cost every daemon
# and every rank a few hundred file lookups an installed Orca never makes.
bench_programs() {
    bench_netcluster
    agent="$srcdir/test/bench/netns-rsh-agent"
    [ -x "$agent" ] || die "no $agent"
    # With built-in components (configure's default) orcarun and orcad are
    # the programs themselves: libtool makes no wrapper for a program that
    # links no shared library of the build.
    local real_orcarun="$builddir/framework/tools/orcarun/.libs/orcarun"
    local real_orcad="$builddir/framework/tools/orcad/.libs/orcad"
    [ -x "$real_orcarun" ] || real_orcarun="$builddir/framework/tools/orcarun/orcarun"
    [ -x "$real_orcad" ] || real_orcad="$builddir/framework/tools/orcad/orcad"
    if [ "$wrappers" = 0 ] && is_elf "$real_orcarun" && is_elf "$real_orcad"; then
        orcarun="$real_orcarun"
        orcad="$real_orcad"
        programs="the real programs, not libtool's wrappers"
    else
        orcarun="$builddir/framework/tools/orcarun/orcarun"
        orcad="$builddir/framework/tools/orcad/orcad"
        programs="the libtool wrappers"
    fi
    [ -x "$orcarun" ] || die "no $orcarun (build it first)"
    [ -x "$orcad" ] || die "no $orcad (build it first)"
    # orcadvm, for the benches of jobs on a DVM (checked where used).
    orcadvm="$builddir/framework/tools/orcadvm/.libs/orcadvm"
    [ "$wrappers" = 0 ] && is_elf "$orcadvm" || orcadvm="$builddir/framework/tools/orcadvm/orcadvm"
    components="$builddir/test/bench/components"
    mkdir -p "$components"
    find "$components" -maxdepth 1 -type l -delete
    local module
    while IFS= read -r module; do
        ln -s "$module" "$components/${module##*/}"
    done < <(find "$builddir/components" -path '*/.libs/mca_*.so' -type f | sort)
    [ -n "$(ls -A "$components")" ] || die "no component modules under $builddir/components (build them first)"
    local library_path=()
    if [ "$wrappers" = 1 ] || needs_build_library "$orcarun" || needs_build_library "$orcad"; then
        library_path=("LD_LIBRARY_PATH=$builddir/framework/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
        programs+=", LD_LIBRARY_PATH=$builddir/framework/.libs"
    fi
    bench_orca_env "$components" "${library_path[@]}"
    ompi=$(command -v mpirun.openmpi || true)
    hydra=$(command -v mpiexec.hydra || true)
}
# Their versions, for the header: "PATH -- VERSION", or "not installed".
ompi_version() {
    echo "${ompi:-not installed}$( [ -n "$ompi" ] && "$ompi" --version 2>/dev/null | head -1 | sed 's/^/ -- /')"
}
hydra_version() {
    echo "${hydra:-not installed}$( [ -n "$hydra" ] && "$hydra" --version 2>/dev/null | sed -n 's/^ *Version: *\(.*\)/ -- MPICH Hydra \1/p' | head -1)"
}

# --- work directory, cleanup ------------------------------------------------
# bench_work NAME: a fresh $work (mktemp, orca-NAME.XXXXXX) and an EXIT trap
# that runs bench_on_exit (if defined), destroys the cluster (if made) and
# removes $work, also on INT and TERM. Call it in the script's own shell.
bench_work() {
    work=$(mktemp -d "${TMPDIR:-/tmp}/orca-$1.XXXXXX")
    prefix=
    trap bench_cleanup EXIT
    trap 'exit 130' INT TERM
    # And should this shell die without running its EXIT trap (SIGKILL from a
    # timeout, or a signal that ends it at once), a watcher that ignores the
    # usual signals removes the cluster (its prefix is in $work/prefix) and
    # $work once this shell is gone.
    : >"$work/prefix"
    (
        trap '' INT TERM HUP
        while kill -0 $$ 2>/dev/null; do sleep 0.5; done
        p=$(cat "$work/prefix" 2>/dev/null || true)
        if [ -n "$p" ]; then "$netcluster" destroy "$p" || true; fi
        rm -rf "$work"
    ) >/dev/null 2>&1 </dev/null &
    : >"$work/failures"
}
bench_cleanup() {
    if declare -F bench_on_exit >/dev/null; then bench_on_exit || true; fi
    if [ -n "$prefix" ]; then "$netcluster" destroy "$prefix" >/dev/null 2>&1 || true; fi
    rm -rf "$work"
}

# --- figures ----------------------------------------------------------------
figure() { echo "FIGURE $1 $2 $3"; }
# median [low]: of the numbers on stdin, one a line ("-" when none), to
# one decimal place (of an even count, the mean of the middle two); with
# low, the middle one (of an even count, the lower) as it is written.
median() { sort -g | awk -v low="${1:-}" '{ a[NR] = $1 } END { if (NR == 0) { print "-"; exit }
    if (low == "low") print a[int((NR + 1) / 2)]
    else if (NR % 2) printf "%.1f\n", a[(NR + 1) / 2]; else printf "%.1f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
maxof() { sort -g | tail -1; }
# ratio A B: A/B to 2 places, "-" unless both are numbers.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2f\n", a / b; else print "-" }'; }
banner() { echo; echo "== $*"; }
# elapsed T0: seconds since T0 (an $EPOCHREALTIME), to one decimal place.
elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }

# --- simulated hosts --------------------------------------------------------
# bench_need_namespaces WHAT TARGET: prints "SKIP: WHAT: ..." and exits 0
# without root or network namespaces (TARGET: the make target to suggest);
# without UTS namespaces, sets uts=0 and says so.
bench_need_namespaces() {
    if [ "$(id -u)" != 0 ]; then
        echo; echo "SKIP: $1: needs root (network namespaces); try: sudo make $2"
        exit 0
    fi
    if ! "$netcluster" probe; then
        echo; echo "SKIP: $1: this machine cannot create network namespaces"
        exit 0
    fi
    if [ "${uts:-0}" = 1 ] && ! unshare --uts true 2>/dev/null; then
        uts=0
        echo "note: cannot make UTS namespaces (unshare --uts): every host keeps this machine's host name"
    fi
}
# bench_prefix TAG: prefix, the netcluster prefix of this run: TAG and 5
# digits of the pid (the next number if another run has that one), kept in
# $work/prefix for bench_work's cleanup (call bench_work first).
bench_prefix() {
    local i
    for ((i = 0; i < 100; i++)); do
        prefix=$(printf '%s%05d' "$1" $((($$ + i) % 100000)))
        ip netns list | grep -q "^$prefix-" || break
    done
    echo "$prefix" >"$work/prefix"
}
# bench_cluster TAG K: hosts h1 (the launcher's) and h2..hK+1 (one daemon
# each), prefix as bench_prefix TAG makes it; the agent is pointed at them.
bench_cluster() {
    local tag=$1 k=$2 t
    [ "$k" -le 249 ] || die "at most 249 daemon hosts (netcluster makes 250 hosts at most)"
    bench_prefix "$tag"
    t=$EPOCHREALTIME
    "$netcluster" create "$prefix" --hosts $((k + 1)) >&2
    echo "  cluster:  $prefix, $((k + 1)) namespaces (h1 launcher, h2..h$((k + 1)) daemons) made in $(elapsed "$t") s"
    export NETNS_AGENT_PREFIX=$prefix NETNS_AGENT_UTS=$uts
    unset NETNS_AGENT_DELAY NETNS_AGENT_LOG
    h1=h1
}
hosts_list() { local i out=; for ((i = 2; i <= $1 + 1; i++)); do out+=${out:+,}h$i; done; echo "$out"; }

# timed HOST OUT ERR CMD...: CMD under `timeout $limit`, on simulated host
# HOST (namespace PREFIX-HOST, with its own host name HOST as the agent
# gives every host; here if HOST is ""), stdin /dev/null; prints "RC MS":
# its exit status and wall time, read right around the command. OUT.cpu
# gets the CPU it took, user + system ms (1 ms resolution): the command
# and every process below it that an ancestor waited for (the shell's
# `times`, run in that shell itself: a subshell's count starts at zero).
timed() {
    local host=$1 out=$2 err=$3; shift 3
    local run=(bash -c 's=$EPOCHREALTIME; timeout -k 5 "$0" "$@" >"$TIMED_OUT" 2>"$TIMED_ERR" </dev/null; rc=$?
e=$EPOCHREALTIME; times >"$TIMED_OUT.times"; echo "$rc $s $e"' "$limit" "$@")
    local r
    if [ -n "$host" ] && [ "$uts" = 1 ]; then
        r=$(TIMED_OUT=$out TIMED_ERR=$err TIMED_HOST=$host ip netns exec "$prefix-$host" unshare --uts \
            bash -c 'echo "$TIMED_HOST" >/proc/sys/kernel/hostname && exec "$@"' timed "${run[@]}")
    elif [ -n "$host" ]; then
        r=$(TIMED_OUT=$out TIMED_ERR=$err ip netns exec "$prefix-$host" "${run[@]}")
    else
        r=$(TIMED_OUT=$out TIMED_ERR=$err "${run[@]}")
    fi
    echo "$r" >"$out.when"
    # Children's line of `times`: "0m0.301s 0m0.250s".
    tail -1 "$out.times" 2>/dev/null | awk '{ c = 0; for (i = 1; i <= 2; i++) { split($i, t, "m"); c += t[1] * 60 + t[2] }
        printf "%.0f\n", c * 1000 }' >"$out.cpu"
    rm -f "$out.times"
    awk '{ printf "%d %.1f\n", $1, ($3 - $2) * 1000 }' <<<"$r"
}

# --- launchers --------------------------------------------------------------
# Launcher command lines (the command to run follows). K hosts h2..hK+1.
orca_cmd() { # K MCA-ARGS...
    local k=$1; shift
    echo "${orca_env[@]}" "$orcarun" --timing --mca plm_rsh_agent "$agent" --mca plm_base_daemon "$orcad" "$@" \
        --host "$(hosts_list "$k")" -n "$k"
}
hydra_cmd() { # K ARGS...
    local k=$1; shift
    local lh=()
    # Without host names of their own, the proxies cannot resolve mpiexec's.
    [ "$uts" = 1 ] || lh=(-localhost h1)
    echo "$hydra" -launcher rsh -launcher-exec "$agent" "${lh[@]}" "$@" -hosts "$(hosts_list "$k")" -n "$k"
}
ompi_cmd() { # K ARGS...
    local k=$1; shift
    local ifs=()
    [ -z "$ompi_if" ] || ifs=(--mca oob_tcp_if_include "$ompi_if")
    echo "$ompi" --allow-run-as-root --mca plm_rsh_agent "$agent" "${ifs[@]}" "$@" --host "$(hosts_list "$k")" -n "$k"
}
# (The words above hold no spaces, so `read -a` splits them back.)
words() { read -r -a "$1" <<<"$2"; }
cmd_of() { # LAUNCHER K [EXTRA...] : the command words into array `cmd`
    local l=$1 k=$2; shift 2
    case $l in
        orca) words cmd "$(orca_cmd "$k" "$@")" ;;
        # orcarun with its ranks held until every daemon is up: the
        # baseline, in the same run, of orcarun_start_early.
        held) words cmd "$(orca_cmd "$k" --mca orcarun_start_early false "$@")" ;;
        hydra) words cmd "$(hydra_cmd "$k" "$@")" ;;
        ompi) words cmd "$(ompi_cmd "$k" "$@")" ;;
    esac
}

# --- runs -------------------------------------------------------------------
# bench_check_output OUT EXPECT: prints what OUT holds, for the report;
# status 0 when that is what the run had to print. This default: EXPECT
# lines. A script may define its own after sourcing this file.
bench_check_output() {
    local lines
    lines=$(wc -l <"$1")
    echo "$lines lines of output (expected $2)"
    [ "$lines" = "$2" ]
}
# bench_fail_excerpt ERR: the lines of a failed run's stderr to show: the
# last 15 that say why, without orcarun's --timing tables (printed last,
# they would hide the error above them).
bench_fail_excerpt() {
    awk '/^(timing \(ms since orcarun started\)|orcad start-up \(ms)/ { table = 1; next }
         table && /^  / { next }
         { table = 0; print }' "$1" | tail -n 15
}

# run_one HOST LABEL EXPECT CMD...: one timed run; prints its ms, or
# "fail" (stdout/stderr kept in $work/fail.LABEL.*, the label added to
# $work/failures: this runs in command substitutions, no variable survives).
# The run failed unless its exit status is 0 and bench_check_output OUT
# EXPECT holds.
run_one() {
    local host=$1 label=$2 expect=$3; shift 3
    local out="$work/out" err="$work/err" rc ms what ok=0
    read -r rc ms < <(timed "$host" "$out" "$err" "$@")
    what=$(bench_check_output "$out" "$expect") || ok=1
    if [ "$rc" = 0 ] && [ "$ok" = 0 ]; then
        echo "$ms"
    else
        local n
        n=$(grep -cxF -- "$label" "$work/failures" || true)
        echo "$label" >>"$work/failures"
        cp "$out" "$work/fail.$label.$n.out"; cp "$err" "$work/fail.$label.$n.err"
        {
            echo "run failed: $label: exit status $rc, $what, ${ms} ms"
            echo "  command: $*"
            bench_fail_excerpt "$err" | sed 's/^/  | /'
        } >&2
        echo fail
    fi
}
# failed_runs_line: "runs that failed: N label:count..." from $work/failures.
failed_runs_line() {
    local failed
    failed=$(wc -l <"$work/failures")
    echo "runs that failed: $failed$( [ "$failed" = 0 ] || sort "$work/failures" | uniq -c | awk '{ printf " %s:%s", $2, $1 }')"
}
