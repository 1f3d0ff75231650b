#!/usr/bin/env python3
"""Writes the seed inputs of every fuzz target into test/fuzz/corpus/<name>/.

The seeds are checked in; this script only says how the binary ones were
made (frames, wire messages), so they can be made again after a format
change. It writes seed-* files only and leaves regression-* inputs alone.

Usage: test/fuzz/make-seeds.py   (from anywhere)
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def write(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)


# --- oob frames (framework/oob/frame_codec.h)
DATA, ACK, HEARTBEAT, HELLO, CHALLENGE, RESPONSE, ACCEPT, REFUSE, COMMIT = range(1, 10)


def frame(ftype, payload=b"", tag=0, seq=0, ack=0, length=None):
    n = len(payload) if length is None else length
    return struct.pack(">BBHIQQI", ftype, 0, 0, tag, seq, ack, n) + payload


def hello_payload(version=3):
    return b"ORCA" + struct.pack(">H", version) + struct.pack(">II", 7, 3) + struct.pack(">II", 7, 0) + bytes(32) + struct.pack(">Q", 0)


def frame_input(mode, cuts, stream):
    return bytes([mode, len(cuts)]) + b"".join(struct.pack(">H", c) for c in cuts) + stream


write("frame_codec", "one-data", frame_input(0, [], frame(DATA, b"hi", tag=5, seq=1)))
write("frame_codec", "data-ack-heartbeat-cut",
      frame_input(2, [1, 5, 30], frame(DATA, b"abc", tag=1, seq=1) + frame(DATA, b"de", tag=1, seq=2, ack=1) +
                  frame(ACK, ack=2) + frame(HEARTBEAT, ack=2)))
write("frame_codec", "handshake-then-data",
      frame_input(1, [13], frame(HELLO, hello_payload()) + frame(COMMIT) + frame(DATA, b"x", tag=9, seq=1)))
write("frame_codec", "direct-payload", frame_input(8 | 2, [7], frame(DATA, bytes(range(256)) * 2, tag=2, seq=1)))
write("frame_codec", "lying-length", frame_input(6, [], frame(DATA, b"0123456789", seq=1, length=1 << 20)))
write("frame_codec", "refuse", frame_input(1, [], frame(REFUSE, b"\x05not an Orca hello")))

# --- handshake (test/fuzz/handshake_fuzz.cc): mode, then ops
write("handshake", "server-honest", bytes([0, 0, 0, 0, 0]))
write("handshake", "client-honest", bytes([1, 0, 0, 0]))
write("handshake", "server-tampered-response", bytes([0, 0, 1, 3, 0x40, 0]))
write("handshake", "client-retyped-challenge", bytes([1, 2, RESPONSE, 0]))
raw_hello = frame(HELLO, hello_payload())
write("handshake", "server-raw-hello", bytes([0, 3, len(raw_hello)]) + raw_hello + bytes([0, 0]))
raw_old = frame(HELLO, hello_payload(version=1))
write("handshake", "server-raw-old-version", bytes([0, 3, len(raw_old)]) + raw_old)
write("handshake", "client-raw-refuse", bytes([1, 3, 40]) + frame(REFUSE, b"\x04bad key")[:40])

# --- launcher wire messages (framework/launch/launch_wire.h)
def u32(v): return struct.pack(">I", v)
def i32(v): return struct.pack(">i", v)
def u64(v): return struct.pack(">Q", v)
def text(s): return u32(len(s)) + (s.encode() if isinstance(s, str) else s)
def texts(items): return u32(len(items)) + b"".join(text(s) for s in items)


SETTINGS = "orca-settings 1\noob_tcp_if_include command-line 0 0 % eth0,10.0.0.0/8\n"
bootstrap = (bytes([1]) + u32(12345) + u32(1) + u32(2) + u32(0) + text("12345.0;host=b-1-2;tcp=10.0.0.1/24/physical/5000") +
             text(b"0123456789abcdef") + text(SETTINGS) + texts(["node1", "node2"]) + texts(["orcad"]) + u32(1) + u64(99) +
             texts(["pmi/pmix"]) + text("/scratch/run"))
report = (bytes([2]) + u32(1) + text("node1") + text("b-1-2") + text("12345.1;host=b-1-2;tcp=10.0.0.2/24/veth/5001") +
          text("tcp: 10.0.0.2:40112 -> 10.0.0.1:5000") + texts(["eth0 10.0.0.2/24"]) + texts(["10.0.0.2/24 veth"]) +
          u32(2) + u32(10) + u32(20) + text("0.0.0.0 1.0.0.0 2.1.0.0 3.1.0.0") + text(""))
# Two programs (MPMD), rank 1 of the second bound to CPUs 2-3.
command = (bytes([3]) + u32(0) + u32(2) + u32(0) + texts(["hostname", "-s"]) + texts([]) + text("/tmp") + bytes([0]) +
           u32(1) + texts(["./b"]) + texts(["ROLE=b"]) + text("/scratch") + bytes([1]) +
           texts(["A=1"]) + u32(1) + text("b-1-2") + text("eth1") + text("10.0.1.2") + u32(24) + bytes([0]) +
           texts(["ompi"]) + text("10.0.1.2") + u32(29500) +
           u32(2) + u32(0) + u32(1) + u32(0) + u32(1) + u32(2) + u32(0) + texts(["0-1", "2-3"]) +
           u32(2) + i32(-1) + bytes([0]) + texts(["pmix"]))
output = bytes([4]) + u32(7) + u32(3) + bytes([1, 0, 1]) + text(b"prompt> ")
exit_record = bytes([5]) + u32(0) + u32(3) + i32(0x100) + bytes([1]) + text("") + bytes([1])  # pmi: initialized
teardown = bytes([6]) + u32(0) + i32(15) + text("interrupted")
signal = bytes([7]) + u32(7) + i32(2)
stdin_data = bytes([8]) + u32(0) + bytes([1]) + text(b"")
credit = bytes([9]) + u32(0) + u32(4096)
output_credit = bytes([16]) + u32(7) + u32(262144)
failure = bytes([10]) + u32(2) + text("node2") + text("ssh: connect to host node2 port 22: No route to host")
for name, m in [("bootstrap", bootstrap), ("daemon-report", report), ("launch-command", command), ("output", output),
                ("exit-record", exit_record), ("teardown", teardown), ("signal", signal), ("stdin-eof", stdin_data),
                ("credit", credit), ("daemon-failure", failure), ("output-credit", output_credit)]:
    write("launch_wire", name, m)
# A DVM's client and controller (orcadvm status, stop).
dvm_request = bytes([22]) + u32(1) + text("1438355893.1073741825;host=b-1-2;usock=@orca/x")
dvm_state = (bytes([23]) + u32(4242) + u64(1500) + u32(2) + text("h1") + u32(2) + bytes([1]) + text("h2") + u32(4) +
             bytes([0]) + u32(0) + u32(0) + u32(1) + bytes([0]))
write("launch_wire", "dvm-request", dvm_request)
write("launch_wire", "dvm-state", dvm_state)
# orcarun --dvm: a job of two programs (-n 2 a : -n 1 b), and its state.
dvm_submit = (bytes([24]) + text("1438355893.1073741826;host=b-1-2;usock=@orca/y") +
              u32(2) + u32(0) + texts(["./a"]) + texts([]) + text("/tmp") + bytes([0]) +
              u32(2) + texts(["./b"]) + texts(["ROLE=b"]) + text("/tmp") + bytes([1]) +
              u32(2) + u32(2) + u32(1) + texts(["A=1"]) + text("slot") + u32(0) + bytes([0, 1]) + i32(-1) + bytes([0]) +
              u64(30000) + texts(["simple"]) + bytes([1]))
dvm_job_state = bytes([25]) + u32(7) + u32(4) + bytes([1, 1]) + i32(130)
write("launch_wire", "dvm-submit", dvm_submit)
write("launch_wire", "dvm-job-state", dvm_job_state)
# Its torch master's port, asked of rank 0's daemon, and the answer.
write("launch_wire", "master-port-ask", bytes([26]) + u32(7) + text("10.0.1.2"))
write("launch_wire", "master-port", bytes([27]) + u32(7) + u32(3) + u32(29500))
write("bootstrap_stream", "bootstrap", u32(len(bootstrap)) + bootstrap)
write("bootstrap_stream", "not-a-bootstrap", u32(len(credit)) + credit)
write("bootstrap_stream", "truncated", u32(len(bootstrap)) + bootstrap[:20])
# One bootstrap for every daemon (vpid 0, plm/slurm), then a parent's contact.
every = bootstrap[:5] + u32(0) + bootstrap[9:]
write("bootstrap_stream", "every-daemon-then-contact", u32(len(every)) + every + u32(len(report)) + report)

# --- a DVM's contact file (framework/launch/dvm_contact.h)
write("dvm_contact", "good", "orca-dvm 1\npid 4242\nuri 1.0;host=b-1-2;tcp=127.0.0.1/8/loopback/36929\n"
      "secret 2e6f598c49a46e31616b1df206ccf91e0abbd38c6ac77cf0137191d7ae0d8ddb\nhosts 8\n")
write("dvm_contact", "reordered", "hosts 1\nsecret 00112233445566778899aabbccddeeff\nuri x\npid 1\norca-dvm 1\n")
write("dvm_contact", "repeated-key", "orca-dvm 1\npid 1\npid 2\n")

# --- forwarded settings (framework/mca/var/mca_forward.h)
write("mca_forward", "two", "orca-settings 1\noob_tcp_if_include command-line 0 0 % eth0,10.0.0.0/8\n"
      "routed param-file 1 3 /etc/orca-mca-params.conf radix\n")
write("mca_forward", "escapes", "orca-settings 1\nplm_rsh_agent environment 0 0 % ssh%20-x%09-q\n")
write("mca_forward", "empty", "orca-settings 1\n")

# --- text formats
write("contact_uri", "tcp", "1.2;host=6f1c4b2e-0d3a-4c7e-9b1a-2f3e4d5c6b7a-4-4026531840;tcp=10.0.0.1/24/physical/5000")
write("contact_uri", "usock-tcp", "12345.0;host=b-1-2;usock=@orca-12345-0;tcp=[fe80::1%1]/64/veth/5001")
write("contact_uri", "no-host", "1.0;tcp=10.0.0.1/24/physical/5000")
write("tcp_contact", "v4", "10.0.0.1/24/physical/5000")
write("tcp_contact", "v6-scoped-tuntap", "[fd00::1]/64/veth/5001,[fe80::1%1]/64/tun/tap/5002")
write("tcp_contact", "loopback", "127.0.0.1/8/loopback/1,[::1]/128/loopback/65535")
write("param_file", "basic", "# site defaults\noob_tcp_if_include = eth0,10.0.0.0/8\nrouted = radix\n\n"
      "oob_tcp_port_min_v4 = 5000\n")
write("param_file", "quoted", 'plm_rsh_agent = " ssh -x # quiet "\nmca_base_verbose=0x10\niof_partial_delay = 1.5\n')
write("param_file", "sizes-bools", "oob_tcp_max_msg_size = 64M\noob_base_verbose = yes\nlist = a, b ,c\n")
write("interface_filter", "include-names", "\x00eth0,wlan0")
write("interface_filter", "exclude-cidr", "\x0110.0.0.0/8,fe80::/10")
write("interface_filter", "both", "\x02eth0\nlo")
write("interface_filter", "exclude-lo", "\x01lo,127.0.0.1")
write("hostfile", "basic", "# cluster\nnode[01-04] slots=8\nhead slots = 2\n\nnode01\n")
write("hostfile", "max-slots", "node1 max_slots=4\n")
write("hostfile", "max-slots-merged", "node1 slots=2 max_slots=4\nnode1 max-slots = 3\nnode2:2\n")
write("hostfile", "comments", "a # first\nb,c[1-2] slots=1 # more\n")
write("hostlist", "expand", "\x00rack[0-1]_blade[00-03],login")
write("hostlist", "host-option", "\x01h1:4,node[1-3]:2,h2")
write("hostlist", "tasks", "\x022(x3),5")
write("hostlist", "slurm-pair", "\x03node[1-4]\n2(x3),5")
write("hostlist", "padded", "\x00linux[0008-0011]")
write("iof_lines", "lines-and-prompt", bytes([8, 0, 6]) + b"hello\n" + bytes([0, 8]) + b"prompt> " + bytes([1, 0, 3]) + b"yes\n"[:3] + bytes([2]))
write("iof_lines", "long-line", bytes([4, 0, 20]) + b"a" * 20 + bytes([3, 1, 0, 4]) + b"x\ny\n" + bytes([1, 2]))
write("iof_lines", "two-ranks", bytes([16, 3, 2, 2, 5]) + b"part " + bytes([0, 5]) + b"mine\n" + bytes([3, 2, 0, 4]) + b"end\n")


# --- program files (framework/launch/program_linkage.cc): a minimal ELF64
# shared object with .dynstr, .dynamic and .dynsym sections.
def elf64(needed=(), runpath=None, imports=()):
    strings = b"\0"
    offsets = {}
    for s in list(needed) + ([runpath] if runpath else []) + list(imports):
        offsets[s] = len(strings)
        strings += s.encode() + b"\0"
    DT_NULL, DT_NEEDED, DT_RUNPATH = 0, 1, 29
    dynamic = b"".join(struct.pack("<qQ", DT_NEEDED, offsets[n]) for n in needed)
    if runpath:
        dynamic += struct.pack("<qQ", DT_RUNPATH, offsets[runpath])
    dynamic += struct.pack("<qQ", DT_NULL, 0)
    symbols = bytes(24) + b"".join(struct.pack("<IBBHQQ", offsets[s], 0x12, 0, 0, 0, 0) for s in imports)
    header_size = 64
    strings_at = header_size
    dynamic_at = strings_at + len(strings)
    symbols_at = dynamic_at + len(dynamic)
    sections_at = symbols_at + len(symbols)
    SHT_STRTAB, SHT_DYNAMIC, SHT_DYNSYM = 3, 6, 11

    def shdr(kind, offset, size, link=0, entsize=0):
        return struct.pack("<IIQQQQIIQQ", 0, kind, 0, 0, offset, size, link, 0, 8, entsize)

    sections = (bytes(64) + shdr(SHT_STRTAB, strings_at, len(strings)) +
                shdr(SHT_DYNAMIC, dynamic_at, len(dynamic), 1, 16) + shdr(SHT_DYNSYM, symbols_at, len(symbols), 1, 24))
    ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
    ehdr = ident + struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 0, sections_at, 0, 64, 56, 0, 64, 4, 0)
    return ehdr + strings + dynamic + symbols + sections


write("program_linkage", "no-needed", elf64())
write("program_linkage", "needs-libc", elf64(needed=["libc.so.6"]))
write("program_linkage", "imports-execve", elf64(imports=["execve", "dlopen"]))
write("program_linkage", "runpath-origin", elf64(needed=["libpmix.so.2"], runpath="$ORIGIN/../lib"))
write("program_linkage", "script", "#!/bin/sh\nexec ./mpi_app \"$@\"\n")
