# Namespace helpers for integration tests; source after testcase.sh.
# Every cluster a test makes gets a fresh prefix and is destroyed on exit,
# also when a case fails or the script is interrupted.

NETCLUSTER="$ORCA_TEST_SRCDIR/contrib/netcluster/netcluster"
ORCA_INFO="$ORCA_TEST_BUILDDIR/tools/orca_info/orca_info"
ORCA_COMPONENTS="$ORCA_TEST_BUILDDIR/components/reachable/netlink/.libs:$ORCA_TEST_BUILDDIR/components/reachable/weighted/.libs"
# Cases run in subshells, so the clusters they make are recorded in a file
# that the parent shell reads to tear them down.
_netns_registry=$(mktemp)

_netns_destroy_all() {
    local p
    while read -r p; do "$NETCLUSTER" destroy "$p" >/dev/null 2>&1 || true; done <"$_netns_registry"
    : >"$_netns_registry"
}
teardown_case() { _netns_destroy_all; }
trap '_netns_destroy_all; rm -f "$_netns_registry"' EXIT
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
# build tree's components and no param files.
orca_info_in() {
    local p=$1 h=$2; shift 2
    "$NETCLUSTER" exec "$p" "$h" env ORCA_MCA_mca_base_component_path="$ORCA_COMPONENTS" \
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
