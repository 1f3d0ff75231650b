#!/usr/bin/python3
"""A rank that floods its orcad's PMI key-value space (pmi/simple).

Speaks the PMI-1 wire protocol on the descriptor named by PMI_FD, as
MPICH's simple PMI does: init, get_my_kvsname, then ROUNDS times PUTS
puts of fresh keys (k<rank>_<round>_<i>) with VALUE_BYTES-byte values and
a barrier_in, then finalize. Only the ranks listed in FLOOD_RANKS (default "0") put; the
others only enter the barriers, as a job's quiet ranks would.

Prints "flood: rank R done" to stdout when every round was released, and
"flood: rank R refused: ..." to stderr when its orcad answered a request
with an error (it then waits for the job to end it). A rank whose
connection closes exits with status 3.

Environment: PMI_FD, PMI_RANK (set by orcad); FLOOD_RANKS, FLOOD_ROUNDS
(default 1000), FLOOD_PUTS (4096, pmi/simple's cap between two barriers),
FLOOD_VALUE_BYTES (1000). With FLOOD_LINGER=1 the ranks that do not put
ignore SIGTERM: the job, and its orcads, last until orcarun's SIGKILL, so
that a test reads the daemons' figures once the job's end is decided.
"""
import os
import signal
import sys


def main():
    fd = int(os.environ["PMI_FD"])
    rank = int(os.environ["PMI_RANK"])
    flooders = {int(r) for r in os.environ.get("FLOOD_RANKS", "0").split(",") if r}
    rounds = int(os.environ.get("FLOOD_ROUNDS", "1000"))
    puts = int(os.environ.get("FLOOD_PUTS", "4096"))
    value = "v" * int(os.environ.get("FLOOD_VALUE_BYTES", "1000"))
    if os.environ.get("FLOOD_LINGER") == "1" and rank not in flooders:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    pending = b""

    def send(line):
        data = (line + "\n").encode()
        while data:
            data = data[os.write(fd, data):]

    def receive():
        nonlocal pending
        while b"\n" not in pending:
            chunk = os.read(fd, 65536)
            if not chunk:
                print(f"flood: rank {rank}: PMI_FD closed", file=sys.stderr, flush=True)
                sys.exit(3)
            pending += chunk
        line, pending = pending.split(b"\n", 1)
        pairs = dict(word.split("=", 1) for word in line.decode().split() if "=" in word)
        if pairs.get("rc", "0") != "0":
            print(f"flood: rank {rank} refused: {line.decode()}", file=sys.stderr, flush=True)
            # The job ends it; a rank that went on would only be refused again.
            while os.read(fd, 65536):
                pass
            sys.exit(3)
        return pairs

    send("cmd=init pmi_version=1 pmi_subversion=1")
    receive()
    send("cmd=get_my_kvsname")
    kvsname = receive()["kvsname"]
    for r in range(rounds):
        if rank in flooders:
            # Written in batches, read back after: the replies are small,
            # and orcad bounds what a rank leaves unread.
            for start in range(0, puts, 256):
                batch = range(start, min(puts, start + 256))
                send("\n".join(f"cmd=put kvsname={kvsname} key=k{rank}_{r}_{i} value={value}" for i in batch))
                for _ in batch:
                    receive()
        send("cmd=barrier_in")
        receive()
    send("cmd=finalize")
    receive()
    print(f"flood: rank {rank} done", flush=True)


if __name__ == "__main__":
    main()
