#!/usr/bin/env python3
"""speedscope.py SPEEDSCOPE_DIR FOLDED OUT.tsv

Imports a folded-stacks file into speedscope (the npm package's own web app, as its command line
`speedscope FILE` loads it: index.html#localProfilePath= a script calling
speedscope.loadFileFromBase64), in headless Chromium over the DevTools pipe (browser.py), opens
the Sandwich view and writes the table speedscope computed, one "symbol<TAB>total<TAB>self" line
per row, to OUT.tsv.  Prints one TAP line: the file was imported (the title names it).
"""
import base64
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser  # noqa: E402

WIDTH = 1200

HEIGHT = 900


def main():
    app, folded, out = sys.argv[1:4]
    name = os.path.basename(folded)
    with open(folded, "rb") as f:
        data = base64.b64encode(f.read()).decode()
    loader = os.path.abspath(folded) + ".load.js"
    with open(loader, "w") as f:
        f.write("speedscope.loadFileFromBase64(%s, %s)" % (json.dumps(name), json.dumps(data)))
    url = "file://%s/dist/release/index.html#localProfilePath=%s" % (os.path.abspath(app), loader)
    br = browser.Browser(HEIGHT, WIDTH)
    rows = []
    try:
        target = br.send("Target.createTarget", {"url": url})
        br.session = br.send("Target.attachToTarget",
                             {"targetId": target["targetId"], "flatten": True},
                             session=False)["sessionId"]
        br.send("Emulation.setDeviceMetricsOverride",
                {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})
        title = ""
        deadline = time.time() + 20
        while time.time() < deadline and name not in title:
            time.sleep(0.1)
            title = br.eval("document.title")
        browser.check(title == name + " - speedscope", "speedscope imported %s (title '%s')"
                    % (name, title))
        tab = br.eval("""(function () {
            var e = Array.prototype.find.call(document.querySelectorAll('div, span, button, a'),
                function (x) { return /Sandwich$/.test(x.textContent) && x.textContent.length < 12
                               && x.children.length <= 1; });
            if (!e) return null;
            var r = e.getBoundingClientRect();
            return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
        })()""")
        if tab is not None:
            br.click(tab["x"], tab["y"])
        text = ""
        deadline = time.time() + 10
        while time.time() < deadline and "Symbol Name" not in text:
            time.sleep(0.1)
            text = br.eval("document.body.innerText")
        lines = [l.strip() for l in text.split("Symbol Name", 1)[-1].splitlines() if l.strip()]
        # Each row reads "TOTAL (P%)", "SELF (P%)", "NAME".
        for i in range(0, len(lines) - 2, 3):
            total, self_, sym = lines[i], lines[i + 1], lines[i + 2]
            rows.append("%s\t%s\t%s" % (sym, total.split(" ")[0].replace(",", ""),
                                        self_.split(" ")[0].replace(",", "")))
    finally:
        br.close()
        os.unlink(loader)
    with open(out, "w") as f:
        f.write("".join(r + "\n" for r in rows))
    return 1 if browser.failures else 0


if __name__ == "__main__":
    sys.exit(main())
