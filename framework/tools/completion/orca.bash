# Bash completion for orcarun, orcadvm and orca_info.
#
# Self-contained (bash 4 or later; nothing of the bash-completion package is
# needed), so that it works wherever it is sourced. What it offers comes from
# the programs themselves when Tab is pressed, so that it cannot drift from
# the code:
#   - the options, and what each takes, from the option column of
#     `PROGRAM --help` ("  --mca NAME VALUE    set ..."), PROGRAM being the
#     one that is completed (${COMP_WORDS[0]}, looked up on PATH);
#   - the MCA variable names, frameworks and components from
#     `orca_info --param all all --parsable`, whose lines read
#     mca:FRAMEWORK:COMPONENT:param:NAME:FIELD:VALUE, with the orca_info
#     installed beside the program (else the one on PATH).
# Installed as completions/orcarun, completions/orcadvm and completions/orca_info,
# the names under
# which bash-completion's loader looks for them.

# Spellings the programs accept that their --help does not list: used to read
# a command line, never offered.
declare -gA _orca_hidden_aliases=([-H]=--host [-np]=--np [-mca]=--mca [-V]=--version [-h]=--help
                                  [--genv]=-genv [--genvlist]=-genvlist [--env]=-env [-machinefile]=--machinefile
                                  [-npernode]=--npernode [-display-map]=--display-map [-report-bindings]=--report-bindings
                                  [--cpus-per-proc]=--cpus-per-rank
                                  [-prepend-rank]=--prepend-rank [-output-filename]=--output-filename)

