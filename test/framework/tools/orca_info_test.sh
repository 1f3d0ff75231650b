#!/bin/bash
# orca_info end to end, against the build tree.
. "$(dirname "$0")/../../lib/testcase.sh"
. "$(dirname "$0")/../../lib/tool_output.sh"

# `make check` sets these (AM_TESTS_ENVIRONMENT in test/Makefile.inc).
if [ -z "${ORCA_TEST_BUILDDIR:-}" ] || [ -z "${ORCA_TEST_COMPONENT_DIR:-}" ] ||
    [ -z "${ORCA_MCA_mca_base_help_path:-}" ]; then
    echo "ORCA_TEST_BUILDDIR, ORCA_TEST_COMPONENT_DIR and ORCA_MCA_mca_base_help_path must be set (run via make check)" >&2
    exit 1
fi
ORCA_INFO="$ORCA_TEST_BUILDDIR/framework/tools/orca_info/orca_info"
if [ ! -x "$ORCA_INFO" ]; then
    echo "$ORCA_INFO is not built" >&2
    exit 1
fi

# Each case runs in its own subshell (run_case) under `set -e`; the checks
# below still fail explicitly, so that each failure says what was expected.

# A private $HOME (T) and no settings of the caller's (tool_output.sh).
setup() { private_tool_home; }

# info ARGS...: runs orca_info; stdout in $T/out, stderr in $T/err, exit
# status in $status.
info() {
    status=0
    "$ORCA_INFO" "$@" >"$T/out" 2>"$T/err" || status=$?
}



expect_failure() {
    if [ "$status" -eq 0 ]; then
        show_output
        fail "expected a non-zero exit status"
    fi
}



# reject_text out|err TEXT: TEXT is nowhere in stdout/stderr.
reject_text() {
    if grep -qF -- "$2" "$T/$1"; then
        show_output
        fail "\"$2\" unexpectedly in std$1"
    fi
}

# count_lines out|err PREFIX: how many lines start with PREFIX (no regex
# characters in PREFIX).
count_lines() {
    grep -c -- "^$2" "$T/$1"
}

# ":DIR:DIR..." for the directories of the components built in this tree
# (what $pkglibdir holds once installed); "" when there are none. Listing
# cases append it to their path so that every framework of this build
# finds its own components (a framework of mode One without any fails the
# listing) and only the case's own files are under test.
built_components() {
    local d out=""
    for d in "$ORCA_TEST_BUILDDIR"/components/*/*/.libs; do
        [ -d "$d" ] && out="$out:$d"
    done
    printf '%s' "$out"
}

P=mca:mca:base:param

# --- the oob/tcp variables the issue names, all documented at level 9 -----------

case_oob_tcp_variables_are_documented() {
    setup
    ORCA_MCA_mca_base_component_path="$T$(built_components)" info --param oob tcp --level 9 --parsable
    expect_status 0
    local v field
    for v in if_include if_exclude listen_wildcard static_ipv4_ports static_ipv6_ports dynamic_ipv4_ports \
             dynamic_ipv6_ports connect_stagger connect_timeout retries retry_backoff max_msg_size \
             send_queue_limit keepalive_time keepalive_intvl keepalive_probes heartbeat heartbeat_misses \
             handshake_timeout max_pending pending_reserve max_pending_per_source user_timeout; do
        for field in value source level type help; do
            grep -qE "^mca:oob:tcp:param:oob_tcp_$v:$field:" "$T/out" || { show_output; fail "oob_tcp_$v has no $field"; }
        done
        # Documented means a description, not an empty help field.
        grep -qE "^mca:oob:tcp:param:oob_tcp_$v:help:.{10,}" "$T/out" || fail "oob_tcp_$v has no description"
    done
    expect_line out "mca:oob:tcp:param:oob_tcp_connect_stagger:value:250"
    expect_line out "mca:oob:tcp:param:oob_tcp_max_msg_size:value:67108864"
}

# --- valid ranges of numeric variables (issue 7) --------------------------------

