#!/usr/bin/env python3
"""firstscreen.py SVG PNG PROGRAM

What a person sees on opening a flame graph written by `profil export --format=svg`: headless
Chromium (flame.py's Browser, over the DevTools pipe) opens it in a 1400x900 window, scrolls
nowhere and takes a screenshot (written to PNG).  Prints one TAP line per check:

- the title names PROGRAM and is on the first screen;
- the root ("all") and the 20 widest frames are on the first screen, whole (their boxes from
  the DOM, not pixels), and PROGRAM is the widest frame under the root;
- the screenshot shows frames in their colours (as flame.py counts them);
- hovering PROGRAM's frame writes its details where they can be read: on the first screen.
"""
import base64
import re
import sys

from flame import Browser, check, png_pixels, box
import flame

W, H = 1400, 900


def visible(b):
    return b is not None and b["y"] >= 0 and b["y"] + b["h"] <= H and b["x"] >= 0 and \
        b["x"] + b["w"] <= W


def main():
    svg, png, program = sys.argv[1:4]
    br = Browser(H, W)
    try:
        br.open(svg, W, H)
        title = br.eval("""(function () { var t = document.getElementById('title'),
            b = t.getBoundingClientRect();
            return { text: t.textContent, x: b.left, y: b.top, w: b.width, h: b.height }; })()""")
        check(re.match(re.escape(program) + r"( \[|: )", title["text"]) and visible(title),
              "the title names %s first, on the first screen: '%s' at y %.0f"
              % (program, title["text"], title["y"]))

        frames = br.eval("""Array.prototype.map.call(document.querySelectorAll('g.f'),
            function (g) { var b = g.querySelector('rect').getBoundingClientRect();
                return { name: g.getAttribute('data-name'), w: +g.getAttribute('data-w'),
                         d: +g.getAttribute('data-d'), x: b.left, y: b.top, h: b.height,
                         pw: b.width }; })""")
        height = br.eval("document.documentElement.getBoundingClientRect().height")
        print("# %d frames drawn, %d levels, the graph %.0f px tall"
              % (len(frames), max(f["d"] for f in frames) + 1, height))
        root = [f for f in frames if f["d"] == 0][0]
        check(root["name"] == "all" and visible(dict(root, w=root["pw"])),
              "the root is on the first screen: y %.0f of %d" % (root["y"], H))
        widest = sorted(frames, key=lambda f: (-f["w"], f["d"]))[:20]
        off = [f for f in widest if not visible(dict(f, w=f["pw"]))]
        for f in widest:
            print("#   %-40s %8d samples, depth %3d, y %5.0f" % (f["name"][:40], f["w"], f["d"],
                                                               f["y"]))
        check(not off, "the 20 widest frames are on the first screen (%d are not%s)"
              % (len(off), ": " + ", ".join("%s at y %.0f" % (f["name"], f["y"]) for f in off[:3])
                 if off else ""))
        top = sorted((f for f in frames if f["d"] == 1), key=lambda f: -f["w"])
        check(top and top[0]["name"] == program,
              "%s is the widest frame under the root (got %s)"
              % (program, ", ".join("%s %d" % (f["name"], f["w"]) for f in top[:3])))

        shot = base64.b64decode(br.send("Page.captureScreenshot", {"format": "png"})["data"])
        with open(png, "wb") as f:
            f.write(shot)
        w, h, rows = png_pixels(shot)
        coloured = sum(1 for row in rows for px in row if max(px) - min(px) >= 40)
        check(w == W and h == H and coloured >= (W - 200) * 100,
              "the screenshot (%dx%d) shows frames: %d pixels in their colours" % (w, h, coloured))

        b = box(br, program) or {"x": -1, "y": -1, "w": 0, "h": 0}
        br.mouse("mouseMoved", b["x"] + b["w"] / 2, b["y"] + b["h"] / 2)
        d = br.eval("""(function () { var t = document.getElementById('details'),
            b = t.getBoundingClientRect();
            return { text: t.textContent, x: b.left, y: b.top, w: b.width, h: b.height }; })()""")
        check(d["text"].startswith(program + " (") and visible(d),
              "hovering %s shows '%s' on the first screen, at y %.0f" % (program, d["text"], d["y"]))
    finally:
        br.close()
    return 1 if flame.browser.failures else 0


if __name__ == "__main__":
    sys.exit(main())
