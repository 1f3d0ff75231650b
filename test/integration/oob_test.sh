#!/bin/bash
# Out-of-band messages between real Orca processes (test/oob/oob_peer) on
# simulated hosts (network namespaces built with contrib/netcluster): which
# component and which addresses carry a peer, refusals of the wrong process,
# the wrong key and the wrong job, hostile bytes on a listener, and a stream
# that survives the loss of its link. Needs root.
. "$(dirname "$0")/../lib/testcase.sh"
. "$(dirname "$0")/../lib/netns.sh"

# exchange PREFIX H1 H2 COUNT ARGS...: 1.1 on H1 sends COUNT messages of 64
# bytes to 1.2 on H2, both run with ARGS; both must finish, 1.2 must have
# received all of them in order. Outputs stay in $OOB_DIR/1.1.* and 1.2.*.
exchange() {
    local p=$1 h1=$2 h2=$3 n=$4; shift 4
    oob_start 1.2 "$p" "$h2" "$@" --name 1.2 --uri-file "$OOB_DIR/1.2.uri" --peer-file 1.1="$OOB_DIR/1.1.uri" \
        --expect "$n" --timeout-ms 20000
    oob_start 1.1 "$p" "$h1" "$@" --name 1.1 --uri-file "$OOB_DIR/1.1.uri" --peer-file 1.2="$OOB_DIR/1.2.uri" \
        --send "1.2:$n:64" --timeout-ms 20000
    finish_exchange "$n"
}

# exit_text RC: how a process ended, for messages.
exit_text() {
    if [ "$1" -gt 128 ]; then echo "was killed by signal $(($1 - 128)) ($(kill -l $(($1 - 128)) 2>/dev/null || true))"
    else echo "exited with status $1"; fi
}

# finish_exchange COUNT: waits for 1.1 and 1.2 and checks what they printed.
finish_exchange() {
    local n=$1 rc=0
    oob_wait 1.1 || rc=$?
    [ $rc -eq 0 ] || fail "1.1 $(exit_text $rc):
$(oob_output 1.1)
$(oob_output 1.2)"
    oob_wait 1.2 || rc=$?
    [ $rc -eq 0 ] || fail "1.2 $(exit_text $rc):
$(oob_output 1.2)
$(oob_output 1.1)"
    oob_expect 1.2 "^RECEIVED $n from 1\.1 in order$"
    oob_expect 1.2 '^DONE$'
    oob_expect 1.1 '^DONE$'
    ! grep -q '^ERROR' "$OOB_DIR/1.1.out" "$OOB_DIR/1.2.out" || fail "an ERROR line:
$(oob_output 1.1)
$(oob_output 1.2)"
}

# route_of NAME PEER: the last non-empty route NAME printed for PEER.
route_of() {
    local r
    r=$(grep -E "^ROUTE $2 [a-z]" "$OOB_DIR/$1.out" | tail -1 | cut -d' ' -f3-)
    [ -n "$r" ] || fail "$1 printed no route to $2:
$(oob_output "$1")"
    echo "$r"
}

# expect_route NAME PEER REGEX: that route matches the extended regex.
expect_route() {
    local r; r=$(route_of "$1" "$2")
    grep -qE -- "$3" <<<"$r" || fail "the route of $1 to $2 is \"$r\", not /$3/"
}

# first_attempt NAME PEER: the first address NAME's tcp tried for PEER
# (needs oob_base_verbose 20).
first_attempt() {
    sed -nE "s/.*tcp: connecting to $2 at ([^ ]+) from .*/\1/p" "$OOB_DIR/$1.err" | head -1
}

# --- one host, only lo and virbr0 ----------------------------------------------------------

same_host_default_is_usock() {
    local p; p=$(new_cluster --hosts 1 --no-link --virbr)
    oob_dir
    exchange "$p" h1 h1 1000
    expect_route 1.1 1.2 '^usock: local -> @orca/1\.2/'
    expect_route 1.2 1.1 '^usock: @orca/1\.2/[^ ]+ <- local$'
}

