#!/usr/bin/env python3
"""timeorder.py PROFILE.json SWITCHES SLOT_NS SAMPLES - the time order of tests/progs/phases in
a Firefox export: SWITCHES is the program's output ("switch THREAD NS", CLOCK_REALTIME), SAMPLES
gecko.py's list of the same file.  Thread a-then-b runs phase_a before its switch and phase_b
after it, b-then-a the other way round; a sample may lie one slot (SLOT_NS) on the wrong side,
since a slot's ticks are spread over it.  Prints, per thread, "THREAD FIRST SECOND SWITCH_MS"
(the samples of each phase and the switch in ms after the profile's start) and exits 1 on a
sample out of order.
"""
import json
import sys


def main():
    with open(sys.argv[1]) as f:
        start = json.load(f)["meta"]["startTime"]
    slot = float(sys.argv[3]) / 1e6
    switch = {}
    with open(sys.argv[2]) as f:
        for line in f:
            w = line.split()
            if len(w) == 3 and w[0] == "switch":
                switch[w[1]] = int(w[2]) / 1e6 - start
    counts = {th: [0, 0] for th in switch}
    bad = 0
    with open(sys.argv[4]) as f:
        for line in f:
            th, _, t, _, stack = line.rstrip("\n").split("\t")
            if th not in switch or stack.startswith("[no time recorded]"):
                continue
            first, second = ("phase_a", "phase_b") if th == "a-then-b" else \
                ("phase_b", "phase_a")
            frames = [fr.split(" (in ")[0] for fr in stack.split(";")]
            t = float(t)
            if first in frames:
                counts[th][0] += 1
                if t > switch[th] + slot:
                    bad += 1
                    print(f"# {th}: {first} at {t} ms, after the switch at {switch[th]}")
            if second in frames:
                counts[th][1] += 1
                if t < switch[th] - slot:
                    bad += 1
                    print(f"# {th}: {second} at {t} ms, before the switch at {switch[th]}")
    for th in sorted(switch):
        print(th, counts[th][0], counts[th][1], f"{switch[th]:.3f}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
