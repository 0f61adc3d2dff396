#!/usr/bin/env python3
"""viewer.py MODE ... - opens a page written by `profil export --format=html` in headless
Chromium (browser.py) at 1400x900 and drives it the way a person would: real mouse clicks and
drags, typed text.  Prints one TAP line per check, for tests/lib.sh.

  viewer.py main HTML REPORT.json SHOTS
      the page of tests/report/mkphases (two threads, phase A then phase B): the opening table
      names the hottest functions with the shares and 95% intervals of `profil report --json`
      (REPORT.json); a click on a frame zooms to it; the search highlights matches with their
      share; the inverted tree and the sandwich say the known callers and callees; dragging
      over each half of the timeline makes the table follow phase A, then phase B; a click on
      a thread's track keeps its samples alone; hiding and focusing a function.
  viewer.py diff HTML DIFF.json SHOTS
      a page made with --diff: the changes `profil report --diff --json` (DIFF.json) finds
      beyond the noise are marked '*' in the table and outlined in the graph, the others not.
  viewer.py hostile HTML
      names holding markup show as text and run nothing.
  viewer.py recording HTML REPORT.json DUMP SWITCHES SHOTS
      the page of a real recording of tests/progs/phases 0.6 2 (DUMP: `profil dump` of it,
      SWITCHES: what it printed): the hottest functions are phase_a and phase_b with the
      report's shares; a track per thread, named as the threads were; per thread, dragging over
      the timeline before its switch makes its first phase dominate the opening table, after
      it its second, the other phase within what the slots around the switch (their width and
      the thread's busiest slot, from DUMP) and the 95% interval of the page's counts allow.
  viewer.py multi HTML
      a page of two processes of mkphases: its title, a track per process, which selects
      the process's threads.

Screenshots go to directory SHOTS.
"""
import base64
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser  # noqa: E402
from browser import check  # noqa: E402

W, H = 1400, 900
READY = "typeof profilViewer !== 'undefined' && profilViewer.drawn === true"


def shot(br, path):
    data = base64.b64decode(br.send("Page.captureScreenshot", {"format": "png"})["data"])
    with open(path, "wb") as f:
        f.write(data)
    return data


def table(br, tid):
    """Rows of table #tid as lists of cell texts."""
    return br.eval("""Array.prototype.map.call(document.querySelectorAll('#%s tbody tr'),
        function (r) { return Array.prototype.map.call(r.cells, function (c) {
            return c.textContent; }); })""" % tid)


def hot(br):
    """The opening table: function -> (self share, its interval, total share)."""
    return {r[0]: (r[1], r[2], r[3]) for r in table(br, "hot")}


def frame(br, name, canvas="flame"):
    for f in br.eval("profilViewer.frames(%s)" % json.dumps(canvas)):
        if f["name"] == name:
            return f
    return None


def click_el(br, selector):
    b = br.eval("""(function () { var e = document.querySelector(%s); if (!e) return null;
        e.scrollIntoView({block: 'nearest'}); var r = e.getBoundingClientRect();
        return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; })()"""
                % json.dumps(selector))
    if b is None:
        return False
    br.click(b["x"], b["y"])
    return True


def key(br, name):
    """A key pressed and released on the focused element (names as KeyboardEvent.key)."""
    codes = {"ArrowLeft": 37, "ArrowUp": 38, "ArrowRight": 39, "ArrowDown": 40,
             "Enter": 13, "Escape": 27}
    for kind in ("rawKeyDown", "keyUp"):
        br.send("Input.dispatchKeyEvent", {"type": kind, "key": name, "code": name,
                                           "windowsVirtualKeyCode": codes[name]})


def click_row(br, tid, name):
    i = [r[0] for r in table(br, tid)].index(name)
    return click_el(br, "#%s tbody tr:nth-child(%d) td" % (tid, i + 1))


