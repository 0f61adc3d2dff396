#!/usr/bin/env python3
"""gecko.py FILE [FILE.samples] - checks a Gecko profile (profil export --format=firefox, JSON
or gzip) against the format's definition in the Firefox Profiler's source, and writes one line
per sample, "THREAD<TAB>TID<TAB>TIME_MS<TAB>CATEGORY<TAB>ROOT;...;LEAF", thread by thread in
file order, for the test to count and order.

The checks follow the profiler's own code (github.com/firefox-devtools/profiler, 2026):
  src/types/gecko-profile.ts          GeckoProfile, GeckoThread, the tables' schemas
  src/app-logic/constants.ts          GECKO_PROFILE_VERSION = 36
  src/profile-logic/gecko-profile-versioning.ts
                                      upgraders: version 27 removed frameTable "optimizations"
  src/profile-logic/process-profile.ts
        _toStructOfArrays             a table is {schema: {column: index}, data: [rows]}
        _processSamples               samples need "responsiveness" or "eventDelay", or it throws
        _processStackTable            prefix null or a stack of the same thread
        _extractCppFunction           "name (in library)" names a native function and its library
  src/selectors/profile.ts            getDefaultCategory: the category coloured grey
  src/components/shared/thread/HeightGraph.tsx
                                      samples bisected by time: sorted per thread
The real importer is run on the same file by t4020 when npm has installed it; this one says
which invariant a file breaks, which that one does not.
"""
import gzip
import json
import re
import sys

GECKO_PROFILE_VERSION = 36
FRAME_SCHEMA = ["location", "relevantForJS", "innerWindowID", "implementation", "line",
                "column", "category", "subcategory"]
# src/utils/colors.ts: the colour names a category may have.
COLOURS = {"transparent", "lightblue", "red", "lightred", "orange", "blue", "green", "purple",
           "yellow", "brown", "magenta", "lightgreen", "gray", "grey", "darkgray", "darkgrey"}


def fail(msg):
    sys.exit("gecko.py: " + msg)


def table(obj, what, columns):
    """The rows of a {schema, data} table, as dicts of the columns named."""
    if not isinstance(obj, dict) or not isinstance(obj.get("schema"), dict) or \
            not isinstance(obj.get("data"), list):
        fail(f"{what}: not a {{schema, data}} table")
    schema = obj["schema"]
    for c in columns:
        if not isinstance(schema.get(c), int):
            fail(f"{what}: schema has no column {c}")
    width = max(schema.values()) + 1 if schema else 0
    rows = []
    for i, row in enumerate(obj["data"]):
        if not isinstance(row, list) or len(row) > width:
            fail(f"{what} row {i}: {row!r} does not fit the schema")
        rows.append({c: row[schema[c]] if schema[c] < len(row) else None for c in schema})
    return schema, rows


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_meta(p):
    for key, kind in (("meta", dict), ("libs", list), ("threads", list), ("processes", list),
                      ("pausedRanges", list)):
        if not isinstance(p.get(key), kind):
            fail(f"top level: {key} missing or not a {kind.__name__}")
    m = p["meta"]
    v = m.get("version")
    if not isinstance(v, int) or not 27 <= v <= GECKO_PROFILE_VERSION:
        fail(f"meta.version {v!r}: this frame schema is versions 27 to {GECKO_PROFILE_VERSION}")
    for key in ("startTime", "interval"):
        if not is_num(m.get(key)):
            fail(f"meta.{key} is not a number")
    if m["interval"] <= 0:
        fail("meta.interval must be positive")
    if m.get("presymbolicated") is not True:
        fail("meta.presymbolicated: frames are named, the profiler must not symbolicate them")
    if not isinstance(m.get("markerSchema"), list):
        fail("meta.markerSchema missing (upgraders 26 on iterate it)")
    if not isinstance(m.get("product"), str):
        fail("meta.product is not a string")
    cats = m.get("categories")
    if not isinstance(cats, list) or not cats:
        fail("meta.categories missing")
    for c in cats:
        if not isinstance(c.get("name"), str) or c.get("color") not in COLOURS or \
                not isinstance(c.get("subcategories"), list) or not c["subcategories"]:
            fail(f"meta.categories: bad category {c!r}")
    if not any(c["color"] == "grey" for c in cats):
        fail("meta.categories: no grey category, the profiler's default")
    return cats