# _orca_words: COMP_WORDS as the program will see them. Bash splits words at
# the characters of COMP_WORDBREAKS, ':' and '=' among them, so that
# "--host node1:4" arrives as four words; words with no space between them
# are joined again here. Sets the caller's `words`, `cword` (the index of the
# word at the cursor) and `cur` (that word, up to the cursor).
_orca_words() {
    local line=${COMP_LINE-} point=${COMP_POINT-} off=0 i n=-1 w rest gap
    local -a starts=()
    [[ -n $point ]] || point=${#line}
    words=() cword=0 cur=
    for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
        w=${COMP_WORDS[i]}
        rest=${line:off}
        gap=${rest%%[![:space:]]*}
        off=$((off + ${#gap}))
        if ((n >= 0 && ${#gap} == 0)) && [[ $w == [=:]* || ${COMP_WORDS[i - 1]} == *[=:] ]]; then
            words[n]+=$w
        else
            n=$((n + 1))
            words[n]=$w
            starts[n]=$off
        fi
        ((i == ${COMP_CWORD-0})) && cword=$n
        off=$((off + ${#w}))
    done
    ((n >= 0)) || { words=(""); starts=(0); }
    cur=${words[cword]-}
    local start=${starts[cword]-0}
    if ((point >= start && point - start < ${#cur})); then
        cur=${cur:0:point-start}
    fi
}

# _orca_path WORD: the program WORD names (a path, or a name on PATH).
_orca_path() {
    local p=$1
    # shellcheck disable=SC2088 # a literal "~/", as typed: bash has not expanded it
    [[ $p == "~/"* ]] && p=$HOME/${p#"~/"}
    type -P -- "$p"
}

# _orca_info_for PROGRAM: the orca_info that belongs with PROGRAM (a path).
_orca_info_for() {
    local dir=${1%/*}
    [[ $1 == */* ]] || dir=.
    if [[ ${1##*/} == orca_info ]]; then
        printf '%s\n' "$1"
    elif [[ -x $dir/orca_info && ! -d $dir/orca_info ]]; then
        printf '%s\n' "$dir/orca_info"
    else
        type -P orca_info
    fi
}

# _orca_read_help PROGRAM: fills the caller's associative arrays `takes`
# (option -> the words of its argument, "" for none) and `listed` (the
# options --help lists) from the option column of PROGRAM --help: lines
# that start with blanks and a '-', up to two blanks in a row. "-n, --np N"
# gives -n and --np, both taking N.
_orca_read_help() {
    local line alias word
    local -a ws names
    while IFS= read -r line; do
        [[ $line =~ ^[[:space:]]+(-[^[:space:]].*)$ ]] || continue
        line=${BASH_REMATCH[1]}
        line=${line%%"  "*}
        read -ra ws <<<"${line//, / }"
        names=()
        for word in "${ws[@]}"; do
            [[ $word == -* ]] || break
            names+=("${word%,}")
        done
        for alias in "${names[@]}"; do
            takes[$alias]=${ws[*]:${#names[@]}}
            listed[$alias]=1
        done
    done < <("$1" --help 2>/dev/null)
    for alias in "${!_orca_hidden_aliases[@]}"; do
        word=${_orca_hidden_aliases[$alias]}
        [[ -v "takes[$word]" && ! -v "takes[$alias]" ]] && takes[$alias]=${takes[$word]}
    done
    return 0
}

# _orca_params ORCA_INFO: its `--param all all --parsable` value lines, as
# "FRAMEWORK COMPONENT NAME VALUE".
_orca_params() {
    [[ -n $1 ]] || return 0
    local tag fw comp kind name field value
    while IFS=: read -r tag fw comp kind name field value; do
        [[ $tag == mca && $kind == param && $field == value ]] && printf '%s %s %s %s\n' "$fw" "$comp" "$name" "$value"
    done < <("$1" --param all all --parsable 2>/dev/null)
}

# _orca_reply WORDS...: COMPREPLY is those of WORDS that start with $cur.
_orca_reply() {
    local w
    COMPREPLY=()
    for w in "$@"; do
        [[ $w == "$cur"* ]] && COMPREPLY+=("$w")
    done
    return 0
}

# _orca_files: COMPREPLY is the file names that start with $cur.
_orca_files() {
    compopt -o filenames 2>/dev/null || :  # outside a completion (tests) there is none to set
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}

# _orca_argument OPTION N PROGRAM: COMPREPLY for the Nth word (from 1) after
# OPTION, $cur.
_orca_argument() {
    local option=$1 n=$2 program=$3 info fw comp name value
    local -a args all=()
    read -ra args <<<"${takes[$option]}"
    local what=${args[n - 1]-}
    case ${_orca_hidden_aliases[$option]-$option} in
        --mca)
            info=$(_orca_info_for "$program")
            if ((n == 1)); then
                while read -r fw comp name value; do all+=("$name"); done < <(_orca_params "$info")
                _orca_reply "${all[@]}"
            else
                # The current value, if it is set: a starting point to edit.
                while read -r fw comp name value; do
                    [[ $name == "${words[cword - 1]}" && -n $value ]] && all+=("$(printf '%q' "$value")")
                done < <(_orca_params "$info")
                _orca_reply "${all[@]}"
            fi
            return 0
            ;;
        --param)
            info=$(_orca_info_for "$program")
            while read -r fw comp name value; do
                if ((n == 1)); then
                    all+=("$fw")
                elif [[ $fw == "${words[cword - 1]}" || ${words[cword - 1]} == all ]]; then
                    all+=("$comp")
                fi
            done < <(_orca_params "$info")
            mapfile -t all < <(printf '%s\n' "${all[@]}" all | sort -u)
            _orca_reply "${all[@]}"
            return 0
            ;;
        -x | -genv | -genvlist)
            # The names of the variables set here: what -x NAME and -genvlist
            # forward, and -genv's name; a value is the user's own.
            local canonical=${_orca_hidden_aliases[$option]-$option} before=
            if [[ $canonical == -genv ]] && ((n > 1)) || [[ $cur == *=* ]]; then
                COMPREPLY=()
                return 0
            fi
            [[ $canonical == -genvlist && $cur == *,* ]] && before=${cur%,*},
            mapfile -t all < <(compgen -e -- "${cur#"$before"}")
            COMPREPLY=("${all[@]/#/$before}")
            return 0
            ;;
        --map-by | -map-by)
            # The policies; modifiers (":pe=N") are typed.
            _orca_reply slot node hwthread core numa package
            return 0
            ;;
        --host | -hosts)
            # Host names after the last comma; nothing once ":SLOTS" begins.
            local before=
            [[ $cur == *,* ]] && before=${cur%,*},
            [[ ${cur##*,} == *:* ]] && { COMPREPLY=(); return 0; }
            mapfile -t all < <(compgen -A hostname -- "${cur##*,}")
            COMPREPLY=("${all[@]/#/$before}")
            return 0
            ;;
    esac
    case $what in
        # A file, or a word typed out ("FILE|URI"): the files.
        FILE | FILE\|* | *\|FILE) _orca_files ;;
        DIR) compopt -o filenames 2>/dev/null || :
             mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;
        # Words the help lists as alternatives, "none|all|RANK": the
        # lower-case ones are literal.
        *\|*) local -a alts; IFS='|' read -ra alts <<<"$what"
              all=(); for value in "${alts[@]}"; do [[ $value =~ ^[a-z]+$ ]] && all+=("$value"); done
              _orca_reply "${all[@]}" ;;
        *) COMPREPLY=() ;;
    esac
}

# _orca_complete RUNS_COMMAND: the completion of orcarun (RUNS_COMMAND 1:
# options, then a command and its arguments) and of orca_info (0: options
# only).
_orca_complete() {
    local runs_command=$1
    local -a words=()
    local cword cur
    _orca_words
    COMPREPLY=()
    local program
    program=$(_orca_path "${words[0]}") || return 0
    local -A takes=() listed=()
    _orca_read_help "$program"

    # Read the words before the cursor as the program does: options and
    # their arguments, then (orcarun) the command and its arguments.
    local i=1 w k opt=
    local -a args
    while ((i < cword)); do
        w=${words[i]}
        if [[ $w == -- ]]; then
            ((runs_command)) && { i=$((i + 1)); break; }
        elif [[ $w == --*=* ]]; then
            :
        elif [[ $w == -* && -v "takes[$w]" ]]; then
            read -ra args <<<"${takes[$w]}"
            k=${#args[@]}
            # orca_info's --reach ADDR...: every following word up to the
            # next one that starts with "--", as orca_info reads it.
            if ((k > 0)) && [[ ${args[k - 1]} == *... && ${args[k - 1]} != *,... ]]; then
                while ((i + 1 < cword)) && [[ ${words[i + 1]} != --* ]]; do i=$((i + 1)); done
                if ((i + 1 == cword)) && [[ $cur != --* ]]; then return 0; fi
            elif ((i + k >= cword)); then
                opt=$w
                _orca_argument "$opt" $((cword - i)) "$program"
                break
            else
                i=$((i + k))
            fi
        elif [[ $w != -* ]] && ((runs_command)); then
            break
        fi
        i=$((i + 1))
    done

    if [[ -z $opt ]]; then
        if ((runs_command && i < cword)); then
            _orca_files                           # an argument of the command
        elif ((runs_command)) && [[ $cur != -* || $i -gt 1 && ${words[i - 1]} == -- ]]; then
            if [[ $cur == */* ]]; then
                _orca_files
            else
                mapfile -t COMPREPLY < <(compgen -c -- "$cur" | sort -u)
            fi
        elif [[ $cur == --*=* && -v "takes[${cur%%=*}]" ]]; then
            # --option=VALUE: the value, as for --option VALUE.
            local left=${cur%%=*}= full=$cur
            read -ra args <<<"${takes[${cur%%=*}]}"
            if ((${#args[@]} == 1)); then
                cur=${full#*=}
                _orca_argument "${full%%=*}" 1 "$program"
                COMPREPLY=("${COMPREPLY[@]/#/$left}")
                cur=$full
            fi
        else
            local -a options=()
            mapfile -t options < <(printf '%s\n' "${!listed[@]}" | sort)
            _orca_reply "${options[@]}"
        fi
    fi

    # Readline replaces only what follows the last word break (':' or '='
    # here, the ones _orca_words joins) of the word: drop what precedes it.
    local j c glued=
    for ((j = ${#cur} - 1; j >= 0; j--)); do
        c=${cur:j:1}
        if [[ ($c == = || $c == :) && ${COMP_WORDBREAKS-} == *"$c"* ]]; then
            glued=${cur:0:j+1}
            break
        fi
    done
    [[ -n $glued ]] && COMPREPLY=("${COMPREPLY[@]#"$glued"}")
    return 0
}

_orcarun() { _orca_complete 1; }
_orca_info() { _orca_complete 0; }

# orcadvm: its command first (start, status, stop); then start's options
# (its --help's, but --dvm-uri, which is status's and stop's), or status's
# and stop's --dvm-uri FILE.
_orcadvm() {
    local -a words=()
    local cword cur
    _orca_words
    COMPREPLY=()
    if ((cword == 1)); then
        _orca_reply start status stop --help --version
        return 0
    fi
    case ${words[1]} in
        start)
            _orca_complete 0
            local -a kept=()
            local w
            for w in "${COMPREPLY[@]}"; do [[ $w == --dvm-uri ]] || kept+=("$w"); done
            COMPREPLY=("${kept[@]}")
            ;;
        status | stop)
            if [[ ${words[cword - 1]} == --dvm-uri ]]; then
                _orca_files
            else
                _orca_reply --dvm-uri --help
            fi
            ;;
    esac
    return 0
}

complete -F _orcarun orcarun
complete -F _orcadvm orcadvm
complete -F _orca_info orca_info
