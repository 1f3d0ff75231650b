# Namespace helpers for integration tests; source after testcase.sh.
# Every cluster a test makes gets a fresh prefix and is destroyed on exit,
# also when a case fails or the script is interrupted.

NETCLUSTER="$ORCA_TEST_SRCDIR/contrib/netcluster/netcluster"
ORCA_INFO="$ORCA_TEST_BUILDDIR/framework/tools/orca_info/orca_info"
ORCA_COMPONENTS="$ORCA_TEST_BUILDDIR/components/reachable/netlink/.libs:$ORCA_TEST_BUILDDIR/components/reachable/weighted/.libs"
# Cases run in subshells, so the clusters they make are recorded in a file
# that the parent shell reads to tear them down.
_netns_registry=$(mktemp)

_netns_destroy_all() {
    local p
    while read -r p; do "$NETCLUSTER" destroy "$p" >/dev/null 2>&1 || true; done <"$_netns_registry"
    : >"$_netns_registry"
}
# Background oob_peer processes (pid per line) and per-case directories,
# recorded in files for the same reason.
_oob_pids=$(mktemp)
_oob_dirs=$(mktemp)
teardown_case() { _oob_stop_all; _netns_destroy_all; }
trap '_oob_stop_all; _netns_destroy_all; rm -f "$_netns_registry" "$_oob_pids" "$_oob_dirs"' EXIT
trap 'exit 130' INT TERM

# netns_available: whether this machine lets us create namespaces.
netns_available() { [ "$(id -u)" -eq 0 ] && "$NETCLUSTER" probe; }

# new_cluster OPTIONS...: creates a cluster, prints its prefix.
new_cluster() {
    # Unique per run and per cluster: "t" + 4 digits of the pid + a counter.
    local p
    p=$(printf 't%04d%03d' $(($$ % 10000)) "$(wc -l <"$_netns_registry")")
    echo "$p" >>"$_netns_registry"
    "$NETCLUSTER" create "$p" "$@" >&2 || return 1
    echo "$p"
}

# add_link_or_skip PREFIX HOST WHAT IP-LINK-ARGS...: creates a link in a host,
# or skips the case when this kernel lacks the link type.
add_link_or_skip() {
    local p=$1 h=$2 what=$3; shift 3
    in_host "$p" "$h" ip link add "$@" 2>/dev/null || skip "this kernel cannot create $what links"
}

# in_host PREFIX HOST CMD...: runs CMD inside a simulated host.
in_host() { "$NETCLUSTER" exec "$@"; }

# orca_info_in PREFIX HOST ARGS...: orca_info inside a host, with the
# build tree's reachable and oob components (oob/tcp owns the interface
# lists) and no param files.
orca_info_in() {
    local p=$1 h=$2; shift 2
    "$NETCLUSTER" exec "$p" "$h" env ORCA_MCA_mca_base_component_path="$ORCA_OOB_COMPONENTS" \
        ORCA_MCA_mca_base_param_files=none ORCA_MCA_mca_base_override_param_file=none \
        "$ORCA_INFO" "$@"
}

# expect_line TEXT PATTERN: TEXT has a line matching the extended regex.
expect_line() {
    grep -qE -- "$2" <<<"$1" || fail "no line matches /$2/ in:
$1"
}

# weight_of TEXT LOCAL REMOTE: the weight of one reach: line.
weight_of() {
    local w
    w=$(grep -F "reach:$2:$3:weight=" <<<"$1" | head -1 | sed -E 's/.*:weight=([0-9]+):.*/\1/')
    [ -n "$w" ] || fail "no pair $2 -> $3 in:
$1"
    echo "$w"
}

# --- oob processes ---------------------------------------------------------
# Every oob_peer runs with the build tree's reachable and oob components, no
# param files, and a job secret in its environment (never on a command line):
# $ORCA_JOB_SECRET if the case sets one, else this run's secret.
OOB_PEER="$ORCA_TEST_BUILDDIR/test/oob/oob_peer"
ORCA_OOB_COMPONENTS="$ORCA_COMPONENTS:$ORCA_TEST_BUILDDIR/components/oob/tcp/.libs:$ORCA_TEST_BUILDDIR/components/oob/usock/.libs"
ORCA_TEST_JOB_SECRET=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')

# oob_peer_in PREFIX HOST ARGS...: oob_peer inside a host, in the foreground.
oob_peer_in() {
    local p=$1 h=$2; shift 2
    ORCA_JOB_SECRET=${ORCA_JOB_SECRET:-$ORCA_TEST_JOB_SECRET} \
        ORCA_MCA_mca_base_component_path="$ORCA_OOB_COMPONENTS" \
        ORCA_MCA_mca_base_param_files=none ORCA_MCA_mca_base_override_param_file=none \
        "$NETCLUSTER" exec "$p" "$h" "$OOB_PEER" "$@"
}

# oob_dir: makes this case's directory for URIs and outputs, sets OOB_DIR
# (removed at teardown). Call it once at the start of a case.
oob_dir() {
    OOB_DIR=$(mktemp -d)
    echo "$OOB_DIR" >>"$_oob_dirs"
    declare -gA _oob_jobs=() _oob_rc=()
    # The case's own children are killed and waited for when it ends, however
    # it ends; teardown_case catches anything left after that.
    trap _oob_reap EXIT
}

