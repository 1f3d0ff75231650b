#!/bin/bash
# orcadvm end to end with plm/local (simulated nodes of this host): start,
# status and stop in the foreground and detached, the idle limit, the
# signals that end a foreground DVM, lost daemons, the contact file, and the clients
# that must be refused (a wrong secret, a replayed handshake, another
# uid, options of a job). Every case checks exact outputs and statuses,
# and that nothing of the DVM is left once it is over: no process, no
# listener, no contact file.
. "$(dirname "$0")/../../lib/orcadvm.sh"

ATTACK="$ORCA_TEST_SRCDIR/test/integration/oob_attack.py"

# ---------------------------------------------------------------------------------

# Started in the foreground on 4 simulated nodes: one ready line, a 0600
# contact file naming it; status lists the hosts and their daemons; stop
# returns once the DVM is gone, and nothing is left.
start_status_stop() {
    dvm_setup
    dvm_start --mca plm_local_num_nodes 4
    [ "$(stat -c %a "$CONTACT")" = 600 ] || fail "contact file mode $(stat -c %a "$CONTACT"), not 600"
    [ "$CONTACT" = "$CONTACTS/dvm.$DVM_PID" ] || fail "contact file $CONTACT, not $CONTACTS/dvm.$DVM_PID"
    [ "$(contact_value pid)" = "$DVM_PID" ] || fail "the contact file names pid $(contact_value pid)"
    [ "$(contact_value hosts)" = 4 ] || fail "the contact file names $(contact_value hosts) hosts"
    [ "$(pids_named "$M" '^orcad$' | wc -l)" = 4 ] || fail "not 4 daemons: $(processes_with_marker "$M")"
    dvm status
    expect_status 0
    expect_line out "dvm       $DVM_PID"
    expect_line out "contact   $CONTACT"
    expect_line out "hosts     4 (4 daemon(s) up)"
    expect_line out "jobs      0 running, 0 waiting"
    expect_line out "clients   1"
    local i
    for i in 1 2 3 4; do expect_match out "^  $HOST_RE#$i  [0-9]+ slot\(s\)  up$"; done
    [ ! -s "$T/err" ] || fail "status wrote on stderr: $(cat "$T/err")"
    dvm stop
    expect_status 0
    expect_line out "orcadvm: DVM $DVM_PID stops (4 host(s))"
    expect_line out "orcadvm: DVM $DVM_PID stopped"
    # Gone when stop returned, not a moment later.
    process_alive "$DVM_PID" && fail "orcadvm $DVM_PID still runs after stop returned"
    [ -z "$(pids_named "$M" '^orcad')" ] || fail "daemons left after stop returned: $(processes_with_marker "$M")"
    dvm_end
    expect_status 0
    grep -qx "orcadvm: DVM $DVM_PID stops (orcadvm stop); its daemons end" "$T/dvm.err" ||
        fail "the DVM did not say why it stops: $(cat "$T/dvm.err")"
    nothing_of_the_dvm_left
}

# SIGINT, SIGTERM and SIGHUP each end a foreground DVM (its starter's
# terminal or shell going): status 0, the signal named, nothing left.
signals_end_a_foreground_dvm() {
    dvm_setup
    local sig name
    for sig in INT TERM HUP; do
        dvm_start --mca plm_local_num_nodes 2
        kill -s "$sig" "$DVM_PID"
        dvm_end
        expect_status 0
        name=$(kill -l "$sig")
        grep -qE "^orcadvm: DVM $DVM_PID stops \((Interrupt|Terminated|Hangup)\); its daemons end$" "$T/dvm.err" ||
            fail "SIG$name: $(cat "$T/dvm.err")"
        nothing_of_the_dvm_left
    done
}

# --daemonize returns once the DVM is up, with its ready line; the DVM
# answers (status names its log, this user's alone), and with no job and
# no client it stops after its idle limit, its log going with it (an end
# as asked: nothing is left).
detached_dvm_stops_when_idle() {
    dvm_setup
    DVM_PID=
    dvm start --daemonize --mca plm_local_num_nodes 2 --mca orcadvm_idle_timeout 2
    expect_status 0
    await_ready "$T/out"
    local pid
    pid=$(contact_value pid)
    process_alive "$pid" || fail "the detached DVM $pid is not running"
    # A new session: the terminal and the shell of its start are not its.
    [ "$(ps -o sid= -p "$pid" | tr -d ' ')" = "$pid" ] || fail "the detached DVM is not a session leader"
    dvm status
    expect_status 0
    expect_line out "hosts     2 (2 daemon(s) up)"
    expect_line out "log       $CONTACT.log"
    [ "$(stat -c '%a %u' "$CONTACT.log")" = "600 $(id -u)" ] || fail "the log is not this user's alone: $(stat -c '%a %u' "$CONTACT.log")"
    local i
    for ((i = 0; i < 300; i++)); do
        process_alive "$pid" || break
        sleep 0.1
    done
    process_alive "$pid" && fail "the detached DVM still runs 30 s after its client left"
    nothing_of_the_dvm_left
}