def drag(br, x0, x1, y):
    br.mouse("mouseMoved", x0, y)
    br.send("Input.dispatchMouseEvent", {"type": "mousePressed", "x": x0, "y": y,
                                         "button": "left", "clickCount": 1})
    for k in range(1, 6):
        br.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x0 + (x1 - x0) * k / 5,
                                             "y": y, "button": "left", "buttons": 1})
    br.send("Input.dispatchMouseEvent", {"type": "mouseReleased", "x": x1, "y": y,
                                         "button": "left", "clickCount": 1})


def fixed(x, digits):
    """The ways x may be written with digits decimals: one, or both sides of a tie, since the
    report's double and the page's (k / n * 100) may differ in the last bit and the page's
    toFixed rounds ties up where Python rounds them to even (3 of 2400: 0.13% or 0.12%)."""
    eps = 1e-9 * max(1.0, abs(x))
    return {"%.*f" % (digits, x - eps), "%.*f" % (digits, x + eps)}


def pct(x):
    """The ways the page may write a share x (in %)."""
    return {s + "%" for s in fixed(x, 1 if x >= 10 else 2)}


def open_viewer(html):
    br, took = browser.open_page("file://" + os.path.abspath(html), W, H, READY)
    check(took is not None, "the page opens from file:// and draws (%.2f s)" % (took or -1))
    return br


def agrees(br, rows):
    """Whether the opening table gives the shares and 95% intervals of the report's rows (of
    `profil report --json`); says which differ."""
    got = hot(br)
    ok = len(rows) > 0
    for r in rows:
        want = (pct(r["percent"]), {lo + "\u2013" + hi for lo in fixed(r["ci_low"], 1)
                                    for hi in fixed(r["ci_high"], 1)})
        cells = got.get(r["function"], (None, None))
        if cells[0] not in want[0] or cells[1] not in want[1]:
            ok = False
            print("# %s: want %s, got %s" % (r["function"], want, got.get(r["function"])))
    return ok