same_host_tcp_uses_loopback() {
    local p; p=$(new_cluster --hosts 1 --no-link --virbr)
    oob_dir
    exchange "$p" h1 h1 1000 --mca oob tcp
    local uri; uri=$(oob_uri 1.2)
    ! grep -q ';usock=' <<<"$uri" || fail "oob=tcp, yet the URI has a usock part: $uri"
    local r; r=$(route_of 1.1 1.2)
    case $r in
        "tcp: 127.0.0.1:"*" -> 127.0.0.1:$(tcp_port_of "$uri" 127.0.0.1)") ;;
        "tcp: [::1]:"*" -> [::1]:$(tcp_port_of "$uri" ::1)") ;;
        *) fail "not a loopback route to 1.2's loopback listener: \"$r\" (1.2: $uri)" ;;
    esac
    expect_route 1.2 1.1 '^tcp: (127\.0\.0\.1|\[::1\]):[0-9]+ <- (127\.0\.0\.1|\[::1\]):[0-9]+$'
}

same_host_usock_only() {
    local p; p=$(new_cluster --hosts 1 --no-link --virbr)
    oob_dir
    exchange "$p" h1 h1 1000 --mca oob usock
    local uri; uri=$(oob_uri 1.2)
    ! grep -q ';tcp=' <<<"$uri" || fail "oob=usock, yet the URI has a tcp part: $uri"
    expect_route 1.1 1.2 '^usock: local -> @orca/1\.2/'
    expect_route 1.2 1.1 '^usock: @orca/1\.2/[^ ]+ <- local$'
}

# --- the wrong process at an address -------------------------------------------------------

# Every host has virbr0 192.168.122.1. 1.2 on h2 is the real peer; 1.3 on h3
# (same job, same secret) is the process that answers at the address 1.1 is
# given first: 1.2's URI with h3's address and 1.3's port put in front.
wrong_process_at_first_address_is_refused() {
    local p; p=$(new_cluster --hosts 3 --virbr)
    oob_dir
    oob_start 1.3 "$p" h3 --mca oob tcp --mca oob_base_verbose 20 --name 1.3 --uri-file "$OOB_DIR/1.3.uri" \
        --expect 1 --timeout-ms 30000
    oob_start 1.2 "$p" h2 --mca oob tcp --name 1.2 --uri-file "$OOB_DIR/1.2.uri" --peer-file 1.1="$OOB_DIR/1.1.uri" \
        --expect 100 --timeout-ms 20000
    local uri2 uri3 port2 port3
    uri2=$(oob_uri 1.2)
    uri3=$(oob_uri 1.3)
    port2=$(tcp_port_of "$uri2" 10.200.0.2)
    port3=$(tcp_port_of "$uri3" 10.200.0.3)
    grep -q '192\.168\.122\.1/24/bridge/' <<<"$uri2" || fail "1.2 does not advertise virbr0: $uri2"
    # Same subnet as the real address, and first in the list: ties go to the
    # remote order, and physical is no worse than the real veth.
    local fake=${uri2/;tcp=/;tcp=10.200.0.3/24/physical/$port3,}
    echo "$fake" >"$OOB_DIR/1.2.fake.uri"
    oob_start 1.1 "$p" h1 --mca oob tcp --mca oob_base_verbose 20 --name 1.1 --uri-file "$OOB_DIR/1.1.uri" \
        --peer-file 1.2="$OOB_DIR/1.2.fake.uri" --send 1.2:100:64 --timeout-ms 20000
    finish_exchange 100
    [ "$(first_attempt 1.1 1.2)" = "10.200.0.3:$port3" ] || fail "1.1 did not try 1.3's address first:
$(oob_output 1.1)"
    oob_expect 1.1 "reached 1\.3, not 1\.2|this is 1\.3, not 1\.2" err
    expect_route 1.1 1.2 "^tcp: 10\.200\.0\.1:[0-9]+ -> 10\.200\.0\.2:$port2$"
    # virbr0's address is this host's own: never dialed.
    ! grep -q 'connecting to 1\.2 at 192\.168\.122\.1:' "$OOB_DIR/1.1.err" || fail "1.1 dialed 192.168.122.1:
$(oob_output 1.1)"
    # 1.3 refused the connection meant for 1.2 and carried nothing.
    oob_expect 1.3 'this is 1\.3, not 1\.2' err
    ! grep -qE '^(ROUTE|RECEIVED)' "$OOB_DIR/1.3.out" || fail "1.3 took traffic:
$(oob_output 1.3)"
}