# A foreground DVM has no idle limit: it runs until its starter ends it.
foreground_dvm_has_no_idle_limit() {
    dvm_setup
    dvm_start --mca orcadvm_idle_timeout 0.5
    sleep 2
    process_alive "$DVM_PID" || fail "the foreground DVM stopped by itself: $(cat "$T/dvm.err")"
    dvm stop
    expect_status 0
    dvm_end
    nothing_of_the_dvm_left
}

# A daemon SIGKILLed once the DVM is up: the DVM names it and goes on with
# the rest (status shows it lost). An interior daemon of the routing tree
# takes its subtree with it (each daemon dropped is named); with no host
# left the DVM stops by itself, with status 1. Nothing is left either way.
lost_daemons_are_dropped() {
    dvm_setup
    # radix 2 over 4: daemons 1 and 2 under the controller, 3 and 4 under 1.
    dvm_start --mca plm_local_num_nodes 4 --mca routed_radix_radix 2
    local pid
    pid=$(orcad_pid "$M" 2)
    [ -n "$pid" ] || fail "no orcad of daemon 2: $(processes_with_marker "$M")"
    kill -KILL "$pid"
    await_line "$T/dvm.err" "^orcadvm: the DVM lost its daemon 2 on $HOST_RE#2 \(.*killed by signal 9.*\); the jobs with ranks$"
    grep -qx "there were ended, and the DVM goes on with its 3 other host(s)." "$T/dvm.err" || fail "$(cat "$T/dvm.err")"
    dvm status
    expect_status 0
    expect_line out "hosts     4 (3 daemon(s) up)"
    expect_match out "^  $HOST_RE#2  [0-9]+ slot\(s\)  lost$"
    expect_match out "^  $HOST_RE#3  [0-9]+ slot\(s\)  up$"
    # Daemon 1, the parent of 3 and 4: all three are dropped, each named,
    # and with no host left the DVM stops.
    pid=$(orcad_pid "$M" 1)
    [ -n "$pid" ] || fail "no orcad of daemon 1: $(processes_with_marker "$M")"
    kill -KILL "$pid"
    dvm_end
    expect_status 1
    local v
    grep -qx "orcadvm: DVM $DVM_PID stops (no daemon is left)" "$T/dvm.err" || fail "$(cat "$T/dvm.err")"
    for v in 1 3 4; do
        grep -qE "^orcadvm: the DVM lost its daemon $v on $HOST_RE#$v " "$T/dvm.err" ||
            fail "daemon $v is not named: $(cat "$T/dvm.err")"
    done
    nothing_of_the_dvm_left
}

# A detached DVM has no terminal: what it says once up (a daemon lost, its
# stop) is in its log, which stays when the DVM ended by itself (status 1:
# no daemon left), so that why can still be read; a foreground DVM keeps
# no log (it says so on its own stderr).
detached_dvm_keeps_its_log() {
    dvm_setup
    DVM_PID=
    dvm start --daemonize --mca plm_local_num_nodes 2
    expect_status 0
    await_ready "$T/out"
    local pid log=$CONTACT.log daemon
    pid=$(contact_value pid)
    [ -f "$log" ] || fail "no log $log beside the contact file: $(ls -l "$CONTACTS")"
    [ -s "$log" ] && fail "the log holds lines before anything happened: $(cat "$log")"
    daemon=$(orcad_pid "$M" 2)
    [ -n "$daemon" ] || fail "no orcad of daemon 2: $(processes_with_marker "$M")"
    kill -KILL "$daemon"
    await_line "$log" "^orcadvm: the DVM lost its daemon 2 on $HOST_RE#2 \(.*killed by signal 9.*\); the jobs with ranks$"
    grep -qx "there were ended, and the DVM goes on with its 1 other host(s)." "$log" || fail "$(cat "$log")"
    daemon=$(orcad_pid "$M" 1)
    [ -n "$daemon" ] || fail "no orcad of daemon 1: $(processes_with_marker "$M")"
    kill -KILL "$daemon"
    local i
    for ((i = 0; i < 300; i++)); do
        process_alive "$pid" || break
        sleep 0.1
    done
    process_alive "$pid" && fail "the detached DVM $pid still runs 30 s after its last daemon was lost"
    await_line "$log" "^orcadvm: DVM $pid stops \(no daemon is left\)$"
    [ ! -e "$CONTACT" ] || fail "the contact file $CONTACT is left"
    [ "$(ls -A "$CONTACTS")" = "$(basename "$log")" ] || fail "not just the log left: $(ls -A "$CONTACTS")"
    rm -f "$log"
    # A foreground DVM keeps none.
    dvm_start --mca plm_local_num_nodes 1
    dvm status
    expect_status 0
    expect_no_match out "^log "
    [ ! -e "$CONTACT.log" ] || fail "a foreground DVM made a log"
    dvm stop
    expect_status 0
    dvm_end
    nothing_of_the_dvm_left
}