# Every int, unsigned, size or double variable of oob/tcp shows its range,
# in the listing and in the --parsable valid: line.
case_oob_tcp_ranges_are_shown() {
    setup
    ORCA_MCA_mca_base_component_path="$T$(built_components)" info --param oob tcp --level 9 --parsable
    expect_status 0
    expect_line out "mca:oob:tcp:param:oob_tcp_retries:valid:a whole number from 0 to 1000"
    expect_line out "mca:oob:tcp:param:oob_tcp_max_msg_size:valid:a byte count from 1k to 1G with an optional suffix k, M, G or T (powers of 1024)"
    local numeric v
    numeric=$(sed -n 's/^mca:oob:tcp:param:\([a-z0-9_]*\):type:\(int\|unsigned\|size\|double\)$/\1/p' "$T/out")
    [ "$(echo "$numeric" | wc -w)" -ge 15 ] || { show_output; fail "expected at least 15 numeric oob/tcp variables"; }
    for v in $numeric; do
        grep -qE "^mca:oob:tcp:param:$v:valid:.* from [^ ]+ to [^ ]+" "$T/out" ||
            { show_output; fail "$v shows no range in its valid: line"; }
    done

    ORCA_MCA_mca_base_component_path="$T$(built_components)" info --param oob tcp --level 9
    expect_status 0
    # The listing: the block of each numeric variable has a range line.
    awk '
        /^  [a-z0-9_]+ = / { if (numeric && !ranged) { print name; bad = 1 } name = $1; numeric = 0; ranged = 0; next }
        /^      source: .*; type (int|unsigned|size|double)$/ { numeric = 1 }
        /^      valid values: .* from [^ ]+ to [^ ]+/ { ranged = 1 }
        END { if (numeric && !ranged) { print name; bad = 1 } exit bad }
    ' "$T/out" >"$T/unranged" || { show_output; fail "no range shown for: $(cat "$T/unranged")"; }
    grep -A3 -x '  oob_tcp_retries = "3"' "$T/out" | grep -qF "valid values: a whole number from 0 to 1000" ||
        { show_output; fail "oob_tcp_retries does not show from 0 to 1000"; }
}

# The values the issue found accepted are errors naming variable, source
# and range.
case_out_of_range_values_are_errors() {
    setup
    local d="$T$(built_components)"
    ORCA_MCA_mca_base_component_path="$d" info --mca oob_tcp_retries 2147483648 --param oob tcp --level 9
    expect_failure
    expect_text err "\"2147483648\" of MCA variable oob_tcp_retries is invalid: out of range"
    expect_text err "It came from: command line"
    expect_text err "Valid values: a whole number from 0 to 1000"

    ORCA_MCA_mca_base_component_path="$d" info --mca oob_tcp_max_msg_size 18446744073709551615 --param oob tcp
    expect_failure
    expect_text err "oob_tcp_max_msg_size is invalid: out of range"
    expect_text err "from 1k to 1G"

    ORCA_MCA_mca_base_component_path="$d" ORCA_MCA_oob_tcp_connect_timeout=-9223372036854775808 \
        info --param oob tcp
    expect_failure
    expect_text err "oob_tcp_connect_timeout is invalid: out of range"
    expect_text err "It came from: environment"

    printf 'mca_base_verbose = 1000\n' >"$T/p.conf"
    ORCA_MCA_mca_base_param_files="$T/p.conf" info --param mca base
    expect_failure
    expect_text err "It came from: param file $T/p.conf:1"
    expect_text err "from 0 to 100"
}

# --- param files that are no param files (issue 8) -------------------------------

# expect_clean_failure: failed with a message of its own, not by a signal
# (an abort from std::bad_alloc is 134) or a timeout (124).
expect_clean_failure() {
    expect_failure
    if [ "$status" -ge 124 ]; then
        show_output
        fail "orca_info did not fail cleanly (exit status $status)"
    fi
}

case_device_as_param_file() {
    setup
    ORCA_MCA_mca_base_param_files=/dev/zero info --param mca base
    expect_clean_failure
    expect_text err "cannot read the param file \"/dev/zero\": it is a character device"
}

