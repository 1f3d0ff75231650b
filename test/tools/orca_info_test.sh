#!/bin/bash
# orca_info end to end, against the build tree.
. "$(dirname "$0")/../lib/testcase.sh"
finish_cases