def main_checks(html, report, shots):
    with open(report) as f:
        rows = json.load(f)["tables"][0]["rows"]
    br = open_viewer(html)
    try:
        shot(br, os.path.join(shots, "viewer.png"))
        ok = agrees(br, rows)
        first = table(br, "hot")[0][0]
        check(ok and first == rows[0]["function"],
              "the opening table names the hottest functions first (%s) with the report's "
              "shares and 95%% intervals (%d rows)" % (first, len(rows)))
        names = [r[0] for r in table(br, "threads")]
        check(sorted(n.split(" ")[0] for n in names) == ["main", "worker"],
              "the threads table names both threads: %s" % names)

        # Click zoom: a real click on phase_b makes it span the graph.
        full = br.eval("document.getElementById('flame').clientWidth")
        f = frame(br, "phase_b")
        before = f["w"]
        br.click(f["x"] + f["w"] / 2, f["y"] + f["h"] / 2)
        f = frame(br, "phase_b")
        gone = frame(br, "phase_a")
        check(f is not None and abs(f["w"] - full) < 1 and before < full / 2 and gone is None,
              "a click on phase_b zooms: %.0f -> %.0f px of %d, phase_a no longer drawn"
              % (before, f["w"] if f else -1, full))
        shot(br, os.path.join(shots, "viewer-zoomed.png"))
        click_el(br, "#reset")
        f = frame(br, "phase_b")
        check(f is not None and abs(f["w"] - before) < 1, "Reset zoom restores phase_b")

        # The keyboard: focus the graph, walk down to a frame, Enter zooms to it and keeps
        # the focus there, Escape shows the whole graph again.
        br.eval("document.getElementById('flame').focus()")
        said = []
        for k in ["ArrowDown", "ArrowDown", "ArrowDown", "ArrowRight", "ArrowLeft"]:
            key(br, k)
            said.append(br.eval("document.getElementById('tip').textContent"))
        name = said[-1].split(" in ")[0].split(":")[0]
        shot(br, os.path.join(shots, "viewer-keys.png"))
        f0 = frame(br, name)
        key(br, "Enter")
        f = frame(br, name)
        focused = br.eval("document.activeElement && document.activeElement.id")
        key(br, "Escape")
        f1 = frame(br, name)
        check(said[0].startswith("all: ") and said[3] != said[2] and said[4] == said[2] and
              f0 is not None and f is not None and abs(f["w"] - full) < 1 and
              f0["w"] < full and focused == "flame" and f1 is not None and
              abs(f1["w"] - f0["w"]) < 1,
              "keys walk the graph (%s), Enter zooms to %s (%.0f -> %.0f px of %d, focus on "
              "%s), Escape zooms out (%.0f px)" % (said, name, f0["w"] if f0 else -1,
                                                   f["w"] if f else -1, full, focused,
                                                   f1["w"] if f1 else -1))

        # Hovering names a frame with its samples, share and interval.
        f = frame(br, "crunch")
        br.mouse("mouseMoved", f["x"] + f["w"] / 2, f["y"] + f["h"] / 2)
        tip = br.eval("document.getElementById('tip').textContent")
        check(tip.startswith("crunch in mkphases: total 500 samples, 31.3% (95% 29.0\u201333.6)"),
              "hovering crunch says '%s'" % tip)
        # Roots on top (icicle, the first view) or at the bottom (flame graph).
        click_el(br, "#icicle")
        r, m = frame(br, "all"), frame(br, "main_loop")
        check(r["y"] > m["y"], "'Roots on top' off: the root is drawn below its callees")
        click_el(br, "#icicle")
        r, m = frame(br, "all"), frame(br, "main_loop")
        check(r["y"] < m["y"], "'Roots on top' on again: the root is above")

        # Search: typed into the box, matches are painted and their share said.
        click_el(br, "#search")
        br.send("Input.insertText", {"text": "hash"})
        said = br.eval("document.getElementById('matched').textContent")
        f = frame(br, "hash_step")
        px = br.eval("Array.from(document.getElementById('flame').getContext('2d')"
                     ".getImageData(%d, %d, 1, 1).data)" % (f["x"] - br.eval(
                         "document.getElementById('flame').getBoundingClientRect().left")
                         + f["w"] / 2, f["y"] - br.eval(
                         "document.getElementById('flame').getBoundingClientRect().top") + 3))
        check(said == "Matched: 18.8%" and px[:3] == [230, 0, 230],
              "searching 'hash' says '%s' (18.8%% wanted) and paints hash_step %s"
              % (said, px[:3]))
        br.eval("(function () { var s = document.getElementById('search'); s.value = '';"
                " s.dispatchEvent(new Event('input')); })()")

        # Inverted: the leaves at the root, each followed by its callers.
        click_el(br, "#tab-inverted")
        rows_inv = br.eval("""Array.prototype.map.call(document.querySelectorAll(
            '#calltree tbody tr'), function (r) { return [r.getAttribute('aria-level'),
            r.cells[0].textContent.replace(/^[\\u25be\\u25b8]/, ''), r.cells[1].textContent]; })""")
        top = [r for r in rows_inv if r[0] == "1"]
        check(top[:2] == [["1", "phase_a", "37.5%"], ["1", "hash_step", "18.8%"]] and
              rows_inv[1] == ["2", "main_loop", "37.5%"],
              "the inverted tree starts at the leaves, phase_a then its caller main_loop: %s"
              % rows_inv[:3])

        # Sandwich: crunch's callers and callees.
        click_row(br, "hot", "crunch")
        callers = [(r[0].lstrip("\u25be\u25b8"), r[1]) for r in table(br, "callers")]
        callees = [(r[0].lstrip("\u25be\u25b8"), r[1]) for r in table(br, "callees")]
        # The callers end at the program the code ran in (a label frame).
        check(callers[:2] == [("worker_loop", "31.3%"), ("phases", "31.3%")] and
              callees == [("hash_step", "18.8%")],
              "the sandwich of crunch: callers %s, callees %s" % (callers, callees))
        shot(br, os.path.join(shots, "viewer-sandwich.png"))

        # The timeline: phase A in the first second, phase B in the next.
        cv = br.eval("""(function () { var r = document.querySelector('#timeline .track canvas')
            .getBoundingClientRect(); return { x: r.left, w: r.width, y: r.top + r.height / 2 };
            })()""")
        tend = br.eval("profilViewer.tEnd")
        mid = cv["x"] + cv["w"] * 1000.0 / tend
        drag(br, cv["x"] + 2, mid - 2, cv["y"])
        a = hot(br)
        shot(br, os.path.join(shots, "viewer-phase-a.png"))
        drag(br, mid + 2, cv["x"] + cv["w"] - 2, cv["y"])
        b = hot(br)
        check(a.get("phase_a", ("",))[0] == "66.7%" and "phase_b" not in a and
              "hash_step" not in a,
              "selecting the first half: phase_a 66.7%% of 900 samples, no phase B (%s)"
              % {k: v[0] for k, v in a.items()})
        check(b.get("phase_b", ("",))[0] == "42.9%" and b.get("hash_step", ("",))[0] == "42.9%"
              and "phase_a" not in b,
              "selecting the second half: phase_b and hash_step 42.9%% of 700 samples (%s)"
              % {k: v[0] for k, v in b.items()})
        click_el(br, "#clear")
        # Waiting apart: the worker's track paints its waits (phase A) blue-violet, its CPU
        # time orange; the main thread never waits.
        colours = br.eval("""(function () {
            var out = {};
            document.querySelectorAll('#timeline .track canvas').forEach(function (cv) {
                var g = cv.getContext('2d'), w = cv.width, say = [];
                [0.25, 0.75].forEach(function (at) {
                    var d = g.getImageData(Math.floor(w * at), 0, 1, cv.height).data, c = {};
                    for (var i = 0; i < d.length; i += 4)
                        if (d[i + 3] > 0) c[d[i] + ',' + d[i + 1] + ',' + d[i + 2]] = 1;
                    say.push(Object.keys(c).sort());
                });
                out[cv.parentNode.textContent.split(' ')[0]] = say;
            });
            return out; })()""")
        wait, cpu = "110,110,235", "230,120,40"
        wk, mn = colours.get("worker", [[], []]), colours.get("main", [[], []])
        check(wait in wk[0] and wait not in wk[1] and cpu in wk[0] and cpu in wk[1] and
              wait not in mn[0] + mn[1] and cpu in mn[0] and cpu in mn[1],
              "the tracks tell waiting (blue-violet) from CPU time (orange): %s" % colours)

        # Source lines of a function, from its binary's line table.
        click_row(br, "hot", "phase_a")
        click_el(br, "#do-lines")
        lines = table(br, "lines")
        check(len(lines) >= 1 and lines[0][0].split("/")[-1].startswith("mkphases.c:") and
              sum(int(r[1]) for r in lines) == 600 and lines[0][3] == "WORK(phase_a)",
              "the source lines of phase_a, with their text: %s" % lines)

        # A thread's track: its samples alone.
        click_el(br, ".track[data-thread] .label:not(:empty)")
        label = br.eval("document.querySelector('.track.on .label').textContent")
        w = hot(br)
        want = {"main": ("phase_a", "60.0%"), "worker": ("hash_step", "50.0%")}[label.split(" ")[0]]
        check(w.get(want[0], ("",))[0] == want[1],
              "a click on the track of %s keeps its samples: %s %s (got %s)"
              % (label, want[0], want[1], w.get(want[0])))
        click_el(br, "#clear")

        # Hide and focus.
        click_row(br, "hot", "phase_b")
        click_el(br, "#do-hide")
        h = hot(br)
        click_el(br, "#tab-flame")
        f = frame(br, "shared_call")
        m = frame(br, "main_loop")
        check("phase_b" not in h and h.get("shared_call", ("",))[0] == "6.25%" and
              f is not None and abs(f["y"] - m["y"] - m["h"] - 1) < 1,
              "hiding phase_b puts shared_call right on main_loop")
        click_el(br, "#clear")
        click_row(br, "hot", "worker_loop")
        click_el(br, "#do-focus")
        h = hot(br)
        check(h.get("hash_step", ("",))[0] == "50.0%" and "phase_a" not in h,
              "focusing on worker_loop keeps the stacks through it: hash_step 50.0%")
    finally:
        br.close()


