#!/usr/bin/env python3
"""jsontext.py JSON TEXT - renders `profil report --json` output (docs/report-json.md) the way
the text view prints it, with the rounding the document gives (printf's, which Python's %
formatting shares), and compares with TEXT, the same view's text output, line by line: the
heading's first line and process lines, then every row of the view.  Exits 0 when they are
equal, else prints the first difference and exits 1.  The view is the JSON's "view" member.
"""
import json
import sys


def say(t, seconds):
    """profil_report_time_say() from the time object's fields."""
    both = t["kernel"] and not t["user_only"]
    user = t["user_only"] and not t["kernel"] and not t["inside"]
    scaled = t["user_only"] and not t["kernel"] and t["inside"]
    k = t["kernel_unsampled_seconds"]
    cpuname = "CPU, user and kernel" if both else "user CPU" if user else "CPU"
    if both:
        on = "on a CPU (user and kernel)"
    elif user:
        on = "on a CPU (user; %.3f more in the kernel, not sampled)" % k
    elif scaled:
        on = "on a CPU (%.3f in the kernel, not sampled there)" % k
    else:
        on = "on a CPU"
    cpu = ""
    if t["wait_cpu"] and not seconds:
        cpu = ", %d of them for a CPU" % t["cpu_wait_samples"]
    elif t["wait_cpu"]:
        cpu = " (%.3f for a CPU)" % t["cpu_wait_seconds"]
    if not t["wall"] and not seconds:
        return "%d samples" % t["samples"]
    if not t["wall"]:
        out = "%d samples, %.3f seconds of %s" % (t["samples"], t["seconds"], cpuname)
    elif not seconds:
        return "%d samples (%d on a CPU, %d waiting%s)" % (
            t["samples"], t["cpu_samples"], t["waiting_samples"], cpu)
    else:
        out = "%d samples, %.3f seconds of threads' time: %.3f %s, %.3f waiting%s" % (
            t["samples"], t["seconds"], t["cpu_seconds"], on, t["waiting_seconds"], cpu)
    if not t["user_only"] or (t["wall"] and not t["kernel"]):
        return out
    if scaled:
        return out + ", %.3f of them in the kernel, not sampled there" % k
    return out + "; %.3f seconds in the kernel, not sampled" % k


def es(n, word="process"):
    return word + ("" if n == 1 else "es")


def heading(d, title):
    h = d["heading"]
    n = h["processes"]
    procs = "%d %s" % (n, es(n))
    if h["processes_ran"] > n:
        procs += " (%d ran, the others took no sample)" % h["processes_ran"]
    out = ["%s: %s, %s" % (title, procs, say(h["time"], 1))]
    busy = [f for f in h["files"] if f["time"]["samples"] > 0]
    if len(busy) > 16:
        for p in h["programs"]:
            out.append("  %s: %d %s with samples, %s" % (
                p["progname"], p["processes"], es(p["processes"]), p["time"]["says"]))
    else:
        for f in busy:
            line = "  %s[%d]: %s at %.1f Hz achieved (%d Hz requested, %s clock), %s" % (
                f["progname"], f["pid"], say(f["time"], 0), f["achieved_hz"],
                f["requested_hz"], f["clock"], f["exit"])
            if f["exit_code"] is not None:
                line += " %d" % f["exit_code"]
            if f["dropped"] > 0:
                line += ", %d ticks dropped" % f["dropped"]
            out.append(line)
            if f["cpu_waits_says"] is not None:
                out.append("    " + f["cpu_waits_says"])
    empty = len(h["files"]) - len(busy)
    if empty > 0:
        out.append("  %d %s without samples" % (empty, es(empty)))
    return out + [""]


def blen(s):
    return len(s.encode())


def flat(d):
    out = heading(d, "Flat profile")
    thread = d["split"] == "thread"
    for i, t in enumerate(d["tables"]):
        if d["split"] == "process":
            out += ([""] if i > 0 else []) + ["%s[%d]: %s (%s)" % (
                t["progname"], t["pid"], t["time"]["says"], t["file"])]
        elif d["split"] == "program":
            out += ([""] if i > 0 else []) + ["%s: %d %s, %s" % (
                t["progname"], t["processes"], es(t["processes"]), t["time"]["says"])]
        width = 8
        for r in t["rows"]:
            if blen(r["function"]) > width:
                width = min(blen(r["function"]), 48)
        out.append(" %%time  95%% interval   cumulative      self   samples  %s%s  module" % (
            "    tid  thread           " if thread else "",
            "function" + " " * (width - 8)))
        for r in t["rows"]:
            line = "%6.2f  %5.1f-%5.1f  %11.3f %9.3f %9d  " % (
                r["percent"], r["ci_low"], r["ci_high"], r["cumulative_s"], r["self_s"],
                r["samples"])
            if thread:
                line += "%7d  %s  " % (r["tid"], r["thread"] + " " * (15 - blen(r["thread"])))
            line += "%s  %s" % (r["function"] + " " * (width - blen(r["function"])),
                                r["module"])
            out.append(line)
    return out


