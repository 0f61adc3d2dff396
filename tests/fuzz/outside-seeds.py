#!/usr/bin/env python3
"""outside-seeds.py DIR - writes seed inputs for the outside recorder's fuzz harness
(tests/fuzz/outside.c): a byte of options, then perf records as the kernel writes them with
sample_id_all (pid, tid, time trailer): an exec'ed command with mappings (with and without a
build-id), samples flat and with a call chain, a thread, a fork child, exits and a lost record."""
import os
import struct
import sys

MMAP2, COMM, EXIT, FORK, LOST, SAMPLE = 10, 3, 4, 7, 2, 9
EXEC, BUILD_ID = 1 << 13, 1 << 14


def rec(kind, misc, body, pid=100, tid=100, time=1000):
    body += struct.pack("<IIQ", pid, tid, time) if kind != SAMPLE else b""
    body += b"\0" * (-len(body) % 8)
    return struct.pack("<IHH", kind, misc, 8 + len(body)) + body


def name(s):
    b = s.encode() + b"\0"
    return b + b"\0" * (-len(b) % 8)


def mmap2(pid, addr, length, path, bid=None, time=1100):
    if bid is None:
        ids, misc = struct.pack("<IIQQ", 8, 1, 1234, 0), 0
    else:
        ids, misc = struct.pack("<BBH20s", len(bid), 0, 0, bid) + b"\0" * 4, BUILD_ID
    body = struct.pack("<IIQQQ", pid, pid, addr, length, 0) + ids + struct.pack("<II", 5, 2)
    return rec(MMAP2, misc, body + name(path), pid, pid, time)


def sample(pid, tid, ip, chain=(), time=2000):
    body = struct.pack("<QIIQ", ip, pid, tid, time)
    if chain:
        body += struct.pack("<Q", len(chain) + 1) + struct.pack("<Q", 0xfffffffffffffe00)
        body += b"".join(struct.pack("<Q", c) for c in chain)
    return rec(SAMPLE, 2, body)


def walked(pid, tid, ip, sp, bp, stack, time=2000):
    """A sample with user registers (abi 2: rbp, rsp, rip) and a stack copy."""
    body = struct.pack("<QIIQ", ip, pid, tid, time) + struct.pack("<QQQQ", 2, bp, sp, ip)
    data = b"".join(struct.pack("<Q", v) for v in stack)
    body += struct.pack("<Q", len(data)) + data + struct.pack("<Q", len(data))
    return rec(SAMPLE, 2, body)


def task(kind, pid, ppid, tid, ptid, time):
    return rec(kind, 0, struct.pack("<IIIIQ", pid, ppid, tid, ptid, time), pid, tid, time)


out = sys.argv[1]
os.makedirs(out, exist_ok=True)
start = [rec(COMM, EXEC, struct.pack("<II", 100, 100) + name("prog")),
         mmap2(100, 0x400000, 0x1000, "/usr/bin/true", b"\x12" * 20),
         mmap2(100, 0x7f0000, 0x2000, "/lib/x86_64-linux-gnu/libc.so.6"),
         mmap2(100, 0x7ff000, 0x1000, "[vdso]")]
seeds = {
    "flat": [0, start + [sample(100, 100, 0x400010), sample(100, 100, 0x7f0100),
                         task(EXIT, 100, 1, 100, 1, 3000)]],
    "deep": [5, start + [sample(100, 100, 0x400010, (0x400010, 0x7f0200, 0x400500)),
                         task(FORK, 100, 100, 101, 100, 2100),
                         sample(100, 101, 0x400020, (0x400020, 0x7f0300)),
                         task(EXIT, 100, 100, 101, 100, 2200)]],
    "fork-exec": [2, start + [task(FORK, 102, 100, 102, 100, 2100),
                              sample(102, 102, 0x400030),
                              rec(COMM, EXEC, struct.pack("<II", 102, 102) + name("child"),
                                  102, 102, 2300),
                              mmap2(102, 0x400000, 0x1000, "/usr/bin/env", None, 2301),
                              sample(102, 102, 0x400040),
                              rec(LOST, 0, struct.pack("<QQ", 1, 7), 102, 102, 2400),
                              task(EXIT, 102, 100, 102, 100, 2500)]],
    "walked": [1, start + [walked(100, 100, 0x7f0100, 0x7ffd0000, 0x7ffd0010,
                                  (0x400010, 0x7ffd0020, 0x7f0200, 0x400500, 0, 0)),
                           walked(100, 100, 0x7ff010, 0x7ffd0000, 0, (0x7f0300,) * 4),
                           task(EXIT, 100, 1, 100, 1, 3000)]],
}
for fname, (opts, recs) in seeds.items():
    with open(os.path.join(out, fname), "wb") as f:
        f.write(bytes([opts]) + b"".join(recs))
