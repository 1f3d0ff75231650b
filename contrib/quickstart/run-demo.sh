#!/bin/bash
# Installs the Debian packages Orca needs, builds and installs it under
# _build/prefix, and runs the demo: what orca_info says about this host's
# frameworks, interfaces and reachability, and (where network namespaces
# can be made) about the laptop of the Open MPI report: only lo and virbr0.
. "$(dirname "$0")/common.sh"
install_packages
build_orca
make install >/dev/null
info="$ORCA_PREFIX/bin/orca_info"

demo() { echo; echo "== demo: $*"; "$@"; }

demo "$info"
demo "$info" --param mca base --level 2
demo "$info" --interfaces
demo "$info" --reach 127.0.0.1 --same-host

netcluster="$ORCA_TOP/contrib/netcluster/netcluster"
if "$netcluster" probe 2>/dev/null; then
    prefix="demo$$"
    prefix=${prefix:0:8}
    trap '"$netcluster" destroy "$prefix"' EXIT
    "$netcluster" create "$prefix" --hosts 1 --no-link --virbr
    echo
    echo "== demo: a host with only lo and virbr0 (network namespace $prefix-h1)"
    demo "$netcluster" exec "$prefix" h1 "$info" --interfaces
    echo "-- a peer elsewhere that advertises 192.168.122.1 (every libvirt host does):"
    demo "$netcluster" exec "$prefix" h1 "$info" --reach 192.168.122.1
    echo "-- a peer on this host, advertising loopback and virbr0:"
    demo "$netcluster" exec "$prefix" h1 "$info" --reach 127.0.0.1 192.168.122.1 --same-host
else
    echo
    echo "(skipping the lo + virbr0 demo: network namespaces cannot be created here; it needs root)"
fi
