#!/bin/bash
# The manual pages of orcarun, orcadvm, orcad and orca_info (from the source tree):
# each renders without a warning from man or groff, has the sections a
# reader looks for, and names every option its program's --help prints (the
# program from the build tree), so that an option added without
# documentation fails here.
. "$(dirname "$0")/../../lib/testcase.sh"

# `make check` sets these (AM_TESTS_ENVIRONMENT in test/Makefile.inc).
if [ -z "${ORCA_TEST_BUILDDIR:-}" ] || [ -z "${ORCA_TEST_SRCDIR:-}" ] ||
    [ -z "${ORCA_MCA_mca_base_help_path:-}" ]; then
    echo "ORCA_TEST_BUILDDIR, ORCA_TEST_SRCDIR and ORCA_MCA_mca_base_help_path must be set (run via make check)" >&2
    exit 1
fi
TOOLS="$ORCA_TEST_BUILDDIR/framework/tools"
PAGES="$ORCA_TEST_SRCDIR/framework/tools"
for program in orcarun orcadvm orcad orca_info; do
    if [ ! -x "$TOOLS/$program/$program" ]; then
        echo "$TOOLS/$program/$program is not built" >&2
        exit 1
    fi
done

# A private directory T as $HOME, removed when the case ends; no param or
# override file, so that a tester's settings cannot change --help.
setup() {
    T=$(mktemp -d) || fail "mktemp -d failed"
    trap 'rm -rf "$T"' EXIT
    export HOME="$T"
    export ORCA_MCA_mca_base_param_files=none
    export ORCA_MCA_mca_base_override_param_file=none
}

page_of() { echo "$PAGES/$1/$1.1"; }

# need_man: skips the case where the man pages cannot be rendered.
need_man() {
    local tool
    for tool in man groff col; do
        command -v "$tool" >/dev/null || skip "$tool is not installed"
    done
}

# render PROGRAM: its page as plain text in $T/page.txt, as man shows it
# at 80 columns (bold and underline removed, U+2010 and U+2212 as "-").
render() {
    LC_ALL=C.UTF-8 MANWIDTH=80 man -l -Tutf8 "$(page_of "$1")" 2>/dev/null | col -bx |
        sed 's/\xe2\x80\x90/-/g; s/\xe2\x88\x92/-/g' >"$T/page.txt"
    [ -s "$T/page.txt" ] || fail "man rendered nothing for $(page_of "$1")"
}

# help_options PROGRAM: every option word its --help prints, one a line:
# a word of one or two dashes and a letter, anywhere in the text (an option
# another program's, orca_info's --param in orcarun's help, counts too: the
# page must name it where the help does).
help_options() {
    "$TOOLS/$1/$1" --help >"$T/help.txt" 2>"$T/help.err" ||
        fail "$1 --help failed: $(cat "$T/help.err")"
    grep -oE -- '(^|[^[:alnum:]_-])--?[[:alpha:]][[:alnum:]-]*' "$T/help.txt" | sed 's/^[^-]*//' | sort -u
}

# --- each page renders without a warning ----------------------------------

# expect_clean_render PROGRAM: man (its own warnings and groff's) and groff
# -ww (every warning) print nothing on stderr and succeed.
expect_clean_render() {
    need_man
    local page status=0
    page=$(page_of "$1")
    [ -f "$page" ] || fail "$page is missing"
    LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l -Tutf8 "$page" >"$T/out" 2>"$T/err" || status=$?
    [ "$status" -eq 0 ] || fail "man -l $page exited with $status: $(cat "$T/err")"
    [ ! -s "$T/err" ] || fail "man warned about $page:
$(cat "$T/err")"
    [ -s "$T/out" ] || fail "man rendered nothing for $page"
    status=0
    LC_ALL=C.UTF-8 groff -man -ww -z -Tutf8 "$page" 2>"$T/err" || status=$?
    [ "$status" -eq 0 ] || fail "groff exited with $status on $page: $(cat "$T/err")"
    [ ! -s "$T/err" ] || fail "groff warned about $page:
$(cat "$T/err")"
}