case_fifo_as_param_file() {
    setup
    mkfifo "$T/fifo.conf" || fail "mkfifo"
    status=0
    ORCA_MCA_mca_base_param_files="$T/fifo.conf" timeout 20 "$ORCA_INFO" --param mca base >"$T/out" 2>"$T/err" ||
        status=$?
    expect_clean_failure
    expect_text err "\"$T/fifo.conf\": it is a FIFO"
}

case_directory_as_param_file() {
    setup
    ORCA_MCA_mca_base_param_files="$T" info --param mca base
    expect_clean_failure
    expect_text err "\"$T\": it is a directory"
}

case_oversized_param_file() {
    setup
    head -c $((2 * 1024 * 1024)) /dev/zero | tr '\0' '\n' >"$T/big.conf" || fail "cannot write big.conf"
    ORCA_MCA_mca_base_param_files="$T/big.conf" info --param mca base
    expect_clean_failure
    expect_text err "\"$T/big.conf\": it is larger than the limit of 1 MiB"
}

case_overlong_param_line() {
    setup
    { echo "# a comment"; printf 'mca_base_help_path = '; head -c $((70 * 1024)) /dev/zero | tr '\0' x; echo; } \
        >"$T/long.conf" || fail "cannot write long.conf"
    ORCA_MCA_mca_base_param_files="$T/long.conf" info --param mca base
    expect_clean_failure
    expect_text err "$T/long.conf:2"
    expect_text err "more than the limit of 64 KiB"
}

# --- help and version ---------------------------------------------------------

case_help() {
    setup
    info --help
    expect_status 0
    expect_text out "Usage: orca_info"
    expect_text out "--param FRAMEWORK COMPONENT"
    info -h
    expect_status 0
    expect_text out "Usage: orca_info"
}

case_version() {
    setup
    local version
    version=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$ORCA_TEST_BUILDDIR/config.h")
    [ -n "$version" ] || fail "no PACKAGE_VERSION in $ORCA_TEST_BUILDDIR/config.h"
    info --version
    expect_status 0
    expect_line out "orca_info (Orca) $version"
}

# --- where a value comes from ------------------------------------------------

case_component_path_from_environment() {
    setup
    ORCA_MCA_mca_base_component_path="$T/x" info --param mca base --parsable
    expect_status 0
    expect_line out "$P:mca_base_component_path:value:$T/x"
    expect_line out "$P:mca_base_component_path:source:environment"
    expect_line out "$P:mca_base_component_path:level:2"
    expect_line out "$P:mca_base_component_path:type:string"
}

case_command_line_beats_environment() {
    setup
    ORCA_MCA_mca_base_component_path="$T/x" \
        info --mca mca_base_component_path "$T/y" --param mca base --parsable
    expect_status 0
    expect_line out "$P:mca_base_component_path:value:$T/y"
    expect_line out "$P:mca_base_component_path:source:command line"
    reject_text out "$P:mca_base_component_path:value:$T/x"
}

case_default_source() {
    setup
    info --param mca base --parsable
    expect_status 0
    expect_line out "$P:mca_base_component_path:source:default"
    # The default path includes the user's own component directory.
    expect_text out "$P:mca_base_component_path:value:"
    expect_text out ":$T/.orca/components"
    expect_line out "$P:mca_base_verbose:value:0"
    expect_line out "$P:mca_base_verbose:source:default"
}

# --- component listing -------------------------------------------------------

case_garbage_component_file_parsable() {
    setup
    mkdir "$T/components" || fail "mkdir"
    echo "this is not a shared object" >"$T/components/mca_oob_junk.so"
    ORCA_MCA_mca_base_component_path="$T/components$(built_components)" info --parsable
    expect_status 0
    expect_text out "rejected:$T/components/mca_oob_junk.so:reason:it cannot be loaded"
    [ "$(count_lines out "rejected:$T/")" -eq 1 ] || { show_output; fail "expected one rejected line"; }
    reject_text out "unused:$T/"
}

