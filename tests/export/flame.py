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
import struct
import subprocess
import sys
import tempfile
import time
import zlib

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
WIDTH = 1200
FULL = WIDTH - 2 * 10
failures = 0


def check(ok, what):
    global failures
    print(("ok - " if ok else "not ok - ") + what, flush=True)
    if not ok:
        failures += 1
    return ok


class Browser:
    def __init__(self, height, width=WIDTH):
        self.profile = tempfile.mkdtemp(prefix="profil-chromium.")
        r3, self.w3 = os.pipe()
        self.r4, w4 = os.pipe()

        def fds():
            # Copies first: the pipe may itself sit on fd 3 or 4, and a dup2 onto the same
            # number would keep its close-on-exec flag.
            a, b = os.dup(r3), os.dup(w4)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--user-data-dir=" + self.profile,
             "--window-size=%d,%d" % (width, height), "--remote-debugging-pipe", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=None if os.environ.get("FLAME_DEBUG") else subprocess.DEVNULL,
            preexec_fn=fds, close_fds=False)
        os.close(r3)
        os.close(w4)
        self.next_id = 0
        self.buf = b""
        self.session = None

    def send(self, method, params=None, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.w3, json.dumps(msg).encode() + b"\0")
        while True:
            while b"\0" not in self.buf:
                chunk = os.read(self.r4, 1 << 16)
                if not chunk:
                    raise RuntimeError("chromium closed the pipe")
                self.buf += chunk
            raw, self.buf = self.buf.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError("%s: %s" % (method, answer["error"]))
                return answer["result"]

    def eval(self, expr):
        res = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True})
        if "exceptionDetails" in res:
            raise RuntimeError("%s: %s" % (expr, res["exceptionDetails"]))
        return res["result"].get("value")

    def mouse(self, kind, x, y):
        params = {"type": kind, "x": x, "y": y, "button": "left",
                  "clickCount": 1 if kind != "mouseMoved" else 0}
        if kind == "mouseMoved":
            params["button"] = "none"
        self.send("Input.dispatchMouseEvent", params)

    def click(self, x, y):
        self.mouse("mouseMoved", x, y)
        self.mouse("mousePressed", x, y)
        self.mouse("mouseReleased", x, y)

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

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        subprocess.run(["rm", "-rf", self.profile])


def png_pixels(data):
    """(width, height, rows of (r, g, b)) of an 8-bit RGB or RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    assert depth == 8 and ctype in (2, 6), "unexpected PNG type"
    bpp = 3 if ctype == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, bpp)])
        prev = line
    return w, h, rows


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
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
