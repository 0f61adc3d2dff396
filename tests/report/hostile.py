#!/usr/bin/env python3
"""hostile.py KIND OUT [ARG...] - writes a complete, well-formed profile file (docs/FORMAT.md)
that a hostile or unlucky recorder could write, for the tests of bad input (issue 11):

  counts OUT C1 [C2...]  one sample per count, at unmapped PCs (2**63 twice wraps a uint64_t)
  maps OUT N [DISTINCT]  N mappings of 4 KiB side by side, one sample in each; with DISTINCT
                         each mapping names its own missing file, else all name /bin/true
  hit OUT PATH OFF COUNT [OFF COUNT...]
                         COUNT ticks at file offset OFF of PATH (mapped from offset 0)
  procs DIR N PATH OFF   N files DIR/pI.profil of processes 1001.. named make, sh and cc1
                         in turn (I mod 3 = 1, 2, 0), each with 2 ticks at offset OFF of PATH
  deep OUT N D           N samples of one tick, each a stack of D distinct PCs in a missing
                         library: deep distinct stacks, every frame its own name
  names OUT              a program, a thread and a mapping named with escape sequences,
                         tabs, newlines, U+FFFE, U+FFFF and bytes that are no UTF-8
"""
import os
import struct
import sys
import zlib


def record(kind, payload):
    frame = struct.pack("<II", kind, len(payload)) + payload
    return frame + struct.pack("<I", zlib.crc32(frame))


def header(progname):
    # HOSTILE_PROG and HOSTILE_PID name the process instead of the kind's defaults.
    progname = os.environ.get("HOSTILE_PROG", "").encode() or progname
    h = struct.pack("<IIII", int(os.environ.get("HOSTILE_PID", "4242")), 1, 1000, 1) + struct.pack("<QQQQQQQ", 1000000, 1, 2, 1, 1, 1, 0)
    h += struct.pack("<IiIIII", 1, 0, 0, 1, 1, 0) + struct.pack("<II", len(progname), 0)
    return record(1, h + progname)


def mapping(start, end, path):
    return record(2, struct.pack("<QQQQQIIIII", start, end, 0, 0, 0, 0, 0xffffffff, 5, 0,
                                 len(path)) + path)


def sample(count, pc, tid=1):
    return record(4, struct.pack("<QIII", count, tid, 0, 1) + struct.pack("<Q", pc))


def write(out, recs):
    data = b"\x89PROFIL\n" + struct.pack("<II", 1, 0) + b"".join(recs)
    with open(out, "wb") as f:
        f.write(data + record(0x454E44, struct.pack("<Q", len(recs))))


def main():
    kind, out = sys.argv[1], sys.argv[2]
    if kind == "procs":
        path, off = sys.argv[4].encode(), int(sys.argv[5], 0)
        for i in range(1, int(sys.argv[3]) + 1):
            os.environ["HOSTILE_PROG"] = ("cc1", "make", "sh")[i % 3]
            os.environ["HOSTILE_PID"] = str(1000 + i)
            write("%s/p%d.profil" % (out, i), [header(b""), mapping(0x100000, 0x10100000, path),
                                               sample(2, 0x100000 + off)])
        return
    recs = []
    if kind == "counts":
        recs.append(header(b"counts"))
        for i, c in enumerate(sys.argv[3:]):
            recs.append(sample(int(c), 0x10 + i))
    elif kind == "maps":
        n = int(sys.argv[3])
        distinct = len(sys.argv) > 4
        recs.append(header(b"maps"))
        for i in range(n):
            path = b"/nonexistent/lib%d.so" % i if distinct else b"/bin/true"
            recs.append(mapping(0x10000000 + i * 0x1000, 0x10001000 + i * 0x1000, path))
        for i in range(n):
            recs.append(sample(1, 0x10000010 + i * 0x1000))
    elif kind == "hit":
        path = sys.argv[3].encode()
        recs.append(header(b"hit"))
        recs.append(mapping(0x100000, 0x10100000, path))
        for off, count in zip(sys.argv[4::2], sys.argv[5::2]):
            recs.append(sample(int(count), 0x100000 + int(off, 0)))
    elif kind == "deep":
        n, d = int(sys.argv[3]), int(sys.argv[4])
        recs.append(header(b"deep"))
        recs.append(mapping(0x100000, 0x40100000, b"/nonexistent/deep.so"))
        for i in range(n):
            pcs = [0x100000 + (i * d + j) * 16 for j in range(d)]
            recs.append(record(4, struct.pack("<QIII", 1, 1, 0, d) + struct.pack("<%dQ" % d, *pcs)))
    elif kind == "names":
        evil = b"\x1b]0;pwned\x07\x1b[2J\tTAB\nNL\xef\xbf\xbe\xef\xbf\xbf\xff\xfe"
        recs.append(header(b"prog" + evil))
        recs.append(record(3, struct.pack("<II", 1, len(evil)) + evil))
        recs.append(mapping(0x1000, 0x2000, b"/nonexistent/" + evil))
        recs.append(sample(3, 0x1500))
    else:
        sys.exit("usage: hostile.py counts|maps|hit|procs|deep|names OUT [ARG...]")
    write(out, recs)


if __name__ == "__main__":
    main()
