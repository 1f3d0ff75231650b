#!/bin/bash
# The bash completion of orcarun and orca_info (framework/tools/completion/
# orca.bash, from the source tree), sourced into this shell with the build
# tree's programs first on PATH: each case sets COMP_WORDS, COMP_CWORD,
# COMP_LINE and COMP_POINT as bash would, calls the function registered for
# the command and checks COMPREPLY. What it offers comes from the programs
# (--help, orca_info --param all all --parsable), so these cases also check
# that it reads them right.
. "$(dirname "$0")/../../lib/testcase.sh"
. "$(dirname "$0")/../../lib/tool_output.sh"

# `make check` sets these (AM_TESTS_ENVIRONMENT in test/Makefile.inc).
if [ -z "${ORCA_TEST_BUILDDIR:-}" ] || [ -z "${ORCA_TEST_SRCDIR:-}" ] ||
    [ -z "${ORCA_MCA_mca_base_help_path:-}" ]; then
    echo "ORCA_TEST_BUILDDIR, ORCA_TEST_SRCDIR and ORCA_MCA_mca_base_help_path must be set (run via make check)" >&2
    exit 1
fi
COMPLETION="$ORCA_TEST_SRCDIR/framework/tools/completion/orca.bash"
TOOLS="$ORCA_TEST_BUILDDIR/framework/tools"
for program in orcarun orcadvm orca_info; do
    if [ ! -x "$TOOLS/$program/$program" ]; then
        echo "$TOOLS/$program/$program is not built" >&2
        exit 1
    fi
done
# The build tree's components (what $pkglibdir holds once installed), so
# that orca_info lists every variable of this build.
COMPONENTS=$(find "$ORCA_TEST_BUILDDIR/components" -type d -name .libs | sort | tr '\n' ':')
COMPONENTS=${COMPONENTS%:}

# A private directory T as $HOME, removed when the case ends; no param or
# override file and no ORCA_MCA_* setting from the caller except the help
# path; the build tree's orcarun and orca_info first on PATH, then a
# directory of the case's own commands ($T/bin); the completion sourced.
setup() {
    private_tool_home
    export ORCA_MCA_mca_base_component_path="$COMPONENTS"
    mkdir "$T/bin" || fail "mkdir"
    printf '#!/bin/sh\n' >"$T/bin/orcatestcmd" || fail "cannot write $T/bin/orcatestcmd"
    chmod +x "$T/bin/orcatestcmd" || fail "chmod"
    export PATH="$TOOLS/orcarun:$TOOLS/orcadvm:$TOOLS/orca_info:$T/bin:$PATH"
    # shellcheck source=framework/tools/completion/orca.bash
    . "$COMPLETION" || fail "sourcing $COMPLETION failed"
}

