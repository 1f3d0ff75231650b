#!/usr/bin/env python3
"""Hostile and half-hearted oob/tcp clients for oob_hostile_test.sh.

Each subcommand talks to one listener (ADDRESS PORT) from the namespace it
runs in, with bounded loops only, and prints one-line results for the
shell. Subcommands:

  connect ADDRESS PORT --count N [--what none|byte|header|hello-header|random]
          [--length L] [--sources A,B,...] [--settle S] [--hold-file F] [--hold S]
      Opens N connections (round-robin over the source addresses, if
      given), each sending nothing, one byte, one 28-byte Data header
      claiming L bytes, one HELLO header claiming L bytes, or 1 to 2048
      random bytes. After --settle seconds it prints
      "READY opened=N open=M closed=K failed=F" (closed: the listener
      closed it; failed: never connected), then holds the sockets until
      --hold-file exists or --hold seconds pass, closes them and prints
      "RELEASED". With --keep, every --keep-period seconds (0.1) of the
      hold it opens again, from the same source, each connection the
      listener closed (an attacker that keeps its share), and prints
      "RELEASED reconnects=R failed=F open=M".

  usock --match REGEX --ready REGEX --count N [--processes P]
        [--keep-period S] [--hold-file F] [--hold S]
      P processes (10) that keep N connections in all (N/P each) open to
      every abstract Unix-domain listener of /proc/net/unix whose name
      (@...) matches --match, new ones as they appear: every
      --keep-period seconds each opens again what the listener closed.
      Prints "READY processes=P per_listener=N uid=U" once every process
      holds connections to a listener matching --ready, and at the end
      "RELEASED attempts=A closed_by_listener=K failed=F processes=P"
      (failed: connect() refused, as when the listen backlog is full).

  hellos ADDRESS PORT --count N --to J.V [--job J] [--first-vpid V]
         [--parallel P] [--version 3]
      N connections, P at a time, each sending a HELLO from J.(V+i) and
      closing once the CHALLENGE (or anything) comes back. Without
      --version, version 3 (PROTOCOL) unless a first HELLO is refused for
      its version (then 2, which has the same HELLO). Prints
      "HELLOS sent=N challenged=C refused=R other=O".

  halfway ADDRESS PORT --to J.V [--count N] [--sources A,B,...] [--settle S]
          [--hold-file F] [--hold S]
      N clients that stop in the middle of the handshake, in turn: one
      that sent a valid HELLO to J.V (from J.(1000+i), version 3) and,
      once the CHALLENGE came, nothing more; one that sent half a HELLO
      header; one that sent the header and half the HELLO. After --settle
      seconds it prints "READY opened=N challenged=C open=M closed=K
      failed=F", holds (as connect does), prints
      "RELEASED closed_by_listener=K" (those the listener closed while
      held) and ends.

  wrongkey ADDRESS PORT --to J.V [--count N] [--sources A,B,...]
      N full handshake attempts, one after another, with the right
      protocol and a random key instead of the job secret: HELLO, the
      CHALLENGE (its proof cannot be checked without the secret), a
      RESPONSE computed with the wrong key. Prints "WRONGKEY tried=N
      refused_badkey=R accepted=A other=O" (refused_badkey: a REFUSE
      saying the key is wrong, then the close; accepted: no refusal
      within 5 s, the listener waiting for a COMMIT as after a good
      RESPONSE).

  replay ADDRESS PORT --as J.V --to J.V
      A client's handshake recorded and played again, as an eavesdropper
      on the cluster network would: one handshake with the job secret of
      $ORCA_JOB_SECRET (HELLO, then RESPONSE and COMMIT), every byte it
      sent kept; then a new connection that sends exactly those bytes.
      Prints "REPLAY first=established|failed replayed=refused_badkey|
      accepted|other" (refused_badkey: a REFUSE saying the key is wrong,
      then the close; accepted: no refusal within 5 s).

  stall ADDRESS PORT --as J.V --to J.V --length L --send B
        [--hold-file F] [--hold S]
      Authenticates with the job secret of $ORCA_JOB_SECRET (protocol
      version 3: RESPONSE and COMMIT at once, as orcad does), then sends a
      Data header claiming L bytes and only B of them, prints
      "READY version=V", holds, closes and prints "RELEASED". Prints
      "FAILED <why>" if the handshake fails.
"""
import argparse
import hashlib
import hmac
import os
import re
import resource
import select
import socket
import struct
import sys
import time

