#!/usr/bin/env python3
"""browser.py - headless Chromium driven over the DevTools protocol on --remote-debugging-pipe
(JSON messages ended by NUL, commands on fd 3, answers on fd 4): no extra package, only the
browser.  Shared by the tests that open pages in a real browser (flame.py, speedscope.py,
viewer.py): Browser, check (one TAP line per check) and png_pixels (a screenshot's pixels).
"""
import json
import os
import struct
import subprocess
import tempfile
import time
import zlib

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
failures = 0


def check(ok, what):
    global failures
    print(("ok - " if ok else "not ok - ") + what, flush=True)
    if not ok:
        failures += 1
    return ok


class Browser:
    def __init__(self, height, width=1200):
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




def open_page(url, width, height, ready="document.readyState === 'complete'", timeout=20):
    """A browser showing url in a viewport of width x height once ready (an expression) holds,
    and how long that took in seconds (None when it never did)."""
    br = Browser(height, width)
    t0 = time.time()
    target = br.send("Target.createTarget", {"url": "about:blank"})
    br.session = br.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True},
                         session=False)["sessionId"]
    # A new target's viewport need not be the window's.
    br.send("Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
    t0 = time.time()
    br.send("Page.navigate", {"url": url})
    took = None
    deadline = t0 + timeout
    while time.time() < deadline:
        try:
            if br.eval(ready):
                took = time.time() - t0
                break
        except RuntimeError:
            pass
        time.sleep(0.02)
    return br, took