case_garbage_component_file_listing() {
    setup
    mkdir "$T/components" || fail "mkdir"
    echo "this is not a shared object" >"$T/components/mca_oob_junk.so"
    ORCA_MCA_mca_base_component_path="$T/components$(built_components)" info
    expect_status 0
    expect_line out "Component path: $T/components$(built_components)"
    expect_line out "Not loaded: $T/components/mca_oob_junk.so"
    expect_text out "it cannot be loaded"
}

case_fixture_components() {
    setup
    local d=$ORCA_TEST_COMPONENT_DIR why="framework 'test' is not part of this build" c
    ORCA_MCA_mca_base_component_path="$d$(built_components)" info --parsable
    expect_status 0
    # They load, but this build has no framework "test".
    for c in good second decliner oldiface badvar; do
        expect_line out "unused:$d/mca_test_$c.so:reason:$why"
    done
    expect_text out "rejected:$d/mca_test_oldabi.so:reason:"
    expect_text out "rejected:$d/mca_test_misnamed.so:reason:"
    expect_text out "rejected:$d/mca_test_nosym.so:reason:"
    [ "$(count_lines out "unused:$d/")" -eq 5 ] || { show_output; fail "expected five unused lines"; }
    [ "$(count_lines out "rejected:$d/")" -eq 3 ] || { show_output; fail "expected three rejected lines"; }
    # Each rejection says why.
    grep -F "rejected:$d/mca_test_oldabi.so:" "$T/out" | grep -qF "ABI version" ||
        { show_output; fail "oldabi's reason does not mention the ABI version"; }
    grep -F "rejected:$d/mca_test_misnamed.so:" "$T/out" | grep -qF "'other'" ||
        { show_output; fail "misnamed's reason does not name 'other'"; }
    grep -F "rejected:$d/mca_test_nosym.so:" "$T/out" | grep -qF "mca_test_nosym_component" ||
        { show_output; fail "nosym's reason does not name the symbol"; }
    # The .la, .lai and .o files there are no component files: not listed.
    if grep -qE '\.(la|lai|o):' "$T/out"; then
        show_output
        fail "a file that is not named mca_<framework>_<component>.so is listed"
    fi

    ORCA_MCA_mca_base_component_path="$d$(built_components)" info
    expect_status 0
    expect_line out "Not used: $d/mca_test_good.so"
    expect_line out "Not loaded: $d/mca_test_oldabi.so"
}

case_verbose_logs_every_file() {
    setup
    mkdir "$T/components" || fail "mkdir"
    cp "$ORCA_TEST_COMPONENT_DIR/mca_test_good.so" "$T/components/" || fail "cp"
    echo junk >"$T/components/mca_oob_junk.so"
    ORCA_MCA_mca_base_component_path="$T/components$(built_components)" info --mca mca_base_verbose 1 --parsable
    expect_status 0
    expect_text err "loaded component test/good 1.2.3 from $T/components/mca_test_good.so"
    expect_text err "skipped $T/components/mca_oob_junk.so"
    ORCA_MCA_mca_base_component_path="$T/components$(built_components)" info --parsable
    expect_status 0
    reject_text err "loaded component"
}

# --- mistakes in settings ----------------------------------------------------

case_misspelled_variable() {
    setup
    info --mca mca_base_verbsoe 1 --param mca base
    expect_status 0
    expect_text err "mca_base_verbsoe"
    expect_text err "Did you mean mca_base_verbose"
}

case_bad_value() {
    setup
    info --mca mca_base_verbose abc --param mca base
    expect_failure
    expect_text err "mca_base_verbose"
    expect_text err "\"abc\""
    expect_text err "It came from: command line"
    expect_text err "Valid values: a whole number"
}

# --- files -----------------------------------------------------------------

case_param_file() {
    setup
    mkdir -p "$T/.orca" || fail "mkdir"
    local f="$T/.orca/mca-params.conf"
    printf '# my settings\nmca_base_verbose = 3\n' >"$f"
    ORCA_MCA_mca_base_param_files="$f" info --param mca base --parsable
    expect_status 0
    expect_line out "$P:mca_base_verbose:value:3"
    expect_line out "$P:mca_base_verbose:source:param file $f:2"
}