DATA, ACK, HEARTBEAT, HELLO, CHALLENGE, RESPONSE, ACCEPT, REFUSE, COMMIT = range(1, 10)
PROTOCOL = 3  # framework/oob/handshake.h kProtocolVersion (protocol 2 answered a RESPONSE with ACCEPT)
REFUSE_VERSION = 1
REFUSE_BAD_KEY = 4
HEADER = struct.Struct(">BBHIQQI")


def frame(kind, payload=b"", tag=0, seq=0, ack=0, length=None):
    return HEADER.pack(kind, 0, 0, tag, seq, ack, len(payload) if length is None else length) + payload


def recv_exact(s, n):
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def read_frame(s):
    head = recv_exact(s, HEADER.size)
    if head is None:
        return None, None
    kind, length = head[0], HEADER.unpack(head)[6]
    if length > 65536:
        return kind, None
    payload = recv_exact(s, length) if length else b""
    return kind, payload


def name_of(text):
    job, vpid = text.split(".")
    return int(job), int(vpid)


def hello_payload(version, sender, receiver):
    return (b"ORCA" + struct.pack(">HIIII", version, sender[0], sender[1], receiver[0], receiver[1]) +
            os.urandom(32) + struct.pack(">Q", 0))


def raise_nofile(need=0):
    """The soft limit up to the hard one; both up to `need` (plus some for
    the interpreter) if the hard one is lower and we may (root)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = need + 64 if need else 0
    if hard != resource.RLIM_INFINITY and want > hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, want))
            return
        except (ValueError, OSError):
            pass
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def new_socket(args, i):
    """A nonblocking socket for connection i, bound to the next --sources
    address if any."""
    sources = [a for a in (getattr(args, "sources", None) or "").split(",") if a]
    family = socket.AF_INET6 if ":" in args.address else socket.AF_INET
    s = socket.socket(family, socket.SOCK_STREAM)
    if sources:
        s.bind((sources[i % len(sources)], 0))
    return s


def released(args):
    return bool(args.hold_file) and os.path.exists(args.hold_file)


def hold(args, keep=None):
    """Until --hold-file exists or --hold seconds pass; calls keep(), if
    given, every --keep-period seconds meanwhile."""
    end = time.monotonic() + args.hold
    next_keep = time.monotonic()
    while time.monotonic() < end and not released(args):
        if keep and time.monotonic() >= next_keep:
            keep()
            next_keep = time.monotonic() + args.keep_period
        time.sleep(0.02)


def peer_closed(s):
    """Whether the other end closed (or reset) this connected socket."""
    try:
        return s.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except (BlockingIOError, InterruptedError):
        return False
    except OSError:
        return True


def cmd_connect(args):
    raise_nofile(args.count)
    sources = [a for a in (args.sources or "").split(",") if a]
    family = socket.AF_INET6 if ":" in args.address else socket.AF_INET
    source_of = {}  # socket -> its index, which picks its source address

    def open_one(i):
        s = socket.socket(family, socket.SOCK_STREAM)
        s.setblocking(False)
        if sources:
            s.bind((sources[i % len(sources)], 0))
        if s.connect_ex((args.address, args.port)) not in (0, 115):  # EINPROGRESS
            s.close()
            return None
        source_of[s] = i
        return s

    pending, connected, failed = [], [], 0
    for i in range(args.count):
        s = open_one(i)
        if s is None:
            failed += 1
            continue
        pending.append(s)
        # Keep the listener's backlog from overflowing: finish some connects.
        if len(pending) >= 64:
            connected += finish_connects(pending, 2.0, args)
            failed += len(pending)
            for p in pending:
                p.close()
            pending = []
    connected += finish_connects(pending, 5.0, args)
    failed += len(pending)
    for p in pending:
        p.close()
    time.sleep(args.settle)
    closed = sum(1 for s in connected if peer_closed(s))
    print("READY opened=%d open=%d closed=%d failed=%d" % (len(connected), len(connected) - closed, closed, failed),
          flush=True)
    kept = {"reconnects": 0, "failed": 0}

    def keep_open():
        """Opens again, from the same source, every connection the listener closed."""
        gone = [s for s in connected if peer_closed(s)]
        again = []
        for s in gone:
            connected.remove(s)
            n = open_one(source_of.pop(s))
            s.close()
            if n is None:
                kept["failed"] += 1
            else:
                again.append(n)
        kept["reconnects"] += len(gone)
        connected.extend(finish_connects(again, 1.0, args))
        kept["failed"] += len(again)
        for s in again:
            s.close()

    hold(args, keep_open if args.keep else None)
    open_at_end = sum(1 for s in connected if not peer_closed(s))
    for s in connected:
        s.close()
    if args.keep:
        print("RELEASED reconnects=%d failed=%d open=%d" % (kept["reconnects"], kept["failed"], open_at_end), flush=True)
    else:
        print("RELEASED", flush=True)


def finish_connects(pending, limit, args):
    """Waits (at most `limit` s) for nonblocking connects; sends the bytes on
    each that connects. Returns the connected sockets; `pending` keeps the rest."""
    done = []
    end = time.monotonic() + limit
    what = b""
    if args.what == "byte":
        what = b"\x01"
    elif args.what == "header":
        what = frame(DATA, seq=1, length=args.length)
    elif args.what == "hello-header":
        what = frame(HELLO, length=args.length)
    while pending and time.monotonic() < end:
        _, writable, _ = select.select([], pending, [], max(0.0, end - time.monotonic()))
        for s in writable:
            pending.remove(s)
            if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0:
                s.close()
                continue
            if args.what == "random":
                what = os.urandom(1 + int.from_bytes(os.urandom(2), "big") % 2048)
            if what:
                try:
                    s.send(what)
                except OSError:
                    pass
            done.append(s)
    return done


def probe_version(args, receiver):
    """PROTOCOL unless the listener refuses it for its version (an older Orca)."""
    family = socket.AF_INET6 if ":" in args.address else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect((args.address, args.port))
        s.sendall(frame(HELLO, hello_payload(PROTOCOL, (args.job, args.first_vpid - 1), receiver)))
        kind, payload = read_frame(s)
    if kind == REFUSE and payload and payload[0] == REFUSE_VERSION:
        print("NOTE version %d refused: %s; sending version %d HELLOs" %
              (PROTOCOL, payload[1:].decode(errors="replace"), PROTOCOL - 1), flush=True)
        return PROTOCOL - 1
    return PROTOCOL


def cmd_hellos(args):
    receiver = name_of(args.to)
    if args.version == 0:
        args.version = probe_version(args, receiver)
    counts = {"sent": 0, "challenged": 0, "refused": 0, "other": 0}
    family = socket.AF_INET6 if ":" in args.address else socket.AF_INET
    live = {}  # socket -> deadline
    vpid = args.first_vpid
    left = args.count
    while left > 0 or live:
        while left > 0 and len(live) < args.parallel:
            s = socket.socket(family, socket.SOCK_STREAM)
            s.settimeout(5)
            try:
                s.connect((args.address, args.port))
                s.sendall(frame(HELLO, hello_payload(args.version, (args.job, vpid), receiver)))
            except OSError:
                counts["other"] += 1
                s.close()
            else:
                counts["sent"] += 1
                s.setblocking(False)
                live[s] = time.monotonic() + 5
            vpid += 1
            left -= 1
        readable, _, _ = select.select(list(live), [], [], 0.5)
        now = time.monotonic()
        for s in list(live):
            if s in readable:
                try:
                    kind = s.recv(1)
                except OSError:
                    kind = b""
                key = {bytes([CHALLENGE]): "challenged", bytes([REFUSE]): "refused"}.get(kind, "other")
                counts[key] += 1
            elif now < live[s]:
                continue
            else:
                counts["other"] += 1
            del live[s]
            s.close()
    print("HELLOS sent=%(sent)d challenged=%(challenged)d refused=%(refused)d other=%(other)d" % counts, flush=True)


def cmd_halfway(args):
    raise_nofile(args.count)
    receiver = name_of(args.to)
    held, challenged, failed = [], 0, 0
    for i in range(args.count):
        s = new_socket(args, i)
        s.settimeout(5)
        hello = frame(HELLO, hello_payload(PROTOCOL, (receiver[0], 1000 + i), receiver))
        try:
            s.connect((args.address, args.port))
            if i % 3 == 0:
                s.sendall(hello)
                kind, _ = read_frame(s)
                if kind == CHALLENGE:
                    challenged += 1
            elif i % 3 == 1:
                s.sendall(hello[:HEADER.size // 2])
            else:
                s.sendall(hello[:HEADER.size + (len(hello) - HEADER.size) // 2])
        except OSError:
            failed += 1
            s.close()
            continue
        s.setblocking(False)  # peer_closed() must not wait
        held.append(s)
    time.sleep(args.settle)
    closed = sum(1 for s in held if peer_closed(s))
    print("READY opened=%d challenged=%d open=%d closed=%d failed=%d" %
          (len(held), challenged, len(held) - closed, closed, failed), flush=True)
    hold(args)
    closed = sum(1 for s in held if peer_closed(s))
    for s in held:
        s.close()
    print("RELEASED closed_by_listener=%d" % closed, flush=True)


def cmd_wrongkey(args):
    receiver = name_of(args.to)
    counts = {"tried": 0, "refused_badkey": 0, "accepted": 0, "other": 0}
    for i in range(args.count):
        key = os.urandom(16)
        s = new_socket(args, i)
        s.settimeout(5)
        counts["tried"] += 1
        try:
            s.connect((args.address, args.port))
            hello = hello_payload(PROTOCOL, (receiver[0], 1000 + i), receiver)
            s.sendall(frame(HELLO, hello))
            kind, challenge = read_frame(s)
            if kind != CHALLENGE or challenge is None:
                counts["other"] += 1
                continue
            s.sendall(frame(RESPONSE, hmac.new(key, b"orca-client" + hello + challenge, hashlib.sha256).digest()))
            try:
                kind, payload = read_frame(s)
            except socket.timeout:
                counts["accepted"] += 1  # no refusal: the listener waits for our COMMIT
                continue
            if kind == REFUSE and payload and payload[0] == REFUSE_BAD_KEY and recv_exact(s, 1) is None:
                counts["refused_badkey"] += 1
            else:
                counts["other"] += 1
        except OSError:
            counts["other"] += 1
        finally:
            s.close()
    print("WRONGKEY tried=%(tried)d refused_badkey=%(refused_badkey)d accepted=%(accepted)d other=%(other)d" % counts,
          flush=True)


def authenticate(args, version):
    """Returns (socket, None) once established, or (None, why)."""
    secret = bytes.fromhex(os.environ["ORCA_JOB_SECRET"])
    s = socket.create_connection((args.address, args.port), timeout=10)
    hello = hello_payload(version, name_of(args.as_), name_of(args.to))
    s.sendall(frame(HELLO, hello))
    kind, challenge = read_frame(s)
    if kind == REFUSE:
        return None, "refused %d: %s" % (challenge[0], challenge[1:].decode(errors="replace"))
    if kind != CHALLENGE or challenge is None or len(challenge) != 80:
        return None, "no challenge: frame type %s" % kind
    want = hmac.new(secret, b"orca-server" + hello + challenge[0:40] + challenge[72:80], hashlib.sha256).digest()
    if not hmac.compare_digest(want, challenge[40:72]):
        return None, "the listener's proof does not match"
    # The listener proved the key: RESPONSE and COMMIT go together, and
    # no answer comes (protocol 3).
    s.sendall(frame(RESPONSE, hmac.new(secret, b"orca-client" + hello + challenge, hashlib.sha256).digest()) +
              frame(COMMIT))
    return s, None


def cmd_replay(args):
    secret = bytes.fromhex(os.environ["ORCA_JOB_SECRET"])
    sent = b""
    first = "failed"
    s = socket.create_connection((args.address, args.port), timeout=10)
    try:
        hello = frame(HELLO, hello_payload(PROTOCOL, name_of(args.as_), name_of(args.to)))
        s.sendall(hello)
        sent += hello
        kind, challenge = read_frame(s)
        if kind == CHALLENGE and challenge is not None and len(challenge) == 80:
            proof = hmac.new(secret, b"orca-client" + hello[HEADER.size:] + challenge, hashlib.sha256).digest()
            rest = frame(RESPONSE, proof) + frame(COMMIT)
            s.sendall(rest)
            sent += rest
            first = "established"
    finally:
        s.close()
    replayed = "other"
    s = socket.create_connection((args.address, args.port), timeout=5)
    try:
        s.sendall(sent)
        while True:
            kind, payload = read_frame(s)
            if kind == CHALLENGE:
                continue  # a fresh nonce the recorded RESPONSE cannot answer
            if kind == REFUSE and payload and payload[0] == REFUSE_BAD_KEY:
                replayed = "refused_badkey"
            break
    except socket.timeout:
        replayed = "accepted"
    except OSError:
        pass
    finally:
        s.close()
    print("REPLAY first=%s replayed=%s" % (first, replayed), flush=True)


def cmd_stall(args):
    version = PROTOCOL
    s, why = authenticate(args, version)
    if s is None:
        print("FAILED " + why, flush=True)
        return
    s.sendall(frame(DATA, b"\x00" * args.send, tag=1, seq=1, length=args.length))
    print("READY version=%d" % version, flush=True)
    hold(args)
    s.close()
    print("RELEASED", flush=True)


def usock_listeners(pattern):
    """The abstract Unix-domain listeners named in /proc/net/unix (as
    "@name") whose name matches the regular expression `pattern`."""
    found = set()
    with open("/proc/net/unix") as f:
        next(f)
        for line in f:
            parts = line.split()
            # Num RefCount Protocol Flags Type St Inode Path; Flags has
            # __SO_ACCEPTCON (0x10000) on a listening socket.
            if len(parts) >= 8 and int(parts[3], 16) & 0x10000 and parts[7].startswith("@") \
                    and re.search(pattern, parts[7]):
                found.add(parts[7])
    return found


def usock_worker(args, share, report):
    """One attacking process: holds `share` connections to every matching
    listener, opening again each period whatever the listener closed.
    Writes "UP" to `report` once it holds some to a --ready listener, and
    "DONE ..." at the end."""
    held = {}  # listener name -> sockets
    counts = {"attempts": 0, "closed": 0, "failed": 0}
    up = False
    end = time.monotonic() + args.hold
    while time.monotonic() < end and not released(args):
        names = usock_listeners(args.match)
        for name in list(held):
            if name not in names:
                for s in held.pop(name):
                    s.close()
        for name in names:
            live = []
            for s in held.get(name, []):
                if peer_closed(s):
                    counts["closed"] += 1
                    s.close()
                else:
                    live.append(s)
            while len(live) < share:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.setblocking(False)
                counts["attempts"] += 1
                try:
                    s.connect("\0" + name[1:])
                except OSError:  # the backlog is full (EAGAIN), or the listener went
                    counts["failed"] += 1
                    s.close()
                    break
                live.append(s)
            held[name] = live
        if not up and any(re.search(args.ready, n) and held[n] for n in held):
            os.write(report, b"UP\n")
            up = True
        time.sleep(args.keep_period)
    for sockets in held.values():
        for s in sockets:
            s.close()
    os.write(report, ("DONE attempts=%(attempts)d closed=%(closed)d failed=%(failed)d\n" % counts).encode())


def cmd_usock(args):
    share = (args.count + args.processes - 1) // args.processes
    raise_nofile(share * 16)
    r, w = os.pipe()
    children = []
    for _ in range(args.processes):
        pid = os.fork()
        if pid == 0:
            os.close(r)
            try:
                usock_worker(args, share, w)
            finally:
                os._exit(0)
        children.append(pid)
    os.close(w)
    totals = {"attempts": 0, "closed": 0, "failed": 0}
    ups = done = 0
    with os.fdopen(r) as lines:
        for line in lines:
            if line.startswith("UP"):
                ups += 1
                if ups == args.processes:
                    print("READY processes=%d per_listener=%d uid=%d" % (args.processes, share * args.processes,
                                                                         os.getuid()), flush=True)
            elif line.startswith("DONE"):
                done += 1
                for word in line.split()[1:]:
                    key, value = word.split("=")
                    totals[key] += int(value)
    for pid in children:
        os.waitpid(pid, 0)
    totals["processes"] = done
    print("RELEASED attempts=%(attempts)d closed_by_listener=%(closed)d failed=%(failed)d processes=%(processes)d" %
          totals, flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    for name in ("connect", "hellos", "stall", "halfway", "wrongkey", "usock", "replay"):
        p = sub.add_parser(name)
        if name != "usock":
            p.add_argument("address")
            p.add_argument("port", type=int)
        p.add_argument("--hold-file")
        p.add_argument("--hold", type=float, default=30.0)
        p.add_argument("--keep-period", type=float, default=0.1)
        if name == "connect":
            p.add_argument("--count", type=int, required=True)
            p.add_argument("--what", choices=("none", "byte", "header", "hello-header", "random"), default="byte")
            p.add_argument("--length", type=int, default=0)
            p.add_argument("--sources")
            p.add_argument("--settle", type=float, default=1.0)
            p.add_argument("--keep", action="store_true")
        elif name == "usock":
            p.add_argument("--match", required=True)
            p.add_argument("--ready", required=True)
            p.add_argument("--count", type=int, required=True)
            p.add_argument("--processes", type=int, default=10)
        elif name == "hellos":
            p.add_argument("--count", type=int, required=True)
            p.add_argument("--to", required=True)
            p.add_argument("--job", type=int, default=1)
            p.add_argument("--first-vpid", type=int, default=1000)
            p.add_argument("--parallel", type=int, default=8)
            p.add_argument("--version", type=int, default=0)
        elif name in ("halfway", "wrongkey"):
            p.add_argument("--to", required=True)
            p.add_argument("--count", type=int, default=1)
            p.add_argument("--sources")
            p.add_argument("--settle", type=float, default=1.0)
        elif name == "replay":
            p.add_argument("--as", dest="as_", required=True)
            p.add_argument("--to", required=True)
        else:
            p.add_argument("--as", dest="as_", required=True)
            p.add_argument("--to", required=True)
            p.add_argument("--length", type=int, required=True)
            p.add_argument("--send", type=int, default=0)
    args = ap.parse_args()
    {"connect": cmd_connect, "hellos": cmd_hellos, "stall": cmd_stall, "halfway": cmd_halfway,
     "wrongkey": cmd_wrongkey, "usock": cmd_usock, "replay": cmd_replay}[args.command](args)


if __name__ == "__main__":
    main()