# --- a first-choice address that silently drops TCP ---------------------------------------

dropped_first_address_loses_the_race() {
    local p; p=$(new_cluster --hosts 2 --second-link --drop-tcp h2:eth0)
    oob_dir
    # Both of h2's IPv4 addresses are direct routes of the same kind; eth0's
    # ranks first.
    local reach; reach=$(orca_info_in "$p" h1 --reach 10.200.0.2/24@veth 10.201.0.2/24@veth --parsable)
    expect_line "$(head -1 <<<"$reach")" '^reach:10\.200\.0\.1:10\.200\.0\.2:weight=[1-9]'
    [ "$(weight_of "$reach" 10.201.0.1 10.201.0.2)" -gt 0 ] || fail "eth1 is no path: $reach"
    oob_start 1.2 "$p" h2 --mca oob tcp --mca oob_base_verbose 20 --name 1.2 --uri-file "$OOB_DIR/1.2.uri" \
        --peer-file 1.1="$OOB_DIR/1.1.uri" --expect 1000 --timeout-ms 20000
    oob_start 1.1 "$p" h1 --mca oob tcp --mca oob_base_verbose 20 --name 1.1 --uri-file "$OOB_DIR/1.1.uri" \
        --peer-file 1.2="$OOB_DIR/1.2.uri" --send 1.2:1000:64 --timeout-ms 20000
    finish_exchange 1000
    local uri2; uri2=$(oob_uri 1.2)
    local port_eth0 port_eth1
    port_eth0=$(tcp_port_of "$uri2" 10.200.0.2)
    port_eth1=$(tcp_port_of "$uri2" 10.201.0.2)
    [ "$(first_attempt 1.1 1.2)" = "10.200.0.2:$port_eth0" ] || fail "1.1 did not try eth0's address first:
$(oob_output 1.1)"
    expect_route 1.1 1.2 "^tcp: 10\.201\.0\.1:[0-9]+ -> 10\.201\.0\.2:$port_eth1$"
    expect_route 1.2 1.1 "^tcp: 10\.201\.0\.2:$port_eth1 <- 10\.201\.0\.1:[0-9]+$"
    # Nothing ever arrived on any of h2's eth0 addresses.
    local a
    for a in $(in_host "$p" h2 ip -o addr show dev eth0 | awk '{ split($4, x, "/"); print x[1] }'); do
        ! grep -qF -e "new connection $a:" -e "new connection [$a]:" "$OOB_DIR/1.2.err" ||
            fail "a connection reached 1.2 at $a, through the dropping eth0:
$(oob_output 1.2)"
    done
}

# --- a link deleted under a stream ---------------------------------------------------------