case_malformed_param_file() {
    setup
    mkdir -p "$T/.orca" || fail "mkdir"
    local f="$T/.orca/mca-params.conf"
    printf 'mca_base_verbose = 3\nthis line has no equals sign\n' >"$f"
    ORCA_MCA_mca_base_param_files="$f" info --param mca base --parsable
    expect_failure
    expect_text err "$f:2"
    expect_text err "this line has no equals sign"
}

case_tune_file() {
    setup
    mkdir -p "$T/.orca" || fail "mkdir"
    printf 'mca_base_verbose = 3\n' >"$T/.orca/mca-params.conf"
    printf '\nmca_base_verbose = 4\n' >"$T/job.conf"
    # A tune file beats a param file.
    ORCA_MCA_mca_base_param_files="$T/.orca/mca-params.conf" \
        info --tune "$T/job.conf" --param mca base --parsable
    expect_status 0
    expect_line out "$P:mca_base_verbose:value:4"
    expect_line out "$P:mca_base_verbose:source:tune file $T/job.conf:2"
    info "--tune=$T/job.conf" --param mca base --parsable
    expect_status 0
    expect_line out "$P:mca_base_verbose:value:4"
    # The environment beats it.
    ORCA_MCA_mca_base_verbose=5 info --tune "$T/job.conf" --param mca base --parsable
    expect_status 0
    expect_line out "$P:mca_base_verbose:value:5"
    expect_line out "$P:mca_base_verbose:source:environment"
}

case_missing_tune_file() {
    setup
    info --tune "$T/missing.conf" --param mca base
    expect_failure
    expect_text err "$T/missing.conf"
}

case_override_file_beats_command_line() {
    setup
    printf 'mca_base_verbose = 7\n' >"$T/override.conf"
    ORCA_MCA_mca_base_override_param_file="$T/override.conf" \
        info --mca mca_base_verbose 2 --param mca base --parsable
    expect_status 0
    expect_line out "$P:mca_base_verbose:value:7"
    expect_line out "$P:mca_base_verbose:source:override file $T/override.conf:1"
}

# --- --param, --level and options --------------------------------------------

case_param_unknown_framework() {
    setup
    info --param nosuch all
    expect_failure
    expect_text err "\"nosuch\""
    expect_text err "Frameworks with variables:"
    grep -F "Frameworks with variables:" "$T/err" | grep -qw mca ||
        { show_output; fail "the list of frameworks does not name mca"; }
}

case_level_hides_higher_levels() {
    setup
    info --param mca base --level 1 --parsable
    expect_status 0
    reject_text out ":mca_base_component_path:"
    info --param mca base --level 1
    expect_status 0
    reject_text out "mca_base_component_path"
    expect_text out "more at levels above 1"
    # Level 2 shows it (and still hides mca_base_verbose, level 8).
    info --param mca base --level 2 --parsable
    expect_status 0
    expect_line out "$P:mca_base_component_path:level:2"
    reject_text out ":mca_base_verbose:"
}

case_bad_level() {
    setup
    info --param mca base --level 10
    expect_failure
    expect_text err "10"
}

case_unknown_option() {
    setup
    info --bogus
    expect_failure
    expect_text err "--bogus"
    [ ! -s "$T/out" ] || { show_output; fail "nothing should go to stdout"; }
}

case_unknown_option_message_uses_help_path() {
    # The message text comes from help-orca-info.txt in the directory that
    # ORCA_MCA_mca_base_help_path names, like every other message.
    setup
    info --bogus
    expect_failure
    expect_text err "unknown option \"--bogus\". See orca_info --help."
    reject_text err "not found in"
}

# --interfaces: the lists that decide are oob/tcp's own variables ------------