def graph(d):
    out = heading(d, "Call graph")
    wall = d["wall"]
    if wall:
        out += ["Counts are sampled stack counts, not call counts: total is the samples "
                "with the function", "anywhere on the stack (once per sample, also in "
                "recursion), self those with it at the", "leaf; waiting the part of total "
                "when threads waited, not on a CPU (--wall).", "",
                "               -------------seconds------------- ------samples------",
                "index  %total     total   waiting      self     total      self  function "
                "[index]  module"]
    else:
        out += ["Counts are sampled stack counts, not call counts: total is the samples "
                "with the function", "anywhere on the stack (once per sample, also in "
                "recursion), self those with it at the", "leaf; a caller's or callee's line "
                "is the samples whose stack held that call.", "",
                "               ------seconds------ ------samples------",
                "index  %total     total      self     total      self  function [index]  "
                "module"]

    def arc(a):
        return "%13s %9.3f %s%9s %9d %9s      %s [%d]" % (
            "", a["seconds"], " " * 10 if wall else "", "", a["samples"], "",
            a["function"], a["index"])
    for f in d["functions"]:
        out += [arc(a) for a in f["callers"]]
        line = "%-6s %6.2f %9.3f " % ("[%d]" % f["index"], f["percent_total"], f["total_s"])
        if wall:
            line += "%9.3f " % f["waiting_s"]
        line += "%9.3f %9d %9d  %s [%d]  %s" % (f["self_s"], f["total"], f["self"],
                                               f["function"], f["index"], f["module"])
        out.append(line)
        out += [arc(a) for a in f["callees"]]
        out.append("-----------------------------------------------")
    return out


def lines(d):
    out = heading(d, "Source lines")
    out.append(" %%time  95%% interval       self   samples  %-28s  function "
               "(inlined into)  module" % "file:line")
    for r in d["rows"]:
        place = "%s:%d" % (r["file_name"], r["line"]) if r["file"] is not None else "??"
        inl = " (%s)" % r["inlined_into"] if r["inlined_into"] is not None else ""
        out.append("%6.2f  %5.1f-%5.1f  %9.3f %9d  %s  %s%s  %s" % (
            r["percent"], r["ci_low"], r["ci_high"], r["self_s"], r["samples"],
            place + " " * (28 - blen(place)), r["function"], inl, r["module"]))
    return out


def diff(d):
    out = heading(d, "Difference")
    b = d["base"]["heading"]
    out += ["Base: %d %s, %d samples.  Largest change first; '*': |z| >= 1.96, beyond the" % (
        b["processes"], es(b["processes"]), d["base_total"]),
        "sampling noise of the two sample counts at 95% (two-proportion z test).", "",
        "%6s   %6s  %7s  %7s %8s %8s  function  module" % (
            "base%", "now%", "diff", "z", "base", "now")]
    for r in d["rows"]:
        out.append("%6.2f   %6.2f  %+7.2f%s %+7.2f %8d %8d  %s  %s" % (
            r["base_percent"], r["percent"], r["diff"], "*" if r["beyond_noise"] else " ",
            r["z"], r["base_samples"], r["samples"], r["function"], r["module"]))
    return out


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        d = json.load(f)
    with open(sys.argv[2], encoding="utf-8", errors="surrogateescape") as f:
        text = f.read().split("\n")
    if text and text[-1] == "":
        text.pop()
    want = {"flat": flat, "graph": graph, "lines": lines, "diff": diff}[d["view"]](d)
    for i in range(max(len(want), len(text))):
        w = want[i] if i < len(want) else "<none>"
        g = text[i] if i < len(text) else "<none>"
        if w != g:
            print("line %d differs:\n  json: %r\n  text: %r" % (i + 1, w, g))
            sys.exit(1)
    print("%s: %d lines equal" % (d["view"], len(want)))


main()