def check_thread(t, cats, end):
    what = f"thread {t.get('name')!r}"
    for key, ok in (("name", lambda x: isinstance(x, str)),
                    ("processType", lambda x: isinstance(x, str)),
                    # a later image of a pid (an exec): "pid.image", a process of its own
                    ("pid", lambda x: isinstance(x, int) or
                     isinstance(x, str) and re.fullmatch(r"[0-9]+\.[1-9][0-9]*", x)),
                    ("tid", lambda x: isinstance(x, int)),
                    ("registerTime", is_num),
                    ("unregisterTime", lambda x: x is None or is_num(x)),
                    ("stringTable", lambda x: isinstance(x, list) and
                     all(isinstance(s, str) for s in x))):
        if key not in t or not ok(t[key]):
            fail(f"{what}: {key} missing or of the wrong type")
    strs = t["stringTable"]
    table(t.get("markers"), what + " markers",
          ["name", "startTime", "endTime", "phase", "category", "data"])
    fschema, frames = table(t.get("frameTable"), what + " frameTable", FRAME_SCHEMA)
    if sorted(fschema) != sorted(FRAME_SCHEMA):
        fail(f"{what}: frameTable schema {sorted(fschema)} is not version 27's")
    for i, f in enumerate(frames):
        if not isinstance(f["location"], int) or not 0 <= f["location"] < len(strs):
            fail(f"{what} frame {i}: location is no string")
        if not isinstance(f["relevantForJS"], bool):
            fail(f"{what} frame {i}: relevantForJS is not a boolean")
        cat, sub = f["category"], f["subcategory"]
        if cat is not None and (not isinstance(cat, int) or not 0 <= cat < len(cats)):
            fail(f"{what} frame {i}: category {cat!r} not in meta.categories")
        if (cat is None) != (sub is None) or (cat is not None and not (
                isinstance(sub, int) and 0 <= sub < len(cats[cat]["subcategories"]))):
            fail(f"{what} frame {i}: subcategory {sub!r} not of category {cat!r}")
        if f["line"] is not None and (not isinstance(f["line"], int) or f["line"] < 1):
            fail(f"{what} frame {i}: line {f['line']!r}")
    _, stacks = table(t.get("stackTable"), what + " stackTable", ["prefix", "frame"])
    for i, s in enumerate(stacks):
        if s["prefix"] is not None and (not isinstance(s["prefix"], int) or
                                        not 0 <= s["prefix"] < i):
            fail(f"{what} stack {i}: prefix {s['prefix']!r} is not an earlier stack")
        if not isinstance(s["frame"], int) or not 0 <= s["frame"] < len(frames):
            fail(f"{what} stack {i}: frame {s['frame']!r} out of range")
    sschema, samples = table(t.get("samples"), what + " samples", ["stack", "time"])
    if "responsiveness" not in sschema and "eventDelay" not in sschema:
        fail(f"{what}: samples have neither responsiveness nor eventDelay")
    last = None
    out = []
    for i, s in enumerate(samples):
        st, tm = s["stack"], s["time"]
        if st is not None and (not isinstance(st, int) or not 0 <= st < len(stacks)):
            fail(f"{what} sample {i}: stack {st!r} out of range")
        if not is_num(tm) or tm < 0 or tm > end + 1e-6:
            fail(f"{what} sample {i}: time {tm!r} outside [0, profilingEndTime {end}]")
        if last is not None and tm < last:
            fail(f"{what} sample {i}: time {tm} before the previous {last}")
        last = tm
        names, cat, k = [], None, st
        while k is not None:
            fr = frames[stacks[k]["frame"]]
            names.append(strs[fr["location"]])
            if cat is None and fr["category"] is not None:
                cat = cats[fr["category"]]["name"]
            k = stacks[k]["prefix"]
        names.reverse()
        out.append(f"{t['name']}\t{t['tid']}\t{tm:.6f}\t{cat}\t{';'.join(names)}")
    return out


def main():
    path = sys.argv[1]
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    try:
        p = json.loads(data)
    except ValueError as e:
        fail(f"not JSON: {e}")
    cats = check_meta(p)
    end = p["meta"].get("profilingEndTime", float("inf"))
    lines = []
    for t in p["threads"]:
        lines += check_thread(t, cats, end)
    out = open(sys.argv[2], "w") if len(sys.argv) > 2 else sys.stdout
    out.write("".join(line + "\n" for line in lines))


if __name__ == "__main__":
    main()