case_interfaces_name_the_owning_components_variables() {
    setup
    ORCA_MCA_mca_base_component_path="$T$(built_components)" info --interfaces --parsable --mca oob_tcp_if_exclude lo
    expect_status 0
    expect_text out ":selected=no:reason=excluded by oob_tcp_if_exclude entry 'lo' (command line)"
    # Without oob/tcp installed nobody owns a list: nothing names one, and
    # the setting is reported as unknown instead of silently applied.
    ORCA_MCA_mca_base_component_path="$T" info --interfaces --parsable --mca oob_tcp_if_exclude lo
    expect_status 0
    reject_text out "oob_tcp_if_exclude"
    expect_text out "iface:lo:127.0.0.1/8:kind=loopback:selected=yes:reason=loopback"
    expect_text err "oob_tcp_if_exclude"
}

# --- routed: both components' variables, with their ranges ---------------------

case_routed_variables_are_listed() {
    setup
    ORCA_MCA_mca_base_component_path="$T$(built_components)" info --param routed all --level 9 --parsable
    expect_status 0
    expect_line out "mca:routed:radix:param:routed_radix_radix:value:64"
    expect_line out "mca:routed:radix:param:routed_radix_radix:type:int"
    expect_line out "mca:routed:radix:param:routed_radix_radix:valid:a whole number from 1 to 65536"
    expect_line out "mca:routed:radix:param:routed_radix_priority:value:20"
    expect_line out "mca:routed:direct:param:routed_direct_priority:value:10"
    expect_line out "mca:routed:direct:param:routed_direct_priority:valid:a whole number from -1000 to 1000"
    grep -qE "^mca:routed:radix:param:routed_radix_radix:help:.{10,}" "$T/out" ||
        { show_output; fail "routed_radix_radix has no description"; }
}

run_case OrcaInfo.InterfacesNameTheOwningComponentsVariables case_interfaces_name_the_owning_components_variables
run_case OrcaInfo.OobTcpVariablesAreDocumented case_oob_tcp_variables_are_documented
run_case OrcaInfo.OobTcpRangesAreShown case_oob_tcp_ranges_are_shown
run_case OrcaInfo.OutOfRangeValuesAreErrors case_out_of_range_values_are_errors
run_case OrcaInfo.DeviceAsParamFile case_device_as_param_file
run_case OrcaInfo.FifoAsParamFile case_fifo_as_param_file
run_case OrcaInfo.DirectoryAsParamFile case_directory_as_param_file
run_case OrcaInfo.OversizedParamFile case_oversized_param_file
run_case OrcaInfo.OverlongParamLine case_overlong_param_line
run_case OrcaInfo.Help case_help
run_case OrcaInfo.Version case_version
run_case OrcaInfo.ComponentPathFromEnvironment case_component_path_from_environment
run_case OrcaInfo.CommandLineBeatsEnvironment case_command_line_beats_environment
run_case OrcaInfo.DefaultSource case_default_source
run_case OrcaInfo.GarbageComponentFileParsable case_garbage_component_file_parsable
run_case OrcaInfo.GarbageComponentFileListing case_garbage_component_file_listing
run_case OrcaInfo.FixtureComponents case_fixture_components
run_case OrcaInfo.VerboseLogsEveryFile case_verbose_logs_every_file
run_case OrcaInfo.MisspelledVariable case_misspelled_variable
run_case OrcaInfo.BadValue case_bad_value
run_case OrcaInfo.ParamFile case_param_file
run_case OrcaInfo.MalformedParamFile case_malformed_param_file
run_case OrcaInfo.TuneFile case_tune_file
run_case OrcaInfo.MissingTuneFile case_missing_tune_file
run_case OrcaInfo.OverrideFileBeatsCommandLine case_override_file_beats_command_line
run_case OrcaInfo.ParamUnknownFramework case_param_unknown_framework
run_case OrcaInfo.LevelHidesHigherLevels case_level_hides_higher_levels
run_case OrcaInfo.BadLevel case_bad_level
run_case OrcaInfo.UnknownOption case_unknown_option
run_case OrcaInfo.UnknownOptionMessageUsesHelpPath case_unknown_option_message_uses_help_path
run_case OrcaInfo.RoutedVariablesAreListed case_routed_variables_are_listed

finish_cases