stream_survives_deleted_link() {
    local p; p=$(new_cluster --hosts 2 --second-link)
    oob_dir
    oob_start 1.2 "$p" h2 --mca oob tcp --mca oob_base_verbose 10 --name 1.2 --uri-file "$OOB_DIR/1.2.uri" \
        --peer-file 1.1="$OOB_DIR/1.1.uri" --expect 100000 --timeout-ms 20000
    oob_start 1.1 "$p" h1 --mca oob tcp --mca oob_base_verbose 10 --name 1.1 --uri-file "$OOB_DIR/1.1.uri" \
        --peer-file 1.2="$OOB_DIR/1.2.uri" --send 1.2:100000:64 --batch 1000 --interval-ms 10 --timeout-ms 20000
    oob_await 1.2 '^PROGRESS 20000$' 20
    # The sender printed its route at the first message, before it was
    # connected; the receiver's route names the link.
    local r link
    r=$(route_of 1.2 1.1)
    case $r in
        "tcp: 10.200.0.2:"*" <- 10.200.0.1:"*) link=eth0 ;;
        "tcp: 10.201.0.2:"*" <- 10.201.0.1:"*) link=eth1 ;;
        *) fail "1.2 is carried by neither eth0 nor eth1: \"$r\"" ;;
    esac
    grep -q '^RECEIVED' "$OOB_DIR/1.2.out" && fail "1.2 finished before the link went:
$(oob_output 1.2)"
    in_host "$p" h1 ip link del "$link"
    local rc=0
    oob_wait 1.1 || rc=$?
    if [ $rc -ne 0 ] && grep -q 'closed: a duplicate of' "$OOB_DIR/1.2.err"; then
        fail "1.1 $(exit_text $rc) after 1.2 had closed its reconnection over the other link as a duplicate of\
 the connection over the deleted link:
$(grep -m3 'duplicate' "$OOB_DIR/1.2.err")
$(oob_output 1.1)
$(oob_output 1.2)"
    fi
    finish_exchange 100000
    # The connection that finished the stream is on the other link.
    local other=10.201; [ $link = eth0 ] || other=10.200
    expect_route 1.1 1.2 "^tcp: ${other//./\\.}\.0\.1:[0-9]+ -> ${other//./\\.}\.0\.2:[0-9]+$"
}

# A module's interface lists are read once, when it opens; the host applies
# them at every ranking. The one interface they name vanishes mid-stream:
# the connection goes, ranking for the reconnection fails, and the
# peer-lost report says why, naming the entry and its variable.
vanished_listed_interface_is_why_a_peer_is_lost() {
    local p; p=$(new_cluster --hosts 2 --second-link)
    oob_dir
    local quick=(--mca oob tcp --mca oob_base_verbose 10 --mca oob_tcp_retries 0 --mca oob_tcp_connect_timeout 1000)
    oob_start 1.2 "$p" h2 "${quick[@]}" --name 1.2 --uri-file "$OOB_DIR/1.2.uri" \
        --peer-file 1.1="$OOB_DIR/1.1.uri" --expect 1000000 --timeout-ms 20000
    oob_start 1.1 "$p" h1 "${quick[@]}" --mca oob_tcp_if_include eth1 --name 1.1 --uri-file "$OOB_DIR/1.1.uri" \
        --peer-file 1.2="$OOB_DIR/1.2.uri" --send 1.2:1000000:64 --batch 10 --interval-ms 20 --timeout-ms 20000
    oob_await 1.2 '^ROUTE 1\.1 tcp: 10\.201\.0\.2:[0-9]+ <- 10\.201\.0\.1:' 20
    in_host "$p" h1 ip link del eth1
    local rc=0
    oob_wait 1.1 20 || rc=$?
    [ $rc -ne 0 ] || fail "1.1 finished although its only listed interface was gone:
$(oob_output 1.1)"
    oob_expect 1.1 '^ERROR lost 1\.2: .*ranking failed'
    oob_expect 1.1 '^ERROR lost 1\.2: .*oob_tcp_if_include.*eth1|^ERROR lost 1\.2: .*eth1.*oob_tcp_if_include'
}

# --- refusals: the wrong key, the wrong job ------------------------------------------------