# A client with a wrong secret, a replayed handshake and a client with a
# random key are refused in the oob handshake: nothing is answered, the
# DVM goes on and counts none of them as a client.
forged_clients_are_refused() {
    dvm_setup
    dvm_start --mca plm_local_num_nodes 2
    # The contact file with another secret (0600, this user's: read).
    sed "s/^secret .*/secret $(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')/" "$CONTACT" >"$T/forged"
    chmod 600 "$T/forged"
    dvm status --dvm-uri "$T/forged"
    expect_status 1
    expect_match err "^orcadvm: cannot reach the DVM of $T/forged \(process $DVM_PID\): .*(secret|key|proof)"
    expect_no_stdout
    local uri port name
    uri=$(contact_value uri)
    name=${uri%%;*}
    port=$(grep -oE 'tcp=127\.0\.0\.1/8/loopback/[0-9]+' <<<"$uri" | grep -oE '[0-9]+$')
    [ -n "$port" ] || fail "no loopback address in $uri"
    ORCA_JOB_SECRET=$(contact_value secret) python3 "$ATTACK" replay 127.0.0.1 "$port" \
        --as "${name%.*}.1234567890" --to "$name" >"$T/replay" 2>&1 || fail "oob_attack replay failed: $(cat "$T/replay")"
    grep -qx "REPLAY first=established replayed=refused_badkey" "$T/replay" || fail "replay: $(cat "$T/replay")"
    python3 "$ATTACK" wrongkey 127.0.0.1 "$port" --to "$name" --count 20 >"$T/wrongkey" 2>&1 ||
        fail "oob_attack wrongkey failed: $(cat "$T/wrongkey")"
    grep -qx "WRONGKEY tried=20 refused_badkey=20 accepted=0 other=0" "$T/wrongkey" || fail "wrong key: $(cat "$T/wrongkey")"
    dvm status
    expect_status 0
    expect_line out "clients   1"
    expect_line out "hosts     2 (2 daemon(s) up)"
    dvm stop
    expect_status 0
    dvm_end
    expect_status 0
    nothing_of_the_dvm_left
}

# Another user can neither read the contact file nor, with a copy of its
# address and a secret of its own, be heard.
another_user_is_refused() {
    [ "$(id -u)" = 0 ] || skip "needs root to run a client as another user"
    command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
    id nobody >/dev/null 2>&1 || skip "no user nobody"
    dvm_setup
    dvm_start --mca plm_local_num_nodes 2
    local as_nobody=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
    "${as_nobody[@]}" "$ORCADVM" --version >/dev/null 2>&1 ||
        skip "user nobody cannot run $ORCADVM (a directory above it is closed to other users)"
    chmod 755 "$T"  # so that nobody reaches the files below, not the contact file
    mkdir -m 700 "$T/nobody" && chown nobody "$T/nobody"
    status=0
    orcarun_env ORCA_TEST_MARKER="$M" HOME="$T/nobody" XDG_RUNTIME_DIR= ORCA_DVM="$CONTACT" \
        timeout -k 5 60 "${as_nobody[@]}" "$ORCADVM" status >"$T/out" 2>"$T/err" </dev/null || status=$?
    expect_status 1
    expect_match err "^orcadvm: cannot use the DVM contact file $CONTACT: "
    # Its own copy of the address, with a secret it made up.
    sed "s/^secret .*/secret $(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')/" "$CONTACT" >"$T/nobody/guess"
    chown nobody "$T/nobody/guess" && chmod 600 "$T/nobody/guess"
    status=0
    orcarun_env ORCA_TEST_MARKER="$M" HOME="$T/nobody" XDG_RUNTIME_DIR= \
        timeout -k 5 60 "${as_nobody[@]}" "$ORCADVM" status --dvm-uri "$T/nobody/guess" >"$T/out" 2>"$T/err" </dev/null ||
        status=$?
    expect_status 1
    expect_match err "^orcadvm: cannot reach the DVM of $T/nobody/guess \(process $DVM_PID\): "
    dvm status
    expect_line out "clients   1"
    dvm stop
    expect_status 0
    dvm_end
    nothing_of_the_dvm_left
}

