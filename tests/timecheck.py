#!/usr/bin/env python3
"""timecheck.py DUMP EXE SWITCHES [MIN_TICKS [UNTIMED_SHARE]]: the times of a recording of
tests/progs/phases, checked against the switch times the program printed.

DUMP is `profil dump` of its file, EXE the phases binary, SWITCHES the program's output
("switch NAME NS", CLOCK_REALTIME; NAME "main" is the thread whose id is the pid).  A sample is
phase A's or B's when one of its pcs lies in that function's section of EXE (hot_phase_a,
hot_phase_b: tests/progs/work.h), in the file's offsets that the dump prints; a waiting
thread's sample (--wall) is neither.

For each thread: every tick of its first phase lies in a slot no later than one after the
switch's, every tick of its second no earlier than one before (a slot is the file's width:
the recorders map their monotonic clock to the header's CLOCK_REALTIME start, and the mapping
may be off by a little); each phase has at least MIN_TICKS timed ticks (default 1).  Over the
file, the ticks with a time are at least (1 - UNTIMED_SHARE) of the samples' (default 0: all).
Prints what it found; exits 1 on any failure.

timecheck.py --strip IN OUT: IN without its TIME records, as a recorder older than them would
have written it (the END record's count fixed, every CRC kept right).
timecheck.py --shift SECONDS IN OUT: IN with every tick's time SECONDS later (whole slots), as
a recorder whose clock was wrong would have written it.
"""
import re
import struct
import subprocess
import sys
import zlib


def rewrite(src, dst, shift=None):
    """IN to OUT without its TIME records, or with shift: their slots that many ns later."""
    data = open(src, "rb").read()
    out, at, kept = bytearray(data[:16]), 16, 0
    while at + 8 <= len(data):
        kind, n = struct.unpack_from("<II", data, at)
        rec = data[at:at + 12 + n]
        at += 12 + n
        if kind == 0x54494d45 and shift is None:
            continue
        if kind == 0x54494d45:
            width, count = struct.unpack_from("<QI", rec, 8)
            body = bytearray(rec[:-4])
            for e in range(count):
                off = 20 + 16 * e + 4
                slot = struct.unpack_from("<I", body, off)[0]
                struct.pack_into("<I", body, off, slot + shift // width)
            rec = bytes(body) + struct.pack("<I", zlib.crc32(body))
        if kind == 0x454e44:
            body = struct.pack("<IIQ", kind, 8, kept)
            rec = body + struct.pack("<I", zlib.crc32(body))
        out += rec
        kept += 1
    open(dst, "wb").write(out)


def sections(exe):
    out = subprocess.run(["readelf", "-SW", exe], check=True, capture_output=True,
                         text=True).stdout
    found = {}
    for line in out.splitlines():
        m = re.search(r"\]\s+(hot_phase_[ab])\s+\S+\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)",
                      line)
        if m:
            off, size = int(m.group(2), 16), int(m.group(3), 16)
            found[m.group(1)[-1].upper()] = (off, off + size)
    if set(found) != {"A", "B"}:
        sys.exit("timecheck: no hot_phase_a/b sections in " + exe)
    return found


def main():
    if sys.argv[1] == "--strip":
        rewrite(sys.argv[2], sys.argv[3])
        return 0
    if sys.argv[1] == "--shift":
        rewrite(sys.argv[3], sys.argv[4], int(float(sys.argv[2]) * 1e9))
        return 0
    dump, exe, switches = sys.argv[1:4]
    min_ticks = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    untimed_share = float(sys.argv[5]) if len(sys.argv) > 5 else 0.0
    secs = sections(exe)
    base = exe.rsplit("/", 1)[-1]
    pid = start = slot_ns = None
    names = {}
    samples = []            # (count, tid, phase or None)
    times = []              # (sample, slot, count)
    for line in open(dump):
        f = line.split()
        if not f:
            continue
        if f[0] == "header":
            kv = dict(x.split("=", 1) for x in f[1:] if "=" in x)
            pid, start = int(kv["pid"]), int(kv["start_ns"])
        elif f[0] == "thread":
            names[int(f[1])] = f[2] if len(f) > 2 else ""
        elif f[0] == "sample":
            phase = None
            # A waiting thread's sample (--wall) carries a stack seen before, maybe long
            # before when it waits for a CPU: its time is the wait's, its phase unknown.
            waiting = len(f) > 4 and int(f[4].split("=")[0], 16) >= 0xffffffffffffe000
            for pc in f[4:] if not waiting else []:
                m = re.match(r"0x[0-9a-f]+=(.*)\+0x([0-9a-f]+)$", pc)
                if not m or m.group(1).rsplit("/", 1)[-1] != base:
                    continue
                off = int(m.group(2), 16)
                for p, (lo, hi) in secs.items():
                    if lo <= off < hi:
                        phase = p
            samples.append((int(f[1]), int(f[2]), phase))
        elif f[0] == "time":
            slot_ns = int(f[1])
            times.append((int(f[2]), int(f[3]), int(f[4])))
    total = sum(c for c, _, _ in samples)
    timed = sum(c for _, _, c in times)
    print(f"slot {slot_ns} ns; {timed} of {total} ticks timed ({total - timed} untimed)")
    ok = slot_ns is not None and timed <= total
    if total == 0 or timed < total * (1 - untimed_share):
        print("too many ticks without a time")
        ok = False
    if slot_ns is None:
        print("no TIME record")
        return 1
    for line in open(switches):
        f = line.split()
        if len(f) != 3 or f[0] != "switch":
            continue
        name, at = f[1], int(f[2])
        if name == "main":
            tids = [pid]
        else:
            tids = [t for t, n in names.items() if n == name]
        if len(tids) != 1:
            print(f"thread {name}: not found once in the file's threads {names}")
            ok = False
            continue
        first, second = ("A", "B") if name != "b-then-a" else ("B", "A")
        sw = (at - start) // slot_ns
        got = {"A": [], "B": []}
        for s, slot, c in times:
            count, tid, phase = samples[s]
            if tid == tids[0] and phase is not None:
                got[phase].append((slot, c))
        desc = []
        for p in (first, second):
            n = sum(c for _, c in got[p])
            slots = [sl for sl, _ in got[p]]
            desc.append(f"{p}: {n} ticks in slots {min(slots, default='-')}"
                        f"..{max(slots, default='-')}")
            if n < min_ticks:
                ok = False
                desc.append(f"(fewer than {min_ticks})")
        late = sum(c for sl, c in got[first] if sl > sw + 1)
        early = sum(c for sl, c in got[second] if sl < sw - 1)
        print(f"thread {name} ({tids[0]}): switch in slot {sw}; " + ", ".join(desc) +
              f"; {late} ticks of {first} after it, {early} of {second} before it")
        if late or early:
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