# Liveness: a peer that stops answering (SIGSTOP: its kernel still holds
# the connection) is noticed by the heartbeat, reconnection fails, and the
# sender's peer-lost callback fires within a bounded time.
silent_peer_is_reported_lost() {
    local p; p=$(new_cluster --hosts 2)
    oob_dir
    local quick=(--mca oob tcp --mca oob_base_verbose 10 --mca oob_tcp_heartbeat 200 --mca oob_tcp_heartbeat_misses 2
                 --mca oob_tcp_retries 0 --mca oob_tcp_connect_timeout 1000 --mca oob_tcp_handshake_timeout 500)
    oob_start 1.2 "$p" h2 "${quick[@]}" --name 1.2 --uri-file "$OOB_DIR/1.2.uri" \
        --peer-file 1.1="$OOB_DIR/1.1.uri" --expect 1000000 --timeout-ms 20000
    oob_start 1.1 "$p" h1 "${quick[@]}" --name 1.1 --uri-file "$OOB_DIR/1.1.uri" \
        --peer-file 1.2="$OOB_DIR/1.2.uri" --send 1.2:1000000:64 --batch 10 --interval-ms 20 --timeout-ms 20000
    oob_await 1.2 '^ROUTE 1\.1 tcp: ' 20
    # Stop the receiver: every process of h2 (the oob_peer and its wrapper).
    local pids; pids=$(ip netns pids "$p-h2")
    kill -STOP $pids
    local rc=0
    oob_wait 1.1 20 || rc=$?
    kill -CONT $pids 2>/dev/null || true
    [ $rc -ne 0 ] || fail "1.1 finished although 1.2 was stopped:
$(oob_output 1.1)"
    oob_expect 1.1 '^ERROR lost 1\.2: cannot connect to 1\.2'
    oob_expect 1.1 'closed: silent for [0-9]+ ms \(oob_tcp_heartbeat x 2\)' err
}

wrong_key_and_wrong_job_are_refused() {
    local p; p=$(new_cluster --hosts 2)
    oob_dir
    oob_start 1.2 "$p" h2 --mca oob tcp --mca oob_base_verbose 20 --name 1.2 --uri-file "$OOB_DIR/1.2.uri" \
        --expect 1 --timeout-ms 30000
    oob_uri 1.2 >/dev/null
    oob_await_err 1.2 'listening on 10\.200\.0\.2:'
    local quick=(--mca oob tcp --mca oob_base_verbose 20 --mca oob_tcp_retries 0 --mca oob_tcp_connect_timeout 2000
                 --timeout-ms 5000)
    # Same job, another key.
    local rc=0
    ORCA_JOB_SECRET=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n') \
        oob_peer_in "$p" h1 "${quick[@]}" --name 1.1 --peer-file 1.2="$OOB_DIR/1.2.uri" --send 1.2:10:64 \
        >"$OOB_DIR/key.out" 2>"$OOB_DIR/key.err" || rc=$?
    [ $rc -ne 0 ] || fail "a process with another key got through:
$(oob_output key)"
    oob_expect key '^ERROR lost 1\.2: '
    oob_expect key "does not match this process's job secret" err
    # The listener should say why too; checked at the end, so that the rest
    # is tested whatever it says (nothing else has connected to it yet).
    local key_refusal_logged=yes
    grep -q "refused by 1.1: the peer's proof does not match" "$OOB_DIR/1.2.err" || key_refusal_logged=no
    cp "$OOB_DIR/1.2.err" "$OOB_DIR/after-key.err"
    # Another job, the right key.
    rc=0
    oob_peer_in "$p" h1 "${quick[@]}" --name 2.1 --peer-file 1.2="$OOB_DIR/1.2.uri" --send 1.2:10:64 \
        >"$OOB_DIR/job.out" 2>"$OOB_DIR/job.err" || rc=$?
    [ $rc -ne 0 ] || fail "a process of job 2 got through:
$(oob_output job)"
    oob_expect job '^ERROR lost 1\.2: '
    oob_expect job 'job 2 is not this job' err
    oob_expect 1.2 'closed: handshake: job 2 is not this job' err
    # A client that answers the challenge without the key.
    local port out
    port=$(tcp_port_of "$(oob_uri 1.2)" 10.200.0.2)
    out=$(bad_response "$p" h1 10.200.0.2 "$port")
    [ "$out" = "refused 4: 1.9 does not know the job secret" ] || fail "a RESPONSE with a wrong MAC: $out"
    oob_expect 1.2 'closed: handshake: 1\.9 does not know the job secret' err
    ! grep -q '^RECEIVED' "$OOB_DIR/1.2.out" || fail "1.2 delivered something:
$(oob_output 1.2)"
    # And the listener said why the oob_peer with another key got nowhere.
    [ $key_refusal_logged = yes ] || fail "1.2 did not log that 1.1 (another key) refused its proof;\
 only 1.1 noticed, 1.2 saw its connections close. 1.2's log after 1.1:
$(grep -v 'listening on' "$OOB_DIR/after-key.err")
$(oob_output key)"
}