def diff_checks(html, diff, shots):
    with open(diff) as f:
        rows = json.load(f)["rows"]
    br = open_viewer(html)
    try:
        shot(br, os.path.join(shots, "viewer-diff.png"))
        got = {r[0]: r[1] for r in table(br, "hot")}
        sig = [r["function"] for r in rows if r["beyond_noise"]]
        calm = [r["function"] for r in rows if not r["beyond_noise"]]
        ok = len(sig) > 0 and len(calm) > 0
        for r in rows:
            cell = got.get(r["function"], "")
            if cell.endswith("*") != r["beyond_noise"] or \
                    not cell.startswith("%+.2f" % r["diff"]):
                ok = False
                print("# %s: %s, report says %+.2f z %.2f" % (r["function"], cell, r["diff"],
                                                               r["z"]))
        check(ok, "the table marks %s beyond the noise and not %s, as the report does"
              % (sig, calm))
        said = [br.eval("""(function () { var f = profilViewer.frames().find(function (f) {
            return f.name === %s; }); return f ? 1 : 0; })()""" % json.dumps(n)) for n in sig]
        check(all(said), "the graph draws the significant frames %s" % sig)
    finally:
        br.close()


def hostile_checks(html):
    with open(html, encoding="utf-8") as f:
        page = f.read()
    data = page.split('<script type="application/json" id="profil-data">', 1)[1]
    data = data.split("</script>", 1)[0]
    try:
        d = json.loads(data)
    except ValueError:
        d = None
    check(d is not None and "<" not in data and "\u2028" not in data,
          "the data is one JSON text without '<' or U+2028, so no name ends its element")
    csp = page.split('http-equiv="Content-Security-Policy" content="', 1)[1].split('"', 1)[0]
    nonce = csp.split("script-src 'nonce-", 1)[-1].split("'", 1)[0]
    check("unsafe-inline" not in csp.split("script-src", 1)[1].split(";", 1)[0] and
          len(nonce) == 32 and page.count('<script nonce="%s">' % nonce) == 1,
          "the policy lets the page's own script alone run: %s" % csp)
    names = d["strings"] if d else []
    check(any("</script><script>window.pwned=1</script>" in s for s in names) and
          any("onerror=window.pwned=3" in s for s in names) and
          any("onerror=window.pwned=4" in s for s in names),
          "the JIT name, module path and thread name keep their markup as data")
    br = open_viewer(html)
    try:
        time.sleep(0.3)
        text = br.eval("document.body.innerText")
        pwned = br.eval("typeof window.pwned")
        imgs = br.eval("document.querySelectorAll('img').length")
        scripts = br.eval("document.querySelectorAll('script').length")
        check(pwned == "undefined" and imgs == 0 and scripts == 2,
              "no name ran: window.pwned %s, %d img elements, %d scripts" % (pwned, imgs, scripts))
        check("</script><script>window.pwned=1</script>" in text and
              "<img src=x onerror=window.pwned=4>" in text,
              "the names show as text in the tables")
    finally:
        br.close()


