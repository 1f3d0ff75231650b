# Checks of one run of a tool whose stdout and stderr a case kept in
# $T/out and $T/err and whose exit status is in $status; source after
# testcase.sh. On a failed check the output is shown (bounded: a run
# that printed megabytes must not drown the log).

show_output() {
    echo "--- exit status: ${status:-?}" >&2
    echo "--- stdout (first 40 lines, 300 bytes each):" >&2
    head -n 40 "$T/out" 2>/dev/null | cut -c1-300 >&2
    echo "--- stderr (first 60 lines):" >&2
    head -n 60 "$T/err" 2>/dev/null | cut -c1-300 >&2
}

# expect_status N: the run exited with N.
expect_status() {
    if [ "$status" -ne "$1" ]; then
        show_output
        fail "expected exit status $1, got $status"
    fi
}

# expect_no_stderr: the run printed nothing on stderr.
expect_no_stderr() {
    if [ -s "$T/err" ]; then
        show_output
        fail "stderr is not empty"
    fi
}

# expect_line out|err LINE: that exact line is there.
expect_line() {
    if ! grep -qxF -- "$2" "$T/$1"; then
        show_output
        fail "no line \"$2\" in std$1"
    fi
}

# expect_text out|err TEXT: TEXT is somewhere there.
expect_text() {
    if ! grep -qF -- "$2" "$T/$1"; then
        show_output
        fail "\"$2\" not in std$1"
    fi
}

# private_tool_home: a private directory T as $HOME, removed when the case
# (its subshell) ends; no param or override file and no ORCA_MCA_* setting
# from the caller except the help path, so a tester's own settings never
# change a result.
private_tool_home() {
    T=$(mktemp -d) || fail "mktemp -d failed"
    trap 'rm -rf "$T"' EXIT
    local v
    for v in $(compgen -e); do
        case $v in
            ORCA_MCA_mca_base_help_path) ;;
            ORCA_MCA_*) unset "$v" ;;
        esac
    done
    export HOME="$T"
    export ORCA_MCA_mca_base_param_files=none
    export ORCA_MCA_mca_base_override_param_file=none
}