# Without a DVM, status and stop say so; with two, they ask which; a
# contact file left by a DVM that was killed is passed over.
finding_the_dvm() {
    dvm_setup
    dvm status
    expect_status 1
    expect_line err "orcadvm: no DVM of yours is running: $CONTACTS holds no contact file of a"
    dvm_start --mca plm_local_num_nodes 1
    local first=$CONTACT first_pid=$DVM_PID
    # A stale file: a process that has ended. (Not the pid of one that
    # ran: where pid_max is 32768, a later process of the case, the second
    # DVM itself, can be given it again.)
    local dead=$(($(cat /proc/sys/kernel/pid_max) + 1))
    sed "s/^pid .*/pid $dead/" "$first" >"$CONTACTS/dvm.$dead" && chmod 600 "$CONTACTS/dvm.$dead"
    dvm status
    expect_status 0
    expect_line out "dvm       $first_pid"
    dvm_start --mca plm_local_num_nodes 1
    dvm status
    expect_status 1
    expect_match err "^orcadvm: several DVMs of yours are running"
    dvm status --dvm-uri "$first"
    expect_status 0
    expect_line out "dvm       $first_pid"
    ORCA_DVM="$CONTACT" dvm stop
    expect_status 0
    expect_line out "orcadvm: DVM $DVM_PID stopped"
    dvm_end
    DVM_PID=$first_pid
    dvm stop --dvm-uri "$first"
    expect_status 0
    dvm_end
    rm -f "$CONTACTS/dvm.$dead"
    nothing_of_the_dvm_left
}

# What orcadvm start refuses before anything starts: a job's option (by
# name), a program, an unknown option, a bad idle limit; status's own
# mistakes; a start that cannot reach its host says why with status 1,
# detached or not.
mistakes_are_refused() {
    dvm_setup
    dvm start -n 4
    expect_status 1
    expect_line err "orcadvm: the option -n cannot be used as given: it is an option of a job, not of the daemons a DVM keeps; give it with the job."
    dvm start --map-by=node
    expect_status 1
    expect_match err "^orcadvm: the option --map-by=node cannot be used as given: it is an option of a job"
    dvm start hostname
    expect_status 1
    expect_line err "orcadvm: the option hostname cannot be used as given: a DVM runs no program of its own; its jobs are given each on its own."
    dvm start --daemonise
    expect_status 1
    expect_match err "it is not an option of orcadvm start \(orcadvm --help lists them\)"
    dvm start --mca orcadvm_idle_timeout 0
    expect_status 1
    expect_match err "orcadvm_idle_timeout"
    dvm status --bogus
    expect_status 1
    expect_line err "orcadvm: the option --bogus cannot be used as given: orcadvm status takes --dvm-uri FILE|URI only."
    dvm frobnicate
    expect_status 1
    expect_line err "orcadvm: unknown command frobnicate: start, status or stop (orcadvm --help)"
    dvm start --daemonize --mca plm_base_daemon "$T/no-orcad"
    expect_status 1
    expect_match err "cannot run $T/no-orcad: No such file or directory"
    expect_no_stdout
    # A contact directory that cannot be made (a file stands in its place;
    # root passes by mode bits): the daemons came up, but no client could
    # find them; a failed start (status 1), detached or not.
    mkdir -m 700 "$T/closed" && : >"$T/closed/orca"
    XDG_RUNTIME_DIR="$T/closed" dvm start --daemonize --mca plm_local_num_nodes 2
    expect_status 1
    expect_match err "^orcadvm: cannot write the DVM contact file $T/closed/orca/dvm\.[0-9]+: "
    expect_no_stdout
    XDG_RUNTIME_DIR="$T/closed" dvm start --mca plm_local_num_nodes 2
    expect_status 1
    nothing_of_the_dvm_left
}

CASES=(start_status_stop signals_end_a_foreground_dvm detached_dvm_stops_when_idle detached_dvm_keeps_its_log foreground_dvm_has_no_idle_limit
       lost_daemons_are_dropped forged_clients_are_refused another_user_is_refused finding_the_dvm
       mistakes_are_refused)
run_dvm_suite Orcadvm "$@"