def multi_checks(html):
    br = open_viewer(html)
    try:
        title = br.eval("document.querySelector('h1').textContent")
        procs = br.eval("Array.prototype.map.call(document.querySelectorAll('.track.proc "
                        ".label'), function (l) { return l.textContent; })")
        threads = table(br, "threads")
        check(title.startswith("phases") and "2 processes" in title and len(procs) == 2 and
              len(threads) == 4, "two processes: title '%s', tracks %s, %d threads"
              % (title, procs, len(threads)))
        # A process's track selects its two threads: half the samples.
        click_el(br, ".track.proc .label")
        h = hot(br)
        check(h.get("phase_a", ("",))[0] == "37.5%" and
              br.eval("profilViewer.state.threads.size") == 2,
              "a click on a process's track selects its threads: phase_a %s" %
              (h.get("phase_a"),))
    finally:
        br.close()


def recording(dump):
    """From `profil dump` of a recording: the slot width (ms), each thread's name by tid, and
    per tid the most ticks it had in one slot."""
    slot, names, tid_of, per = None, {}, [], {}
    for line in open(dump):
        f = line.split()
        if f and f[0] == "thread":
            names[int(f[1])] = f[2] if len(f) > 2 else ""
        elif f and f[0] == "sample":
            tid_of.append(int(f[2]))
        elif f and f[0] == "time":
            slot = int(f[1]) / 1e6
            key = (tid_of[int(f[2])], int(f[3]))
            per[key] = per.get(key, 0) + int(f[4])
    peak = {}
    for (tid, _), c in per.items():
        peak[tid] = max(peak.get(tid, 0), c)
    return slot, names, peak