# bad_response PREFIX HOST ADDRESS PORT: a raw client "1.9" of job 1 that sends
# a proper HELLO to 1.2 and a RESPONSE with a wrong MAC; prints the REFUSE it
# gets ("refused CODE: TEXT") or what happened instead.
bad_response() {
    in_host "$1" "$2" python3 -c '
import os, socket, struct, sys
def frame(kind, payload):
    return struct.pack(">BBHIQQI", kind, 0, 0, 0, 0, 0, len(payload)) + payload
def read_frame(s):
    data = b""
    while len(data) < 28:
        chunk = s.recv(28 - len(data))
        if not chunk:
            return None, None
        data += chunk
    kind, length = data[0], struct.unpack(">I", data[24:28])[0]
    payload = b""
    while len(payload) < length:
        chunk = s.recv(length - len(payload))
        if not chunk:
            return None, None
        payload += chunk
    return kind, payload
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)
hello = b"ORCA" + struct.pack(">HIIII", 3, 1, 9, 1, 2) + os.urandom(32) + struct.pack(">Q", 0)  # protocol 3 (framework/oob/handshake.h)
s.sendall(frame(4, hello))
kind, payload = read_frame(s)
if kind != 5:
    print("no challenge: frame type", kind, payload)
    sys.exit(0)
s.sendall(frame(6, os.urandom(32)))
kind, payload = read_frame(s)
if kind == 8:
    print("refused %d: %s" % (payload[0], payload[1:].decode()))
else:
    print("not refused: frame type", kind)
' "$3" "$4"
}

# --- hostile bytes on the port -------------------------------------------------------------

# hostile PREFIX HOST ADDRESS PORT MODE: connects from HOST, writes a Data
# header announcing 0xFFFFFFFF bytes (MODE header) or 4 KiB of random bytes
# (MODE random), and prints "closed" once the listener closes the stream.
hostile() {
    in_host "$1" "$2" python3 -c '
import os, socket, struct, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)
if sys.argv[3] == "header":
    # type, flags, zero, tag, seq, ack, length: the 28-byte header
    s.sendall(struct.pack(">BBHIQQI", 1, 0, 0, 0, 0, 0, 0xFFFFFFFF))
else:
    try:
        s.sendall(os.urandom(4096))
    except OSError:
        pass  # already closed on us
try:
    while s.recv(4096):
        pass
    print("closed")
except ConnectionResetError:
    print("closed")
except socket.timeout:
    print("still open")
' "$3" "$4" "$5"
}

