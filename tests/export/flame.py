#!/usr/bin/env python3
"""flame.py SVG PNG FRAME MODULE FRAME_SAMPLES MATCH MATCH_SAMPLES TOTAL

Opens a flame graph written by `profil export --format=svg` in headless Chromium and drives it
the way a person would, through the DevTools protocol on --remote-debugging-pipe (JSON messages
ended by NUL, commands on fd 3, answers on fd 4): no extra package, only the browser.  Prints
one TAP line per check, for tests/lib.sh:

- the graph renders (the root spans the width) and a screenshot (written to PNG) shows it:
  many pixels in the frames' colours (grey frames and the background not counted);
- hovering FRAME shows "FRAME in MODULE (FRAME_SAMPLES samples, P%)" with P of TOTAL;
- a real mouse click on FRAME zooms: FRAME then spans the full width, its siblings are hidden;
- typing MATCH in the search box highlights the matching frames and reports their share,
  MATCH_SAMPLES of TOTAL;
- "Reset zoom" restores the first layout.
"""
import base64
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser  # noqa: E402

WIDTH = 1200
FULL = WIDTH - 2 * 10
check = browser.check
png_pixels = browser.png_pixels


class Browser(browser.Browser):
    """browser.Browser that opens flame graphs: open() waits for the graph's script."""

    def open(self, path, width, height):
        """Opens file path in a new page of width x height and waits for the graph's script."""
        target = self.send("Target.createTarget", {"url": "file://" + os.path.abspath(path)})
        self.session = self.send("Target.attachToTarget",
                                 {"targetId": target["targetId"], "flatten": True},
                                 session=False)["sessionId"]
        # A new target's viewport need not be the window's: make it the size asked.
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.eval("document.readyState === 'complete' && typeof boxes !== 'undefined'"):
                break
            time.sleep(0.05)


def box(br, name):
    """The bounding box and state of the first frame named name."""
    return br.eval("""(function () {
        var g = Array.prototype.find.call(document.querySelectorAll('g.f'),
            function (g) { return g.getAttribute('data-name') === %s; });
        if (!g) return null;
        var r = g.querySelector('rect'), b = r.getBoundingClientRect();
        return { x: b.left, y: b.top, w: b.width, h: b.height, cls: g.getAttribute('class'),
                 width: +r.getAttribute('width'), fill: r.getAttribute('fill') };
    })()""" % json.dumps(name))


def main():
    svg, png, frame, module, frame_n, match, match_n, total = sys.argv[1:9]
    frame_n, match_n, total = int(frame_n), int(match_n), int(total)
    with open(svg) as f:
        head = f.read(4096)
    height = int(head.split('height="', 1)[1].split('"', 1)[0])
    br = Browser(height)
    try:
        br.open(svg, WIDTH, height)
        root = box(br, "all")
        check(root is not None and abs(root["w"] - FULL) < 0.5,
              "the graph renders: the root frame spans %s of %d px" %
              (root and round(root["w"], 1), FULL))

        shot = base64.b64decode(br.send("Page.captureScreenshot", {"format": "png"})["data"])
        with open(png, "wb") as f:
            f.write(shot)
        w, h, rows = png_pixels(shot)
        coloured = sum(1 for row in rows for px in row if max(px) - min(px) >= 40)
        check(w == WIDTH and h == height and coloured >= FULL * 12,
              "the screenshot (%dx%d) shows the frames: %d pixels in their colours"
              % (w, h, coloured))

        b = box(br, frame)
        br.mouse("mouseMoved", b["x"] + b["w"] / 2, b["y"] + b["h"] / 2)
        want = "%s in %s (%d samples, %.2f%%)" % (frame, module, frame_n, 100.0 * frame_n / total)
        got = br.eval("document.getElementById('details').textContent")
        check(got == want, "hovering %s shows '%s' (got '%s')" % (frame, want, got))

        before = b["w"]
        br.click(b["x"] + b["w"] / 2, b["y"] + b["h"] / 2)
        a = box(br, frame)
        hidden = br.eval("document.querySelectorAll('g.f.hidden').length")
        check(abs(a["w"] - FULL) < 0.5 and before < FULL - 1 and hidden > 0,
              "a click on %s zooms: its width %.1f -> %.1f px of %d, %d frames beside it hidden"
              % (frame, before, a["w"], FULL, hidden))
        shot = base64.b64decode(br.send("Page.captureScreenshot", {"format": "png"})["data"])
        with open(png.replace(".png", "-zoomed.png"), "wb") as f:
            f.write(shot)

        s = br.eval("(function () { var b = document.getElementById('search')"
                    ".getBoundingClientRect(); return { x: b.left + 20, y: b.top + 8 }; })()")
        br.click(s["x"], s["y"])
        br.send("Input.insertText", {"text": match})
        got = br.eval("document.getElementById('matched').textContent")
        want = "Matched: %.2f%%" % (100.0 * match_n / total)
        m = box(br, match)
        check(got == want and m["fill"] == "rgb(230,0,230)",
              "searching '%s' highlights it and says '%s' (got '%s', fill %s)"
              % (match, want, got, m["fill"]))

        r = br.eval("(function () { var b = document.getElementById('reset')"
                    ".getBoundingClientRect(); return { x: b.left + 5, y: b.top + 5 }; })()")
        br.click(r["x"], r["y"])
        a = box(br, frame)
        check(abs(a["w"] - before) < 0.5 and br.eval(
              "document.querySelectorAll('g.f.hidden').length") == 0,
              "Reset zoom restores %s to %.1f px (got %.1f)" % (frame, before, a["w"]))
    finally:
        br.close()
    return 1 if browser.failures else 0


if __name__ == "__main__":
    sys.exit(main())