def hot_counts(br):
    """The opening table's samples in all and per function: (n, {function: (samples, share,
    95% interval as (low, high) in %)})."""
    cap = br.eval("document.querySelector('#hot caption').textContent")
    n = int(cap.split(" of ", 1)[1].split(" ", 1)[0])
    rows = {}
    for r in table(br, "hot"):
        lo, hi = r[2].split("\u2013")
        rows[r[0]] = (int(r[5]), r[1], (float(lo), float(hi)))
    return n, rows


def phase_apart(br, name, tid, t_sw, slot, peak, before, shots):
    """Selects thread name's track and drags over the timeline before its switch at t_sw ms (or
    after it): its first phase (or second) dominates the opening table, the other within what
    the slots around the switch and the binomial noise allow.  Returns (samples, share) of the
    phase that should dominate."""
    first, second = ("phase_a", "phase_b") if name != "b-then-a" else ("phase_b", "phase_a")
    want, other = (first, second) if before else (second, first)
    cv = br.eval("""(function () { var l = Array.prototype.find.call(
        document.querySelectorAll('.track[data-thread] .label'), function (l) {
            return l.textContent.split(' [')[0] === %s; });
        var r = l.parentNode.querySelector('canvas').getBoundingClientRect(),
            b = l.getBoundingClientRect();
        return { x: r.left, w: r.width, y: r.top + r.height / 2, lx: b.left + b.width / 2,
            ly: b.top + b.height / 2 }; })()""" % json.dumps(name))
    br.click(cv["lx"], cv["ly"])
    tend = br.eval("profilViewer.tEnd")
    xs = cv["x"] + cv["w"] * t_sw / tend
    # Whole pixels on the recording's side of the switch: the range ends short of it.
    if before:
        drag(br, cv["x"] + 1, int(xs) - 1, cv["y"])
    else:
        drag(br, int(xs) + 2, cv["x"] + cv["w"] - 1, cv["y"])
    r0, r1 = br.eval("profilViewer.state.range") or (0, 0)
    n, rows = hot_counts(br)
    ka, sa, (_, hi) = rows.get(want, (0, "-", (0, 0)))
    kb, sb, (lo, _) = rows.get(other, (0, "-", (0, 0)))
    # Ticks of the other phase the range may hold: the switch's slot and the one before (the
    # recorders' clocks map to the header's start within a slot, as tests/timecheck.py
    # allows), and the slots the range overhangs the switch by, each at most the thread's
    # busiest slot.
    over = max(0.0, r1 - t_sw) if before else max(0.0, t_sw - r0)
    c = (2 + math.ceil(over / slot)) * peak.get(tid, 0)
    rest = n - ka - kb
    first_row = table(br, "hot")[0][0] if n else ""
    shot(br, os.path.join(shots, "recording-%s-%s.png" % (name, "before" if before else
                                                           "after")))
    check(n > 0 and first_row == want and ka > n / 2 and
          hi >= 100.0 * (n - rest - c) / n and lo <= 100.0 * c / n,
          "%s, %.1f to %.1f ms (switch at %.1f, slot %.3g ms): %s first, %s (%d of %d "
          "samples, 95%% up to %.1f%%, wanted at least %.1f%%), %s %s (%d, 95%% from %.1f%%, "
          "at most %.2f%%: %d ticks of slots around the switch)"
          % (name, r0, r1, t_sw, slot, first_row, sa, ka, n, hi,
             100.0 * (n - rest - c) / n if n else 0, other, sb, kb, lo,
             100.0 * c / n if n else 0, c))
    click_el(br, "#clear")
    return ka