hostile_bytes_do_not_kill_the_listener() {
    local p; p=$(new_cluster --hosts 2)
    oob_dir
    # oob_peer reads its peer files before its event loop runs, so 1.2 gets
    # 1.1's URI at once (its loop must run while the hostile bytes come),
    # and 1.1 gets 1.2's only after them.
    oob_start 1.1 "$p" h1 --mca oob tcp --name 1.1 --uri-file "$OOB_DIR/1.1.uri" \
        --peer-file 1.2="$OOB_DIR/1.2.later" --send 1.2:100:64 --timeout-ms 30000
    oob_start 1.2 "$p" h2 --mca oob tcp --mca oob_base_verbose 20 --name 1.2 --uri-file "$OOB_DIR/1.2.uri" \
        --peer-file 1.1="$OOB_DIR/1.1.uri" --expect 100 --timeout-ms 30000
    local uri port out
    uri=$(oob_uri 1.2)
    port=$(tcp_port_of "$uri" 10.200.0.2)
    oob_await_err 1.2 'listening on 10\.200\.0\.2:'
    out=$(hostile "$p" h1 10.200.0.2 "$port" header)
    [ "$out" = closed ] || fail "an oversize header did not close the stream: $out
$(oob_output 1.2)"
    oob_expect 1.2 'closed: a message of 4294967295 bytes is larger than oob_tcp_max_msg_size' err
    out=$(hostile "$p" h1 10.200.0.2 "$port" random)
    [ "$out" = closed ] || fail "random bytes did not close the stream: $out
$(oob_output 1.2)"
    kill -0 "${_oob_jobs[1.2]}" 2>/dev/null || fail "1.2 died:
$(oob_output 1.2)"
    [ "$(grep -c '<- 10\.200\.0\.1:[0-9]* closed: ' "$OOB_DIR/1.2.err")" -eq 2 ] || fail "1.2 did not close both streams:
$(oob_output 1.2)"
    cp "$OOB_DIR/1.2.uri" "$OOB_DIR/1.2.tmp" && mv "$OOB_DIR/1.2.tmp" "$OOB_DIR/1.2.later"
    finish_exchange 100
    expect_route 1.1 1.2 "^tcp: 10\.200\.0\.1:[0-9]+ -> 10\.200\.0\.2:$port$"
}

# --- IPv6 only -----------------------------------------------------------------------------

ipv6_only_hosts_exchange_over_tcp() {
    local p; p=$(new_cluster --hosts 2 --ipv6-only)
    oob_dir
    exchange "$p" h1 h2 1000 --mca oob tcp
    local uri; uri=$(oob_uri 1.2)
    ! grep -qE '[;,]10\.' <<<"$uri" || fail "an IPv4 address in an IPv6-only URI: $uri"
    expect_route 1.1 1.2 "^tcp: \[fd00:10:200::1\]:[0-9]+ -> \[fd00:10:200::2\]:$(tcp_port_of "$uri" fd00:10:200::2)$"
    expect_route 1.2 1.1 '^tcp: \[fd00:10:200::2\]:[0-9]+ <- \[fd00:10:200::1\]:[0-9]+$'
}

CASES=(same_host_default_is_usock same_host_tcp_uses_loopback same_host_usock_only
       wrong_process_at_first_address_is_refused dropped_first_address_loses_the_race stream_survives_deleted_link
       silent_peer_is_reported_lost vanished_listed_interface_is_why_a_peer_is_lost wrong_key_and_wrong_job_are_refused hostile_bytes_do_not_kill_the_listener
       ipv6_only_hosts_exchange_over_tcp)

# Arguments, if any, name the cases to run (by hand: bash oob_test.sh CASE...).
[ $# -eq 0 ] || CASES=("$@")

if ! netns_available; then
    for c in "${CASES[@]}"; do skip_case "Oob.$c" "cannot create network namespaces here (needs root and ip netns)"; done
    exit 0
fi
[ -x "$OOB_PEER" ] || { echo "no $OOB_PEER: run make check (or make test/oob/oob_peer) first" >&2; exit 1; }
for c in "${CASES[@]}"; do run_case "Oob.$c" "$c"; done
finish_cases