case_orcarun_renders() { setup; expect_clean_render orcarun; }
case_orcadvm_renders() { setup; expect_clean_render orcadvm; }
case_orcad_renders() { setup; expect_clean_render orcad; }
case_orca_info_renders() { setup; expect_clean_render orca_info; }

# --- each page names every option of its program's --help --------------------

expect_every_option() {
    need_man
    local options option missing=""
    options=$(help_options "$1")
    [ -n "$options" ] || fail "$1 --help prints no option"
    render "$1"
    for option in $options; do
        # The whole word: --host does not count for --hostfile.
        grep -qE -- "(^|[^[:alnum:]_-])$option([^[:alnum:]_-]|\$)" "$T/page.txt" || missing="$missing $option"
    done
    [ -z "$missing" ] || fail "$(page_of "$1") does not name these options of $1 --help:$missing"
}

case_orcarun_documents_every_option() { setup; expect_every_option orcarun; }
case_orcadvm_documents_every_option() { setup; expect_every_option orcadvm; }
case_orcad_documents_every_option() { setup; expect_every_option orcad; }
case_orca_info_documents_every_option() { setup; expect_every_option orca_info; }

# --- the sections -------------------------------------------------------------

# expect_sections PROGRAM SECTION...: the rendered page has these section
# headings, and its NAME line starts with the program's name.
expect_sections() {
    need_man
    local program=$1 section
    shift
    render "$program"
    for section in NAME SYNOPSIS DESCRIPTION OPTIONS "MCA VARIABLES" ENVIRONMENT "EXIT STATUS" FILES "SEE ALSO" "$@"; do
        grep -qx -- "$section" "$T/page.txt" || fail "$(page_of "$program") has no section $section"
    done
    grep -A1 -x NAME "$T/page.txt" | grep -qE "^ +$program - " ||
        fail "the NAME section of $(page_of "$program") does not start with \"$program - \""
}

case_orcarun_sections() {
    setup
    expect_sections orcarun EXAMPLES "RUNNING UNDER SLURM"
    # What the Slurm section promises.
    sed -n '/^RUNNING UNDER SLURM$/,/^[A-Z]/p' "$T/page.txt" | tr -s ' \n' '  ' >"$T/slurm.txt"
    local text
    for text in SLURM_JOB_ID SLURM_JOB_NODELIST SLURM_TASKS_PER_NODE ras/slurm plm/slurm srun \
                "--mca plm rsh" "--mca ras ^slurm" --host; do
        grep -qF -- "$text" "$T/slurm.txt" || fail "RUNNING UNDER SLURM does not mention $text"
    done
}
case_orcadvm_sections() { setup; expect_sections orcadvm EXAMPLES; }
case_orcad_sections() { setup; expect_sections orcad; }
case_orca_info_sections() { setup; expect_sections orca_info EXAMPLES; }

run_case ManPages.OrcarunRenders case_orcarun_renders
run_case ManPages.OrcadvmRenders case_orcadvm_renders
run_case ManPages.OrcadRenders case_orcad_renders
run_case ManPages.OrcaInfoRenders case_orca_info_renders
run_case ManPages.OrcarunDocumentsEveryOption case_orcarun_documents_every_option
run_case ManPages.OrcadvmDocumentsEveryOption case_orcadvm_documents_every_option
run_case ManPages.OrcadDocumentsEveryOption case_orcad_documents_every_option
run_case ManPages.OrcaInfoDocumentsEveryOption case_orca_info_documents_every_option
run_case ManPages.OrcarunSections case_orcarun_sections
run_case ManPages.OrcadvmSections case_orcadvm_sections
run_case ManPages.OrcadSections case_orcad_sections
run_case ManPages.OrcaInfoSections case_orca_info_sections

finish_cases
