# Shell test cases that report like GoogleTest, so that one summary counts
# every test case of the suite. Source it, define functions, then:
#   run_case NAME FUNCTION   runs FUNCTION in a subshell; a non-zero exit fails
#   skip_case NAME WHY       records a skipped case with the reason
#   finish_cases             exits 0 only if no case failed
# Inside a case, `fail MESSAGE` stops it with a message.

_cases_failed=0

fail() {
    echo "FAILURE: $*" >&2
    exit 1
}

run_case() {
    local name=$1 fn=$2 start end
    echo "[ RUN      ] $name"
    start=$(date +%s%3N)
    if ( set -e; "$fn" ); then
        end=$(date +%s%3N)
        echo "[       OK ] $name ($((end - start)) ms)"
    else
        end=$(date +%s%3N)
        echo "[  FAILED  ] $name ($((end - start)) ms)"
        _cases_failed=$((_cases_failed + 1))
    fi
}

skip_case() {
    echo "[ RUN      ] $1"
    echo "SKIPPED: $2"
    echo "[  SKIPPED ] $1 (0 ms)"
}

finish_cases() {
    [ "$_cases_failed" -eq 0 ]
}