# oob_start NAME PREFIX HOST ARGS...: oob_peer in the background; its output
# goes to $OOB_DIR/NAME.out and .err. NAME is a label, e.g. the process name.
oob_start() {
    local name=$1 p=$2 h=$3; shift 3
    [ -n "${OOB_DIR:-}" ] || fail "oob_start before oob_dir"
    # The shell records the pid that the libtool wrapper and oob_peer inherit
    # through exec: the process to kill, not netcluster's.
    ORCA_JOB_SECRET=${ORCA_JOB_SECRET:-$ORCA_TEST_JOB_SECRET} \
        ORCA_MCA_mca_base_component_path="$ORCA_OOB_COMPONENTS" \
        ORCA_MCA_mca_base_param_files=none ORCA_MCA_mca_base_override_param_file=none \
        "$NETCLUSTER" exec "$p" "$h" sh -c 'echo $$ >>"$0"; exec "$@"' "$_oob_pids" "$OOB_PEER" "$@" \
        >"$OOB_DIR/$name.out" 2>"$OOB_DIR/$name.err" &
    _oob_jobs[$name]=$!
}

# oob_wait NAME [SECONDS]: waits (default 30 s) for a process that oob_start
# started; returns its exit status (again when called again). Fails the
# case if it is still running.
oob_wait() {
    local name=$1 limit=${2:-30} pid=${_oob_jobs[$1]:-} i
    if [ -z "$pid" ] && [ -n "${_oob_rc[$name]:-}" ]; then return "${_oob_rc[$name]}"; fi
    [ -n "$pid" ] || fail "no process $name was started"
    for ((i = 0; i < limit * 20; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    kill -0 "$pid" 2>/dev/null && fail "$name still runs after $limit s:
$(oob_output_all)"
    local rc=0
    wait "$pid" || rc=$?
    unset "_oob_jobs[$name]"
    _oob_rc[$name]=$rc
    return "$rc"
}

# oob_output NAME: what a process printed, stdout then stderr, for messages.
oob_output() {
    echo "--- $1 stdout:"
    cat "$OOB_DIR/$1.out" 2>/dev/null || true
    echo "--- $1 stderr:"
    tail -n 60 "$OOB_DIR/$1.err" 2>/dev/null || true
}

# oob_output_all: the output of every process of the case.
oob_output_all() {
    local f
    for f in "$OOB_DIR"/*.out; do [ -e "$f" ] && oob_output "$(basename "$f" .out)"; done
}

# oob_await NAME PATTERN [SECONDS]: waits (default 20 s) until NAME's stdout
# has a line matching the extended regex; fails with its output otherwise.
# oob_await_err: the same on stderr.
oob_await() { _oob_await out "$@"; }
oob_await_err() { _oob_await err "$@"; }
_oob_await() {
    local stream=$1 name=$2 pattern=$3 limit=${4:-20} i
    for ((i = 0; i < limit * 20; i++)); do
        grep -qE -- "$pattern" "$OOB_DIR/$name.$stream" 2>/dev/null && return 0
        sleep 0.05
    done
    fail "$name printed no line matching /$pattern/ on std$stream within $limit s:
$(oob_output "$name")"
}

# oob_expect NAME PATTERN [out|err]: NAME's stdout (or stderr) has a line
# matching the extended regex.
oob_expect() {
    local file="$OOB_DIR/$1.${3:-out}"
    grep -qE -- "$2" "$file" || fail "$1 printed no line matching /$2/ on std${3:-out}:
$(oob_output "$1")"
}

# oob_uri NAME: the URI a process wrote to $OOB_DIR/NAME.uri (waits for it).
oob_uri() {
    local f="$OOB_DIR/$1.uri" i
    for ((i = 0; i < 400; i++)); do
        [ -s "$f" ] && { head -1 "$f"; return 0; }
        sleep 0.05
    done
    fail "no URI in $f:
$(oob_output "$1")"
}

# tcp_port_of URI ADDRESS: the port the URI's tcp part gives for ADDRESS
# (IPv6 without brackets).
tcp_port_of() {
    local part=${1##*;tcp=} item
    part=${part%%;*}
    local IFS=,
    for item in $part; do
        if [ "${item%%/*}" = "$2" ] || [ "${item%%/*}" = "[$2]" ]; then
            echo "${item##*/}"
            return 0
        fi
    done
    fail "no tcp address $2 in $1"
}

# Kills the case's background processes and waits for them (in the case's
# subshell, where they are children).
_oob_reap() {
    local name
    _oob_stop_all
    for name in "${!_oob_jobs[@]}"; do
        kill -TERM "${_oob_jobs[$name]}" 2>/dev/null || true
        wait "${_oob_jobs[$name]}" 2>/dev/null || true
    done
}

# Kills every oob_peer recorded in the registry and waits until each is gone;
# removes the case directories.
_oob_stop_all() {
    local pid i alive
    while read -r pid; do kill -TERM "$pid" 2>/dev/null || true; done <"$_oob_pids"
    for ((i = 0; i < 40; i++)); do
        alive=0
        while read -r pid; do kill -0 "$pid" 2>/dev/null && alive=1; done <"$_oob_pids"
        [ $alive = 0 ] && break
        sleep 0.05
    done
    while read -r pid; do kill -KILL "$pid" 2>/dev/null || true; done <"$_oob_pids"
    : >"$_oob_pids"
    local d
    while read -r d; do [ -n "$d" ] && rm -rf "$d"; done <"$_oob_dirs"
    : >"$_oob_dirs"
}