# complete_line LINE: what bash does on Tab with the cursor at the end of
# LINE: split it into COMP_WORDS (at blanks, and at ':' and '=', which are
# in COMP_WORDBREAKS; LINE holds no quotes), then call the function that
# `complete -F` registered for its first word. Sets COMPREPLY; the function
# must succeed and print nothing.
complete_line() {
    local line=$1 word fn
    local -a blank_split
    COMP_LINE=$line
    COMP_POINT=${#line}
    COMP_WORDS=()
    read -ra blank_split <<<"$line"
    for word in "${blank_split[@]}"; do
        while [ -n "$word" ]; do
            [[ $word =~ ^([=:]+)(.*)$ || $word =~ ^([^=:]+)(.*)$ ]] || fail "cannot split $word"
            COMP_WORDS+=("${BASH_REMATCH[1]}")
            word=${BASH_REMATCH[2]}
        done
    done
    [[ $line == *" " ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    fn=$(complete -p "${COMP_WORDS[0]}" 2>/dev/null | sed -n 's/.* -F \([^ ]*\) .*/\1/p')
    [ -n "$fn" ] || fail "no completion function is registered for ${COMP_WORDS[0]}"
    COMPREPLY=()
    "$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" 2>"$T/err" ||
        fail "$fn failed on \"$line\""
    [ ! -s "$T/err" ] || fail "$fn printed on \"$line\": $(cat "$T/err")"
}

show_reply() { printf '  COMPREPLY:'; printf ' [%s]' "${COMPREPLY[@]}"; printf '\n'; }

# expect_offered WORD...: every WORD is in COMPREPLY.
expect_offered() {
    local want got found
    for want in "$@"; do
        found=0
        for got in "${COMPREPLY[@]}"; do [ "$got" = "$want" ] && found=1; done
        [ "$found" -eq 1 ] || { show_reply; fail "\"$COMP_LINE\" does not offer $want"; }
    done
}

# expect_not_offered WORD...: no WORD is in COMPREPLY.
expect_not_offered() {
    local bad got
    for bad in "$@"; do
        for got in "${COMPREPLY[@]}"; do
            [ "$got" != "$bad" ] || { show_reply; fail "\"$COMP_LINE\" offers $bad"; }
        done
    done
}

# expect_all_start PREFIX: every word of COMPREPLY starts with PREFIX, and
# there is one at least.
expect_all_start() {
    local got
    [ "${#COMPREPLY[@]}" -gt 0 ] || fail "\"$COMP_LINE\" offers nothing"
    for got in "${COMPREPLY[@]}"; do
        [[ $got == "$1"* ]] || { show_reply; fail "\"$COMP_LINE\" offers $got, which does not start with $1"; }
    done
}

# --- options, from the program's --help ------------------------------------------

case_orcarun_options() {
    setup
    complete_line "orcarun --"
    expect_offered --host --mca --hostfile --np --map-by --oversubscribe --tag-output --stdin --timeout \
        --timing --report-routes --report-topology --tune --version --help --wdir --machinefile --prepend-rank \
        --bind-to --report-bindings --cpus-per-rank
    expect_all_start --
    complete_line "orcarun -"
    expect_offered -x -genv -genvlist -hosts -f -l -wdir
    expect_not_offered --genv --genvlist
    # orcarun's help names orca_info's --param; it is no option of orcarun.
    expect_not_offered --param
}

# Placement and binding values: the policies, and the bindings --help lists.
case_orcarun_placement_values() {
    setup
    complete_line "orcarun --map-by "
    expect_offered slot node hwthread core numa package
    complete_line "orcarun -map-by nu"
    [ "${COMPREPLY[*]}" = numa ] || { show_reply; fail "-map-by nu: expected numa alone"; }
    complete_line "orcarun --bind-to "
    expect_offered none hwthread core numa package
    complete_line "orcarun -bind-to c"
    [ "${COMPREPLY[*]}" = core ] || { show_reply; fail "-bind-to c: expected core alone"; }
}

case_orca_info_options() {
    setup
    complete_line "orca_info --"
    expect_offered --param --level --interfaces --reach --same-host --parsable --mca --tune --version --help
    expect_all_start --
}

# orcadvm: its commands, then start's options (from its --help, without a
# job's options or status's --dvm-uri), or status's and stop's --dvm-uri.
case_orcadvm_commands_and_options() {
    setup
    complete_line "orcadvm "
    expect_offered start status stop
    complete_line "orcadvm st"
    expect_offered start status stop
    complete_line "orcadvm start --"
    expect_offered --daemonize --host --hostfile --mca --tune --timing --report-routes --mesh-check --help
    expect_not_offered --dvm-uri --np --map-by
    expect_all_start --
    complete_line "orcadvm start --mca orcadvm_idle"
    expect_offered orcadvm_idle_timeout
    complete_line "orcadvm status --"
    expect_offered --dvm-uri
    expect_not_offered --daemonize --host
    touch "$T/dvm.contact"
    cd "$T" || fail "cd $T"
    complete_line "orcadvm stop --dvm-uri dvm.c"
    expect_offered dvm.contact
}

# orcarun's options for a job on a DVM, and --dvm-uri's contact file.
case_orcarun_dvm_options() {
    setup
    complete_line "orcarun --dv"
    expect_offered --dvm --dvm-uri --dvm-no-wait
    expect_all_start --dvm
    touch "$T/dvm.contact"
    cd "$T" || fail "cd $T"
    complete_line "orcarun --dvm-uri dvm.c"
    expect_offered dvm.contact
}

# --- MCA variable names, from orca_info --param all all --parsable ---------------

case_mca_names_with_prefix() {
    setup
    complete_line "orcarun --mca oob_tcp_if_"
    expect_offered oob_tcp_if_include oob_tcp_if_exclude
    expect_all_start oob_tcp_if_
}

case_mca_unique_name() {
    setup
    complete_line "orcarun --mca plm_rsh_ag"
    [ "${COMPREPLY[*]}" = plm_rsh_agent ] || { show_reply; fail "expected plm_rsh_agent alone"; }
    # -mca, which orcarun and orca_info accept too.
    complete_line "orcarun -mca plm_rsh_ag"
    [ "${COMPREPLY[*]}" = plm_rsh_agent ] || { show_reply; fail "-mca: expected plm_rsh_agent alone"; }
    complete_line "orca_info --mca plm_rsh_ag"
    [ "${COMPREPLY[*]}" = plm_rsh_agent ] || { show_reply; fail "orca_info: expected plm_rsh_agent alone"; }
}

case_orca_info_param_frameworks() {
    setup
    complete_line "orca_info --param "
    expect_offered all mca plm oob routed ras orcarun
    complete_line "orca_info --param plm "
    expect_offered all base local rsh
    expect_not_offered tcp
}

# --- forwarded variables: the names of those set here ------------------------------

case_forwarded_names() {
    setup
    export ORCATEST_FWD_ONE=1 ORCATEST_FWD_TWO=2
    local line
    for line in "orcarun -x ORCATEST_FWD_" "orcarun -genv ORCATEST_FWD_" "orcarun --genv ORCATEST_FWD_" \
                "orcarun -genvlist ORCATEST_FWD_"; do
        complete_line "$line"
        [ "${COMPREPLY[*]}" = "ORCATEST_FWD_ONE ORCATEST_FWD_TWO" ] || { show_reply; fail "$line: expected both names"; }
    done
    # After a comma, the names again, with what precedes the comma kept.
    complete_line "orcarun -genvlist HOME,ORCATEST_FWD_T"
    [ "${COMPREPLY[*]}" = "HOME,ORCATEST_FWD_TWO" ] || { show_reply; fail "-genvlist after a comma"; }
    # A value is the user's own; after -genv's two words, the command.
    complete_line "orcarun -genv ORCATEST_FWD_ONE ORCATEST_FWD_"
    [ "${#COMPREPLY[@]}" -eq 0 ] || { show_reply; fail "-genv's value: expected nothing"; }
    complete_line "orcarun -x ORCATEST_FWD_ONE=ORCATEST_FWD_"
    [ "${#COMPREPLY[@]}" -eq 0 ] || { show_reply; fail "-x NAME=: expected nothing"; }
    complete_line "orcarun -genv A b -x C=d orcatestc"
    [ "${COMPREPLY[*]}" = orcatestcmd ] || { show_reply; fail "after -genv A b -x C=d: expected orcatestcmd alone"; }
}

# --- orcarun's command and its arguments -----------------------------------------

case_command_word() {
    setup
    complete_line "orcarun -n 2 orcatestc"
    [ "${COMPREPLY[*]}" = orcatestcmd ] || { show_reply; fail "expected orcatestcmd alone"; }
    if type -P hostname >/dev/null; then
        complete_line "orcarun -n 2 hostn"
        expect_offered hostname
        expect_all_start hostn
    fi
    # ":" and "=" are word breaks for bash, not for orcarun: the command still
    # follows "--host localhost:2" and "--np=1".
    complete_line "orcarun --host localhost:2 --np=1 orcatestc"
    [ "${COMPREPLY[*]}" = orcatestcmd ] || { show_reply; fail "after --host localhost:2: expected orcatestcmd alone"; }
}

case_files() {
    setup
    : >"$T/hosts.txt"
    complete_line "orcarun --hostfile $T/hosts"
    [ "${COMPREPLY[*]}" = "$T/hosts.txt" ] || { show_reply; fail "--hostfile: expected $T/hosts.txt alone"; }
    # Hydra's spelling of the hostfile option completes files too; --wdir
    # directories only.
    complete_line "orcarun -f $T/hosts"
    [ "${COMPREPLY[*]}" = "$T/hosts.txt" ] || { show_reply; fail "-f: expected $T/hosts.txt alone"; }
    mkdir "$T/hosts.d" || fail "mkdir"
    complete_line "orcarun --wdir $T/hosts"
    [ "${COMPREPLY[*]}" = "$T/hosts.d" ] || { show_reply; fail "--wdir: expected $T/hosts.d alone"; }
    rmdir "$T/hosts.d" || fail "rmdir"
    # After the command, its arguments are files.
    complete_line "orcarun -n 2 orcatestcmd $T/hosts"
    [ "${COMPREPLY[*]}" = "$T/hosts.txt" ] || { show_reply; fail "the command's argument: expected $T/hosts.txt alone"; }
}

run_case Completion.OrcarunOptions case_orcarun_options
run_case Completion.OrcarunPlacementValues case_orcarun_placement_values
run_case Completion.OrcaInfoOptions case_orca_info_options
run_case Completion.OrcadvmCommandsAndOptions case_orcadvm_commands_and_options
run_case Completion.OrcarunDvmOptions case_orcarun_dvm_options
run_case Completion.McaNamesWithPrefix case_mca_names_with_prefix
run_case Completion.McaUniqueName case_mca_unique_name
run_case Completion.OrcaInfoParamFrameworks case_orca_info_param_frameworks
run_case Completion.ForwardedNames case_forwarded_names
run_case Completion.CommandWord case_command_word
run_case Completion.Files case_files

finish_cases
