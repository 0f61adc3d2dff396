#!/usr/bin/env python3
"""synth.py KIND OUT [ARG] - writes a small, complete profile file (docs/FORMAT.md) that the
project's writer would never write, for the export and fuzz tests:

  empty OUT        a process without samples: preamble, HEADER, END
  mapping OUT PATH [COUNT]
                   COUNT ticks (default 1) at one PC, file offset 0x500 of PATH (a path that
                   is a FIFO, a device, or bytes that are no UTF-8: PATH may hold \\xNN escapes)
  timed OUT PATH COUNT
                   the same, with a TIME record: tick i in slot i of 1 ms
  wall OUT PATH    a --wall recording whose CPU clock achieved 500 Hz of the 1000 asked: 500
                   ticks on a CPU at offset 0x500 of PATH, 1000 of a thread waiting in read(2)
"""
import struct
import sys
import zlib


def record(kind, payload):
    frame = struct.pack("<II", kind, len(payload)) + payload
    return frame + struct.pack("<I", zlib.crc32(frame))


def header(progname, achieved_mhz=1000000, flags=0):
    # pid ppid requested_hz clock, achieved_mhz start end cpu samples ticks dropped,
    # exit_kind exit_code flags max_depth threads thread_failures, P E, progname
    h = struct.pack("<IIII", 1, 1, 1000, 1)
    h += struct.pack("<QQQQQQQ", achieved_mhz, 1, 2, 1, 1, 1, 0)
    h += struct.pack("<IiIIII", 1, 0, flags, 8, 1, 0) + struct.pack("<II", len(progname), 0)
    return record(1, h + progname)


def main():
    kind, out = sys.argv[1], sys.argv[2]
    data = b"\x89PROFIL\n" + struct.pack("<II", 1, 0)
    if kind == "empty":
        data += header(b"empty")
        n = 1
    elif kind in ("mapping", "timed"):
        path = sys.argv[3].encode("latin-1", "backslashreplace").decode("unicode_escape")
        path = path.encode("latin-1")
        m = struct.pack("<QQQQQIIIII", 0x1000, 0x2000, 0, 0, 0, 0, 0xffffffff, 5, 0, len(path))
        count = int(sys.argv[4]) if len(sys.argv) > 4 else 1
        s = struct.pack("<QIII", count, 1, 0, 1) + struct.pack("<Q", 0x1500)
        data += header(b"hostile") + record(2, m + path) + record(4, s)
        n = 3
        if kind == "timed":
            t = struct.pack("<QI", 1000000, count)
            t += b"".join(struct.pack("<IIQ", 0, i, 1) for i in range(count))
            data += record(0x54494D45, t)
            n += 1
    elif kind == "wall":
        path = sys.argv[3].encode()
        m = struct.pack("<QQQQQIIIII", 0x1000, 0x2000, 0, 0, 0, 0, 0xffffffff, 5, 0, len(path))
        cpu = struct.pack("<QIII", 500, 1, 0, 1) + struct.pack("<Q", 0x1500)
        # The wait frame: state 0 (sleeping), system call 0 (read); then the pc it waits at.
        wait = struct.pack("<QIII", 1000, 1, 0, 2) + struct.pack("<QQ", 0xffffffffffffe000, 0x1600)
        data += header(b"waiter", 500000, 0x5) + record(2, m + path) + record(4, cpu)
        data += record(4, wait)
        n = 4
    else:
        sys.exit("usage: synth.py empty|mapping|timed|wall OUT [PATH [COUNT]]")
    with open(out, "wb") as f:
        f.write(data + record(0x454E44, struct.pack("<Q", n)))


if __name__ == "__main__":
    main()