def recording_checks(html, report, dump, switches, shots):
    with open(report) as f:
        rows = json.load(f)["tables"][0]["rows"]
    slot, names, peak = recording(dump)
    sw = {}
    for line in open(switches):
        f = line.split()
        if len(f) == 3 and f[0] == "switch":
            sw[f[1]] = int(f[2])
    br = open_viewer(html)
    try:
        ok = agrees(br, rows)
        top = sorted(r[0] for r in table(br, "hot")[:2])
        check(ok and top == ["phase_a", "phase_b"],
              "the hottest functions are phase_a and phase_b, with the report's shares: %s"
              % top)
        labels = br.eval("Array.prototype.map.call(document.querySelectorAll("
                         "'.track[data-thread] .label'), function (l) {"
                         " return l.textContent; })")
        said = sorted(l.split(" [")[0] for l in labels)
        # The main thread waits in pthread_join: it may have no sample, hence no track.
        check(slot is not None and set(said) <= set(names.values()) and
              all(said.count(t) == 1 for t in sw) and len(sw) == 2,
              "a track per thread, named as the threads were: %s (threads %s)"
              % (labels, sorted(names.values())))
        start = int(br.eval("JSON.parse(document.getElementById('profil-data')"
                            ".textContent).start_ns"))
        for name in sorted(sw):
            tid = [t for t, n in names.items() if n == name]
            if slot is None or len(tid) != 1 or name not in said:
                check(False, "%s: a track and times to select" % name)
                continue
            t_sw = (sw[name] - start) / 1e6
            phase_apart(br, name, tid[0], t_sw, slot, peak, True, shots)
            phase_apart(br, name, tid[0], t_sw, slot, peak, False, shots)
    finally:
        br.close()


def inline_checks(html, report):
    """Code inlined into a function is that function's machine code: the opening table gives
    its self time to the host, as the report's flat view does, and has no row of its own."""
    with open(report) as f:
        rows = json.load(f)["tables"][0]["rows"]
    br = open_viewer(html)
    try:
        ok = agrees(br, rows)
        names = set(hot(br))
        check(ok and "hot_inline" in names and "inl_add" not in names,
              "inlined inl_add counts in hot_inline, with the report's shares: %s"
              % sorted(names))
    finally:
        br.close()


def main():
    mode = sys.argv[1]
    if mode == "main":
        main_checks(*sys.argv[2:5])
    elif mode == "diff":
        diff_checks(*sys.argv[2:5])
    elif mode == "recording":
        recording_checks(*sys.argv[2:7])
    elif mode == "multi":
        multi_checks(sys.argv[2])
    elif mode == "inline":
        inline_checks(*sys.argv[2:4])
    else:
        hostile_checks(sys.argv[2])
    return 1 if browser.failures else 0


if __name__ == "__main__":
    sys.exit(main())
