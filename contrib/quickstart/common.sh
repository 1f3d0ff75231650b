# Shared by the two quickstart scripts: install what Orca needs on Debian 12
# and build it out of tree in $ORCA_BUILD_DIR (default: <source>/_build).
set -euo pipefail

ORCA_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ORCA_BUILD_DIR=${ORCA_BUILD_DIR:-$ORCA_TOP/_build}
ORCA_PREFIX=${ORCA_PREFIX:-$ORCA_BUILD_DIR/prefix}

# Packages: the toolchain, autotools, libevent, hwloc, libcrypto (only
# the tests use it, as a reference for our SHA-256), GoogleTest and
# Google Benchmark, libpmix (the PMIx server for Open MPI programs), the
# network tools the namespace tests use, the real sshd the ssh launch
# test starts inside its namespace hosts, MPICH and Open MPI, whose
# programs the MPI tests build and whose launchers the benchmarks compare,
# and a real Slurm (with munge) for the batch-system tests.
ORCA_PACKAGES=(build-essential autoconf automake libtool pkg-config
               libevent-dev libhwloc-dev libssl-dev libgtest-dev libbenchmark-dev libpmix-dev
               iproute2 nftables procps openssh-server openssh-client
               mpich libmpich-dev openmpi-bin libopenmpi-dev
               slurmctld slurmd slurm-client munge)

install_packages() {
    local missing=() wanted=("${ORCA_PACKAGES[@]}" "$@")
    for p in "${wanted[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -ne 0 ]; then
        echo "Missing Debian packages: ${missing[*]}; run as root or: sudo apt-get install ${missing[*]}" >&2
        exit 1
    fi
    echo "== installing ${missing[*]}"
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# configure_orca [DIR [CONFIGURE ARGS...]]: configure (once) in DIR, default
# $ORCA_BUILD_DIR with --prefix=$ORCA_PREFIX; leaves the shell in DIR.
configure_orca() {
    local dir=${1:-$ORCA_BUILD_DIR}
    [ $# -gt 0 ] && shift
    [ $# -eq 0 ] && set -- --prefix="$ORCA_PREFIX" ${ORCA_CONFIGURE_FLAGS:-}
    if [ ! -x "$ORCA_TOP/configure" ]; then
        echo "== autogen"
        (cd "$ORCA_TOP" && ./autogen.sh)
    fi
    mkdir -p "$dir"
    cd "$dir"
    if [ ! -f Makefile ]; then
        echo "== configure in $dir: $*"
        "$ORCA_TOP/configure" "$@"
    fi
}

# build_orca [DIR [CONFIGURE ARGS...]]: configure_orca, then build it all.
build_orca() {
    configure_orca "$@"
    echo "== build in $PWD (${SECONDS}s so far)"
    make -j"$(nproc)"
}
