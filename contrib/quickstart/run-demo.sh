#!/bin/bash
# Installs the Debian packages Orca needs, builds and installs it under
# _build/prefix, and runs the demo: orcarun on simulated nodes of this
# host with the route each daemon's connection took, and, where network
# namespaces can be made, on the laptop of the Open MPI report (only lo
# and virbr0) with no variable set; then what orca_info says.
. "$(dirname "$0")/common.sh"
install_packages
build_orca
make install >/dev/null
bin="$ORCA_PREFIX/bin"

demo() { echo; echo "== demo: $*"; "$@"; }

demo "$bin/orcarun" --mca plm_local_num_nodes 4 --report-routes --tag-output hostname
demo "$bin/orcarun" --mca plm_local_num_nodes 4 --timing -n 8 --oversubscribe --map-by node \
    sh -c 'echo "rank $ORCA_RANK of $ORCA_SIZE on node $ORCA_NODE (local rank $ORCA_LOCAL_RANK of $ORCA_LOCAL_SIZE)"'

netcluster="$ORCA_TOP/contrib/netcluster/netcluster"
if "$netcluster" probe 2>/dev/null; then
    prefix="demo$$"
    prefix=${prefix:0:8}
    trap '"$netcluster" destroy "$prefix"' EXIT
    "$netcluster" create "$prefix" --hosts 1 --no-link --virbr
    echo
    echo "== demo: a host with only lo and virbr0 (network namespace $prefix-h1), no variable set"
    demo "$netcluster" exec "$prefix" h1 "$bin/orcarun" -n 2 hostname
    demo "$netcluster" exec "$prefix" h1 "$bin/orcarun" -n 2 --report-routes hostname
    demo "$netcluster" exec "$prefix" h1 "$bin/orca_info" --interfaces
else
    echo
    echo "(skipping the lo + virbr0 demo: network namespaces cannot be created here; it needs root)"
fi

demo "$bin/orca_info"
demo "$bin/orca_info" --param plm all --level 4
