#!/bin/bash
# Installs the Debian packages Orca needs, builds and installs it under
# _build/prefix, and runs the demo: orca_info showing the frameworks,
# components and core variables with where each value came from.
. "$(dirname "$0")/common.sh"
install_packages
build_orca
make install >/dev/null
echo "== demo: $ORCA_PREFIX/bin/orca_info"
"$ORCA_PREFIX/bin/orca_info"
echo
echo "== demo: orca_info --param mca base  (with ORCA_MCA_mca_base_verbose=1 and --mca mca_base_help_path ...)"
ORCA_MCA_mca_base_verbose=1 "$ORCA_PREFIX/bin/orca_info" --param mca base
